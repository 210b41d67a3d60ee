// Rotation without downtime against the example server: a webhook's secret rotated, the next delivery
// signed by both secrets (two v1= entries), each verifying with the receiver's check; API key names.
import { randomUUID } from "node:crypto";
import { verifyWebhookSignature } from "@einvoice/core";
import { describe, expect, it } from "vitest";
import { eligibleAccount, invoiceB64, waitFor } from "./support/helpers.js";
import { json } from "./support/server-process.js";
import { serverSuite } from "./support/server-suite.js";

const ADMIN = "rotation-test-admin-token-0123456789";

describe("rotation on the example server", () => {
  const suite = serverSuite("rotation", { ADMIN_TOKEN: ADMIN, WEBHOOK_ALLOW_PRIVATE: "true", SANDBOX_DELAY_MS: "20" });

  it("after POST /v1/webhooks/{id}/rotate-secret a delivery carries two v1= signatures, one per secret, both valid", async () => {
    const receiver = await suite.receiver();
    const server = await suite.start();
    const { apiKey } = await eligibleAccount(server.base, ADMIN);
    const created = await json(server.base, "POST", "/v1/webhooks", { url: receiver.url }, apiKey);
    const { id, secret: oldSecret } = created.body.data;

    // Before the rotation: one signature.
    await json(server.base, "POST", "/v1/peppol/invoice", { xml: invoiceB64(`ROT-${randomUUID()}`) }, apiKey);
    await waitFor("the first event", async () => (receiver.received.length >= 1 ? true : undefined));
    const before = String(receiver.received[0]!.headers["einvoice-signature"]);
    expect(before.match(/v1=/g)).toHaveLength(1);

    const rotated = await json(server.base, "POST", `/v1/webhooks/${id}/rotate-secret`, {}, apiKey);
    expect(rotated.status).toBe(200);
    const { secret: newSecret, previousSecretExpiresAt } = rotated.body.data;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    const overlapH = (Date.parse(previousSecretExpiresAt) - Date.now()) / 3_600_000;
    expect(overlapH).toBeGreaterThan(23.9);
    expect(overlapH).toBeLessThanOrEqual(24);

    await json(server.base, "POST", "/v1/peppol/invoice", { xml: invoiceB64(`ROT-${randomUUID()}`) }, apiKey);
    await waitFor("the second event", async () => (receiver.received.length >= 2 ? true : undefined));
    const second = receiver.received[1]!;
    const header = String(second.headers["einvoice-signature"]);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(newSecret, header, second.body)).toBe(true);
    expect(verifyWebhookSignature(oldSecret, header, second.body)).toBe(true);
    // Each entry is its own secret's: the new one first.
    const [, v1a, v1b] = header.split(",");
    const only = (v: string) => header.replace(/,v1=.*$/, "").concat(",", v!);
    expect(verifyWebhookSignature(newSecret, only(v1a!), second.body)).toBe(true);
    expect(verifyWebhookSignature(oldSecret, only(v1b!), second.body)).toBe(true);
    expect(verifyWebhookSignature(oldSecret, only(v1a!), second.body)).toBe(false);

    // An unknown webhook is a 404.
    expect((await json(server.base, "POST", `/v1/webhooks/${randomUUID()}/rotate-secret`, {}, apiKey)).body.code).toBe("webhook_not_found");
  }, 120_000);

  it("API keys take a name, shown in the list", async () => {
    const { apiKey } = await eligibleAccount(suite.server.base, ADMIN);
    const made = await json(suite.server.base, "POST", "/v1/api-keys", { name: "billing job" }, apiKey);
    expect(made.status).toBe(201);
    const list = await json(suite.server.base, "GET", "/v1/api-keys", undefined, apiKey);
    expect(list.body.data.map((k: { name: string | null }) => k.name)).toEqual([null, "billing job"]);
  });
});
