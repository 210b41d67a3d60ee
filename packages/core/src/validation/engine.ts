// Runs rule families over a document model and collects what they report.
import { locationOf, type Finding, type RuleContext, type RuleFamily, type UblNode } from "../document/model.js";

/** Runs every family on `root` and returns the findings in the order reported. */
export function runRules(root: UblNode, families: Iterable<RuleFamily>): Finding[] {
  const findings: Finding[] = [];
  const ctx: RuleContext = {
    root,
    documentType: root.name === "CreditNote" ? "CreditNote" : "Invoice",
    report(rule, flag, message, node) {
      findings.push({ rule, flag, message, location: locationOf(node ?? root) });
    },
  };
  for (const family of families) family(ctx);
  return findings;
}
