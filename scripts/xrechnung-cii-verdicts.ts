// Regenerates the official verdicts the XRechnung CII tests compare against (test-time only; the product never runs the
// official rules), with the official XRechnung 3.0.2 CII rules of testdata/rules under SaxonJS
// (packages/core/test/support/official-cii.ts). Writes, in testdata/xrechnung/, for each document the assertion ids
// (any flag) the XRechnung CII rules alone fail ({id, fired}), or the official rules' error ({id, error}):
//   official-verdicts-cii-mutants.jsonl: the XRechnung CII documents of testdata/cii/xrechnung-testsuite, unchanged
//     and as the seeded mutants of test/support/xrechnung-cii-mutations.ts;
//   official-verdicts-cii-schematron-tests.jsonl: every mutant of KoSIT's CII unit tests (test/support/xmute.ts).
// Run: pnpm exec tsx --conditions=source scripts/xrechnung-cii-verdicts.ts
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CII_RULESETS, officialCiiRuleSetFired } from "../packages/core/test/support/official-cii.js";
import { allMutants, SCHEMATRON_TESTS, XRECHNUNG_TESTDATA } from "../packages/core/test/support/xmute.js";
import { xrechnungCiiMutants } from "../packages/core/test/support/xrechnung-cii-mutations.js";

const attempt = (id: string, xml: string): string => {
  try {
    return JSON.stringify({ id, fired: officialCiiRuleSetFired(CII_RULESETS.xrechnung, xml) });
  } catch (e) {
    return JSON.stringify({ id, error: String((e as Error).message ?? e).slice(0, 200) });
  }
};

const mutants = xrechnungCiiMutants().map((m) => attempt(m.id, m.xml));
writeFileSync(join(XRECHNUNG_TESTDATA, "official-verdicts-cii-mutants.jsonl"), mutants.join("\n") + "\n");
console.log(`${mutants.length} documents and mutants`);

const units = allMutants(SCHEMATRON_TESTS, ["cii"]).map((m) => attempt(m.id, m.xml));
writeFileSync(join(XRECHNUNG_TESTDATA, "official-verdicts-cii-schematron-tests.jsonl"), units.join("\n") + "\n");
console.log(`${units.length} unit-test mutants`);
