// Runs rule families over a document model and collects what they report.
import { locationOf, type Finding, type RuleContext, type RuleFamily, type UblNode } from "../document/model.js";

/** How many times one rule was broken. */
export interface RuleCount {
  rule: string;
  flag: "fatal" | "warning";
  count: number;
}

/** What a run found: the first findings of each flag, and the count of every broken rule. */
export interface RuleRun {
  /** In the order reported: at most `maxPerFlag` fatal ones and as many warnings. */
  findings: Finding[];
  /** Every broken rule with its flag and how many times, in the order first reported. */
  counts: RuleCount[];
  errorCount: number;
  warningCount: number;
}

/**
 * Runs every family on `root`: the findings in the order reported, the first `maxPerFlag` of each
 * flag only (memory stays bounded however many a document breaks), and the count of every rule.
 * `levels` gives some rules another flag, or drops them ("information").
 */
export function runRulesCounted(
  root: UblNode,
  families: Iterable<RuleFamily>,
  maxPerFlag = Infinity,
  levels: Readonly<Record<string, "fatal" | "warning" | "information">> | null = null,
): RuleRun {
  const findings: Finding[] = [];
  const counts = new Map<string, RuleCount>();
  const run: RuleRun = { findings, counts: [], errorCount: 0, warningCount: 0 };
  const ctx: RuleContext = {
    root,
    rootElement: root.name === "CreditNote" ? "CreditNote" : "Invoice",
    fatal: (rule, message, node) => ctx.report(rule, "fatal", message, node),
    report(rule, own, message, node) {
      // A validator configuration may report a rule at another level, or not at all ("information").
      const level = levels?.[rule] ?? own;
      if (level === "information") return;
      const flag = level;
      const key = `${flag} ${rule}`;
      const c = counts.get(key);
      if (c) c.count++;
      else counts.set(key, { rule, flag, count: 1 });
      const kept = flag === "fatal" ? run.errorCount++ : run.warningCount++;
      if (kept < maxPerFlag) findings.push({ rule, flag, message, location: locationOf(node ?? root) });
    },
  };
  for (const family of families) family(ctx);
  run.counts = [...counts.values()];
  return run;
}

/** Runs every family on `root` and returns the findings in the order reported. */
export function runRules(root: UblNode, families: Iterable<RuleFamily>): Finding[] {
  return runRulesCounted(root, families).findings;
}
