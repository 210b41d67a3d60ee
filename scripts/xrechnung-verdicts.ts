// Regenerates the official verdicts the XRechnung tests compare against (test-time only; the product never runs the
// official rules). Needs the national oracle (national.mjs with its rules/ and saxon-js resolvable from it):
// ../shared/oracle by default, ORACLE_DIR points elsewhere. The corpus is testdata/corpus. Writes, in testdata/xrechnung/:
//   official-verdicts-corpus.jsonl: for every corpus document with an XRechnung CustomizationID, the official verdict
//     of CEN + XRechnung 3.0.2 with KoSIT's levels ({file, fatal, warning}, as national.mjs gives it);
//   official-verdicts-mutants.jsonl: the same for the national mutants of test/support/xrechnung-mutations.ts
//     ({id, fatal, warning});
//   official-verdicts-schematron-tests.jsonl: for every mutant of the official XRechnung unit tests
//     (test/support/xmute.ts), the assertions of the XRechnung rules alone that fail ({id, fired}).
// Run: pnpm exec tsx scripts/xrechnung-verdicts.ts
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { CORPUS_DIR } from "../testdata/index.js";
import { allMutants, XRECHNUNG_TESTDATA } from "../packages/core/test/support/xmute.js";
import { xrechnungMutants } from "../packages/core/test/support/xrechnung-mutations.js";

const repo = resolve(import.meta.dirname, "..");
const oracleDir = resolve(process.env.ORACLE_DIR ?? join(repo, "..", "shared", "oracle"));
const corpus = CORPUS_DIR;
const XR = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0";

const { nationalValidate } = await import(pathToFileURL(join(oracleDir, "national.mjs")).href);
const SaxonJS = (await import(pathToFileURL(join(oracleDir, "node_modules", "saxon-js", "SaxonJS2N.js")).href)).default;

// 1. The corpus documents (INDEX.tsv: CustomizationID is XRechnung 3.0 or its extension).
const rows = readFileSync(join(corpus, "INDEX.tsv"), "utf8").split("\n").slice(1).map((l) => l.split("\t"));
const files = rows.filter((c) => c[3] === XR || c[3] === `${XR}#conformant#urn:xeinkauf.de:kosit:extension:xrechnung_3.0`).map((c) => c[0]!);
const corpusLines = files.map((file) => {
  try {
    const v = nationalValidate(readFileSync(join(corpus, file), "utf8"));
    return JSON.stringify({ file, fatal: v.fatal, warning: v.warning });
  } catch (e) {
    return JSON.stringify({ file, error: String((e as Error).message).slice(0, 200) });
  }
});
writeFileSync(join(XRECHNUNG_TESTDATA, "official-verdicts-corpus.jsonl"), corpusLines.join("\n") + "\n");
console.log(`${files.length} corpus documents`);

// 2. The national mutants.
const nationalLines = xrechnungMutants().map((m) => {
  try {
    const v = nationalValidate(m.xml);
    return JSON.stringify({ id: m.id, fatal: v.fatal, warning: v.warning });
  } catch (e) {
    return JSON.stringify({ id: m.id, error: String((e as Error).message).slice(0, 200) });
  }
});
writeFileSync(join(XRECHNUNG_TESTDATA, "official-verdicts-mutants.jsonl"), nationalLines.join("\n") + "\n");
console.log(`${nationalLines.length} national mutants`);

// 3. The unit-test mutants, on the XRechnung rules alone (any CustomizationID: the CVD tests too).
const sef = JSON.parse(readFileSync(join(oracleDir, "rules", "XRechnung-UBL-3.0.2.sef.json"), "utf8"));
const FIRED = "descendant-or-self::*:failed-assert ! normalize-space(@id)";
const mutantLines = allMutants().map((m) => {
  try {
    const doc = SaxonJS.XPath.evaluate("parse-xml($t)", null, { params: { t: m.xml } });
    const r = SaxonJS.transform({ stylesheetInternal: sef, sourceNode: doc, destination: "raw" }, "sync");
    const fired = [...new Set(SaxonJS.XPath.evaluate(FIRED, r.principalResult, { resultForm: "array" }) as string[])].sort();
    return JSON.stringify({ id: m.id, fired });
  } catch (e) {
    return JSON.stringify({ id: m.id, error: String((e as Error).message ?? e).slice(0, 200) });
  }
});
writeFileSync(join(XRECHNUNG_TESTDATA, "official-verdicts-schematron-tests.jsonl"), mutantLines.join("\n") + "\n");
console.log(`${mutantLines.length} unit-test mutants`);
