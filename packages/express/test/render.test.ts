// The rendered invoice over HTTP (issue 43): GET /v1/invoices/{id}/document?format=html[&lang=] for a stored invoice,
// sent through Peppol or KSeF (with its KSeF number and QR code), and POST /v1/render, a preview that stores nothing.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createDispatcher, memoryStore, parseInvoiceData, RENDER_FORMATS, RENDER_LANGUAGES, sandboxNetwork, SYNTAXES, tokenCipher, type Dispatcher } from "@einvoice/core";
import { openApiDocument } from "@einvoice/express";
import { LANGUAGES } from "@einvoice/render";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../../examples/server/src/app.js";
import { ksefNetwork } from "../../ksef/src/index.js";
import { startFakeKsef, type FakeKsef } from "../../ksef/test/support/fake-ksef.js";
import { ublInvoice } from "../../ksef/test/support/ubl.js";
import { RENDERERS } from "../src/routes/render.js";
import { ADMIN_TOKEN, answers, eligibleAccount, makeApp } from "./support/app.js";
import { undocumentedAnswers } from "./support/openapi-check.js";

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
const INVOICE = JSON.parse(readFileSync(new URL("../../../examples/invoice.json", import.meta.url), "utf8")) as Record<string, unknown>;
const NIP = "5260250995";
const TOKEN = `20261122-EC-0123456789-ABCDEF0123-45|nip-${NIP}|${randomBytes(16).toString("hex")}`;

afterAll(() => {
  expect(undocumentedAnswers(answers)).toEqual([]);
});

describe("the rendered formats", () => {
  it("are one list: the core's RENDER_FORMATS each have a renderer, and the core's languages are @einvoice/render's", () => {
    expect(Object.keys(RENDERERS).sort()).toEqual([...RENDER_FORMATS].sort());
    expect([...RENDER_LANGUAGES]).toEqual([...LANGUAGES]);
  });
});

describe("GET /v1/invoices/{id}/document?format=html", () => {
  let fake: FakeKsef;
  let dispatcher: Dispatcher;
  const cipher = tokenCipher(randomBytes(32));
  const store = memoryStore();
  const { app } = makeApp({ store, ksef: { tokenCipher: cipher, ksefCredentialsRequired: true } });
  let nl: { apiKey: string };
  let pl: { apiKey: string };
  let id: string;

  beforeAll(async () => {
    fake = await startFakeKsef({ nip: NIP, token: TOKEN });
    dispatcher = createDispatcher({ store, networks: { ksef: ksefNetwork({ baseUrl: fake.url, pollIntervalMs: 20 }), peppol: sandboxNetwork({ delayMs: 0 }) }, tokenCipher: cipher });
    nl = await eligibleAccount(app);
    pl = await eligibleAccount(app, { country: "PL", ksef: { nip: NIP, token: TOKEN } });
    const res = await request(app).post("/v1/peppol/invoice").set(bearer(nl.apiKey)).send({ invoice: INVOICE });
    expect(res.body.data.status).toBe("sending");
    id = res.body.data.submissionId;
  });
  afterAll(async () => {
    await dispatcher.stop();
    await fake.close();
  });

  it("answers the page as text/html under a Content-Security-Policy that allows no script and no request, in the buyer's language by default", async () => {
    const res = await request(app).get(`/v1/invoices/${id}/document?format=html`).set(bearer(nl.apiKey));
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.headers["content-security-policy"]).toBe(CSP);
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.text).toMatch(/^<!DOCTYPE html>/);
    // The buyer is in BE: Dutch.
    expect(res.text).toContain('<html lang="nl">');
    expect(res.text).toContain("Factuur");
    for (const s of ["INV-2026-0001", "Seller BV", "Buyer NV"]) expect(res.text).toContain(s);
    expect(res.text).not.toMatch(/<script/i);
  });

  it("takes lang; refuses an unknown one, lang without a rendered format, and answers 404 for an unknown invoice", async () => {
    const de = await request(app).get(`/v1/invoices/${id}/document?format=html&lang=de`).set(bearer(nl.apiKey));
    expect(de.status).toBe(200);
    expect(de.text).toContain('<html lang="de">');
    expect(de.text).toContain("Rechnung");
    const cases: [string, string][] = [
      ["format=html&lang=xx", "lang must be one of the following values: en, de, nl, fr, pl"],
      ["lang=de", "lang is only for format html, pdf, facturx"],
      ["format=cii&lang=de", "lang is only for format html, pdf, facturx"],
      ["format=html&lang=de&lang=fr", "lang must not be repeated"],
    ];
    for (const [query, message] of cases) {
      const res = await request(app).get(`/v1/invoices/${id}/document?${query}`).set(bearer(nl.apiKey));
      expect([res.status, res.body]).toEqual([400, { statusCode: 400, code: "invalid_request", message: [message], error: "Bad Request" }]);
    }
    const unknown = await request(app).get(`/v1/invoices/00000000-0000-4000-8000-000000000000/document?format=html`).set(bearer(nl.apiKey));
    expect([unknown.status, unknown.body.code]).toEqual([404, "invoice_not_found"]);
    expect(unknown.headers["content-type"]).toMatch(/^application\/json/);
    // Another company does not see it.
    expect((await request(app).get(`/v1/invoices/${id}/document?format=html`).set(bearer(pl.apiKey))).status).toBe(404);
  });

  it("answers 409 document_not_available for a failed submission, which keeps no document", async () => {
    const again = await request(app).post("/v1/peppol/invoice").set(bearer(nl.apiKey)).send({ invoice: INVOICE });
    expect(again.body.data.status).toBe("failed");
    const res = await request(app).get(`/v1/invoices/${again.body.data.submissionId}/document?format=html`).set(bearer(nl.apiKey));
    expect([res.status, res.body.code]).toEqual([409, "document_not_available"]);
  });

  it("shows a KSeF invoice's KSeF number and its verification QR code (KOD I) as a data: image", async () => {
    const xml = ublInvoice({ id: "FV/HTML/1", lines: [{ name: "Usługa &lt;b&gt;zażółć&lt;/b&gt;", quantity: "2", price: "150.00", cat: { id: "S", percent: "23" } }] })
      .xml.replace('<cbc:EndpointID schemeID="9930">PL5213017228<', '<cbc:EndpointID schemeID="9945">PL5213017228<')
      .replace("</cbc:DocumentCurrencyCode>", "</cbc:DocumentCurrencyCode><cbc:BuyerReference>PO-1</cbc:BuyerReference>");
    const submit = await request(app).post("/v1/peppol/invoice").set(bearer(pl.apiKey)).send({ xml: Buffer.from(xml).toString("base64") });
    expect(submit.body.data.status).toBe("sending");
    const ksefId = submit.body.data.submissionId as string;
    // Before KSeF numbers it, the page has no KSeF part.
    expect((await request(app).get(`/v1/invoices/${ksefId}/document?format=html`).set(bearer(pl.apiKey))).text).not.toContain('class="ksef"');
    await dispatcher.runOnce();
    const record = (await request(app).get(`/v1/invoices/${ksefId}`).set(bearer(pl.apiKey))).body.data;
    expect(record.status).toBe("delivered");
    const res = await request(app).get(`/v1/invoices/${ksefId}/document?format=html`).set(bearer(pl.apiKey));
    expect(res.status).toBe(200);
    expect(res.text).toContain('<html lang="pl">');
    expect(res.text).toContain(record.ksefNumber);
    expect(res.text).toContain("Usługa &lt;b&gt;zażółć&lt;/b&gt;");
    const src = /<img class="qr" alt="[^"]*" src="data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)">/.exec(res.text)?.[1];
    expect(src).toBeDefined();
    const svg = Buffer.from(src!, "base64").toString("utf8");
    expect(svg).toContain(`>${record.ksefNumber}</text>`);
    expect(svg).toContain(record.verificationUrl);
  });
});

describe("POST /v1/render", () => {
  const store = memoryStore();
  const { app } = makeApp({ store });
  let key: string;
  beforeAll(async () => {
    key = (await eligibleAccount(app)).apiKey;
  });

  it("renders an invoice sent as data, as UBL (xml) and as CII (document) alike, and stores nothing", async () => {
    const data = await request(app).post("/v1/render").set(bearer(key)).send({ invoice: INVOICE, format: "html", lang: "en" });
    expect(data.status).toBe(200);
    expect(data.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(data.headers["content-security-policy"]).toBe(CSP);
    expect(data.headers["x-content-type-options"]).toBe("nosniff");
    expect(data.text).toContain("Invoice");
    // The totals are computed for data: the amount due is shown.
    expect(data.text).toMatch(/Amount due<\/th><td>[\d,.]+\u00a0EUR/);

    const validated = await request(app).post("/v1/validate").set(bearer(key)).send({ invoice: INVOICE });
    const ubl = validated.body.data.document as string;
    const fromXml = await request(app).post("/v1/render").set(bearer(key)).send({ xml: ubl, format: "html", lang: "en" });
    expect(fromXml.status).toBe(200);
    const ciiText = SYNTAXES.find((s) => s.id === "cii")!.write(parseInvoiceData(INVOICE));
    const fromCii = await request(app).post("/v1/render").set(bearer(key)).send({ document: Buffer.from(ciiText).toString("base64"), format: "html", lang: "en" });
    expect(fromCii.status).toBe(200);
    for (const page of [fromXml.text, fromCii.text]) for (const s of ["INV-2026-0001", "Seller BV", "Buyer NV"]) expect(page).toContain(s);
    // A credit note as data has its title.
    const credit = await request(app).post("/v1/render").set(bearer(key)).send({ creditNote: { ...INVOICE, precedingInvoices: [{ number: "INV-2026-0000" }] }, format: "html", lang: "fr" });
    expect(credit.status).toBe(200);
    expect(credit.text).toContain("<h1>Avoir");
    expect((await request(app).get("/v1/invoices").set(bearer(key))).body.data).toEqual([]);
  });

  it("renders its documented example (the one /docs offers to try) in the language it asks", async () => {
    const doc = openApiDocument() as unknown as { paths: Record<string, { post: { requestBody: { content: Record<string, { examples: Record<string, { value: object }> }> } } }> };
    const example = doc.paths["/v1/render"]!.post.requestBody.content["application/json"]!.examples["html"]!.value;
    const res = await request(app).post("/v1/render").set(bearer(key)).send(example);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`<h1>Rechnung <span class="number">INV-2026-0001</span></h1>`);
  });

  it("answers 400 for a body of the wrong shape and 422 for a document it cannot read", async () => {
    const cases: [unknown, number, unknown][] = [
      [{ format: "html" }, 400, ["xml should not be empty"]],
      [{ invoice: INVOICE }, 400, ["format should not be empty"]],
      [{ invoice: INVOICE, format: "docx" }, 400, ["format must be one of the following values: html, pdf, facturx"]],
      [{ invoice: INVOICE, format: "html", lang: "es" }, 400, ["lang must be one of the following values: en, de, nl, fr, pl"]],
      [{ invoice: INVOICE, xml: "PEludm9pY2UvPg==", format: "html" }, 400, ["give exactly one of xml, document, invoice and creditNote"]],
      [{ invoice: { ...INVOICE, currency: "euro" }, format: "html" }, 400, ["/invoice/currency: must be an ISO 4217 currency code, such as EUR"]],
    ];
    for (const [body, status, message] of cases) {
      const res = await request(app).post("/v1/render").set(bearer(key)).send(body as object);
      expect([res.status, res.body.message]).toEqual([status, message]);
    }
    const b64 = await request(app).post("/v1/render").set(bearer(key)).send({ xml: "not base64!", format: "html" });
    expect([b64.status, b64.body.code]).toEqual([422, "invalid_base64_xml"]);
    const other = await request(app).post("/v1/render").set(bearer(key)).send({ document: Buffer.from("<Order/>").toString("base64"), format: "html" });
    expect([other.status, other.body.code]).toEqual([422, "unsupported_document"]);
    const pdf = await request(app).post("/v1/render").set(bearer(key)).send({ document: Buffer.from("%PDF-1.7\nnot really").toString("base64"), format: "html" });
    expect([pdf.status, pdf.body.code]).toEqual([422, "invalid_pdf"]);
    expect((await request(app).post("/v1/render").send({ invoice: INVOICE, format: "html" })).status).toBe(401);
  });

  it("counts against the company's rate limit: over it, 429 in the API's shape with Retry-After", async () => {
    const limited = createApp({ store: memoryStore(), adminToken: ADMIN_TOKEN, rateLimit: { requests: 2, windowMs: 60_000 } });
    const { apiKey } = await eligibleAccount(limited);
    const statuses: number[] = [];
    let last: request.Response | undefined;
    for (let i = 0; i < 3; i++) {
      last = await request(limited).post("/v1/render").set(bearer(apiKey)).send({ invoice: INVOICE, format: "html" });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(last!.body).toEqual({ code: "rate_limited", message: "Too many requests for this company: the limit is 2 per minute. Retry after 60 seconds." });
    expect(last!.headers["retry-after"]).toBeDefined();
  });

  it("refuses a body over the body limit with 413 before reading it", async () => {
    const res = await request(app)
      .post("/v1/render")
      .set(bearer(key))
      .set("Content-Type", "application/json")
      .send(JSON.stringify({ xml: "A".repeat(11 * 1024 * 1024), format: "html" }));
    expect(res.status).toBe(413);
  });
});
