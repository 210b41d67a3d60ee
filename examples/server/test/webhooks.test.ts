// Webhooks end to end on the example server (WEBHOOK_ALLOW_PRIVATE=true): a receiver on loopback gets
// signed invoice.status_changed events for delivered and failed, and events survive a restart of the
// server while the receiver is down.
import { verifyWebhookSignature } from "@einvoice/core";
import { describe, expect, it } from "vitest";
import { eligibleAccount, invoiceB64, waitFor } from "./support/helpers.js";
import { json } from "./support/server-process.js";
import { serverSuite } from "./support/server-suite.js";

const ADMIN = "webhooks-test-admin-token";

describe("example server webhooks", () => {
  const suite = serverSuite("webhooks", { ADMIN_TOKEN: ADMIN, WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RETRY_BASE_MS: "300", SANDBOX_DELAY_MS: "20" });

  it("delivers signed status changes, and keeps them through a restart while the receiver is down", async () => {
    let receiver = await suite.receiver();
    const port = Number(new URL(receiver.url).port);
    let server = await suite.start();
    expect(server.output()).toMatch(/^webhooks: private and http targets allowed/m);
    const { apiKey } = await eligibleAccount(server.base, ADMIN);

    const created = await json(server.base, "POST", "/v1/webhooks", { url: receiver.url }, apiKey);
    expect(created.status).toBe(201);
    const { id: webhookId, secret } = created.body.data;

    const okId = (await json(server.base, "POST", "/v1/peppol/invoice", { xml: invoiceB64("W-1", "0123456789") }, apiKey)).body.data.submissionId;
    const badId = (await json(server.base, "POST", "/v1/peppol/invoice", { xml: invoiceB64("W-2", "unreachable-2") }, apiKey)).body.data.submissionId;
    await waitFor("two events", async () => (receiver.received.length >= 2 ? true : undefined));
    const byInvoice = new Map(receiver.received.map((r) => [JSON.parse(r.body).data.invoice.id, r]));
    expect(JSON.parse(byInvoice.get(okId)!.body).data.invoice.status).toBe("delivered");
    expect(JSON.parse(byInvoice.get(badId)!.body).data.invoice).toMatchObject({ status: "failed", errorMessage: expect.stringMatching(/unreachable/) });
    for (const r of receiver.received) {
      const event = JSON.parse(r.body);
      expect(event.type).toBe("invoice.status_changed");
      expect(r.headers["einvoice-event-id"]).toBe(event.id);
      expect(verifyWebhookSignature(secret, String(r.headers["einvoice-signature"]), r.body)).toBe(true);
    }

    // The receiver goes down; an invoice is delivered; its event fails to reach the receiver.
    await receiver.close();
    const lateId = (await json(server.base, "POST", "/v1/peppol/invoice", { xml: invoiceB64("W-3", "0123456788") }, apiKey)).body.data.submissionId;
    const running = server;
    await waitFor("a failed attempt", async () => {
      const d = await json(running.base, "GET", `/v1/webhooks/${webhookId}/deliveries`, undefined, apiKey);
      const pending = d.body.data.find((x: { status: string; log: unknown[] }) => x.status === "pending" && x.log.length > 0);
      return pending;
    });
    // The server restarts (killed), the receiver comes back on the same address: the event arrives.
    await server.kill();
    receiver = await suite.receiver(port);
    server = await suite.start();
    const late = await waitFor("the event after the restart", async () => receiver.received.find((r) => JSON.parse(r.body).data.invoice.id === lateId), 30_000);
    expect(JSON.parse(late.body).data.invoice.status).toBe("delivered");
    expect(verifyWebhookSignature(secret, String(late.headers["einvoice-signature"]), late.body)).toBe(true);
    const deliveries = await json(server.base, "GET", `/v1/webhooks/${webhookId}/deliveries`, undefined, apiKey);
    const record = deliveries.body.data.find((d: { eventId: string }) => d.eventId === late.headers["einvoice-event-id"]);
    expect(record.status).toBe("delivered");
    expect(record.log.length).toBeGreaterThanOrEqual(2);
    expect(record.log[0].error).toMatch(/could not be reached/);
  }, 90_000);

  it("refuses private targets when the operator does not allow them", async () => {
    const server = await suite.start({ WEBHOOK_ALLOW_PRIVATE: undefined });
    const { apiKey } = await eligibleAccount(server.base, ADMIN);
    for (const url of ["http://127.0.0.1:8080/x", "https://169.254.169.254/x", "https://[::1]/x", "https://10.0.0.1/x"]) {
      const r = await json(server.base, "POST", "/v1/webhooks", { url }, apiKey);
      expect(r.status, url).toBe(400);
    }
  }, 60_000);
});
