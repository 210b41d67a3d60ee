// Records the official CEN CII verdict of every document the CII writer is held to (test-time only; the product never
// runs the official rules): each CEN-valid corpus UBL invoice read as InvoiceData, the seeded generated invoices and the
// valid CII test documents read with the CII reader (packages/core/test/support/cii-write-documents.ts), written with
// writeCii, judged by the official CII rules under SaxonJS (test/support/official-cii.ts: CEN EN 16931 CII always,
// XRechnung CII for an XRechnung guideline id; about 200 ms a document). Writes
// packages/core/test/fixtures/cii-write-verdicts.jsonl: one line a document, {id, sha256, fatal, warning}, sha256 of
// the written CII. test/document/syntaxes/cii/write.test.ts holds the writer to it.
// Run after any change to the writer's output: pnpm exec tsx --conditions=source scripts/cii-write-verdicts.ts
import { writeFileSync } from "node:fs";
import { writeCii } from "../packages/core/src/document/syntaxes/cii/write.js";
import { CII_WRITE_VERDICTS, ciiWriteDocuments, sha256, type CiiWriteVerdict } from "../packages/core/test/support/cii-write-documents.js";
import { officialCiiVerdict } from "../packages/core/test/support/official-cii.js";

const lines = ciiWriteDocuments().map(({ id, data, options }) => {
  const xml = writeCii(data, options);
  const { fatal, warning } = officialCiiVerdict(xml);
  const verdict: CiiWriteVerdict = { id, sha256: sha256(xml), fatal, warning };
  return JSON.stringify(verdict);
});
writeFileSync(CII_WRITE_VERDICTS, lines.join("\n") + "\n");
console.log(`${lines.length} documents, ${lines.filter((l) => !l.includes('"fatal":[]')).length} with a fatal error`);
