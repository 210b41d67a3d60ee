// Delivery end to end over HTTP on the example server with its default sandbox network.
import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { eligibleAccount, invoiceB64, waitFor } from "./support/helpers.js";
import { json, type RunningServer } from "./support/server-process.js";
import { serverSuite } from "./support/server-suite.js";

const ADMIN = "delivery-test-admin-token";

describe("example server delivery (sandbox network)", () => {
  const suite = serverSuite("delivery", { ADMIN_TOKEN: ADMIN, SANDBOX_DELAY_MS: "50" });
  let server: RunningServer;
  let apiKey: string;
  /** Settled invoices of the tests above, by invoice number. */
  const settledIds: Record<string, string> = {};

  beforeAll(async () => {
    server = await suite.start();
    ({ apiKey } = await eligibleAccount(server.base, ADMIN));
  });

  async function submit(id: string, endpoint: string): Promise<string> {
    const r = await json(server.base, "POST", "/v1/peppol/invoice", { xml: invoiceB64(id, endpoint) }, apiKey);
    expect(r.body.data.status).toBe("sending");
    return r.body.data.submissionId;
  }
  const settled = (id: string) =>
    waitFor(`invoice ${id} to settle`, async () => {
      const r = await json(server.base, "GET", `/v1/invoices/${id}`, undefined, apiKey);
      return r.body.data.status === "sending" ? undefined : r.body.data;
    });

  it("says at start that it delivers through the sandbox", () => {
    expect(server.output()).toMatch(/^delivery: sandbox network/m);
    // Without KSEF_URL and KSEF_TOKEN_KEY the ksef route stays on the sandbox too.
    expect(server.output()).toMatch(/^ksef: through the sandbox network, like Peppol \(set KSEF_URL and KSEF_TOKEN_KEY to send to KSeF directly\)$/m);
  });

  it("delivers an invoice within seconds and records the event", async () => {
    const inv = await settled(await submit("D-1", "0123456789"));
    settledIds["D-1"] = inv.id;
    expect(inv.status).toBe("delivered");
    expect(inv.errorMessage).toBeNull();
    expect(inv.events.map((e: { status: string }) => e.status)).toEqual(["sending", "delivered"]);
    expect(Date.parse(inv.updatedAt)).toBeGreaterThan(Date.parse(inv.createdAt));
  });

  it("fails an unreachable recipient with the reason", async () => {
    const inv = await settled(await submit("D-2", "Unreachable-77"));
    settledIds["D-2"] = inv.id;
    expect(inv.status).toBe("failed");
    expect(inv.errorMessage).toMatch(/unreachable/i);
    expect(inv.events.at(-1)).toMatchObject({ status: "failed", detail: inv.errorMessage });
  });

  it("retries a flaky recipient and delivers it; the events show each attempt", async () => {
    const inv = await settled(await submit("D-3", "flaky-3"));
    expect(inv.status).toBe("delivered");
    const details = inv.events.map((e: { status: string; detail: string }) => `${e.status}: ${e.detail}`);
    expect(details).toHaveLength(4);
    expect(details[1]).toMatch(/^sending: Attempt 1 on peppol failed: .*Next try at /);
    expect(details[2]).toMatch(/^sending: Attempt 2 on peppol failed: /);
    expect(details[3]).toMatch(/^delivered: Delivered on peppol \(attempt 3\)/);
  }, 30_000);

  it("lists invoices by their delivery status", async () => {
    const delivered = await json(server.base, "GET", "/v1/invoices?status=delivered", undefined, apiKey);
    expect(delivered.body.data.map((i: { invoiceNumber: string }) => i.invoiceNumber).sort()).toEqual(["D-1", "D-3"]);
  });

  it("serves the sandbox's synthetic evidence of a delivered invoice, kept in the store, and 409 evidence_not_available for a failed one", async () => {
    const id = settledIds["D-1"]!;
    const inv = await json(server.base, "GET", `/v1/invoices/${id}`, undefined, apiKey);
    const r = await json(server.base, "GET", `/v1/invoices/${id}/evidence`, undefined, apiKey);
    expect(r.status).toBe(200);
    const e = r.body.data;
    expect(e).toMatchObject({ invoiceId: id, network: "peppol", kind: "sandbox", mediaType: "application/json", reference: `SANDBOX-${id}`, documentHash: inv.body.data.sha256, deliveredAt: inv.body.data.updatedAt });
    const content = JSON.parse(e.content);
    expect(content).toMatchObject({ synthetic: true, submissionId: id, recipient: "0106:0123456789", documentSha256: inv.body.data.sha256 });
    expect(createHash("sha256").update(Buffer.from(invoiceB64("D-1", "0123456789"), "base64")).digest("hex")).toBe(content.documentSha256);
    const failed = await json(server.base, "GET", `/v1/invoices/${settledIds["D-2"]!}/evidence`, undefined, apiKey);
    expect([failed.status, failed.body.code]).toEqual([409, "evidence_not_available"]);
    expect(failed.body.message).toMatch(/status failed/);
    const other = await eligibleAccount(server.base, ADMIN);
    const hidden = await json(server.base, "GET", `/v1/invoices/${id}/evidence`, undefined, other.apiKey);
    expect([hidden.status, hidden.body.code]).toEqual([404, "invoice_not_found"]);
  });
});
