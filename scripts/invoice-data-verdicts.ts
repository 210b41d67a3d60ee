// The official verdicts (EN 16931 + Peppol BIS 3 UBL rules under SaxonJS, test/support/official.ts) on the 2,000
// documents of packages/core/test/invoice-data-oracle.test.ts. Writes packages/core/test/fixtures/invoice-data-oracle-verdicts.jsonl:
// a first line with the rules' fingerprint, then {key (sha256 of the document, 16 hex digits), number, fatal, warning}
// a line. Run it again when the rules, official.ts, the generator or the writer change (the test says when: it then
// judges the documents without a stored verdict under SaxonJS, which takes minutes).
// Run: pnpm exec tsx --conditions=source scripts/invoice-data-verdicts.ts
import { officialVerdict } from "../packages/core/test/support/official.js";
import { buildInvoice, ORACLE_BATCHES, ORACLE_VERDICTS, oracleSamples } from "../packages/core/test/support/invoice-data-oracle.js";
import { ublRulesFingerprint, verdictKey, writeStoredVerdicts } from "../packages/core/test/support/stored-verdicts.js";

const rows: Array<{ key: string; number: string; fatal: string[]; warning: string[] }> = [];
const seen = new Set<string>();
for (let batch = 0; batch < ORACLE_BATCHES; batch++) {
  for (const { rootElement, data } of oracleSamples(batch)) {
    const xml = buildInvoice(data, { rootElement }).xml;
    const key = verdictKey(xml);
    if (seen.has(key)) continue;
    seen.add(key);
    const { fatal, warning } = officialVerdict(xml);
    rows.push({ key, number: data.number, fatal, warning });
  }
  console.log(`batch ${batch + 1}: ${rows.length} documents judged`);
}
writeStoredVerdicts(ORACLE_VERDICTS, ublRulesFingerprint(), rows);
console.log(`${rows.length} verdicts, ${rows.filter((r) => r.fatal.length > 0).length} with a fatal error, to ${ORACLE_VERDICTS.pathname}`);
