import { WebhookCreatedSchema, WebhookDeliverySchema, WebhookSchema } from "@einvoice/core";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { answers, makeApp, signUp } from "./support/app.js";
import { undocumentedAnswers } from "./support/openapi-check.js";

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
// A resolver that says every name is public: the tests never reach the network.
const publicDns = { resolve: async () => ["93.184.215.14"] };

afterAll(() => {
  expect(undocumentedAnswers(answers)).toEqual([]);
});

describe("/v1/webhooks", () => {
  it("creates (201, secret once), lists (200, no secret), shows deliveries (200) and deletes (204)", async () => {
    const { app } = makeApp({ webhookTargets: publicDns });
    const { apiKey } = await signUp(app);
    const created = await request(app).post("/v1/webhooks").set(bearer(apiKey)).send({ url: "https://erp.example.com/hooks" });
    expect(created.status).toBe(201);
    const hook = WebhookCreatedSchema.strict().parse(created.body.data);
    expect(hook.events).toEqual(["invoice.status_changed"]);
    const list = await request(app).get("/v1/webhooks").set(bearer(apiKey));
    expect(list.status).toBe(200);
    expect(list.body.data.map((w: unknown) => WebhookSchema.strict().parse(w).id)).toEqual([hook.id]);
    expect(JSON.stringify(list.body)).not.toContain(hook.secret);
    const deliveries = await request(app).get(`/v1/webhooks/${hook.id}/deliveries`).set(bearer(apiKey));
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.data.map((d: unknown) => WebhookDeliverySchema.parse(d))).toEqual([]);
    expect((await request(app).delete(`/v1/webhooks/${hook.id}`).set(bearer(apiKey))).status).toBe(204);
    expect((await request(app).get("/v1/webhooks").set(bearer(apiKey))).body.data).toEqual([]);
  });

  it("answers 400 for bad bodies and refused targets, 401 without a key, 404 for unknown ids", async () => {
    const { app } = makeApp();
    const { apiKey } = await signUp(app);
    const bad = await request(app).post("/v1/webhooks").set(bearer(apiKey)).send({ url: 5, events: [], secret: "mine" });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toEqual(expect.arrayContaining(["url must be a string", "events should not be empty", "property secret should not exist"]));
    for (const url of ["http://127.0.0.1/x", "https://169.254.169.254/latest/meta-data/", "https://[::1]/x", "https://10.0.0.1/x"]) {
      const r = await request(app).post("/v1/webhooks").set(bearer(apiKey)).send({ url });
      expect([r.status, r.body.error], url).toEqual([400, "Bad Request"]);
    }
    expect((await request(app).get("/v1/webhooks").set(bearer("nope"))).status).toBe(401);
    for (const id of ["00000000-0000-4000-8000-000000000000", "nope"]) {
      const del = await request(app).delete(`/v1/webhooks/${id}`).set(bearer(apiKey));
      expect([del.status, del.body.code]).toEqual([404, "webhook_not_found"]);
      const d = await request(app).get(`/v1/webhooks/${id}/deliveries`).set(bearer(apiKey));
      expect([d.status, d.body.code]).toEqual([404, "webhook_not_found"]);
    }
  });

  it("keeps another company's webhooks out of reach (404, never listed)", async () => {
    const { app } = makeApp({ webhookTargets: publicDns });
    const a = await signUp(app);
    const b = await signUp(app);
    const hook = (await request(app).post("/v1/webhooks").set(bearer(a.apiKey)).send({ url: "https://a.example/h" })).body.data;
    expect((await request(app).get("/v1/webhooks").set(bearer(b.apiKey))).body.data).toEqual([]);
    expect((await request(app).delete(`/v1/webhooks/${hook.id}`).set(bearer(b.apiKey))).status).toBe(404);
    expect((await request(app).get(`/v1/webhooks/${hook.id}/deliveries`).set(bearer(b.apiKey))).status).toBe(404);
    expect((await request(app).get("/v1/webhooks").set(bearer(a.apiKey))).body.data).toHaveLength(1);
  });
});
