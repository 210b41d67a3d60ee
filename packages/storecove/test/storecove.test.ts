import { randomUUID } from "node:crypto";
import { testNetwork } from "@einvoice/core/testing";
import { documentModel, type SendRequest } from "@einvoice/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseRetryAfter, savedGuid, storecoveNetwork, storecoveScheme } from "../src/index.js";
import { startFakeStorecove, type FakeStorecove } from "./support/fake-storecove.js";

testNetwork("storecove (against a local fake of its API)", async () => {
  const fake = await startFakeStorecove();
  return {
    network: storecoveNetwork({ baseUrl: fake.baseUrl, apiKey: fake.apiKey }),
    deliverable: { scheme: "0208", value: "0123456789" },
    unreachable: { scheme: "0208", value: "unreachable-1" },
    flaky: { scheme: "0106", value: "flaky-2" },
    flakyFailures: 2,
    close: fake.close,
  };
});

const UBL = Buffer.from('<?xml version="1.0" encoding="UTF-8"?><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>');

function req(value: string, over: Partial<SendRequest> = {}): SendRequest {
  const id = randomUUID();
  return {
    submissionId: id,
    idempotencyKey: id,
    document: UBL,
    model: documentModel(over.document ?? UBL),
    routing: { network: "peppol", recipient: { scheme: "0208", value } },
    companyId: "00000000-0000-4000-8000-000000000001",
    legalEntityId: "12345",
    attempt: 1,
    state: null,
    saveState: async () => undefined,
    ...over,
  };
}

describe("storecoveNetwork", () => {
  let fake: FakeStorecove;
  beforeEach(async () => {
    fake = await startFakeStorecove();
  });
  afterEach(async () => {
    await fake.close();
  });

  it("posts the legal entity, the idempotency guid, the routing identifier and the raw UBL with parse: true", async () => {
    const net = storecoveNetwork({ baseUrl: fake.baseUrl + "/", apiKey: fake.apiKey });
    const r = req("0123456789", { routing: { network: "ksef", recipient: { scheme: "9945", value: "PL5260250995" } } });
    const o = await net.send(r);
    expect(o).toMatchObject({ outcome: "delivered", detail: expect.stringMatching(/^Storecove transmitted it \(submission [0-9a-f-]{36}, transmission tx-[0-9a-f-]{36}\)\.$/) });
    expect(fake.requests[0]).toEqual({
      legalEntityId: 12345,
      idempotencyGuid: r.idempotencyKey,
      routing: { eIdentifiers: [{ scheme: "PL:VAT", id: "PL5260250995" }] },
      document: { documentType: "invoice", rawDocumentData: { document: UBL.toString("base64"), parse: true } },
    });
  });

  it("answers a resend of an accepted submission whose guid was not saved as delivered, and Storecove keeps one", async () => {
    const net = storecoveNetwork({ baseUrl: fake.baseUrl, apiKey: fake.apiKey });
    const r = req("0123456789");
    await net.send(r);
    expect(await net.send({ ...r, attempt: 2 })).toEqual({ outcome: "delivered", detail: expect.stringMatching(/same idempotencyGuid/) });
    expect(fake.accepted.size).toBe(1);
    expect(fake.requests).toHaveLength(2);
  });

  it("keeps Storecove's evidence of the transmission with a delivery, after saving the submission's guid", async () => {
    const net = storecoveNetwork({ baseUrl: fake.baseUrl, apiKey: fake.apiKey });
    const saved: string[] = [];
    const r = req("0123456789", { saveState: async (s) => void saved.push(s) });
    const o = await net.send(r);
    const guid = fake.accepted.get(r.idempotencyKey)!.guid;
    expect(saved).toEqual([JSON.stringify({ storecove: { guid } })]);
    expect(fake.evidenceRequests).toEqual([`${guid}/sending`]);
    if (o.outcome !== "delivered" || !o.evidence) throw new Error(`no evidence: ${JSON.stringify(o)}`);
    expect(o.evidence).toMatchObject({ kind: "storecove", mediaType: "application/json", reference: `tx-${guid}`, documentHash: null });
    // Storecove's DocumentSubmissionEvidence, as it gave it.
    expect(JSON.parse(o.evidence.content)).toMatchObject({
      network: "peppol",
      receiver: "BE:EN:0123456789",
      evidence: { message_id: `${guid}@fake-storecove`, transmission_id: `tx-${guid}`, xml: expect.stringContaining("Receipt") },
      documents: [{ mime_type: "application/xml", document: expect.stringContaining(guid) }],
    });
  });

  it("delivers without evidence when Storecove has not transmitted it within the wait, saying so; the saved guid stops a second submission", async () => {
    const net = storecoveNetwork({ baseUrl: fake.baseUrl, apiKey: fake.apiKey, evidenceWaitMs: 0 });
    let state: string | null = null;
    const r = req("lateevidence-1", { saveState: async (s) => void (state = s) });
    const first = await net.send(r);
    const guid = fake.accepted.get(r.idempotencyKey)!.guid;
    expect(first).toEqual({
      outcome: "delivered",
      detail: `Storecove accepted it as submission ${guid}; no evidence of the transmission is kept: Storecove had not transmitted it within 0 s.`,
    });
    expect(savedGuid(state)).toBe(guid);
    // An attempt after a crash (the outcome was never recorded) finds the guid: it asks for the
    // evidence again, and by now Storecove has it; nothing is submitted a second time.
    expect((await net.send({ ...r, attempt: 2, state })).outcome).toBe("delivered");
    const third = await net.send({ ...r, attempt: 3, state });
    expect(third).toMatchObject({ outcome: "delivered", evidence: { kind: "storecove", reference: `tx-${guid}` } });
    expect(fake.requests).toHaveLength(1);
    expect(fake.evidenceRequests).toEqual([`${guid}/sending`, `${guid}/sending`, `${guid}/sending`]);
  });

  it("waits for the evidence within one attempt, polling, up to evidenceWaitMs", async () => {
    const net = storecoveNetwork({ baseUrl: fake.baseUrl, apiKey: fake.apiKey, evidenceWaitMs: 5_000, evidencePollMs: 10 });
    expect(await net.send(req("lateevidence-2"))).toMatchObject({ outcome: "delivered", evidence: { kind: "storecove" } });
    expect(fake.evidenceRequests).toHaveLength(3);
    const never = await net.send(req("untransmitted-1"));
    expect(never).toEqual({ outcome: "delivered", detail: expect.stringMatching(/no evidence of the transmission is kept: Storecove had not transmitted it within 5 s\.$/) });
    expect(fake.evidenceRequests.length).toBeGreaterThan(4);
  });

  it("delivers without evidence when asking for it fails, naming the answer, and never fails or retries the invoice for it", async () => {
    const net = storecoveNetwork({ baseUrl: fake.baseUrl, apiKey: fake.apiKey });
    const r = req("evidencedown-1");
    const o = await net.send(r);
    const guid = fake.accepted.get(r.idempotencyKey)!.guid;
    expect(o).toEqual({ outcome: "delivered", detail: `Storecove accepted it as submission ${guid}; no evidence of the transmission is kept: Storecove answered 503 when asked for it.` });
    const withWrongKey = storecoveNetwork({ baseUrl: fake.baseUrl, apiKey: "wrong-key-5678" });
    const refused = await withWrongKey.send({ ...r, state: JSON.stringify({ storecove: { guid } }) });
    expect(refused).toEqual({ outcome: "delivered", detail: `Storecove accepted it as submission ${guid}; no evidence of the transmission is kept: Storecove answered 401 when asked for it.` });
    expect(fake.requests).toHaveLength(1);
  });

  it("ignores a saved state that is not its own and submits", async () => {
    const net = storecoveNetwork({ baseUrl: fake.baseUrl, apiKey: fake.apiKey });
    expect(savedGuid("not json")).toBeNull();
    expect(savedGuid(JSON.stringify({ storecove: { guid: "../../x" } }))).toBeNull();
    expect((await net.send(req("0123456789", { state: JSON.stringify({ other: 1 }) }))).outcome).toBe("delivered");
    expect(fake.requests).toHaveLength(1);
  });

  it("fails permanently on a validation error, with Storecove's reasons", async () => {
    const net = storecoveNetwork({ baseUrl: fake.baseUrl, apiKey: fake.apiKey });
    const o = await net.send(req("0123456789", { legalEntityId: "999" }));
    expect(o).toEqual({ outcome: "failed", reason: "Storecove refused the invoice (422): legalEntityId: LegalEntity not found" });
  });

  it("retries on 429 with the Retry-After hint", async () => {
    const net = storecoveNetwork({ baseUrl: fake.baseUrl, apiKey: fake.apiKey });
    const r = req("ratelimit-1");
    expect(await net.send(r)).toEqual({ outcome: "retry", reason: "Storecove answered 429 (rate limited).", retryAfterMs: 1000 });
    expect((await net.send({ ...r, attempt: 2 })).outcome).toBe("delivered");
  });

  it("retries on 5xx", async () => {
    const net = storecoveNetwork({ baseUrl: fake.baseUrl, apiKey: fake.apiKey });
    expect(await net.send(req("flaky-9"))).toEqual({ outcome: "retry", reason: "Storecove answered 503." });
  });

  it("retries after a timeout, and the resend delivers once", async () => {
    const net = storecoveNetwork({ baseUrl: fake.baseUrl, apiKey: fake.apiKey, timeoutMs: 300 });
    const r = req("slow-1");
    expect(await net.send(r)).toEqual({ outcome: "retry", reason: "Storecove did not answer within 300 ms." });
    // The slow first call completes on the fake's side (it is accepted there) before the resend.
    const deadline = Date.now() + 15_000;
    while (fake.accepted.size === 0) {
      if (Date.now() > deadline) throw new Error("the fake never completed the slow first call");
      await new Promise((res) => setTimeout(res, 50));
    }
    expect((await net.send({ ...r, attempt: 2 })).outcome).toBe("delivered");
    expect(fake.accepted.size).toBe(1);
  });

  it("retries when Storecove cannot be reached", async () => {
    const net = storecoveNetwork({ baseUrl: "http://127.0.0.1:9/api/v2", apiKey: "k" });
    expect(await net.send(req("0123456789"))).toEqual({ outcome: "retry", reason: "Storecove could not be reached." });
  });

  it("retries on a refused API key and never repeats the key in the reason", async () => {
    const net = storecoveNetwork({ baseUrl: fake.baseUrl, apiKey: "wrong-key-1234" });
    const o = await net.send(req("0123456789"));
    expect(o.outcome).toBe("retry");
    expect(JSON.stringify(o)).not.toContain("wrong-key-1234");
  });

  it("uses an injected fetch", async () => {
    const seen: string[] = [];
    const fakeFetch: typeof fetch = async (input) => {
      seen.push(String(input));
      return new Response(JSON.stringify([{ source: "document", details: "BR-CO-15 failed" }]), { status: 422 });
    };
    const net = storecoveNetwork({ baseUrl: "http://ap.invalid/api/v2", apiKey: "k", fetch: fakeFetch });
    expect(await net.send(req("x"))).toEqual({ outcome: "failed", reason: "Storecove refused the invoice (422): document: BR-CO-15 failed" });
    expect(seen).toEqual(["http://ap.invalid/api/v2/document_submissions"]);
  });
});

describe("helpers", () => {
  it("maps ISO 6523 codes to Storecove scheme names", () => {
    expect(storecoveScheme("0208")).toBe("BE:EN");
    expect(storecoveScheme("0106")).toBe("NL:KVK");
    expect(storecoveScheme("0088")).toBe("GLN");
    expect(storecoveScheme("1234")).toBe("1234");
  });

  it("reads Retry-After as seconds or as a date", () => {
    expect(parseRetryAfter("3")).toBe(3000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(parseRetryAfter("soon")).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});
