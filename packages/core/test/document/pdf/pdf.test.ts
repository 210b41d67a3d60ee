// extractInvoiceXml on real Factur-X / ZUGFeRD PDFs (held to what an independent reader, poppler's pdfdetach
// with qpdf, extracts from each: testdata/facturx/expected.jsonl) and on PDFs built here: which attachment
// wins, names and encodings, isPdf.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FACTURX_DIR } from "../../../../../testdata/index.js";
import { ApiError, closePdfWorkers, ERROR_STATUS, extractInvoiceXml, isPdf } from "../../../src/index.js";
import { failure } from "../../support/errors.js";
import { facturxPdf, writePdf } from "../../support/pdf.js";

interface Expected {
  file: string;
  attachmentName: string | null;
  afRelationship: string | null;
  sha256: string | null;
  bytes: number | null;
  attachments: string[];
}

const EXPECTED = readFileSync(join(FACTURX_DIR, "expected.jsonl"), "utf8")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l) as Expected);

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const xml = (root: string) => Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n<${root} xmlns="urn:example"/>\n`);

afterAll(() => closePdfWorkers());

describe("extractInvoiceXml on real Factur-X / ZUGFeRD PDFs", () => {
  it("has the independent reader's results for every PDF of testdata/facturx", () => {
    expect(EXPECTED.map((e) => e.file).sort()).toEqual(
      ["ZTESTZUGFERD_1_INVDSS_012015738820PDF-1.pdf", "invoice_EN16931.pdf", "pdf_plain.pdf", "pdf_zf_en16931_1.pdf", "pdf_zf_extended_1.pdf", "pdf_zf_xrechnung_1.pdf", "validAvoir_FR_type380_BASICWL.pdf", "validV1WithAdditionalData.pdf", "zugferd_invoice.pdf"].sort(),
    );
  });

  for (const e of EXPECTED.filter((x) => x.attachmentName !== null)) {
    it(`extracts ${e.attachmentName} (${e.afRelationship}) from ${e.file}, byte for byte as pdfdetach does`, async () => {
      const pdf = readFileSync(join(FACTURX_DIR, e.file));
      const r = await extractInvoiceXml(pdf);
      expect({ attachmentName: r.attachmentName, afRelationship: r.afRelationship, sha256: sha256(r.xml), bytes: r.xml.length, pdfSize: r.pdfSize }).toEqual({
        attachmentName: e.attachmentName,
        afRelationship: e.afRelationship,
        sha256: e.sha256,
        bytes: e.bytes,
        pdfSize: pdf.length,
      });
      expect(Buffer.isBuffer(r.xml)).toBe(true);
    });
  }

  it("hands a ZUGFeRD 1.0 invoice over as it is (CrossIndustryDocument: refusing it is the pipeline's job)", async () => {
    const r = await extractInvoiceXml(readFileSync(join(FACTURX_DIR, "zugferd_invoice.pdf")));
    expect(r.xml.toString("utf8")).toContain("urn:ferd:CrossIndustryDocument:invoice:1p0");
    expect(r.xml.toString("utf8")).toMatch(/<rsm:CrossIndustryDocument[\s>]/);
  });

  it("answers pdf_without_invoice (422) for a PDF without attachments, saying so", async () => {
    const e = await failure(extractInvoiceXml(readFileSync(join(FACTURX_DIR, "pdf_plain.pdf"))));
    expect(e.code).toBe("pdf_without_invoice");
    expect(e.status).toBe(422);
    expect(e.message).toBe(
      "The PDF holds no Factur-X, ZUGFeRD or XRechnung invoice (an attachment named factur-x.xml, xrechnung.xml, zugferd-invoice.xml, ZUGFeRD-invoice.xml): it has no attachments. Send the invoice XML, or a Factur-X PDF.",
    );
  });

  it("leaves the caller's bytes as they were (the worker gets a copy)", async () => {
    const pdf = readFileSync(join(FACTURX_DIR, "pdf_zf_en16931_1.pdf"));
    const before = sha256(pdf);
    await extractInvoiceXml(pdf);
    expect(pdf.length).toBe(85261);
    expect(sha256(pdf)).toBe(before);
  });

  it("reads several PDFs at once, each its own answer", async () => {
    const files = EXPECTED.filter((x) => x.attachmentName !== null);
    const results = await Promise.all(files.map((e) => extractInvoiceXml(readFileSync(join(FACTURX_DIR, e.file)))));
    expect(results.map((r) => sha256(r.xml))).toEqual(files.map((e) => e.sha256));
  });
});

describe("extractInvoiceXml: which attachment, on PDFs built here", () => {
  it("prefers an /AF-referenced invoice name over one only in the EmbeddedFiles tree", async () => {
    const pdf = facturxPdf([
      { name: "factur-x.xml", data: xml("TreeOnly"), af: false },
      { name: "xrechnung.xml", data: xml("Associated"), tree: false, relationship: "Source" },
    ]);
    const r = await extractInvoiceXml(pdf);
    expect([r.attachmentName, r.afRelationship, r.xml.toString()]).toEqual(["xrechnung.xml", "Source", xml("Associated").toString()]);
  });

  it("among /AF-referenced ones, takes the names in order: factur-x.xml, xrechnung.xml, zugferd-invoice.xml, ZUGFeRD-invoice.xml", async () => {
    const pdf = facturxPdf([
      { name: "ZUGFeRD-invoice.xml", data: xml("V1") },
      { name: "zugferd-invoice.xml", data: xml("V20") },
      { name: "factur-x.xml", data: xml("FX"), relationship: "Data" },
      { name: "xrechnung.xml", data: xml("XR") },
    ]);
    const r = await extractInvoiceXml(pdf);
    expect([r.attachmentName, r.afRelationship, r.xml.toString()]).toEqual(["factur-x.xml", "Data", xml("FX").toString()]);
  });

  it("without /AF, takes a known name of the EmbeddedFiles tree (ZUGFeRD 2.0's name before 1.0's), through /Kids", async () => {
    const pdf = facturxPdf(
      [
        { name: "logo.png", data: Buffer.from("png"), af: false },
        { name: "ZUGFeRD-invoice.xml", data: xml("V1"), af: false },
        { name: "zugferd-invoice.xml", data: xml("V20"), af: false, relationship: null },
      ],
      { treeKids: true },
    );
    const r = await extractInvoiceXml(pdf);
    expect([r.attachmentName, r.afRelationship, r.xml.toString()]).toEqual(["zugferd-invoice.xml", null, xml("V20").toString()]);
  });

  it("reads an attachment stored without a filter, and a name written in UTF-16", async () => {
    const r = await extractInvoiceXml(facturxPdf([{ name: "factur-x.xml", data: xml("Stored"), filter: null, nameAs: "utf16" }]));
    expect([r.attachmentName, r.xml.toString()]).toEqual(["factur-x.xml", xml("Stored").toString()]);
  });

  it("lists at most 10 attachment names when none is an invoice", async () => {
    const names = Array.from({ length: 12 }, (_, i) => `annex-${i + 1}.txt`);
    const e = await failure(extractInvoiceXml(facturxPdf(names.map((name) => ({ name, data: Buffer.from(name) })))));
    expect(e.code).toBe("pdf_without_invoice");
    expect(e.message).toBe(
      `The PDF holds no Factur-X, ZUGFeRD or XRechnung invoice (an attachment named factur-x.xml, xrechnung.xml, zugferd-invoice.xml, ZUGFeRD-invoice.xml): its attachments are ${names
        .slice(0, 10)
        .map((n) => `"${n}"`)
        .join(", ")} and 2 more. Send the invoice XML, or a Factur-X PDF.`,
    );
  });

  it("refuses an attachment in a filter it does not read, naming the filter", async () => {
    const e = await failure(extractInvoiceXml(facturxPdf([{ name: "factur-x.xml", data: Buffer.from("3C3F786D6C3E>"), filter: "ASCIIHexDecode" }])));
    expect(e.code).toBe("invalid_pdf");
    expect(e.message).toContain("/ASCIIHexDecode");
  });

  it("refuses an attachment whose FlateDecode data is not deflate data", async () => {
    const e = await failure(extractInvoiceXml(facturxPdf([{ name: "factur-x.xml", data: xml("X"), encoded: Buffer.from("not deflate at all") }])));
    expect(e.code).toBe("invalid_pdf");
    expect(e.message).toBe('The PDF\'s attachment "factur-x.xml" is not valid /FlateDecode data; send the invoice XML or a Factur-X PDF.');
  });

  it("has the three codes as 422s", () => {
    expect([ERROR_STATUS.invalid_pdf, ERROR_STATUS.pdf_encrypted, ERROR_STATUS.pdf_without_invoice]).toEqual([422, 422, 422]);
    expect(new ApiError("pdf_encrypted", "x").status).toBe(422);
  });
});

describe("isPdf", () => {
  const pdf = writePdf(["<< /Type /Catalog >>"]);
  it("is true for %PDF- at the start, or after a BOM, whitespace or junk within the first 1024 bytes", () => {
    expect(isPdf(pdf)).toBe(true);
    expect(isPdf(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), pdf]))).toBe(true);
    expect(isPdf(Buffer.concat([Buffer.from(" \r\n\t"), pdf]))).toBe(true);
    expect(isPdf(Buffer.concat([Buffer.alloc(1024, 0x41), pdf]))).toBe(true);
    expect(isPdf(new Uint8Array(Buffer.from("%PDF-")))).toBe(true);
  });
  it("is false past the first 1024 bytes, for other documents, for a bare %PDF and for no bytes", () => {
    expect(isPdf(Buffer.concat([Buffer.alloc(1025, 0x41), pdf]))).toBe(false);
    expect(isPdf(Buffer.from('<?xml version="1.0"?><Invoice/>'))).toBe(false);
    expect(isPdf(Buffer.from("PK\x03\x04"))).toBe(false);
    expect(isPdf(Buffer.from("%PDF"))).toBe(false);
    expect(isPdf(new Uint8Array(0))).toBe(false);
    expect(isPdf("%PDF-1.7" as unknown as Uint8Array)).toBe(false);
  });
});

describe("extractInvoiceXml: attachments that look like PDF syntax", () => {
  it("skips an uncompressed attachment by its /Length, even when it holds endstream and /Encrypt (an attached PDF)", async () => {
    const attached = Buffer.from("%PDF-1.4\n1 0 obj\n<< /Length 3 >>\nstream\nabc\nendstream\nendobj\ntrailer\n<< /Encrypt 5 0 R >>\n%%EOF\n");
    const r = await extractInvoiceXml(
      facturxPdf([
        { name: "delivery-note.pdf", data: attached, filter: null, relationship: "Supplement" },
        { name: "factur-x.xml", data: xml("Invoice") },
      ]),
    );
    expect([r.attachmentName, r.xml.toString()]).toEqual(["factur-x.xml", xml("Invoice").toString()]);
  });
});

describe("extractInvoiceXml: a file specification without its file", () => {
  it("refuses a factur-x.xml that names no embedded file (invalid_pdf), rather than saying there is none", async () => {
    const pdf = writePdf([
      "<< /Type /Catalog /Pages 2 0 R /AF [3 0 R] /Names << /EmbeddedFiles << /Names [(factur-x.xml) 3 0 R] >> >> >>",
      "<< /Type /Pages /Kids [] /Count 0 >>",
      "<< /Type /Filespec /F (factur-x.xml) /UF (factur-x.xml) /AFRelationship /Data >>",
    ]);
    const e = await failure(extractInvoiceXml(pdf));
    expect([e.code, e.message]).toEqual(["invalid_pdf", 'The PDF\'s attachment "factur-x.xml" has no embedded file stream; send the invoice XML or a Factur-X PDF.']);
  });
});
