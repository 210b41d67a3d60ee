// POST /v1/peppol/credit-note (issue 19): the invoice route's body, answers and check order, for a UBL CreditNote.
import { readFileSync } from "node:fs";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CORPUS_DIR } from "../../core/test/support/corpus.js";
import { b64, invoiceXml } from "../../core/test/support/ubl.js";
import { eligibleAccount, makeApp } from "./support/app.js";

const CREDIT_NOTE = "/v1/peppol/credit-note";
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
const CodeBody = z.object({ code: z.string(), message: z.string().min(10) });
const note = () => readFileSync(`${CORPUS_DIR}/openpeppol-bis3/snippets/Snippet-cn.xml`).toString("base64");

describe("POST /v1/peppol/credit-note", () => {
  it("answers 401 before looking at the body, and 400 for a bad shape in the invoice route's wording", async () => {
    const { app } = makeApp();
    expect((await request(app).post(CREDIT_NOTE).send({ foo: 1 })).status).toBe(401);
    const { apiKey } = await eligibleAccount(app);
    const res = await request(app).post(CREDIT_NOTE).set(bearer(apiKey)).send({ xml: note(), targetNetwork: "email" });
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual(["targetNetwork must be one of the following values: auto, peppol, ksef"]);
  });

  it("accepts a credit note with sending, lists and reads it as kind creditNote (and documentType, its former name) with its billing reference", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app);
    const inv = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ xml: b64(invoiceXml()) });
    expect(inv.body.data.status).toBe("sending");
    const res = await request(app).post(CREDIT_NOTE).set(bearer(apiKey)).send({ xml: note(), targetNetwork: "peppol" });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ success: true, status: "sending" });
    const id = res.body.data.submissionId as string;
    const one = await request(app).get(`/v1/invoices/${id}`).set(bearer(apiKey));
    expect(one.body.data).toMatchObject({ id, kind: "creditNote", documentType: "creditNote", billingReference: "123", recipient: { endpointId: "0002:FR23342" } });
    const notes = await request(app).get("/v1/invoices?kind=creditNote").set(bearer(apiKey));
    expect(notes.body.data.map((i: { id: string }) => i.id)).toEqual([id]);
    const invoices = await request(app).get("/v1/invoices?kind=invoice").set(bearer(apiKey));
    expect(invoices.body.data.map((i: { id: string; kind: string }) => [i.id, i.kind])).toEqual([[inv.body.data.submissionId, "invoice"]]);
    const formerName = await request(app).get("/v1/invoices?documentType=creditNote").set(bearer(apiKey));
    expect(formerName.body.data.map((i: { id: string }) => i.id)).toEqual([id]);
    const bad = await request(app).get("/v1/invoices?kind=credit-note").set(bearer(apiKey));
    expect(bad.status).toBe(400);
    const differing = await request(app).get("/v1/invoices?kind=invoice&documentType=creditNote").set(bearer(apiKey));
    expect(differing.status).toBe(400);
    // The duplicate rule: identical bytes again are 200 failed naming the first.
    const again = await request(app).post(CREDIT_NOTE).set(bearer(apiKey)).send({ xml: note(), targetNetwork: "peppol" });
    expect(again.body.data).toMatchObject({ success: false, status: "failed", errorMessage: expect.stringContaining(id) });
  });

  it("answers 422 invalid_ubl_xml naming the right endpoint for an Invoice here and a CreditNote on the invoice route", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app);
    const here = await request(app).post(CREDIT_NOTE).set(bearer(apiKey)).send({ xml: b64(invoiceXml()) });
    expect(here.status).toBe(422);
    expect(CodeBody.parse(here.body)).toMatchObject({ code: "invalid_ubl_xml", message: expect.stringContaining("POST /v1/peppol/invoice") });
    const there = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ xml: note() });
    expect(there.status).toBe(422);
    expect(CodeBody.parse(there.body)).toMatchObject({ code: "invalid_ubl_xml", message: expect.stringContaining("POST /v1/peppol/credit-note") });
  });

  it("stores a credit note routed to KSeF failed at submit, unless the ksef route maps credit notes to KOR (ksefCorrections): then it is sending on ksef", async () => {
    const polish = (comment: string) =>
      Buffer.from(readFileSync(`${CORPUS_DIR}/openpeppol-bis3/snippets/Snippet-cn.xml`, "utf8").replace('<cbc:EndpointID schemeID="0002">FR23342</cbc:EndpointID>', `<cbc:EndpointID schemeID="9945">PL5260250995</cbc:EndpointID><!-- ${comment} -->`)).toString("base64");
    const plain = makeApp();
    const a = await eligibleAccount(plain.app, { country: "PL" });
    const refused = await request(plain.app).post(CREDIT_NOTE).set(bearer(a.apiKey)).send({ xml: polish("plain") });
    expect(refused.body.data).toMatchObject({ success: false, status: "failed", errorMessage: expect.stringMatching(/KSeF correction invoices \(KOR\) are sent only through a KSeF connection, and this server has none/) });
    const kor = makeApp({ ksef: { ksefCorrections: true } });
    const b = await eligibleAccount(kor.app, { country: "PL" });
    const accepted = await request(kor.app).post(CREDIT_NOTE).set(bearer(b.apiKey)).send({ xml: polish("kor") });
    expect(accepted.body.data).toMatchObject({ success: true, status: "sending" });
    expect((await request(kor.app).get(`/v1/invoices/${accepted.body.data.submissionId}`).set(bearer(b.apiKey))).body.data).toMatchObject({ network: "ksef", kind: "creditNote" });
  });

  it("lists by invoiceNumber (BT-1), exactly, and answers 400 for an empty one", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app);
    const inv = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ xml: b64(invoiceXml({ id: "FV/2026/11" })) });
    await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ xml: b64(invoiceXml({ id: "FV/2026/110" })) });
    const cn = await request(app).post(CREDIT_NOTE).set(bearer(apiKey)).send({ xml: note(), targetNetwork: "peppol" });
    const ids = async (q: string) => (await request(app).get(`/v1/invoices?${q}`).set(bearer(apiKey))).body.data.map((i: { id: string }) => i.id);
    expect(await ids(`invoiceNumber=${encodeURIComponent("FV/2026/11")}`)).toEqual([inv.body.data.submissionId]);
    expect(await ids(`invoiceNumber=${encodeURIComponent("fv/2026/11")}`)).toEqual([]);
    expect(await ids("invoiceNumber=Snippet1&kind=creditNote")).toEqual([cn.body.data.submissionId]);
    const empty = await request(app).get("/v1/invoices?invoiceNumber=").set(bearer(apiKey));
    expect(empty.status).toBe(400);
    expect(empty.body.message).toEqual(["invoiceNumber must not be empty"]);
  });
});
