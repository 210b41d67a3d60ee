import { describe, expect, it } from "vitest";
import { noMetrics, safeMetrics, type MetricsPort } from "../../src/ports/metrics.js";

describe("safeMetrics", () => {
  it("passes every call through, and swallows what a failing adapter throws", () => {
    const calls: string[] = [];
    const throwing: MetricsPort = {
      submission: (l) => (calls.push(`submission ${l.network} ${l.status}`), undefined),
      deliveryAttempt: () => {
        throw new Error("boom");
      },
      deliveryDuration: (s) => void calls.push(`duration ${s}`),
      webhookDelivery: () => {
        throw new Error("boom");
      },
      validationDuration: (s) => void calls.push(`validation ${s}`),
      rateLimited: (l) => void calls.push(`limited ${l.limit}`),
    };
    const m = safeMetrics(throwing);
    m.submission({ network: "peppol", status: "sending" });
    expect(() => m.deliveryAttempt({ network: "peppol", outcome: "retry" })).not.toThrow();
    expect(() => m.webhookDelivery({ outcome: "failed" })).not.toThrow();
    m.deliveryDuration(1.5, { network: "ksef" });
    m.validationDuration(0.01);
    m.rateLimited({ limit: "company" });
    expect(calls).toEqual(["submission peppol sending", "duration 1.5", "validation 0.01", "limited company"]);
    expect(safeMetrics(throwing)).toBe(m);
    expect(safeMetrics(undefined)).toBe(noMetrics);
  });

  it("passes the optional inbound counts through when the port has them, guarded, and leaves them out when it has not", () => {
    const calls: string[] = [];
    const base = { submission() {}, deliveryAttempt() {}, deliveryDuration() {}, webhookDelivery() {}, validationDuration() {}, rateLimited() {} };
    const m = safeMetrics({
      ...base,
      inboundReceived: (l) => void calls.push(`received ${l.network} ${l.outcome}`),
      inboundRun: () => {
        throw new Error("boom");
      },
    });
    m.inboundReceived?.({ network: "ksef", outcome: "duplicate" });
    expect(() => m.inboundRun?.({ source: "ksef", outcome: "ok" }, 3)).not.toThrow();
    expect(calls).toEqual(["received ksef duplicate"]);
    const without = safeMetrics({ ...base });
    expect(without.inboundReceived).toBeUndefined();
    expect(without.inboundRun).toBeUndefined();
  });
});
