// GET /v1/invoices/{id}/document?format=fa3 (issue 23): the FA(3) exactly as it was sent to KSeF,
// through the app with a dispatcher on the KSeF adapter against the fake KSeF of packages/ksef/test.
import { createHash, randomBytes } from "node:crypto";
import { createDispatcher, memoryStore, sandboxNetwork, tokenCipher, type Dispatcher } from "@einvoice/core";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ksefNetwork } from "../../ksef/src/index.js";
import { startFakeKsef, type FakeKsef } from "../../ksef/test/support/fake-ksef.js";
import { ublInvoice } from "../../ksef/test/support/ubl.js";
import { eligibleAccount, makeApp } from "./support/app.js";

const NIP = "5260250995";
const TOKEN = `20261122-EC-0123456789-ABCDEF0123-45|nip-${NIP}|${randomBytes(16).toString("hex")}`;
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** A Polish invoice (seller PL5260250995) to a Polish buyer with a 9945 identifier, base64. */
function polishInvoice(id: string): string {
  const xml = ublInvoice({ id, lines: [{ name: "Usługa ✓ &amp; &lt;więcej&gt;", quantity: "2", price: "150.00", cat: { id: "S", percent: "23" } }] })
    .xml.replace('<cbc:EndpointID schemeID="9930">PL5213017228<', '<cbc:EndpointID schemeID="9945">PL5213017228<')
    .replace("</cbc:DocumentCurrencyCode>", "</cbc:DocumentCurrencyCode><cbc:BuyerReference>PO-1</cbc:BuyerReference>");
  return Buffer.from(xml).toString("base64");
}

/** The body of a supertest answer as raw bytes. */
const raw = (req: request.Test) =>
  req.buffer(true).parse((res, cb) => {
    const chunks: Buffer[] = [];
    res.on("data", (c: Buffer) => chunks.push(c));
    res.on("end", () => cb(null, Buffer.concat(chunks)));
  });

describe("GET /v1/invoices/{id}/document?format=fa3", () => {
  let fake: FakeKsef;
  let dispatcher: Dispatcher;
  const cipher = tokenCipher(randomBytes(32));
  const store = memoryStore();
  const { app } = makeApp({ store, ksef: { tokenCipher: cipher, ksefCredentialsRequired: true } });
  let pl: { apiKey: string; companyId: string };
  let nl: { apiKey: string; companyId: string };

  beforeAll(async () => {
    fake = await startFakeKsef({ nip: NIP, token: TOKEN });
    dispatcher = createDispatcher({ store, networks: { ksef: ksefNetwork({ baseUrl: fake.url, pollIntervalMs: 20 }), peppol: sandboxNetwork({ delayMs: 0 }) }, tokenCipher: cipher });
    pl = await eligibleAccount(app, { country: "PL", ksef: { nip: NIP, token: TOKEN } });
    nl = await eligibleAccount(app);
  });
  afterAll(async () => {
    await dispatcher.stop();
    await fake.close();
  });

  it("answers the FA(3) KSeF accepted, byte for byte, as application/xml, once the invoice is delivered; queued, 409 document_not_available saying so", async () => {
    const submit = await request(app).post("/v1/peppol/invoice").set(bearer(pl.apiKey)).send({ xml: polishInvoice("FV/FA3/1") });
    expect(submit.body).toMatchObject({ data: { status: "sending" } });
    const id = submit.body.data.submissionId as string;
    const queued = await request(app).get(`/v1/invoices/${id}/document?format=fa3`).set(bearer(pl.apiKey));
    expect([queued.status, queued.body.code]).toEqual([409, "document_not_available"]);
    expect(queued.body.message).toMatch(/still being sent to KSeF.*kept once KSeF has accepted it/);

    await dispatcher.runOnce();
    expect((await request(app).get(`/v1/invoices/${id}`).set(bearer(pl.apiKey))).body.data.status).toBe("delivered");
    const fa3 = await raw(request(app).get(`/v1/invoices/${id}/document?format=fa3`).set(bearer(pl.apiKey)));
    expect(fa3.status).toBe(200);
    expect(fa3.headers["content-type"]).toMatch(/^application\/xml/);
    const bytes = fa3.body as Buffer;
    expect(fake.accepted).toHaveLength(1);
    expect(bytes.equals(Buffer.from(fake.accepted[0]!, "utf8"))).toBe(true);
    // The hash KSeF was given and put into its UPO is the hash of these bytes.
    const evidence = await request(app).get(`/v1/invoices/${id}/evidence`).set(bearer(pl.apiKey));
    expect(createHash("sha256").update(bytes).digest("base64")).toBe(evidence.body.data.documentHash);
    expect(bytes.toString("utf8")).toContain("<P_7>Usługa ✓ &amp; &lt;więcej&gt;</P_7>");
    // Accept does not change it; the UBL stays the default form, and format=ubl says so explicitly.
    expect((await raw(request(app).get(`/v1/invoices/${id}/document?format=fa3`).set(bearer(pl.apiKey)).set("Accept", "application/json"))).body.equals(bytes)).toBe(true);
    const ubl = await raw(request(app).get(`/v1/invoices/${id}/document?format=ubl`).set(bearer(pl.apiKey)));
    expect(ubl.body.equals(Buffer.from(polishInvoice("FV/FA3/1"), "base64"))).toBe(true);
    // Another company does not see it.
    expect((await request(app).get(`/v1/invoices/${id}/document?format=fa3`).set(bearer(nl.apiKey))).status).toBe(404);
  });

  it("answers 409 document_not_available for a Peppol invoice, naming its network and the UBL form", async () => {
    const xml = Buffer.from(ublInvoice({ id: "NL/1", sellerVat: "NL123456789B01", sellerCountry: "NL", buyerVat: "BE0123456749", buyerCountry: "BE", lines: [{ name: "x", quantity: "1", price: "10.00", cat: { id: "S", percent: "21" } }] }).xml.replace(/<cbc:EndpointID schemeID="9930">BE0123456749</, '<cbc:EndpointID schemeID="0208">0123456749<').replace("</cbc:DocumentCurrencyCode>", "</cbc:DocumentCurrencyCode><cbc:BuyerReference>PO-1</cbc:BuyerReference>")).toString("base64");
    const submit = await request(app).post("/v1/peppol/invoice").set(bearer(nl.apiKey)).send({ xml });
    expect(submit.body).toMatchObject({ data: { status: "sending" } });
    const id = submit.body.data.submissionId as string;
    const res = await request(app).get(`/v1/invoices/${id}/document?format=fa3`).set(bearer(nl.apiKey));
    expect([res.status, res.body.code]).toEqual([409, "document_not_available"]);
    expect(res.body.message).toMatch(/not a KSeF invoice \(network peppol\).*format=ubl/);
  });

  it("answers 400 in the validation shape for an unknown format, a repeated one, or another query parameter", async () => {
    const id = "00000000-0000-4000-8000-000000000000";
    const cases: [string, string][] = [
      ["format=docx", "format must be one of the following values: ubl, original, cii, fa3, html, pdf, facturx"],
      ["format=fa3&format=ubl", "format must not be repeated"],
      ["form=fa3", "property form should not exist"],
    ];
    for (const [query, message] of cases) {
      const res = await request(app).get(`/v1/invoices/${id}/document?${query}`).set(bearer(pl.apiKey));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ statusCode: 400, code: "invalid_request", message: [message], error: "Bad Request" });
    }
  });
});
