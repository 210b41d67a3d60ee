// Runs rule families over a document model and collects what they report.
import type { DocumentRoot } from "./rulesets/types.js";
import { locationOf, rootElementOf, type Finding, type RuleContext, type RuleFamily, type DocumentNode } from "../document/model.js";

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
  root: DocumentNode,
  families: Iterable<RuleFamily>,
  maxPerFlag = Infinity,
  levels: Readonly<Record<string, "fatal" | "warning" | "information">> | null = null,
): RuleRun {
  const ctx = new Run(root, maxPerFlag, levels);
  for (const family of families) family(ctx);
  ctx.run.counts = [...ctx.counts.values()];
  return ctx.run;
}

/**
 * The context of one run. `report` and `fatal` are bound once per document (the families pass them
 * around as functions): no closure is made per document (under tsx, which the bench runs, each named
 * closure also costs esbuild's keepNames a call to set its name).
 */
class Run implements RuleContext {
  readonly rootElement: DocumentRoot;
  readonly counts = new Map<string, RuleCount>();
  readonly run: RuleRun;
  readonly report: RuleContext["report"];
  readonly fatal: RuleContext["fatal"];

  constructor(
    readonly root: DocumentNode,
    private readonly maxPerFlag: number,
    private readonly levels: Readonly<Record<string, "fatal" | "warning" | "information">> | null,
  ) {
    this.rootElement = rootElementOf(root);
    this.run = { findings: [], counts: [], errorCount: 0, warningCount: 0 };
    this.report = this.add.bind(this);
    this.fatal = this.addFatal.bind(this);
  }

  private addFatal(rule: string, message: string, node: DocumentNode | null): void {
    this.add(rule, "fatal", message, node);
  }

  private add(rule: string, own: "fatal" | "warning", message: string, node: DocumentNode | null): void {
    // A validator configuration may report a rule at another level, or not at all ("information").
    const level = this.levels?.[rule] ?? own;
    if (level === "information") return;
    const flag = level;
    const key = `${flag} ${rule}`;
    const c = this.counts.get(key);
    if (c) c.count++;
    else this.counts.set(key, { rule, flag, count: 1 });
    const kept = flag === "fatal" ? this.run.errorCount++ : this.run.warningCount++;
    if (kept < this.maxPerFlag) this.run.findings.push({ rule, flag, message, location: locationOf(node ?? this.root) });
  }
}

/** Runs every family on `root` and returns the findings in the order reported. */
export function runRules(root: DocumentNode, families: Iterable<RuleFamily>): Finding[] {
  return runRulesCounted(root, families).findings;
}
