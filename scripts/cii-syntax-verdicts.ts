// Writes the official verdicts (CEN EN 16931 CII 1.3.16 alone, each assertion with its own flag) of the CII test
// documents and of their seeded mutants (packages/core/test/support/cii-syntax-mutations.ts) for the CEN CII syntax
// and code list rules: packages/core/test/fixtures/official-cii-syntax-mutants.jsonl, one line a document,
// {id, sha256, changes, fatal, warning} with the ids of CII-SR-*, CII-DT-* and BR-CL-* only, or {id, sha256, error}
// when the official rules stop with a dynamic error. When the whole set stops with one (mostly in the model pattern:
// a repeated amount), the verdict is that of the syntax and code list patterns run on their own (`patternsOnly`
// gives the whole set's error). Test-time only; the product never runs the official rules.
//
//   pnpm exec tsx --conditions=source scripts/cii-syntax-verdicts.ts [--from N] [--to M] [--errors]
//
// --from/--to judge a slice of the documents (SaxonJS is slow; the machine is shared) and keep the other lines of
// the file as they are; --errors judges again only the documents the file has no verdict of.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { CII_RULESETS, officialCiiPatternsVerdict, officialCiiRuleSetVerdict } from "../packages/core/test/support/official-cii.js";
import { CII_SYNTAX_CORPUS, CII_SYNTAX_PER_BASE, CII_SYNTAX_SEED, ciiSyntaxDocuments } from "../packages/core/test/support/cii-syntax-mutations.js";

const FIXTURE = new URL("../packages/core/test/fixtures/official-cii-syntax-mutants.jsonl", import.meta.url);
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
};
const ours = (id: string) => /^(CII-SR|CII-DT|BR-CL)-/.test(id);

const docs = ciiSyntaxDocuments(CII_SYNTAX_CORPUS(), CII_SYNTAX_PER_BASE, CII_SYNTAX_SEED);
const from = arg("--from", 0), to = Math.min(arg("--to", docs.length), docs.length);
const kept = new Map<string, string>();
if (existsSync(FIXTURE)) for (const line of readFileSync(FIXTURE, "utf8").split("\n").filter(Boolean)) kept.set(JSON.parse(line).id, line);
const started = Date.now();
const errorsOnly = process.argv.includes("--errors");
const message = (e: unknown) => String((e as Error).message ?? e).slice(0, 200);
docs.slice(from, to).forEach((d, i) => {
  if (errorsOnly && !kept.get(d.id)?.includes('"error"')) return;
  let line: string;
  const base = { id: d.id, sha256: d.sha256, changes: d.changes };
  try {
    const v = officialCiiRuleSetVerdict(CII_RULESETS.cen, d.xml);
    line = JSON.stringify({ ...base, fatal: v.fatal.filter(ours), warning: v.warning.filter(ours) });
  } catch (e) {
    // The whole set stops with a dynamic error, mostly in the model pattern (a repeated amount): judge the syntax
    // (M11) and code list (M12) patterns on their own, which is their verdict; if they stop too, there is none.
    try {
      const v = officialCiiPatternsVerdict(CII_RULESETS.cen, d.xml, ["M11", "M12"]);
      line = JSON.stringify({ ...base, patternsOnly: message(e), fatal: v.fatal.filter(ours), warning: v.warning.filter(ours) });
    } catch (e2) {
      line = JSON.stringify({ ...base, error: message(e2) });
    }
  }
  kept.set(d.id, line);
  if ((i + 1) % 50 === 0) console.log(`${from + i + 1}/${docs.length} (${Math.round((Date.now() - started) / 1000)} s)`);
});
const lines = docs.map((d) => kept.get(d.id)).filter((l): l is string => l !== undefined);
writeFileSync(FIXTURE, lines.join("\n") + "\n");
console.log(`${lines.length} of ${docs.length} documents judged in the file`);
