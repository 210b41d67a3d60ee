// GET /v1/invoices/{id}/evidence: the delivery evidence kept with an invoice, for its company only.
import { createHash } from "node:crypto";
import { createDispatcher, DeliveryEvidenceSchema, memoryStore, sandboxNetwork, type NetworkPort } from "@einvoice/core";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { b64, invoiceXml } from "../../core/test/support/ubl.js";
import { answers, eligibleAccount, makeApp } from "./support/app.js";
import { undocumentedAnswers } from "./support/openapi-check.js";

afterAll(() => {
  // Every answer these tests received is described by the OpenAPI document, status and body.
  expect(answers.length).toBeGreaterThan(10);
  expect(undocumentedAnswers(answers)).toEqual([]);
});

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
const CodeBody = z.strictObject({ code: z.string(), message: z.string().min(10) });

async function world(network: NetworkPort = sandboxNetwork({ delayMs: 0 })) {
  const store = memoryStore();
  const { app } = makeApp({ store });
  const account = await eligibleAccount(app);
  const dispatcher = createDispatcher({ store, networks: { peppol: network, ksef: network }, owner: "test" });
  const submit = async (endpoint: string) => {
    const xml = invoiceXml({ id: `E-${endpoint}`, endpoint, scheme: "0106" });
    const res = await request(app).post("/v1/peppol/invoice").set(bearer(account.apiKey)).send({ xml: b64(xml) });
    expect(res.status).toBe(200);
    return { id: res.body.data.submissionId as string, xml };
  };
  const evidence = (id: string, key = account.apiKey) => request(app).get(`/v1/invoices/${id}/evidence`).set(bearer(key));
  return { app, store, account, dispatcher, submit, evidence };
}

describe("GET /v1/invoices/{id}/evidence", () => {
  it("answers 409 evidence_not_available while sending, then the sandbox's synthetic evidence once delivered", async () => {
    const w = await world();
    const { id, xml } = await w.submit("0123456789");
    const early = await w.evidence(id);
    expect(early.status).toBe(409);
    expect(CodeBody.parse(early.body)).toEqual({ code: "evidence_not_available", message: expect.stringMatching(/still being delivered \(status sending\)/) });

    expect(await w.dispatcher.runOnce()).toBe(1);
    const res = await w.evidence(id);
    expect(res.status).toBe(200);
    const e = DeliveryEvidenceSchema.strict().parse(res.body.data);
    const sha = createHash("sha256").update(xml).digest("hex");
    expect(e).toMatchObject({ invoiceId: id, network: "peppol", kind: "sandbox", mediaType: "application/json", reference: `SANDBOX-${id}`, documentHash: sha });
    expect(JSON.parse(e.content)).toMatchObject({ synthetic: true, submissionId: id, recipient: "0106:0123456789", documentSha256: sha });
    const inv = await request(w.app).get(`/v1/invoices/${id}`).set(bearer(w.account.apiKey));
    expect(e.deliveredAt).toBe(inv.body.data.updatedAt);
    // Upper-case ids name the same invoice, as on GET /v1/invoices/{id}.
    expect((await w.evidence(id.toUpperCase())).body.data).toEqual(res.body.data);
  });

  it("never shows another company's evidence: unknown, malformed and others' ids are 404 invoice_not_found; no key is 401", async () => {
    const w = await world();
    const { id } = await w.submit("0123456789");
    await w.dispatcher.runOnce();
    const other = await eligibleAccount(w.app);
    for (const [key, target] of [[other.apiKey, id], [w.account.apiKey, "00000000-0000-4000-8000-000000000000"], [w.account.apiKey, "nope"]] as const) {
      const res = await w.evidence(target, key);
      expect([res.status, CodeBody.parse(res.body).code]).toEqual([404, "invoice_not_found"]);
      expect(JSON.stringify(res.body)).not.toContain("SANDBOX");
    }
    const anonymous = await request(w.app).get(`/v1/invoices/${id}/evidence`);
    expect([anonymous.status, anonymous.body.code]).toEqual([401, "invalid_api_key"]);
    const query = await request(w.app).get(`/v1/invoices/${id}/evidence?format=xml`).set(bearer(w.account.apiKey));
    expect(query.status).toBe(400);
  });

  it("says why there is no evidence: a failed delivery, and a delivery whose network gave none", async () => {
    const bare: NetworkPort = { name: "bare", send: async (r) => (r.routing.recipient!.value.includes("FAIL") ? { outcome: "failed", reason: "Refused by the receiver." } : { outcome: "delivered" }) };
    const w = await world(bare);
    const failed = await w.submit("FAIL-1");
    const delivered = await w.submit("0123456789");
    expect(await w.dispatcher.runOnce()).toBe(2);
    const f = await w.evidence(failed.id);
    expect([f.status, f.body.code]).toEqual([409, "evidence_not_available"]);
    expect(f.body.message).toMatch(/not delivered \(status failed\)/);
    const d = await w.evidence(delivered.id);
    expect([d.status, d.body.code]).toEqual([409, "evidence_not_available"]);
    expect(d.body.message).toMatch(/delivered on peppol without evidence/);
  });
});
