// Invoices as data over HTTP (issue 23): POST /v1/peppol/invoice with {invoice}, /credit-note with
// {creditNote}, POST /v1/validate with either: built into Peppol BIS 3 UBL, then the same pipeline.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { buildUbl, normaliseInvoiceData, parseInvoiceData } from "@einvoice/core";
import { eligibleAccount, makeApp } from "./support/app.js";

const EXAMPLES = join(fileURLToPath(import.meta.url), "../../../../examples");
const invoice = () => JSON.parse(readFileSync(join(EXAMPLES, "invoice.json"), "utf8")) as Record<string, any>;
const creditNote = () => JSON.parse(readFileSync(join(EXAMPLES, "credit-note.json"), "utf8")) as Record<string, any>;
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

describe("POST /v1/peppol/invoice with the invoice as data", () => {
  it("builds the UBL, accepts it with sending, keeps its facts and answers a second identical submission as a duplicate", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app);
    const res = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ invoice: invoice() });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ success: true, status: "sending" });
    const id = res.body.data.submissionId as string;
    const one = await request(app).get(`/v1/invoices/${id}`).set(bearer(apiKey));
    expect(one.body.data).toMatchObject({
      invoiceNumber: "INV-2026-0001",
      kind: "invoice",
      totals: { taxExclusive: "1070.50", taxInclusive: "1295.31", payable: "1295.31" },
      recipient: { endpointId: "0208:0123456749", vatId: "BE0123456749" },
    });
    const again = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ invoice: invoice() });
    expect(again.body.data).toMatchObject({ success: false, status: "failed", errorMessage: expect.stringContaining(id) });
  });

  it("answers 400 for both xml and invoice, for neither, and for bad data naming the JSON pointer", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app);
    const both = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ xml: "PEludm9pY2UvPg==", invoice: invoice() });
    expect(both.status).toBe(400);
    expect(both.body.message).toEqual(["give exactly one of xml, document or invoice"]);
    // Also when the invoice itself is malformed: the caller first learns that it sent two documents.
    const bothBad = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ xml: "PEludm9pY2UvPg==", invoice: {} });
    expect(bothBad.status).toBe(400);
    expect(bothBad.body.message[0]).toBe("give exactly one of xml, document or invoice");
    const validateBoth = await request(app).post("/v1/validate").set(bearer(apiKey)).send({ xml: "PEludm9pY2UvPg==", creditNote: { number: 1 } });
    expect(validateBoth.status).toBe(400);
    expect(validateBoth.body.message[0]).toBe("give exactly one of xml, document, invoice and creditNote");
    const neither = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ targetNetwork: "peppol" });
    expect(neither.status).toBe(400);
    expect(neither.body.message).toEqual(["xml should not be empty"]);
    const data = invoice();
    delete data.lines[1].vat.rate;
    data.lines[0].quantity = 10;
    data.lines[0].colour = "red";
    const bad = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ invoice: data });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toEqual(
      expect.arrayContaining(["/invoice/lines/0/quantity: must be a string", "/invoice/lines/0/colour: is not a field of InvoiceData (misspelt?)", "/invoice/lines/1/vat/rate: is required for category S"]),
    );
    const totals = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ invoice: { ...invoice(), totals: { payable: "1295.30" } } });
    expect(totals.status).toBe(400);
    expect(totals.body.message).toEqual(["/invoice/totals/payable: is 1295.30, but taxInclusive - paidAmount + roundingAmount gives 1295.31"]);
  });

  it("answers 422 invalid_ubl_xml whose errors name the JSON path for a document that breaks a fatal rule", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app);
    const data = invoice();
    data.lines[1].vat = { category: "E", rate: "0" }; // exempt without an exemption reason (BR-E-10)
    data.lines[0].unitCode = "ZZ9"; // not a UN/ECE unit (BR-CL-23)
    const res = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ invoice: data });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("invalid_ubl_xml");
    const items = (res.body.errors as Array<{ rule: string; path: string; message: string; location: string }>).map((e) => `${e.rule} ${e.path}`);
    expect(items).toEqual(expect.arrayContaining(["BR-E-10 /vatExemptions/E", "BR-CL-23 /lines/0/quantity"]));
    expect(res.body.message).toContain("/vatExemptions/E");
  });

  it("puts eligibility first: a company that may not send gets its refusal, not a verdict on the data", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app, { peppolSendingEnabled: false });
    const data = invoice();
    data.lines[0].unitCode = "ZZ9";
    const res = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ invoice: data });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("peppol_sending_not_enabled");
  });
});

describe("POST /v1/peppol/credit-note with the credit note as data", () => {
  it("builds a UBL CreditNote and accepts it; invoice is not a field here", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app);
    const res = await request(app).post("/v1/peppol/credit-note").set(bearer(apiKey)).send({ creditNote: creditNote(), targetNetwork: "peppol" });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ success: true, status: "sending" });
    const one = await request(app).get(`/v1/invoices/${res.body.data.submissionId}`).set(bearer(apiKey));
    expect(one.body.data).toMatchObject({ kind: "creditNote", billingReference: "INV-2026-0001", dueDate: "2026-04-04" });
    const wrongKey = await request(app).post("/v1/peppol/credit-note").set(bearer(apiKey)).send({ invoice: creditNote() });
    expect(wrongKey.status).toBe(400);
    expect(wrongKey.body.message).toEqual(expect.arrayContaining(["property invoice should not exist"]));
  });
});

describe("POST /v1/validate with data", () => {
  it("answers the report with paths and the built document, base64, for a valid and an invalid invoice", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app);
    const ok = await request(app).post("/v1/validate").set(bearer(apiKey)).send({ invoice: invoice() });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ valid: true, rootElement: "Invoice", errors: [] });
    const xml = Buffer.from(ok.body.data.document, "base64").toString("utf8");
    expect(xml).toContain("<cbc:PayableAmount currencyID=\"EUR\">1295.31</cbc:PayableAmount>");
    // The preview validates as XML too.
    const again = await request(app).post("/v1/validate").set(bearer(apiKey)).send({ xml: ok.body.data.document });
    expect(again.body.data).toMatchObject({ valid: true, errors: [] });
    const data = creditNote();
    data.buyer.address.country = "XX";
    const bad = await request(app).post("/v1/validate").set(bearer(apiKey)).send({ creditNote: data });
    expect(bad.status).toBe(200);
    expect(bad.body.data.valid).toBe(false);
    expect(bad.body.data.rootElement).toBe("CreditNote");
    expect(bad.body.data.errors).toEqual(expect.arrayContaining([expect.objectContaining({ rule: "BR-CL-14", path: "/buyer/address/country" })]));
    const two = await request(app).post("/v1/validate").set(bearer(apiKey)).send({ invoice: invoice(), creditNote: creditNote() });
    expect(two.status).toBe(400);
  });
});

describe("GET /v1/invoices/{id}/document", () => {
  it("answers the UBL as sent (application/xml, the default) or the same as InvoiceData (application/json)", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app);
    const sent = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ invoice: invoice() });
    const id = sent.body.data.submissionId as string;
    const xml = await request(app).get(`/v1/invoices/${id}/document`).set(bearer(apiKey)).buffer(true).parse((res, cb) => {
      let b = "";
      res.on("data", (c: Buffer) => (b += c.toString("utf8")));
      res.on("end", () => cb(null, b));
    });
    expect(xml.status).toBe(200);
    expect(xml.headers["content-type"]).toMatch(/^application\/xml/);
    expect(xml.body).toBe(buildUbl(invoice()));
    const data = await request(app).get(`/v1/invoices/${id}/document`).set(bearer(apiKey)).set("Accept", "application/json");
    expect(data.status).toBe(200);
    expect(data.body).toEqual(normaliseInvoiceData(parseInvoiceData(invoice())));
    // An XML submission is given back byte for byte too.
    const raw = Buffer.from(buildUbl({ ...invoice(), number: "INV-XML-1" }), "utf8");
    const viaXml = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ xml: raw.toString("base64") });
    const back = await request(app).get(`/v1/invoices/${viaXml.body.data.submissionId}/document`).set(bearer(apiKey)).set("Accept", "application/xml").buffer(true).parse((res, cb) => {
      const parts: Buffer[] = [];
      res.on("data", (c: Buffer) => parts.push(c));
      res.on("end", () => cb(null, Buffer.concat(parts)));
    });
    expect(Buffer.compare(back.body as Buffer, raw)).toBe(0);
  });

  it("answers a second invoice with an active one's number (other bytes) 200 failed naming it, small and large (read on a worker) alike", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app);
    // Over the worker threshold (512 KiB of body): the document is built on a worker thread.
    const attachments = [{ id: "ATT-1", description: "Scan", filename: "scan.pdf", mimeCode: "application/pdf", content: Buffer.alloc(600 * 1024, 7).toString("base64") }];
    for (const [number, extra] of [["DUP-SMALL", {}], ["DUP-LARGE", { attachments }]] as const) {
      const first = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ invoice: { ...invoice(), ...extra, number } });
      expect(first.body.data).toMatchObject({ success: true, status: "sending" });
      const second = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ invoice: { ...invoice(), ...extra, number, notes: ["Changed."] } });
      expect(second.status).toBe(200);
      expect(second.body.data).toMatchObject({ success: false, status: "failed", errorMessage: expect.stringContaining(`Duplicate invoice number: "${number}"`) });
      const read = await request(app).get(`/v1/invoices/${second.body.data.submissionId}`).set(bearer(apiKey));
      expect(read.body.data).toMatchObject({ status: "failed", duplicateOf: first.body.data.submissionId });
    }
    // A credit note numbered like an invoice is another document.
    const cn = await request(app).post("/v1/peppol/credit-note").set(bearer(apiKey)).send({ creditNote: { ...creditNote(), number: "DUP-SMALL" } });
    expect(cn.body.data.status).toBe("sending");
  });

  it("answers 409 document_not_available for a failed submission and 404 for another company's or an unknown id", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app);
    const first = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ invoice: invoice() });
    const dup = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ invoice: invoice() });
    expect(dup.body.data.status).toBe("failed");
    const failed = await request(app).get(`/v1/invoices/${dup.body.data.submissionId}/document`).set(bearer(apiKey));
    expect(failed.status).toBe(409);
    expect(failed.body.code).toBe("document_not_available");
    // With format=fa3 the same 409 says so, and does not send the client to the UBL it does not have either.
    const fa3 = await request(app).get(`/v1/invoices/${dup.body.data.submissionId}/document?format=fa3`).set(bearer(apiKey));
    expect([fa3.status, fa3.body.code]).toEqual([409, "document_not_available"]);
    expect(fa3.body.message).toMatch(/has no FA\(3\): it failed at submission \(Duplicate invoice: .*\), and such a submission keeps no document: neither an FA\(3\) nor its UBL\.$/);
    const other = await eligibleAccount(app);
    expect((await request(app).get(`/v1/invoices/${first.body.data.submissionId}/document`).set(bearer(other.apiKey))).status).toBe(404);
    expect((await request(app).get(`/v1/invoices/not-an-id/document`).set(bearer(apiKey))).body.code).toBe("invoice_not_found");
  });
});
