// Rebuilds testdata/ublbe/{corpus,mutant}-verdicts.jsonl: the official verdicts (CEN 1.3.16 + GLOBALUBL.BE 1.31) on
// the corpus UBL.BE documents and on their mutants (packages/core/test/support/ublbe-mutants.ts). The official UBL.BE
// rules are not in the repository (no licence allowing redistribution was found), so this needs an oracle built on
// your machine: the team's oracle folder (national.mjs, with rules/UBL-BE-1.31.sef.json compiled as its README says).
//   tsx --conditions=source scripts/ublbe-verdicts.ts --oracle /path/to/oracle/national.mjs [--compare]
// --compare prints where our verdict differs instead of writing the files. Never run by `pnpm test`.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { CORPUS_DIR, TESTDATA_DIR } from "../testdata/index.js";
import { parseXml } from "../packages/core/src/document/xml.js";
import { validateModel } from "../packages/core/src/validation/validate.js";
import { ublbeDocuments, ublbeMutants } from "../packages/core/test/support/ublbe-mutants.js";

const args = process.argv.slice(2);
const opt = (n: string) => { const i = args.indexOf(n); return i >= 0 ? args[i + 1] : undefined; };
const oracle = opt("--oracle") ?? process.env.UBLBE_ORACLE;
if (!oracle) {
  console.error("usage: tsx --conditions=source scripts/ublbe-verdicts.ts --oracle /path/to/national.mjs [--compare]");
  process.exit(2);
}
const { nationalValidate } = (await import(pathToFileURL(resolve(oracle)).href)) as {
  nationalValidate: (xml: string) => { ruleSets: string[]; fatal: string[]; warning: string[] };
};
const OUT = join(TESTDATA_DIR, "ublbe");

interface Verdict { id: string; ruleSets?: string[]; fatal?: string[]; warning?: string[]; error?: string }
function official(id: string, xml: string): Verdict {
  try {
    const v = nationalValidate(xml);
    if (!v.ruleSets.includes("UBL-BE-1.31")) return { id, error: `not judged as UBL.BE: ${v.ruleSets.join(", ")}` };
    return { id, fatal: v.fatal, warning: v.warning };
  } catch (e) {
    return { id, error: String((e as Error).message ?? e).slice(0, 200) };
  }
}
function ours(xml: string): { fatal: string[]; warning: string[] } {
  const r = validateModel(parseXml(xml).root);
  const uniq = (a: string[]) => [...new Set(a)].sort();
  return { fatal: uniq(r.errors.map((e) => e.rule)), warning: uniq(r.warnings.map((e) => e.rule)) };
}

const corpus = ublbeDocuments().map((file) => official(file, readFileSync(join(CORPUS_DIR, file), "utf8")));
const mutants = ublbeMutants().map((m) => ({ ...official(m.id, m.xml), xml: m.xml }));

if (args.includes("--compare")) {
  let agree = 0, judged = 0;
  for (const v of [...corpus.map((c) => ({ ...c, xml: readFileSync(join(CORPUS_DIR, c.id), "utf8") })), ...mutants]) {
    if (v.error) { console.log(`skip ${v.id}: ${v.error}`); continue; }
    judged++;
    const o = ours(v.xml);
    const a = JSON.stringify(o.fatal), b = JSON.stringify(v.fatal);
    if (a === b) agree++;
    else console.log(`${v.id}\n  ours     ${a}\n  official ${b}`);
  }
  console.log(`fatal sets agree on ${agree}/${judged}`);
} else {
  mkdirSync(OUT, { recursive: true });
  const line = (v: Verdict) => JSON.stringify(v.error ? { id: v.id, error: v.error } : { id: v.id, fatal: v.fatal, warning: v.warning });
  writeFileSync(join(OUT, "corpus-verdicts.jsonl"), corpus.map(line).join("\n") + "\n");
  writeFileSync(join(OUT, "mutant-verdicts.jsonl"), mutants.map(line).join("\n") + "\n");
  console.log(`wrote ${corpus.length} corpus and ${mutants.length} mutant verdicts to ${OUT}`);
}
