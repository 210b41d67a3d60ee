// Tenant isolation: company B, with its own valid key, gets 404 (never 403) for company A's ids, the
// same answer as for an id that does not exist, never sees A's data in a list, and cannot change
// A's keys or webhooks, nor A's received documents and suppliers. A last test lists the id-taking /v1 operations of the OpenAPI document and
// fails when one is not covered here, so a new endpoint cannot slip past this file.
import { memoryStore, receiveDocument, sandboxDiscovery } from "@einvoice/core";
import { openApiDocument } from "@einvoice/express";
import request, { type Response } from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../../examples/server/src/app.js";
import { recordResponses, undocumentedAnswers } from "./support/openapi-check.js";
import { b64, invoiceXml } from "./support/hostile.js";

const ADMIN_TOKEN = "isolation-test-admin-token-0123456789";
const UNKNOWN = "6f1c2a9e-7d7b-4f1e-9a53-2b8c1d0e4f6a";

const store = memoryStore();
const app = createApp({
  store,
  adminToken: ADMIN_TOKEN,
  // Webhook targets: a resolver that answers a public address, so no DNS is asked and nothing is sent.
  webhookTargets: { resolve: async () => ["93.184.216.34"] },
  discovery: sandboxDiscovery(),
});
const answers = recordResponses(app);
afterAll(() => {
  expect(undocumentedAnswers(answers)).toEqual([]);
});

interface Tenant {
  apiKey: string;
  companyId: string;
  keyIds: string[];
  invoiceIds: string[];
  clientIds: string[];
  webhookIds: string[];
  /** Documents the company received, and their suppliers. */
  inboundIds: string[];
  supplierIds: string[];
}

const as = (t: Tenant) => ({
  get: (path: string) => request(app).get(path).set("Authorization", `Bearer ${t.apiKey}`),
  delete: (path: string) => request(app).delete(path).set("Authorization", `Bearer ${t.apiKey}`),
  post: (path: string, body: unknown) => request(app).post(path).set("Authorization", `Bearer ${t.apiKey}`).send(body as object),
});

/** Whether a route exists (a route the router does not have answers the generic 404 `Cannot …`). */
const exists = (res: Response) => !(res.status === 404 && typeof res.body.message === "string" && res.body.message.startsWith("Cannot "));

async function tenant(name: string, recipient: string): Promise<Tenant> {
  const created = await request(app).post("/v1/accounts").send({ email: `${name}@isolation.example`, companyName: `${name} BV`, country: "NL" });
  expect(created.status).toBe(201);
  const { apiKey, companyId } = created.body.data;
  const patched = await request(app)
    .patch(`/admin/companies/${companyId}`)
    .set("Authorization", `Bearer ${ADMIN_TOKEN}`)
    .send({ enterprise: true, subscription: "pro", legalEntityId: `LE-${name}`, peppolSendingEnabled: true });
  expect(patched.status).toBe(200);
  const t: Tenant = { apiKey, companyId, keyIds: [], invoiceIds: [], clientIds: [], webhookIds: [], inboundIds: [], supplierIds: [] };
  const second = await as(t).post("/v1/api-keys", {});
  expect(second.status).toBe(201);
  for (let i = 0; i < 3; i++) {
    const res = await as(t).post("/v1/peppol/invoice", { xml: b64(invoiceXml({ id: `${name}-${i}`, recipient: ["0106", `${recipient}${i}`] })) });
    expect(res.body.data.status).toBe("sending");
    t.invoiceIds.push(res.body.data.submissionId);
  }
  const hook = await as(t).post("/v1/webhooks", { url: `https://${name.toLowerCase()}.example.com/einvoice` });
  if (exists(hook)) {
    expect(hook.status).toBe(201);
    t.webhookIds.push(hook.body.data.id);
  }
  for (let i = 0; i < 2; i++) {
    const content = Buffer.from(invoiceXml({ id: `${name}-IN-${i}`, recipient: ["0106", `${recipient}${i}`] }));
    const received = await receiveDocument(store, { reference: { storecoveGuid: `${name}-in-${i}` }, content, network: "peppol", companyId });
    expect(received.outcome).toBe("stored");
    if (received.outcome === "stored") t.inboundIds.push(received.invoiceId);
  }
  t.supplierIds = (await as(t).get("/v1/suppliers")).body.data.map((c: { id: string }) => c.id);
  expect(t.supplierIds).toHaveLength(1);
  t.keyIds = (await as(t).get("/v1/api-keys")).body.data.map((k: { id: string }) => k.id);
  t.clientIds = (await as(t).get("/v1/clients")).body.data.map((c: { id: string }) => c.id);
  expect(t.keyIds).toHaveLength(2);
  expect(t.clientIds).toHaveLength(3);
  return t;
}

let A: Tenant;
let B: Tenant;
let webhooksExist = false;

beforeAll(async () => {
  A = await tenant("Alpha", "730001000000");
  B = await tenant("Bravo", "730002000000");
  webhooksExist = A.webhookIds.length > 0;
});

/** B asks for A's id and for an id that exists nowhere: both 404 with the same body, never 403. */
async function expectHidden(run: (id: string) => Promise<Response>, aId: string, code: string) {
  const theirs = await run(aId);
  const nobodys = await run(UNKNOWN);
  expect(theirs.status).toBe(404);
  expect(theirs.body).toEqual({ code, message: expect.any(String) });
  expect(theirs.body.message.replace(aId, "ID")).toBe(nobodys.body.message.replace(UNKNOWN, "ID"));
  expect(theirs.text).not.toContain(A.companyId);
}

const leaks = (res: Response) => {
  const text = res.text;
  return [A.companyId, ...A.invoiceIds, ...A.clientIds, ...A.keyIds, ...A.webhookIds, ...A.inboundIds, ...A.supplierIds].filter((id) => text.includes(id));
};

describe("tenant isolation: company B with its own key", () => {
  it("GET /v1/invoices/{A's id} → 404 invoice_not_found, as for an unknown id (A still reads it)", async () => {
    for (const id of A.invoiceIds) {
      await expectHidden((x) => as(B).get(`/v1/invoices/${x}`), id, "invoice_not_found");
      expect((await as(A).get(`/v1/invoices/${id}`)).status).toBe(200);
    }
  });

  it("GET /v1/invoices/{A's id}/evidence → 404 invoice_not_found, as for an unknown id, whatever A's invoice's state (A gets 409 or 200)", async () => {
    for (const id of A.invoiceIds) {
      await expectHidden((x) => as(B).get(`/v1/invoices/${x}/evidence`), id, "invoice_not_found");
      // No dispatcher runs here: A's invoices are sending, so A is told why there is no evidence yet.
      const own = await as(A).get(`/v1/invoices/${id}/evidence`);
      expect([own.status, own.body.code]).toEqual([409, "evidence_not_available"]);
    }
  });

  it("GET /v1/invoices/{A's id}/evidence/qr → 404 invoice_not_found, as for an unknown id (A is told there is no KSeF link)", async () => {
    for (const id of A.invoiceIds) {
      await expectHidden((x) => as(B).get(`/v1/invoices/${x}/evidence/qr`), id, "invoice_not_found");
      const own = await as(A).get(`/v1/invoices/${id}/evidence/qr`);
      expect([own.status, own.body.code]).toEqual([409, "evidence_not_available"]);
    }
  });

  it("GET /v1/invoices/{A's id}/document → 404 invoice_not_found, as for an unknown id (A gets its document)", async () => {
    for (const id of A.invoiceIds) {
      await expectHidden((x) => as(B).get(`/v1/invoices/${x}/document`), id, "invoice_not_found");
      const own = await as(A).get(`/v1/invoices/${id}/document`).set("Accept", "application/json");
      expect(own.status).toBe(200);
      expect(own.body.number).toEqual(expect.any(String));
    }
  });

  it("GET /v1/invoices/{A's received document}[/document] → 404 invoice_not_found, as for an unknown id (A reads it as received)", async () => {
    for (const id of A.inboundIds) {
      await expectHidden((x) => as(B).get(`/v1/invoices/${x}`), id, "invoice_not_found");
      await expectHidden((x) => as(B).get(`/v1/invoices/${x}/document`), id, "invoice_not_found");
      await expectHidden((x) => as(B).get(`/v1/invoices/${x}/document?format=original`), id, "invoice_not_found");
      const own = await as(A).get(`/v1/invoices/${id}/document`).set("Accept", "application/json");
      expect([own.status, own.body.number]).toEqual([200, expect.stringMatching(/^Alpha-IN-/)]);
    }
  });

  it("GET /v1/suppliers lists only B's suppliers; GET /v1/suppliers/{A's id} → 404 supplier_not_found, as for an unknown id", async () => {
    const res = await as(B).get("/v1/suppliers?limit=100");
    expect(res.body.data.map((c: { id: string }) => c.id)).toEqual(B.supplierIds);
    expect(leaks(res)).toEqual([]);
    for (const id of A.supplierIds) await expectHidden((x) => as(B).get(`/v1/suppliers/${x}`), id, "supplier_not_found");
    expect((await as(A).get(`/v1/suppliers/${A.supplierIds[0]}`)).status).toBe(200);
    const byASupplier = await as(B).get(`/v1/invoices?supplierId=${A.supplierIds[0]}`);
    expect(byASupplier.body).toEqual({ data: [], nextCursor: null });
  });

  it("GET /v1/invoices lists only B's invoices, with any filter: A's client id gives an empty list", async () => {
    const all = await as(B).get("/v1/invoices?limit=100");
    expect(all.status).toBe(200);
    expect(all.body.data.map((i: { id: string }) => i.id).sort()).toEqual([...B.invoiceIds, ...B.inboundIds].sort());
    expect(leaks(all)).toEqual([]);
    for (const status of ["sending", "delivered", "failed", "received"]) expect(leaks(await as(B).get(`/v1/invoices?status=${status}`))).toEqual([]);
    for (const direction of ["inbound", "outbound"]) expect(leaks(await as(B).get(`/v1/invoices?direction=${direction}`))).toEqual([]);
    const byAClient = await as(B).get(`/v1/invoices?clientId=${A.clientIds[0]}`);
    expect(byAClient.status).toBe(200);
    expect(byAClient.body).toEqual({ data: [], nextCursor: null });
  });

  it("a cursor from A's list, used by B, pages through B's invoices only", async () => {
    const page = await as(A).get("/v1/invoices?limit=1");
    expect(page.body.nextCursor).toEqual(expect.any(String));
    const res = await as(B).get(`/v1/invoices?limit=100&cursor=${encodeURIComponent(page.body.nextCursor)}`);
    expect([200, 400]).toContain(res.status);
    expect(leaks(res)).toEqual([]);
    const clients = await as(A).get("/v1/clients?limit=1");
    const res2 = await as(B).get(`/v1/clients?limit=100&cursor=${encodeURIComponent(clients.body.nextCursor)}`);
    expect([200, 400]).toContain(res2.status);
    expect(leaks(res2)).toEqual([]);
  });

  it("GET /v1/clients lists only B's clients", async () => {
    const res = await as(B).get("/v1/clients?limit=100");
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: { id: string }) => c.id).sort()).toEqual([...B.clientIds].sort());
    expect(leaks(res)).toEqual([]);
  });

  it("GET /v1/company is B's company", async () => {
    const res = await as(B).get("/v1/company");
    expect(res.body.data.id).toBe(B.companyId);
    expect(leaks(res)).toEqual([]);
  });

  it("GET /v1/api-keys lists only B's keys", async () => {
    const res = await as(B).get("/v1/api-keys");
    expect(res.body.data.map((k: { id: string }) => k.id).sort()).toEqual([...B.keyIds].sort());
    expect(leaks(res)).toEqual([]);
  });

  it("DELETE /v1/api-keys/{A's key id} → 404 api_key_not_found, as for an unknown id, and A's key still works", async () => {
    for (const id of A.keyIds) await expectHidden((x) => as(B).delete(`/v1/api-keys/${x}`), id, "api_key_not_found");
    expect((await as(A).get("/v1/api-keys")).body.data).toHaveLength(2);
    expect((await as(A).get("/v1/company")).status).toBe(200);
  });

  it("GET /v1/webhooks lists only B's webhooks", async (ctx) => {
    if (!webhooksExist) return ctx.skip("POST /v1/webhooks answers 404 `Cannot …`: the webhook routes are not mounted");
    const res = await as(B).get("/v1/webhooks");
    expect(res.status).toBe(200);
    expect(res.body.data.map((w: { id: string }) => w.id)).toEqual(B.webhookIds);
    expect(leaks(res)).toEqual([]);
  });

  it("DELETE /v1/webhooks/{A's id} → 404 webhook_not_found, as for an unknown id, and A's webhook stays", async (ctx) => {
    if (!webhooksExist) return ctx.skip("POST /v1/webhooks answers 404 `Cannot …`: the webhook routes are not mounted");
    await expectHidden((x) => as(B).delete(`/v1/webhooks/${x}`), A.webhookIds[0]!, "webhook_not_found");
    expect((await as(A).get("/v1/webhooks")).body.data.map((w: { id: string }) => w.id)).toEqual(A.webhookIds);
  });

  it("POST /v1/webhooks/{A's id}/rotate-secret → 404 webhook_not_found, as for an unknown id", async (ctx) => {
    if (!webhooksExist) return ctx.skip("POST /v1/webhooks answers 404 `Cannot …`: the webhook routes are not mounted");
    await expectHidden((x) => as(B).post(`/v1/webhooks/${x}/rotate-secret`, {}), A.webhookIds[0]!, "webhook_not_found");
  });

  it("GET /v1/webhooks/{A's id}/deliveries → 404 webhook_not_found, as for an unknown id", async (ctx) => {
    if (!webhooksExist) return ctx.skip("POST /v1/webhooks answers 404 `Cannot …`: the webhook routes are not mounted");
    await expectHidden((x) => as(B).get(`/v1/webhooks/${x}/deliveries`), A.webhookIds[0]!, "webhook_not_found");
    expect((await as(A).get(`/v1/webhooks/${A.webhookIds[0]}/deliveries`)).status).toBe(200);
  });

  it("GET /v1/participants/{id} answers from the network: the same for A and B, with no tenant's data", async () => {
    const a = await as(A).get("/v1/participants/0088:1234567890128");
    const b = await as(B).get("/v1/participants/0088:1234567890128");
    expect(a.status).toBe(200);
    expect(b.body).toEqual(a.body);
    expect(leaks(b)).toEqual([]);
  });

  it("B's key on A's ids never gets 403", () => {
    const forbidden = answers.filter((r) => r.status === 403);
    expect(forbidden).toEqual([]);
  });

  it("covers every /v1 operation that takes an id, and every list, of the OpenAPI document", () => {
    const covered = new Set([
      "get /v1/invoices/{id}",
      "get /v1/invoices/{id}/evidence",
      "get /v1/invoices/{id}/evidence/qr",
      "get /v1/invoices/{id}/document",
      "delete /v1/api-keys/{id}",
      "delete /v1/webhooks/{id}",
      "get /v1/webhooks/{id}/deliveries",
      "post /v1/webhooks/{id}/rotate-secret",
      "get /v1/invoices",
      "get /v1/clients",
      "get /v1/api-keys",
      "get /v1/webhooks",
      "get /v1/company",
      "get /v1/participants/{participantId}",
      "get /v1/suppliers",
      "get /v1/suppliers/{id}",
    ]);
    const paths = (openApiDocument() as unknown as { paths: Record<string, Record<string, unknown>> }).paths;
    const mustCover = Object.entries(paths)
      .filter(([path]) => path.startsWith("/v1/") && path !== "/v1/openapi.json")
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`))
      .filter((op) => op.includes("{") || op.startsWith("get "));
    expect(mustCover.filter((op) => !covered.has(op))).toEqual([]);
  });
});
