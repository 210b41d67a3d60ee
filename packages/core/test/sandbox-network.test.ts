import { describe, expect, it } from "vitest";
import { sandboxNetwork } from "../src/index.js";
import { testNetwork } from "../src/testing/index.js";

testNetwork("sandbox", () => ({
  network: sandboxNetwork({ delayMs: 0 }),
  deliverable: { scheme: "0208", value: "0123456789" },
  unreachable: { scheme: "0208", value: "UnReachable-1" },
  flaky: { scheme: "0088", value: "flaky-42" },
  flakyFailures: 2,
}));

describe("sandboxNetwork", () => {
  it("delivers a key once however often it is resent, and counts every call", async () => {
    const n = sandboxNetwork({ delayMs: 0 });
    const req = {
      submissionId: "s",
      idempotencyKey: "k",
      document: new Uint8Array(),
      routing: { network: "peppol" as const, recipient: { scheme: "0208", value: "1" } },
      companyId: "c",
      legalEntityId: "1",
      attempt: 1,
      state: null,
      saveState: async () => undefined,
    };
    await n.send(req);
    await n.send({ ...req, attempt: 2 });
    expect(n.calls.get("k")).toBe(2);
    expect([...n.delivered]).toEqual(["k"]);
  });
});
