// What a company received, over HTTP: the records beside its submissions (direction filter, pagination), each received
// document as received byte for byte, as data whatever its syntax, and converted (ubl, cii, fa3, html); another
// company's received document out of reach; the suppliers; participant identifiers that belong to one company.
// Documents are received with the core's receiveDocument on the memory store. Every answer is checked against the
// OpenAPI document.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { memoryStore, receiveDocument, type NetworkReference } from "@einvoice/core";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { fa3Syntax, toFa3 } from "../../ksef/src/index.js";
import { ublTree } from "../../ksef/test/support/tree.js";
import { ublInvoice } from "../../ksef/test/support/ubl.js";
import { b64, invoiceXml } from "../../core/test/support/ubl.js";
import { ADMIN_TOKEN, answers, eligibleAccount, makeApp } from "./support/app.js";
import { undocumentedAnswers } from "./support/openapi-check.js";

afterAll(() => {
  expect(answers.length).toBeGreaterThan(50);
  expect(undocumentedAnswers(answers)).toEqual([]);
});

const REPO = join(fileURLToPath(import.meta.url), "../../../..");
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

/** The body of a supertest answer as raw bytes. */
const raw = (req: request.Test) =>
  req.buffer(true).parse((res, cb) => {
    const chunks: Buffer[] = [];
    res.on("data", (c: Buffer) => chunks.push(c));
    res.on("end", () => cb(null, Buffer.concat(chunks)));
  });

const UBL = Buffer.from(invoiceXml({ id: "IN-UBL-1", sellerVat: "DE111111111" }));
const CII = readFileSync(join(REPO, "examples", "invoice-cii.xml"));
// A Factur-X whose parties' electronic addresses are empty: read as written (outside InvoiceData's input rules).
const PDF = readFileSync(join(REPO, "testdata", "facturx", "pdf_zf_en16931_1.pdf"));
const FA3 = Buffer.from(
  toFa3(ublTree(ublInvoice({ id: "FV/IN/1", lines: [{ name: "Usługa", quantity: "2", price: "150.00", cat: { id: "S", percent: "23" } }] }).xml), {
    createdAt: new Date("2026-11-20T10:00:00Z"),
  }),
);
const GARBAGE = Buffer.from("this is not XML \u0000\u0001 at all");

function setUp() {
  const store = memoryStore();
  const { app } = makeApp({ store, syntaxes: [fa3Syntax] });
  let n = 0;
  const receive = async (companyId: string, content: Buffer, reference: NetworkReference = { storecoveGuid: `guid-${++n}` }) => {
    const outcome = await receiveDocument(store, { reference, content, network: "ksefNumber" in reference ? "ksef" : "peppol", companyId }, { syntaxes: [fa3Syntax] });
    if (outcome.outcome !== "stored") throw new Error(`not stored: ${JSON.stringify(outcome)}`);
    return outcome.invoiceId;
  };
  return { store, app, receive };
}

describe("GET /v1/invoices with received documents", () => {
  it("lists received documents beside submissions, each with its direction; direction keeps one side, a page at a time", async () => {
    const { app, receive } = setUp();
    const b = await eligibleAccount(app);
    const sent: string[] = [];
    for (const id of ["OUT-1", "OUT-2"]) {
      const res = await request(app).post("/v1/peppol/invoice").set(bearer(b.apiKey)).send({ xml: b64(invoiceXml({ id })) });
      expect(res.body.data.status).toBe("sending");
      sent.push(res.body.data.submissionId);
    }
    const received = [await receive(b.companyId, UBL), await receive(b.companyId, CII), await receive(b.companyId, GARBAGE, { ksefNumber: "5260250995-20261120-0100001AF629-AF" })];

    const all = await request(app).get("/v1/invoices").set(bearer(b.apiKey));
    expect(all.status).toBe(200);
    expect(all.body.data.map((i: { id: string }) => i.id).sort()).toEqual([...sent, ...received].sort());
    for (const i of all.body.data) expect(i.direction).toBe(sent.includes(i.id) ? "outbound" : "inbound");

    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const res: request.Response = await request(app)
        .get("/v1/invoices")
        .query({ direction: "inbound", limit: 2, ...(cursor ? { cursor } : {}) })
        .set(bearer(b.apiKey));
      expect(res.status).toBe(200);
      pages.push(res.body.data.map((i: { id: string; direction: string; status: string }) => (expect([i.direction, i.status]).toEqual(["inbound", "received"]), i.id)));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(pages.map((p) => p.length)).toEqual([2, 1]);
    expect(pages.flat()).toEqual([...received].reverse());

    const out = await request(app).get("/v1/invoices").query({ direction: "outbound" }).set(bearer(b.apiKey));
    expect(out.body.data.map((i: { id: string }) => i.id)).toEqual([...sent].reverse());
    const statusReceived = await request(app).get("/v1/invoices").query({ status: "received" }).set(bearer(b.apiKey));
    expect(statusReceived.body.data).toHaveLength(3);

    const ublRecord = all.body.data.find((i: { id: string }) => i.id === received[0]);
    expect(ublRecord).toMatchObject({
      status: "received",
      network: "peppol",
      invoiceNumber: "IN-UBL-1",
      syntax: "ubl",
      valid: true,
      errors: [],
      networkReference: { storecoveGuid: "guid-1" },
      clientId: null,
      supplierId: expect.any(String),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      size: UBL.length,
    });
    const garbage = (await request(app).get(`/v1/invoices/${received[2]}`).set(bearer(b.apiKey))).body.data;
    expect(garbage).toMatchObject({ direction: "inbound", network: "ksef", syntax: "unknown", valid: false, networkReference: { ksefNumber: "5260250995-20261120-0100001AF629-AF" }, supplierId: null });
    expect(garbage.errors[0].rule).toBe("unreadable");

    const bad = await request(app).get("/v1/invoices").query({ direction: "sideways" }).set(bearer(b.apiKey));
    expect([bad.status, bad.body.message]).toEqual([400, ["direction must be one of the following values: outbound, inbound"]]);
  });
});

describe("GET /v1/invoices/{id}/document of a received document", () => {
  it("answers the bytes exactly as received with their media type, the data whatever the syntax, and the conversions", async () => {
    const { app, receive } = setUp();
    const b = await eligibleAccount(app);
    const doc = (id: string, query: Record<string, string> = {}, accept?: string) => {
      const r = request(app).get(`/v1/invoices/${id}/document`).query(query).set(bearer(b.apiKey));
      return raw(accept ? r.set("Accept", accept) : r);
    };
    const cases: { content: Buffer; type: string; number: string; syntax: string }[] = [
      { content: UBL, type: "application/xml", number: "IN-UBL-1", syntax: "ubl" },
      { content: CII, type: "application/xml", number: "QS-2026-002", syntax: "cii" },
      { content: PDF, type: "application/pdf", number: "471102", syntax: "pdf" },
      { content: FA3, type: "application/xml", number: "FV/IN/1", syntax: "fa3" },
    ];
    for (const c of cases) {
      const id = await receive(b.companyId, c.content, c.syntax === "fa3" ? { ksefNumber: "5260250995-20261120-0100001AF629-AB" } : undefined);
      expect((await request(app).get(`/v1/invoices/${id}`).set(bearer(b.apiKey))).body.data.syntax, c.syntax).toBe(c.syntax);
      for (const query of [{}, { format: "original" }] as Record<string, string>[]) {
        const res = await doc(id, query);
        expect([res.status, res.headers["content-type"]], c.syntax).toEqual([200, expect.stringContaining(c.type)]);
        expect(Buffer.compare(res.body as Buffer, c.content), `${c.syntax} ${JSON.stringify(query)} byte for byte`).toBe(0);
        expect(res.headers["content-security-policy"], c.syntax).toBe("default-src 'none'; sandbox");
      }
      const data = await request(app).get(`/v1/invoices/${id}/document`).set(bearer(b.apiKey)).set("Accept", "application/json");
      expect([data.status, data.body.number], c.syntax).toEqual([200, c.number]);
      expect(data.body.totals.payable, c.syntax).toMatch(/^[0-9]+(\.[0-9]+)?$/);

      const cii = await doc(id, { format: "cii" });
      expect([cii.status, (cii.body as Buffer).toString("utf8")], c.syntax).toEqual([200, expect.stringContaining(`<ram:ID>${c.number}</ram:ID>`)]);
      const html = await request(app).get(`/v1/invoices/${id}/document`).query({ format: "html" }).set(bearer(b.apiKey));
      expect([html.status, html.headers["content-type"], html.text.includes(c.number)], c.syntax).toEqual([200, "text/html; charset=utf-8", true]);

      const ubl = await doc(id, { format: "ubl" });
      if (c.syntax === "ubl") expect([ubl.status, Buffer.compare(ubl.body as Buffer, c.content)]).toEqual([200, 0]);
      else if (c.syntax !== "cii") {
        // The parties' electronic addresses are empty (an FA(3) has none): its data makes no UBL document, and the answer says why.
        const body = JSON.parse((ubl.body as Buffer).toString("utf8"));
        expect([ubl.status, body.code], c.syntax).toEqual([409, "document_not_available"]);
        expect(body.message).toMatch(/^Invoice [0-9a-f-]{36} was received as (a Factur-X PDF|FA\(3\)) and cannot be written as UBL: \/seller\/endpoint\/.+\. Ask without format for it as received/);
      } else {
        expect(ubl.status, c.syntax).toBe(200);
        expect((ubl.body as Buffer).toString("utf8"), c.syntax).toMatch(new RegExp(`<Invoice [^]*<cbc:ID>${c.number.replace(/\//g, "\\/")}</cbc:ID>`));
      }

      const fa3 = await doc(id, { format: "fa3" });
      if (c.syntax === "fa3") {
        expect([fa3.status, fa3.headers["content-type"], Buffer.compare(fa3.body as Buffer, c.content)]).toEqual([200, expect.stringContaining("application/xml"), 0]);
      } else {
        expect([fa3.status, JSON.parse((fa3.body as Buffer).toString()).code], c.syntax).toEqual([409, "document_not_available"]);
      }
    }
  });

  it("serves a document that could not be read as received (application/octet-stream), and answers 422 document_unreadable for it as data", async () => {
    const { app, receive } = setUp();
    const b = await eligibleAccount(app);
    const id = await receive(b.companyId, GARBAGE);
    const res = await raw(request(app).get(`/v1/invoices/${id}/document`).set(bearer(b.apiKey)));
    expect([res.status, res.headers["content-type"], Buffer.compare(res.body as Buffer, GARBAGE)]).toEqual([200, "application/octet-stream", 0]);
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    for (const [query, accept] of [[{}, "application/json"], [{ format: "cii" }, undefined], [{ format: "html" }, undefined], [{ format: "ubl" }, undefined]] as const) {
      const r = request(app).get(`/v1/invoices/${id}/document`).query(query).set(bearer(b.apiKey));
      const data = await (accept ? r.set("Accept", accept) : r);
      expect([data.status, data.body.code], JSON.stringify(query)).toEqual([422, "document_unreadable"]);
    }
  });

  it("stores hostile documents (an entity expansion, a DOCTYPE, a deep nesting) invalid with why, serves them as received, and refuses them as data", async () => {
    const { app, receive } = setUp();
    const b = await eligibleAccount(app);
    const bomb = Buffer.from(`<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><Invoice>&lol2;</Invoice>`);
    const deep = Buffer.from(`${"<a>".repeat(100_000)}${"</a>".repeat(100_000)}`);
    for (const content of [bomb, deep]) {
      const id = await receive(b.companyId, content);
      const record = (await request(app).get(`/v1/invoices/${id}`).set(bearer(b.apiKey))).body.data;
      expect([record.valid, record.syntax, record.errors.length]).toEqual([false, "unknown", 1]);
      expect(record.errors[0].message.length).toBeGreaterThan(10);
      const res = await raw(request(app).get(`/v1/invoices/${id}/document`).set(bearer(b.apiKey)));
      expect([res.status, Buffer.compare(res.body as Buffer, content)]).toEqual([200, 0]);
      const data = await request(app).get(`/v1/invoices/${id}/document`).set(bearer(b.apiKey)).set("Accept", "application/json");
      expect([data.status, data.body.code]).toEqual([422, "document_unreadable"]);
    }
  });

  it("keeps another company's received document out of reach: 404 like an unknown id, never listed", async () => {
    const { app, receive } = setUp();
    const a = await eligibleAccount(app);
    const b = await eligibleAccount(app);
    const id = await receive(b.companyId, UBL);
    for (const path of [`/v1/invoices/${id}`, `/v1/invoices/${id}/document`, `/v1/invoices/${id}/document?format=original`]) {
      const res = await request(app).get(path).set(bearer(a.apiKey));
      expect([res.status, res.body.code], path).toEqual([404, "invoice_not_found"]);
    }
    expect((await request(app).get("/v1/invoices").set(bearer(a.apiKey))).body.data).toEqual([]);
    expect((await request(app).get("/v1/suppliers").set(bearer(a.apiKey))).body.data).toEqual([]);
    expect((await request(app).get(`/v1/invoices/${id}`).set(bearer(b.apiKey))).status).toBe(200);
  });
});

describe("GET /v1/suppliers", () => {
  it("lists the sellers of what the company received, latest first, a page at a time; one by id; its documents by supplierId", async () => {
    const { app, receive } = setUp();
    const a = await eligibleAccount(app);
    const b = await eligibleAccount(app);
    const first = await receive(b.companyId, UBL);
    await receive(b.companyId, CII);
    const again = await receive(b.companyId, Buffer.from(invoiceXml({ id: "IN-UBL-2", sellerVat: "DE111111111" })));
    await receive(b.companyId, GARBAGE); // names no seller: no supplier

    const seen: { id: string; invoiceCount: number; endpointId: string }[] = [];
    let cursor: string | null = null;
    do {
      const res: request.Response = await request(app)
        .get("/v1/suppliers")
        .query({ limit: 1, ...(cursor ? { cursor } : {}) })
        .set(bearer(b.apiKey));
      expect(res.status).toBe(200);
      seen.push(...res.body.data);
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen.map((s) => [s.endpointId, s.invoiceCount])).toEqual([
      ["0106:12345678", 2],
      [expect.any(String), 1],
    ]);
    const ublSeller = seen[0]!;
    const one = await request(app).get(`/v1/suppliers/${ublSeller.id}`).set(bearer(b.apiKey));
    expect([one.status, one.body.data]).toEqual([200, ublSeller]);
    const theirs = await request(app).get("/v1/invoices").query({ supplierId: ublSeller.id }).set(bearer(b.apiKey));
    expect(theirs.body.data.map((i: { id: string; supplierId: string }) => [i.id, i.supplierId])).toEqual([
      [again, ublSeller.id],
      [first, ublSeller.id],
    ]);
    // Suppliers are not clients: B's client list holds only whom it invoiced (nobody here).
    expect((await request(app).get("/v1/clients").set(bearer(b.apiKey))).body.data).toEqual([]);

    for (const id of ["00000000-0000-4000-8000-000000000000", "nope", "%ff"]) {
      const res = await request(app).get(`/v1/suppliers/${id}`).set(bearer(b.apiKey));
      expect([res.status, res.body.code], id).toEqual([404, "supplier_not_found"]);
    }
    const fromA = await request(app).get(`/v1/suppliers/${ublSeller.id}`).set(bearer(a.apiKey));
    expect([fromA.status, fromA.body.code]).toEqual([404, "supplier_not_found"]);
    const clientCursor = (await request(app).get("/v1/invoices").query({ limit: 1 }).set(bearer(b.apiKey))).body.nextCursor;
    const wrong = await request(app).get("/v1/suppliers").query({ cursor: clientCursor }).set(bearer(b.apiKey));
    expect([wrong.status, wrong.body.message]).toEqual([400, ["cursor must be a valid pagination cursor (pass nextCursor from the previous page unchanged)"]]);
    expect((await request(app).get("/v1/suppliers")).status).toBe(401);
  });
});

describe("PATCH /admin/companies/{id} with participantIds", () => {
  it("sets them (value lower-cased, repeats dropped), refuses one another company has with 409 participant_id_taken and changes nothing", async () => {
    const { app } = setUp();
    const a = await eligibleAccount(app);
    const b = await eligibleAccount(app);
    const set = await request(app).patch(`/admin/companies/${a.companyId}`).set(admin).send({ participantIds: ["0106:ACME-A", "0106:acme-a", "9930:DE111"] });
    expect([set.status, set.body.data.participantIds]).toEqual([200, ["0106:acme-a", "9930:de111"]]);
    const taken = await request(app).patch(`/admin/companies/${b.companyId}`).set(admin).send({ participantIds: ["0106:B-1", "0106:Acme-A"], subscription: "basic" });
    expect([taken.status, taken.body.code]).toEqual([409, "participant_id_taken"]);
    expect(taken.body.message).toContain("0106:acme-a");
    const bNow = (await request(app).get(`/admin/companies/${b.companyId}`).set(admin)).body.data;
    expect([bNow.participantIds, bNow.subscription]).toEqual([[], "pro"]);
    const bad = await request(app).patch(`/admin/companies/${b.companyId}`).set(admin).send({ participantIds: ["12345678"] });
    expect([bad.status, bad.body.message]).toEqual([400, ["each of participantIds must be `scheme:value`: a four-digit ICD scheme, a colon and the identifier, such as 0106:12345678"]]);
    // Given back by A, B may take it.
    expect((await request(app).patch(`/admin/companies/${a.companyId}`).set(admin).send({ participantIds: [] })).body.data.participantIds).toEqual([]);
    expect((await request(app).patch(`/admin/companies/${b.companyId}`).set(admin).send({ participantIds: ["0106:acme-a"] })).body.data.participantIds).toEqual(["0106:acme-a"]);
    expect((await request(app).get("/v1/company").set(bearer(b.apiKey))).body.data.participantIds).toEqual(["0106:acme-a"]);
  });
});
