// Rule family: UBL.BE 1.31's syntax warnings. GLOBALUBL.BE repeats most of CEN's UBL-CR-* and UBL-DT-* warnings under
// lower-case ids (ubl-CR-005 is UBL-CR-005, "the document should not contain cbc:UUID"), and the official verdict
// reports both. The ones it words exactly as CEN 1.3.16 does (codelists/ublbe.ts SYNTAX_WARNINGS_CARRIED, found by
// the generator by comparing the two rule files) fire exactly where CEN's do, so CEN's syntax family runs again here
// and its findings for those rules are reported under UBL.BE's id. UBL.BE's own are written out: ubl-CR-384 (no
// promised delivery period). The rest of UBL.BE's renamed warnings name elements UBL does not have (misspelt paths
// such as cbc:Xpath or cac:Item/cac:Price), so they cannot fire on a UBL document; CEN's UBL-CR-119, 202, 477, 504,
// 561 and 597, among others, have no UBL.BE copy.
import { select, type RuleContext, type RuleFamily } from "../../document/model.js";
import { SYNTAX_WARNINGS_CARRIED } from "../codelists/ublbe.js";
import { isUblRoot } from "./cen-common.js";
import { cenSyntaxRules } from "./cen-syntax.js";

const CARRIED = new Set(SYNTAX_WARNINGS_CARRIED);

export const ublbeSyntaxRules: RuleFamily = (ctx) => {
  const renamed: RuleContext = {
    ...ctx,
    report(rule, flag, message, node) {
      if (CARRIED.has(rule)) ctx.report(`ubl${rule.slice(3)}`, flag, message, node);
    },
  };
  cenSyntaxRules(renamed);
  if (isUblRoot(ctx.root) && select(ctx.root, "cac:Delivery/cac:PromisedDeliveryPeriod").length > 0) {
    ctx.report("ubl-CR-384", "warning", "A UBL.BE document should not include a promised delivery period (cac:Delivery/cac:PromisedDeliveryPeriod).", ctx.root);
  }
};
