// Regenerates the official verdicts the XRechnung tests compare against (test-time only; the product never runs the
// official rules), with the official rules of testdata/rules under SaxonJS (packages/core/test/support/official.ts).
// Writes, in testdata/xrechnung/:
//   official-verdicts-mutants.jsonl: for the national mutants of test/support/xrechnung-mutations.ts, the official
//     verdict of CEN + XRechnung 3.0.2 with KoSIT's levels ({id, fatal, warning});
//   official-verdicts-schematron-tests.jsonl: for every mutant of the official XRechnung unit tests
//     (test/support/xmute.ts), the assertions of the XRechnung rules alone that fail ({id, fired});
//   official-verdicts-validator-configuration-tests.jsonl: for every mutant of the UBL tests of KoSIT's validator
//     configuration, the assertions of the CEN and the XRechnung rules that fail ({id, fired}).
// The corpus documents' verdicts are lines of packages/core/test/fixtures/official-verdicts.jsonl (scripts/national-verdicts.ts).
// Run: pnpm exec tsx --conditions=source scripts/xrechnung-verdicts.ts
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { RULE_SETS } from "../testdata/index.js";
import { officialRuleSetFired, officialVerdict } from "../packages/core/test/support/official.js";
import { allMutants, validatorConfigurationMutants, XRECHNUNG_TESTDATA } from "../packages/core/test/support/xmute.js";
import { xrechnungMutants } from "../packages/core/test/support/xrechnung-mutations.js";

const attempt = (id: string, f: () => object): string => {
  try {
    return JSON.stringify({ id, ...f() });
  } catch (e) {
    return JSON.stringify({ id, error: String((e as Error).message ?? e).slice(0, 200) });
  }
};

const national = xrechnungMutants().map((m) => attempt(m.id, () => {
  const v = officialVerdict(m.xml);
  return { fatal: v.fatal, warning: v.warning };
}));
writeFileSync(join(XRECHNUNG_TESTDATA, "official-verdicts-mutants.jsonl"), national.join("\n") + "\n");
console.log(`${national.length} national mutants`);

const units = allMutants().map((m) => attempt(m.id, () => ({ fired: officialRuleSetFired(RULE_SETS.xrechnung, m.xml) })));
writeFileSync(join(XRECHNUNG_TESTDATA, "official-verdicts-schematron-tests.jsonl"), units.join("\n") + "\n");
console.log(`${units.length} unit-test mutants`);

const configuration = validatorConfigurationMutants().map((m) => attempt(m.id, () => ({
  fired: [...new Set([...officialRuleSetFired(RULE_SETS.cen, m.xml), ...officialRuleSetFired(RULE_SETS.xrechnung, m.xml)])].sort(),
})));
writeFileSync(join(XRECHNUNG_TESTDATA, "official-verdicts-validator-configuration-tests.jsonl"), configuration.join("\n") + "\n");
console.log(`${configuration.length} validator-configuration mutants`);
