// The official verdicts of seeded mutants of the CII test documents (packages/core/test/support/cii-mutations.ts) for the
// CEN CII model pattern's rules (BR-*, BR-CO-*, BR-DEC-*, the VAT category rules; not BR-CL-*), from the official CEN CII
// rules 1.3.16 under SaxonJS (test/support/official-cii.ts). Writes packages/core/test/fixtures/official-cii-model-mutants.jsonl:
// one line a mutant, {id, base, mutations, sha256 (of the mutant, 16 hex digits), fatal, warning}, or {id, base, mutations, sha256, error} when the official rules stop
// on it (an XPath dynamic error: no verdict). The test rebuilds the mutants from the same seeds and compares.
// Run: pnpm exec tsx --conditions=source scripts/cii-model-verdicts.ts [--seeds 1,2,3,4] [--count 300] [--compare]
//   --compare also prints where our families disagree (a development aid; the test is rules-cii-model.test.ts).
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { CII_RULESETS, officialCiiRuleSetFindings } from "../packages/core/test/support/official-cii.js";
import { ciiMutants, isModelRule, ourCiiModelVerdict } from "../packages/core/test/support/cii-mutations.js";

const args = process.argv.slice(2);
const opt = (n: string) => { const i = args.indexOf(n); return i >= 0 ? args[i + 1] : undefined; };
const MUTANT_SEEDS = (opt("--seeds") ?? "1,2,3,4").split(",").map(Number);
const count = Number(opt("--count") ?? 300);
const compare = args.includes("--compare");
const out = opt("--out") ?? new URL("../packages/core/test/fixtures/official-cii-model-mutants.jsonl", import.meta.url).pathname;

const lines: string[] = [];
let judged = 0, agree = 0, errors = 0;
for (const seed of MUTANT_SEEDS) {
  for (const m of ciiMutants(seed, count)) {
    const head = { id: m.id, base: m.base, mutations: m.mutations, sha256: createHash("sha256").update(m.xml).digest("hex").slice(0, 16) };
    let theirs: { fatal: string[]; warning: string[] };
    try {
      const all = officialCiiRuleSetFindings(CII_RULESETS.cen, m.xml);
      theirs = { fatal: all.fatal.filter(isModelRule), warning: all.warning.filter(isModelRule) };
    } catch (e) {
      errors++;
      lines.push(JSON.stringify({ ...head, error: String((e as Error).message ?? e).slice(0, 200) }));
      continue;
    }
    judged++;
    lines.push(JSON.stringify({ ...head, ...theirs }));
    if (!compare) continue;
    const ours = ourCiiModelVerdict(m.xml);
    const key = (v: { fatal: string[]; warning: string[] }) => JSON.stringify(v);
    if (key(ours) === key(theirs)) { agree++; continue; }
    const missing = [...theirs.fatal, ...theirs.warning].filter((r) => !ours.fatal.includes(r) && !ours.warning.includes(r));
    const extra = [...ours.fatal, ...ours.warning].filter((r) => !theirs.fatal.includes(r) && !theirs.warning.includes(r));
    console.log(`${m.id} ${m.base}: missing [${missing}] extra [${extra}] after ${m.mutations.join("; ")}`);
  }
}
writeFileSync(out, lines.join("\n") + "\n");
console.log(`${lines.length} mutants, ${judged} with an official verdict, ${errors} where the official rules stop${compare ? `; ours agree on ${agree}/${judged}` : ""}`);
