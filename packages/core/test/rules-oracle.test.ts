// A small differential sample against the official rules themselves (SaxonJS with the official
// Schematron, test/support/official.ts): a few corpus documents and generated mutations of a valid
// invoice (wrong totals, missing mandatory elements, bad codes, bad check digits); our fatal and
// warning sets must equal the official ones. Kept small: the official rules take about 100 ms a document.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateInvoice } from "../src/index.js";
import { CORPUS_DIR } from "./support/corpus.js";
import { officialVerdict } from "./support/official.js";
import { invoiceXml } from "./support/ubl.js";

function ours(xml: string) {
  const r = validateInvoice(xml);
  const uniq = (a: string[]) => [...new Set(a)].sort();
  return { ruleSets: r.ruleSets, fatal: uniq(r.errors.map((e) => e.rule)), warning: uniq(r.warnings.map((e) => e.rule)) };
}

const BASE = invoiceXml({ buyerVat: "BE0123456749", lines: 2 });

/** Mutations of a valid invoice, each breaking what a real sender gets wrong. */
const MUTATIONS: Array<[string, (x: string) => string]> = [
  ["wrong payable amount", (x) => x.replace(/<cbc:PayableAmount currencyID="EUR">[^<]*</, '<cbc:PayableAmount currencyID="EUR">243.00<')],
  ["wrong line total", (x) => x.replace('<cbc:LineExtensionAmount currencyID="EUR">100.00</cbc:LineExtensionAmount>', '<cbc:LineExtensionAmount currencyID="EUR">99.99</cbc:LineExtensionAmount>')],
  ["wrong VAT amount", (x) => x.replace(/<cbc:TaxAmount currencyID="EUR">42.00</, '<cbc:TaxAmount currencyID="EUR">41.00<')],
  ["three decimals", (x) => x.replace('<cbc:TaxExclusiveAmount currencyID="EUR">200.00<', '<cbc:TaxExclusiveAmount currencyID="EUR">200.000<')],
  ["no invoice number", (x) => x.replace(/<cbc:ID>INV-1<\/cbc:ID>/, "")],
  ["no issue date", (x) => x.replace(/<cbc:IssueDate>[^<]*<\/cbc:IssueDate>/, "")],
  ["no seller name", (x) => x.replace(/<cbc:RegistrationName>Seller GmbH<\/cbc:RegistrationName>/, "")],
  ["no buyer reference", (x) => x.replace(/<cbc:BuyerReference>[^<]*<\/cbc:BuyerReference>/, "")],
  ["no VAT breakdown", (x) => x.replace(/<cac:TaxSubtotal>[\s\S]*?<\/cac:TaxSubtotal>/, "")],
  ["unknown currency", (x) => x.replace(/EUR/g, "EUX")],
  ["unknown unit code", (x) => x.replace('unitCode="C62"', 'unitCode="XXX"')],
  ["unknown VAT category", (x) => x.replace(/<cbc:ID>S<\/cbc:ID>/g, "<cbc:ID>Q</cbc:ID>")],
  ["unknown invoice type", (x) => x.replace("<cbc:InvoiceTypeCode>380<", "<cbc:InvoiceTypeCode>999<")],
  ["unknown country", (x) => x.replace("<cbc:IdentificationCode>BE<", "<cbc:IdentificationCode>XX<")],
  ["bad 0208 check digits", (x) => x.replace(">0123456749<", ">0123456789<")],
  ["bad 0088 GLN check digit", (x) => x.replace('schemeID="0208">0123456749', 'schemeID="0088">7300010000002')],
  ["bad 0192 check digit", (x) => x.replace('schemeID="0208">0123456749', 'schemeID="0192">123456789')],
  ["empty element", (x) => x.replace("<cbc:BuyerReference>PO-1</cbc:BuyerReference>", "<cbc:BuyerReference>PO-1</cbc:BuyerReference><cbc:Note></cbc:Note>")],
  ["not Peppol: CEN rules only", (x) => x.replace("urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0", "urn:cen.eu:en16931:2017").replace(/EUR/g, "EUX")],
];

describe("our rules give the official verdict (SaxonJS with the official Schematron)", () => {
  it("on a valid invoice, and on each mutation a real sender makes", () => {
    expect(ours(BASE)).toEqual(officialVerdict(BASE));
    expect(officialVerdict(BASE).fatal).toEqual([]);
    for (const [name, mutate] of MUTATIONS) {
      const xml = mutate(BASE);
      expect(xml, name).not.toBe(BASE);
      const theirs = officialVerdict(xml);
      expect(theirs.fatal.length, `${name}: the official rules must refuse it`).toBeGreaterThan(0);
      expect({ name, ...ours(xml) }).toEqual({ name, ...theirs });
    }
  }, 120_000);

  it("on a few corpus documents", () => {
    for (const path of [
      "openpeppol-bis3/examples/base-example.xml",
      "openpeppol-bis3/examples/Allowance-example.xml",
      "openpeppol-bis3/examples/base-creditnote-correction.xml",
      "openpeppol-bis3/examples/vat-category-E.xml",
      "cen-en16931/ubl-examples/BIS3_Invoice_negativ.XML",
    ]) {
      // A missing corpus file fails the test (testdata/corpus).
      const xml = readFileSync(join(CORPUS_DIR, path), "utf8");
      expect({ path, ...ours(xml) }).toEqual({ path, ...officialVerdict(xml) });
    }
  }, 60_000);

  it("on generated combinations of two mutations", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MUTATIONS.length - 1 }), fc.integer({ min: 0, max: MUTATIONS.length - 1 }), (a, b) => {
        const xml = MUTATIONS[b]![1](MUTATIONS[a]![1](BASE));
        expect(ours(xml)).toEqual(officialVerdict(xml));
      }),
      { numRuns: 12, seed: 20261126 },
    );
  }, 120_000);
});
