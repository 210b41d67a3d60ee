// Developer tool: rewrites, in packages/core/test/fixtures/official-verdicts.jsonl, the lines of the
// corpus documents whose CustomizationID names a national CIUS the official rules of testdata/rules
// cover (NATIONAL_OFFICIAL in packages/core/test/support/official.ts): their official verdict is CEN
// plus that national set. Every other line is left as it is.
//   tsx --conditions=source scripts/national-verdicts.ts
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { CORPUS_DIR } from "../testdata/index.js";
import { NATIONAL_OFFICIAL, officialVerdict } from "../packages/core/test/support/official.js";

const file = resolve(import.meta.dirname, "../packages/core/test/fixtures/official-verdicts.jsonl");
let changed = 0, national = 0;
const lines = readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => {
  const v = JSON.parse(line) as { file: string; customizationId?: string | null; error?: string };
  if (v.error || !v.customizationId || !NATIONAL_OFFICIAL[v.customizationId]) return line;
  national++;
  const verdict = officialVerdict(readFileSync(join(CORPUS_DIR, v.file), "utf8"));
  const next = JSON.stringify({ ...v, ruleSets: verdict.ruleSets, fatal: verdict.fatal, warning: verdict.warning });
  if (next !== line) changed++;
  return next;
});
writeFileSync(file, lines.join("\n") + "\n");
console.log(`${national} national documents, ${changed} lines changed`);
