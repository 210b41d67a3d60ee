import { DiscoveryError, ParticipantSchema, sandboxDiscovery, type DiscoveryPort } from "@einvoice/core";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { b64, invoiceXml } from "../../core/test/support/ubl.js";
import { answers, eligibleAccount, makeApp } from "./support/app.js";
import { undocumentedAnswers } from "./support/openapi-check.js";

afterAll(() => {
  // Every answer of these tests is described by the OpenAPI document, status and body.
  expect(answers.length).toBeGreaterThan(5);
  expect(undocumentedAnswers(answers)).toEqual([]);
});

const INVOICE_DOCTYPE =
  "busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1";
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
const CodeBody = z.strictObject({ code: z.string(), message: z.string().min(10) });
const failing: DiscoveryPort = {
  name: "down",
  lookup: async () => {
    throw new DiscoveryError("unreachable", "The SMP could not be reached.");
  },
};

describe("GET /v1/participants/{participantId}", () => {
  it("answers 200 with registered, document types and, for ?documentType=, the endpoint", async () => {
    const { app } = makeApp({ discovery: sandboxDiscovery() });
    const { apiKey } = await eligibleAccount(app);
    const res = await request(app).get(`/v1/participants/0208:0123456789?documentType=${encodeURIComponent(INVOICE_DOCTYPE)}`).set(bearer(apiKey));
    expect(res.status).toBe(200);
    const data = ParticipantSchema.strict().parse(res.body.data);
    expect(data).toMatchObject({ participantId: "0208:0123456789", registered: true, endpoint: { documentType: INVOICE_DOCTYPE, transportProfile: "peppol-transport-as4-v2_0" } });
    expect(data.documentTypes).toContain(INVOICE_DOCTYPE);

    const plain = await request(app).get("/v1/participants/0208:0123456789").set(bearer(apiKey));
    expect(plain.status).toBe(200);
    expect(plain.body.data.endpoint).toBeNull();
  });

  it("answers registered:false for an unregistered participant, and no endpoint for a document type it does not accept", async () => {
    const { app } = makeApp({ discovery: sandboxDiscovery() });
    const { apiKey } = await eligibleAccount(app);
    const un = await request(app).get("/v1/participants/0106:unregistered-1").set(bearer(apiKey));
    expect(un.status).toBe(200);
    expect(un.body.data).toEqual({ participantId: "0106:unregistered-1", registered: false, documentTypes: [], endpoint: null });
    const nd = await request(app).get(`/v1/participants/0106:nodoctype-1?documentType=${encodeURIComponent(INVOICE_DOCTYPE)}`).set(bearer(apiKey));
    expect(nd.status).toBe(200);
    expect(nd.body.data.registered).toBe(true);
    expect(nd.body.data.documentTypes).not.toContain(INVOICE_DOCTYPE);
    expect(nd.body.data.endpoint).toBeNull();
  });

  it("answers 400 for a malformed identifier, an unknown scheme or an unknown query parameter", async () => {
    const { app } = makeApp({ discovery: sandboxDiscovery() });
    const { apiKey } = await eligibleAccount(app);
    for (const path of ["/v1/participants/0123456789", "/v1/participants/12:34", "/v1/participants/1234:5678", "/v1/participants/0208:1?x=1", "/v1/participants/0208:1?documentType="]) {
      const res = await request(app).get(path).set(bearer(apiKey));
      expect(res.status, path).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: "Bad Request" });
    }
  });

  it("answers 401 without an API key", async () => {
    const { app } = makeApp({ discovery: sandboxDiscovery() });
    const res = await request(app).get("/v1/participants/0208:0123456789");
    expect(res.status).toBe(401);
  });

  it("answers 502 participant_lookup_failed when the lookup cannot be made", async () => {
    const { app } = makeApp({ discovery: failing });
    const { apiKey } = await eligibleAccount(app);
    const res = await request(app).get("/v1/participants/0208:0123456789").set(bearer(apiKey));
    expect(res.status).toBe(502);
    expect(CodeBody.parse(res.body)).toMatchObject({ code: "participant_lookup_failed", message: expect.stringContaining("could not be reached") });
  });

  it("is not there without a discovery (404)", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app);
    expect((await request(app).get("/v1/participants/0208:0123456789").set(bearer(apiKey))).status).toBe(404);
  });

  it("submit answers 200 failed for an unregistered recipient when the server has a discovery", async () => {
    const { app } = makeApp({ discovery: sandboxDiscovery() });
    const { apiKey } = await eligibleAccount(app);
    const res = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ xml: b64(invoiceXml({ scheme: "0106", endpoint: "unregistered-2" })) });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: "failed", errorMessage: expect.stringContaining("recipient 0106:unregistered-2 is not registered on Peppol") });
  });
});
