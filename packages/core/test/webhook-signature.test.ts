import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { signWebhook, verifyWebhookSignature } from "../src/index.js";

const secret = "whsec_test_secret";
const body = '{"id":"e1","type":"invoice.status_changed","data":{"invoice":{"status":"delivered"}}}';

describe("webhook signatures", () => {
  it("signs t=<seconds>,v1=<hex HMAC-SHA256 of '<t>.<body>'>, as an independent HMAC computes it", () => {
    const header = signWebhook(secret, 1_700_000_000, body);
    const independent = createHmac("sha256", secret).update(`1700000000.${body}`).digest("hex");
    expect(header).toBe(`t=1700000000,v1=${independent}`);
  });

  it("verifies a fresh signature over the raw body, as string or bytes", () => {
    const now = 1_700_000_100;
    const header = signWebhook(secret, now - 10, body);
    expect(verifyWebhookSignature(secret, header, body, { now })).toBe(true);
    expect(verifyWebhookSignature(secret, header, Buffer.from(body), { now })).toBe(true);
  });

  it("rejects a tampered body, another secret, a stale or future timestamp, and malformed headers", () => {
    const now = 1_700_000_000;
    const header = signWebhook(secret, now, body);
    expect(verifyWebhookSignature(secret, header, body.replace("delivered", "failed"), { now })).toBe(false);
    expect(verifyWebhookSignature("whsec_other", header, body, { now })).toBe(false);
    expect(verifyWebhookSignature(secret, header, body, { now: now + 301 })).toBe(false);
    expect(verifyWebhookSignature(secret, header, body, { now: now - 301 })).toBe(false);
    expect(verifyWebhookSignature(secret, header, body, { now: now + 60, toleranceSeconds: 30 })).toBe(false);
    for (const bad of [undefined, null, "", "v1=abc", `t=${now}`, `t=x,v1=${"0".repeat(64)}`, header.replace(/v1=/, "v0=")]) {
      expect(verifyWebhookSignature(secret, bad, body, { now })).toBe(false);
    }
  });

  it("accepts the header when one of several v1 signatures matches (secret rotation)", () => {
    const now = 1_700_000_000;
    const good = signWebhook(secret, now, body);
    const header = `t=${now},v1=${"a".repeat(64)},${good.split(",")[1]}`;
    expect(verifyWebhookSignature(secret, header, body, { now })).toBe(true);
  });
});
