// The rule-set registry: every rule set einvoice checks, one line each. Adding a set is one module
// (see types.ts) and one line here; select.ts picks the sets that apply to a document.
import { cen } from "./cen.js";
import { cenCii } from "./cen-cii.js";
import { nlcius } from "./nlcius.js";
import { peppol } from "./peppol.js";
import type { RuleSet } from "./types.js";
import { ublbe } from "./ublbe.js";
import { xrechnung } from "./xrechnung.js";
import { xrechnungCii } from "./xrechnung-cii.js";

export type { RuleLevel, RuleSet } from "./types.js";

export const RULE_SETS: readonly RuleSet[] = [
  cen,
  peppol,
  nlcius,
  ublbe,
  xrechnung,
  cenCii,
  xrechnungCii,
];
