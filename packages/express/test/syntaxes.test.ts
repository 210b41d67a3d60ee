// One invoice, any syntax, over HTTP: `document` (UBL, CII, Factur-X PDF) on validate and submit, the conversion of a CII
// to Peppol BIS UBL, and the record's documents (format=original, cii, ubl).
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { readInvoiceData, syntaxById, ValidationReportSchema } from "@einvoice/core";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { b64, invoiceXml } from "../../core/test/support/ubl.js";
import { ciiPath, FACTURX_DIR } from "../../../testdata/index.js";
import { answers, eligibleAccount, makeApp, signUp } from "./support/app.js";
import { undocumentedAnswers } from "./support/openapi-check.js";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

afterAll(() => {
  expect(undocumentedAnswers(answers)).toEqual([]);
});

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
const CodeBody = z.strictObject({ code: z.string(), message: z.string().min(10) });
const sha256 = (b: Uint8Array | string) => createHash("sha256").update(b).digest("hex");

/** The CII of a UBL document (the writer of the cii syntax), as a Peppol sender would make it. */
function ciiOf(ubl: string): string {
  const { rootElement, documentType: _d, ...data } = readInvoiceData(ubl);
  return syntaxById("cii")!.write(data, { kind: rootElement === "CreditNote" ? "creditNote" : "invoice" });
}
const withNumber = (cii: string, n: string) => cii.replace(/(<rsm:ExchangedDocument>\s*<ram:ID>)[^<]*(<\/ram:ID>)/, `$1${n}$2`);

describe("POST /v1/validate with document", () => {
  it("judges a CII by the CEN CII rules on its own tree, naming the syntax and carrying the invoice read from it", async () => {
    const { app } = makeApp();
    const { apiKey } = await signUp(app);
    const cii = readFileSync(ciiPath("xrechnung-testsuite/src/test/business-cases/standard/01.01a-INVOICE_uncefact.xml"));
    const res = await request(app).post("/v1/validate").set(bearer(apiKey)).send({ document: b64(cii) });
    expect(res.status).toBe(200);
    const report = ValidationReportSchema.strict().parse(res.body.data);
    expect(report).toMatchObject({ valid: true, syntax: "cii", rootElement: "CrossIndustryInvoice", ruleSets: ["CEN-EN16931-CII-1.3.16", "XRECHNUNG-CII-3.0.2"] });
    expect(report.customizationId).toBe("urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0");
    const invoice = report.invoice as { number: string; currency: string; seller: { name: string } };
    expect(invoice.number).toBe("123456XX");
    expect(invoice.currency).toBe("EUR");
    expect(invoice.seller.name).toBeTruthy();
  });

  it("keeps the invoice in a small answer: a large attachment's content is left out, every other value kept, and it says so", async () => {
    const { app } = makeApp();
    const { apiKey } = await signUp(app);
    const pdf = Buffer.alloc(200 * 1024, 7).toString("base64");
    const cii = ciiOf(invoiceXml()).replace(
      /(<ram:BuyerTradeParty>[\s\S]*?<\/ram:BuyerTradeParty>)/,
      `$1<ram:AdditionalReferencedDocument><ram:IssuerAssignedID>ATT-1</ram:IssuerAssignedID><ram:TypeCode>916</ram:TypeCode><ram:AttachmentBinaryObject mimeCode="application/pdf" filename="timesheet.pdf">${pdf}</ram:AttachmentBinaryObject></ram:AdditionalReferencedDocument>`,
    );
    const res = await request(app).post("/v1/validate").set(bearer(apiKey)).send({ document: b64(cii) });
    expect(res.status).toBe(200);
    expect(res.text.length).toBeLessThan(100 * 1024);
    const invoice = res.body.data.invoice as { number: string; attachments: Array<Record<string, string>> };
    expect(invoice.number).toBeTruthy();
    expect(invoice.attachments).toEqual([{ id: "ATT-1", filename: "timesheet.pdf", mimeCode: "application/pdf" }]);
    expect(res.body.data.invoiceOmitted).toContain('"timesheet.pdf"');
  });

  it("reports a broken CII rule at its CII location", async () => {
    const { app } = makeApp();
    const { apiKey } = await signUp(app);
    const cii = ciiOf(invoiceXml()).replace(/<ram:DuePayableAmount>[^<]*</, "<ram:DuePayableAmount>999.99<");
    const res = await request(app).post("/v1/validate").set(bearer(apiKey)).send({ document: b64(cii) });
    expect(res.status).toBe(200);
    expect(res.body.data.valid).toBe(false);
    const co16 = (res.body.data.errors as Array<{ rule: string; location: string }>).find((e) => e.rule === "BR-CO-16");
    expect(co16?.location).toMatch(/^\/rsm:CrossIndustryInvoice\/rsm:SupplyChainTradeTransaction\[1\]\/ram:ApplicableHeaderTradeSettlement\[1\]/);
  });

  it("takes a UBL as document too (syntax ubl), and keeps xml for UBL only", async () => {
    const { app } = makeApp();
    const { apiKey } = await signUp(app);
    const ubl = await request(app).post("/v1/validate").set(bearer(apiKey)).send({ document: b64(invoiceXml()) });
    expect(ubl.status).toBe(200);
    expect(ubl.body.data).toMatchObject({ valid: true, syntax: "ubl", rootElement: "Invoice" });
    const ciiAsXml = await request(app).post("/v1/validate").set(bearer(apiKey)).send({ xml: b64(ciiOf(invoiceXml())) });
    expect(ciiAsXml.status).toBe(422);
    expect(CodeBody.parse(ciiAsXml.body).code).toBe("invalid_ubl_xml");
  });

  it("reads a Factur-X PDF's attached CII (syntax pdf, with the attachment it judged)", async () => {
    const { app } = makeApp();
    const { apiKey } = await signUp(app);
    const pdf = readFileSync(join(FACTURX_DIR, "invoice_EN16931.pdf"));
    const res = await request(app).post("/v1/validate").set(bearer(apiKey)).send({ document: b64(pdf) });
    expect(res.status).toBe(200);
    const report = ValidationReportSchema.strict().parse(res.body.data);
    expect(report).toMatchObject({ syntax: "pdf", rootElement: "CrossIndustryInvoice", attachment: { name: "factur-x.xml" } });
    expect(report.ruleSets).toContain("CEN-EN16931-CII-1.3.16");
    expect((report.invoice as { number?: string } | undefined)?.number).toBeTruthy();
  });

  it("refuses ZUGFeRD 1.0 by name, another root, and a PDF without an invoice, each with its code", async () => {
    const { app } = makeApp();
    const { apiKey } = await signUp(app);
    const zf1 = await request(app).post("/v1/validate").set(bearer(apiKey)).send({ document: b64('<rsm:CrossIndustryDocument xmlns:rsm="urn:ferd:CrossIndustryDocument:invoice:1p0"/>') });
    expect(zf1.status).toBe(422);
    expect(CodeBody.parse(zf1.body)).toMatchObject({ code: "unsupported_document" });
    expect(zf1.body.message).toContain("ZUGFeRD 1.0");
    const order = await request(app).post("/v1/validate").set(bearer(apiKey)).send({ document: b64('<Order xmlns="urn:oasis:names:specification:ubl:schema:xsd:Order-2"/>') });
    expect(CodeBody.parse(order.body).code).toBe("unsupported_document");
    const plain = await request(app).post("/v1/validate").set(bearer(apiKey)).send({ document: b64(readFileSync(join(FACTURX_DIR, "pdf_plain.pdf"))) });
    expect(plain.status).toBe(422);
    expect(CodeBody.parse(plain.body).code).toBe("pdf_without_invoice");
    const both = await request(app).post("/v1/validate").set(bearer(apiKey)).send({ document: b64(invoiceXml()), xml: b64(invoiceXml()) });
    expect(both.status).toBe(400);
    expect(both.body.message).toEqual(["give exactly one of xml, document, invoice and creditNote"]);
  });
});

describe("POST /v1/peppol/invoice with a CII document", () => {
  it("sends the Peppol BIS UBL made of it, every value kept, and keeps the CII as submitted", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app);
    const cii = withNumber(ciiOf(invoiceXml()), "CII-HTTP-1");
    const res = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ document: b64(cii), targetNetwork: "peppol" });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ success: true, status: "sending" });
    const id = res.body.data.submissionId as string;
    const record = await request(app).get(`/v1/invoices/${id}`).set(bearer(apiKey));
    expect(record.body.data).toMatchObject({ invoiceNumber: "CII-HTTP-1", sha256: sha256(cii), size: Buffer.byteLength(cii) });
    const ubl = await request(app).get(`/v1/invoices/${id}/document`).set(bearer(apiKey)).buffer(true).parse((r, cb) => {
      const parts: Buffer[] = [];
      r.on("data", (c: Buffer) => parts.push(c)).on("end", () => cb(null, Buffer.concat(parts)));
    });
    expect(ubl.headers["content-type"]).toMatch(/^application\/xml/);
    const ublText = (ubl.body as Buffer).toString("utf8");
    expect(ublText).toContain("<cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0</cbc:CustomizationID>");
    // Every value of the CII is in the UBL: the same InvoiceData either way.
    const asData = await request(app).get(`/v1/invoices/${id}/document`).set(bearer(apiKey)).set("Accept", "application/json");
    const { rootElement: _r, documentType: _d, ...fromCii } = readInvoiceData(ublText);
    expect(asData.body).toEqual(JSON.parse(JSON.stringify(fromCii)));
    expect(asData.body.number).toBe("CII-HTTP-1");
    expect(asData.body.totals.payable).toBe(readInvoiceData(invoiceXml()).totals?.payable);
    const original = await request(app).get(`/v1/invoices/${id}/document?format=original`).set(bearer(apiKey)).buffer(true).parse((r, cb) => {
      const parts: Buffer[] = [];
      r.on("data", (c: Buffer) => parts.push(c)).on("end", () => cb(null, Buffer.concat(parts)));
    });
    expect(original.headers["content-type"]).toMatch(/^application\/xml/);
    expect((original.body as Buffer).toString("utf8")).toBe(cii);
    const asCii = await request(app).get(`/v1/invoices/${id}/document?format=cii`).set(bearer(apiKey)).buffer(true).parse((r, cb) => {
      const parts: Buffer[] = [];
      r.on("data", (c: Buffer) => parts.push(c)).on("end", () => cb(null, Buffer.concat(parts)));
    });
    expect((asCii.body as Buffer).toString("utf8")).toContain("<rsm:CrossIndustryInvoice");
    // The same CII again is the seed's duplicate.
    const again = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ document: b64(cii), targetNetwork: "peppol" });
    expect(again.body.data).toMatchObject({ success: false, status: "failed" });
    expect(again.body.data.errorMessage).toContain(id);
  });

  it("answers a CII that Peppol's rules refuse with the rule, the InvoiceData field and its CII place", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app);
    const cii = ciiOf(invoiceXml()).replace(/<ram:BuyerReference>[^<]*<\/ram:BuyerReference>/, "");
    const res = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ document: b64(cii) });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("invalid_ubl_xml");
    const r003 = (res.body.errors as Array<{ rule: string; path: string; source: string }>).find((e) => e.rule === "PEPPOL-EN16931-R003");
    expect(r003).toMatchObject({ path: "/buyerReference", source: "/rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeAgreement/ram:BuyerReference" });
  });

  it("sends a CII credit note to the credit-note endpoint, and names that endpoint when it is sent to the invoice one", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app);
    const credit = withNumber(ciiOf(invoiceXml()), "CII-CN-1").replace(/(<rsm:ExchangedDocument>[\s\S]*?<ram:TypeCode>)380(<\/ram:TypeCode>)/, "$1381$2");
    const wrong = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ document: b64(credit) });
    expect(wrong.status).toBe(422);
    expect(wrong.body.message).toContain("POST /v1/peppol/credit-note");
    const ok = await request(app).post("/v1/peppol/credit-note").set(bearer(apiKey)).send({ document: b64(credit) });
    expect(ok.status).toBe(200);
    expect(ok.body.data.status).toBe("sending");
    const record = await request(app).get(`/v1/invoices/${ok.body.data.submissionId}`).set(bearer(apiKey));
    expect(record.body.data.kind).toBe("creditNote");
  });

  it("accepts the README's example CII (examples/invoice-cii.xml): valid under the CEN CII rules, sent as Peppol BIS UBL", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app);
    const cii = readFileSync(join(REPO, "examples", "invoice-cii.xml"));
    const report = await request(app).post("/v1/validate").set(bearer(apiKey)).send({ document: b64(cii) });
    expect(report.body.data).toMatchObject({ valid: true, syntax: "cii", ruleSets: ["CEN-EN16931-CII-1.3.16"], invoice: { number: "QS-2026-002" } });
    const res = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ document: b64(cii) });
    expect(res.body.data).toMatchObject({ success: true, status: "sending" });
  });

  it("serves the UBL itself as format=original for a submission made as xml", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app);
    const xml = invoiceXml();
    const res = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ xml: b64(xml) });
    const original = await request(app).get(`/v1/invoices/${res.body.data.submissionId}/document?format=original`).set(bearer(apiKey)).buffer(true).parse((r, cb) => {
      const parts: Buffer[] = [];
      r.on("data", (c: Buffer) => parts.push(c)).on("end", () => cb(null, Buffer.concat(parts)));
    });
    expect((original.body as Buffer).toString("utf8")).toBe(xml);
  });
});
