// toFacturX: the attachment comes back out through the core's Factur-X reader byte for byte, its CII passes the
// official CEN CII rules (SaxonJS over the official XSLT: a few samples), and the PDF carries the PDF/A-3 and
// Factur-X marks (XMP, OutputIntent, /AF with /AFRelationship /Data, /Subtype /text#2Fxml).
import { readFileSync } from "node:fs";
import { closePdfWorkers, extractInvoiceXml, readDocumentData, syntaxById, type InvoiceData } from "@einvoice/core";
import { afterAll, describe, expect, it } from "vitest";
import { corpusPath } from "../../../testdata/index.js";
import { officialCiiVerdict } from "../../core/test/support/official-cii.js";
import { FACTURX_FILENAME, toFacturX } from "../src/index.js";
import { sampleInvoice } from "./support/invoices.js";
import { HAS_PDFTOTEXT, flat, pdfPages } from "./support/pdftotext.js";

afterAll(() => closePdfWorkers());

// Two corpus invoices whose CII the official CEN CII rules accept (packages/core/test/fixtures/cii-write-verdicts.jsonl),
// and the renderer's own German–Polish sample.
const SAMPLES: Array<[string, () => InvoiceData]> = [
  ["the renderer's sample (DE buyer, PL seller, 12 lines)", () => sampleInvoice(12)],
  ["corpus BIS_Billing_30-Elhandel", () => readDocumentData(readFileSync(corpusPath("cen-en16931/testfiles/BIS_Billing_30-Elhandel.xml"))).invoice],
  ["corpus BIS_Billing_30-Elnat", () => readDocumentData(readFileSync(corpusPath("cen-en16931/testfiles/BIS_Billing_30-Elnat.xml"))).invoice],
];

describe("toFacturX", () => {
  for (const [name, load] of SAMPLES) {
    it(`embeds the CII of ${name} as factur-x.xml, read back byte for byte, valid under the CEN CII rules`, async () => {
      const invoice = load();
      const cii = syntaxById("cii")!.write(invoice);
      const pdf = await toFacturX(invoice);
      const got = await extractInvoiceXml(pdf);
      expect(got.attachmentName).toBe(FACTURX_FILENAME);
      expect(got.afRelationship).toBe("Data");
      expect(got.xml.equals(Buffer.from(cii, "utf8"))).toBe(true);
      expect(readDocumentData(got.xml).invoice.number).toBe(invoice.number);
      expect(officialCiiVerdict(got.xml.toString("utf8")).fatal).toEqual([]);
    }, 180_000);
  }

  it("writes a PDF/A-3b with the Factur-X XMP extension schema, an sRGB OutputIntent and the associated file", async () => {
    const pdf = (await toFacturX(sampleInvoice(3))).toString("latin1");
    expect(pdf.startsWith("%PDF-1.7")).toBe(true);
    // The XMP stream is not compressed (PDF/A wants it readable).
    expect(pdf).toMatch(/<pdfaid:part>3<\/pdfaid:part>\s*<pdfaid:conformance>B<\/pdfaid:conformance>/);
    expect(pdf).toContain("<fx:DocumentType>INVOICE</fx:DocumentType>");
    expect(pdf).toContain("<fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>");
    expect(pdf).toContain("<fx:Version>1.0</fx:Version>");
    expect(pdf).toContain("<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>");
    expect(pdf).toContain("<pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI>");
    expect(pdf).toMatch(/\/OutputIntents \[\d+ 0 R\]/);
    expect(pdf).toMatch(/\/S \/GTS_PDFA1/);
    expect(pdf).toMatch(/\/AF \[\d+ 0 R\]/);
    expect(pdf).toContain("/AFRelationship /Data");
    expect(pdf).toContain("/Subtype /text#2Fxml");
    expect(pdf).toMatch(/\/EmbeddedFiles/);
    expect(pdf).not.toMatch(/\/Helvetica|\/Times-Roman|\/Courier/); // every font embedded
  });

  it("gives the same bytes for the same invoice", async () => {
    const inv = sampleInvoice(2);
    const [a, b] = [await toFacturX(inv), await toFacturX(inv)];
    expect(a.equals(b)).toBe(true);
  });

  it.skipIf(!HAS_PDFTOTEXT)("shows the invoice's page, as renderPdf does", async () => {
    const all = flat(pdfPages(await toFacturX(sampleInvoice(3), { lang: "de" })).join(" "));
    expect(all).toContain("Rechnung");
    expect(all).toContain("FV/2026/11/0042");
    expect(all).toMatch(/Seite 1 \/ \d+/);
  });
});
