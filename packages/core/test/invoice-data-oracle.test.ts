// The writer's promise, judged by the official rules themselves: generated InvoiceData (every VAT
// category, several rates, allowances and charges, price base quantities, gross prices, other
// currencies, credit notes, every payment means family, attachments) built with buildUbl, then run
// through the official EN 16931 and Peppol BIS Billing 3.0 Schematron (SaxonJS, test time only):
// no fatal error, our rules agree, and the round trip holds. 2,000 documents per run, in batches on
// one SaxonJS instance (about 100 ms a document); INVOICE_DATA_ORACLE_DOCS lowers it while iterating.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildInvoice, normaliseInvoiceData, readInvoiceData } from "../src/index.js";
import { invoiceDataArb } from "./support/invoice-data-arb.js";
import { officialVerdict } from "./support/official.js";

const TOTAL = Number(process.env.INVOICE_DATA_ORACLE_DOCS ?? 2000);
const BATCHES = 4;

describe("generated invoice data, built, judged by the official rules", () => {
  for (let batch = 0; batch < BATCHES; batch++) {
    it(`batch ${batch + 1} of ${BATCHES}: ${Math.ceil(TOTAL / BATCHES)} documents without a fatal error, our rules agreeing, the round trip holding`, () => {
      const samples = fc.sample(invoiceDataArb, { numRuns: Math.ceil(TOTAL / BATCHES), seed: 20261125 + batch });
      const failures: string[] = [];
      const kinds = new Set<string>();
      for (const { rootElement, data } of samples) {
        const built = buildInvoice(data, { rootElement });
        const theirs = officialVerdict(built.xml);
        const ours = built.report.errors.map((e) => `${e.rule} at ${e.path}`);
        if (theirs.fatal.length > 0 || ours.length > 0) failures.push(`${data.number}: official ${theirs.fatal.join(", ") || "none"}; ours ${ours.join(", ") || "none"}`);
        const { rootElement: read, documentType: _formerName, ...back } = readInvoiceData(built.xml);
        expect(read).toBe(rootElement);
        expect(back).toEqual(normaliseInvoiceData(built.data, rootElement));
        kinds.add(rootElement);
        for (const l of built.data.lines) kinds.add(l.vat.category);
        if (built.data.payment) kinds.add(`means ${built.data.payment.meansCode}`);
      }
      expect(failures.slice(0, 10)).toEqual([]);
      // The batch covered what it claims to (with 500 documents each family comes up many times).
      if (samples.length >= 200) {
        for (const k of ["Invoice", "CreditNote", "S", "Z", "E", "AE", "K", "G", "O", "L", "M", "means 30", "means 31", "means 42", "means 48", "means 49", "means 58", "means 59"]) expect(kinds, k).toContain(k);
      }
    }, 900_000);
  }
});
