// The writer's promise, judged by the official rules themselves: generated InvoiceData (every VAT
// category, several rates, allowances and charges, price base quantities, gross prices, other
// currencies, credit notes, every payment means family, attachments) built with buildUbl, then run
// through the official EN 16931 and Peppol BIS Billing 3.0 Schematron (SaxonJS, test time only):
// no fatal error, our rules agree, and the round trip holds. 2,000 documents per run, in 4 batches;
// INVOICE_DATA_ORACLE_DOCS lowers it while iterating.
// The official verdicts are stored (fixtures/invoice-data-oracle-verdicts.jsonl, by the documents' sha256, made by
// scripts/invoice-data-verdicts.ts: SaxonJS takes 0.1-0.3 s a document, 2,000 of them five minutes and more). A document
// without a stored verdict (the generator, the writer, the rules or official.ts changed) is judged under SaxonJS on the
// spot, so nothing goes unjudged; and each batch judges INVOICE_DATA_ORACLE_SAMPLE (default 5) documents of its stored
// ones under SaxonJS again, a different sample each run, and compares.
import { describe, expect, it } from "vitest";
import { normaliseInvoiceData, readInvoiceData } from "../src/index.js";
import { officialVerdict } from "./support/official.js";
import { buildInvoice, ORACLE_BATCHES, ORACLE_DOCS, ORACLE_VERDICTS, oracleSamples } from "./support/invoice-data-oracle.js";
import { randomSample, readStoredVerdicts, ublRulesFingerprint, verdictKey } from "./support/stored-verdicts.js";

const TOTAL = Number(process.env.INVOICE_DATA_ORACLE_DOCS ?? ORACLE_DOCS);
const SAMPLE = Number(process.env.INVOICE_DATA_ORACLE_SAMPLE ?? 5);
const BATCHES = ORACLE_BATCHES;
const stored = readStoredVerdicts(ORACLE_VERDICTS, ublRulesFingerprint());

describe("generated invoice data, built, judged by the official rules", () => {
  for (let batch = 0; batch < BATCHES; batch++) {
    it(`batch ${batch + 1} of ${BATCHES}: ${Math.ceil(TOTAL / BATCHES)} documents without a fatal error, our rules agreeing, the round trip holding`, () => {
      const samples = oracleSamples(batch, Math.ceil(TOTAL / BATCHES));
      const failures: string[] = [];
      const kinds = new Set<string>();
      const sample = randomSample(samples.length, SAMPLE);
      let live = 0, checked = 0;
      samples.forEach(({ rootElement, data }, i) => {
        const built = buildInvoice(data, { rootElement });
        const key = verdictKey(built.xml);
        const kept = stored.verdicts.get(key);
        let theirs = kept;
        if (!kept || sample.has(i)) {
          const { fatal, warning } = officialVerdict(built.xml);
          theirs = { fatal, warning };
          if (kept) {
            checked++;
            expect({ number: data.number, key, ...theirs }, "the stored official verdict is SaxonJS's today").toEqual({ number: data.number, key, ...kept });
          } else live++;
        }
        const ours = built.report.errors.map((e) => `${e.rule} at ${e.path}`);
        if (theirs!.fatal.length > 0 || ours.length > 0) failures.push(`${data.number}: official ${theirs!.fatal.join(", ") || "none"}; ours ${ours.join(", ") || "none"}`);
        const { rootElement: read, documentType: _formerName, ...back } = readInvoiceData(built.xml);
        expect(read).toBe(rootElement);
        expect(back).toEqual(normaliseInvoiceData(built.data, rootElement));
        kinds.add(rootElement);
        for (const l of built.data.lines) kinds.add(l.vat.category);
        if (built.data.payment) kinds.add(`means ${built.data.payment.meansCode}`);
      });
      if (live > 0) {
        console.warn(`invoice-data-oracle batch ${batch + 1}: ${live} of ${samples.length} documents had no stored official verdict${stored.stale ? " (the rules or official.ts changed)" : ""} and were judged under SaxonJS; refresh the file with: pnpm exec tsx --conditions=source scripts/invoice-data-verdicts.ts`);
      }
      // The sample ran under SaxonJS (every stored verdict a document in it had).
      expect(checked + live).toBeGreaterThanOrEqual(Math.min(SAMPLE, samples.length));
      expect(failures.slice(0, 10)).toEqual([]);
      // The batch covered what it claims to (with 500 documents each family comes up many times).
      if (samples.length >= 200) {
        for (const k of ["Invoice", "CreditNote", "S", "Z", "E", "AE", "K", "G", "O", "L", "M", "means 30", "means 31", "means 42", "means 48", "means 49", "means 58", "means 59"]) expect(kinds, k).toContain(k);
      }
    }, 900_000);
  }
});
