import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { documentModel, sandboxNetwork } from "../src/index.js";
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
      model: documentModel(new Uint8Array()),
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

  it("gives synthetic evidence with a delivery: marked as such, naming the submission and recipient, with the document's SHA-256; the same on a replay", async () => {
    const n = sandboxNetwork({ delayMs: 0 });
    const document = new TextEncoder().encode("<Invoice/>");
    const req = {
      submissionId: "7b0c5d4e-1f7a-4c1e-9a57-0c3f2f1a0001",
      idempotencyKey: "7b0c5d4e-1f7a-4c1e-9a57-0c3f2f1a0001",
      document,
      model: documentModel(document),
      routing: { network: "ksef" as const, recipient: { scheme: "9945", value: "PL5213017228" } },
      companyId: "c",
      legalEntityId: "1",
      attempt: 1,
      state: null,
      saveState: async () => undefined,
    };
    const o = await n.send(req);
    if (o.outcome !== "delivered" || !o.evidence) throw new Error("no evidence");
    const sha = createHash("sha256").update(document).digest("hex");
    expect(o.evidence).toMatchObject({ kind: "sandbox", mediaType: "application/json", reference: `SANDBOX-${req.submissionId}`, documentHash: sha });
    const body = JSON.parse(o.evidence.content);
    expect(body).toMatchObject({ synthetic: true, network: "ksef", submissionId: req.submissionId, recipient: "9945:PL5213017228", documentSha256: sha });
    expect(body.notice).toMatch(/not sent to any real network/);
    expect(Date.parse(body.deliveredAt)).not.toBeNaN();
    const replay = await n.send({ ...req, attempt: 2 });
    expect(replay).toMatchObject({ outcome: "delivered", evidence: o.evidence });
  });
});
