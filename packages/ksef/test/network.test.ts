import { createHash, randomUUID } from "node:crypto";
import { documentModel, KsefCorrectionPendingError, type SendOutcome, type SendRequest } from "@einvoice/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ksefNetwork } from "../src/index.js";
import { startFakeKsef, type FakeKsef } from "./support/fake-ksef.js";
import { fa3Values } from "./support/tree.js";
import { startHostileServer } from "../../core/test/support/hostile-server.js";
import { ublCreditNote, ublInvoice } from "./support/ubl.js";

const NIP = "5260250995";
const TOKEN = "20261122-EC-0123456789-ABCDEF0123-45|nip-5260250995|0123456789abcdef";

const COMPANY = "7d0c5d4e-1f7a-4c1e-9a57-0c3f2f1a0001";

/** What the adapter saved with saveState, by submission (the dispatcher's store, in short), and every save in order. */
const saved = new Map<string, string>();
const saves: { submissionId: string; state: string }[] = [];

function request(id = randomUUID(), over: Partial<Parameters<typeof ublInvoice>[0]> = {}, companyId = COMPANY): SendRequest {
  const { xml } = ublInvoice({ id: `FV/${id.slice(0, 8)}`, lines: [{ name: "Usługa", quantity: "1", price: "100.00", cat: { id: "S", percent: "23" } }], ...over });
  const document = new TextEncoder().encode(xml);
  return {
    submissionId: id,
    idempotencyKey: id,
    document,
    model: documentModel(document),
    routing: { network: "ksef", recipient: { scheme: "9945", value: "PL5213017228" } },
    companyId,
    legalEntityId: "1",
    attempt: 1,
    state: null,
    saveState: async (state) => {
      saves.push({ submissionId: id, state });
      saved.set(id, state);
    },
  };
}

/** A fresh request carrying another document (its bytes and its model, as the dispatcher hands them). */
function carrying(xml: string): SendRequest {
  const document = new TextEncoder().encode(xml);
  return { ...request(), document, model: documentModel(document) };
}

/** The next attempt of a submission, as the dispatcher makes it: with what the earlier attempts saved. */
function again(req: SendRequest, attempt = req.attempt + 1): SendRequest {
  return { ...req, attempt, state: saved.get(req.submissionId) ?? null };
}

const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("base64");
/**
 * The verification link (KOD I) recomputed from the FA(3) KSeF received, as kody-qr.md builds it:
 * {qr host}/invoice/{Podmiot1 NIP}/{P_1 as DD-MM-YYYY}/{SHA-256 of the file, base64url, no padding}.
 */
function linkOf(fa3: string, qrHost: string): string {
  const [y, m, d] = fa3Values(fa3, "P_1")[0]!.split("-");
  const hash = createHash("sha256").update(fa3, "utf8").digest("base64").replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return `${qrHost}/invoice/${fa3Values(fa3, "NIP")[0]}/${d}-${m}-${y}/${hash}`;
}
const numberOf = (o: SendOutcome): string => (o.outcome === "delivered" ? /KSeF number (\S+)/.exec(o.detail ?? "")?.[1] ?? "" : "");

describe("ksefNetwork against a fake KSeF", () => {
  let fake: FakeKsef;
  beforeEach(async () => {
    fake = await startFakeKsef({ nip: NIP, token: TOKEN });
  });
  afterEach(async () => {
    await fake.close();
  });
  const network = (token = TOKEN) => ksefNetwork({ baseUrl: fake.url, credentials: { nip: NIP, token }, pollIntervalMs: 20, statusTimeoutMs: 20_000 });

  it("authenticates with the KSeF token, sends the encrypted FA(3) in an online session and is delivered with the KSeF number and the UPO as evidence", async () => {
    const n = network();
    const req = request();
    const o = await n.send(req);
    expect(o).toEqual({
      outcome: "delivered",
      detail: expect.stringMatching(/^KSeF number 5260250995-20261122-[0-9A-F]{12}-\d\d$/),
      evidence: { kind: "ksef-upo", mediaType: "application/xml", content: expect.stringContaining("<Potwierdzenie"), reference: numberOf(o), documentHash: sha256(fake.accepted[0]!) },
      ksefNumber: numberOf(o),
      verificationUrl: linkOf(fake.accepted[0]!, new URL(fake.url).origin),
      transmitted: { format: "fa3", mediaType: "application/xml", content: fake.accepted[0]! },
    });
    const upo = o.outcome === "delivered" ? o.evidence!.content : "";
    expect(upo).toContain(`<NumerKSeFDokumentu>${numberOf(o)}</NumerKSeFDokumentu>`);
    expect(upo).toContain(`<SkrotDokumentu>${sha256(fake.accepted[0]!)}</SkrotDokumentu>`);
    expect(upo).toContain(`<NumerFaktury>FV/${req.idempotencyKey.slice(0, 8)}</NumerFaktury>`);
    expect(fake.accepted).toHaveLength(1);
    expect(fa3Values(fake.accepted[0]!, "P_2")).toEqual([`FV/${req.idempotencyKey.slice(0, 8)}`]);
    expect(fake.calls.slice(0, 8)).toEqual([
      "GET /security/public-key-certificates",
      "POST /auth/challenge",
      "POST /auth/ksef-token",
      "GET /auth/{ref}",
      "POST /auth/token/redeem",
      "POST /sessions/online",
      "POST /sessions/online/{ref}/invoices",
      "POST /sessions/online/{ref}/close",
    ]);
    expect(fake.calls).toContain("GET /sessions/{ref}/invoices/ksef/{ksefNumber}/upo");
    // A second invoice reuses the access token: no new authentication.
    const before = fake.calls.filter((c) => c === "POST /auth/challenge").length;
    expect((await n.send(request())).outcome).toBe("delivered");
    expect(fake.calls.filter((c) => c === "POST /auth/challenge").length).toBe(before);
  });

  it("the verification link points to KSEF_QR_URL (qrUrl) for an API that is none of KSeF's environments, and carries the seller's NIP without its PL prefix", async () => {
    const n = ksefNetwork({ baseUrl: fake.url, qrUrl: "https://qr.example.test/", credentials: { nip: NIP, token: TOKEN }, pollIntervalMs: 20, statusTimeoutMs: 20_000 });
    const o = await n.send(request());
    expect(o).toMatchObject({ outcome: "delivered", verificationUrl: linkOf(fake.accepted[0]!, "https://qr.example.test") });
    expect((o as { verificationUrl: string }).verificationUrl).toMatch(/^https:\/\/qr\.example\.test\/invoice\/5260250995\/20-11-2026\/[A-Za-z0-9_-]{43}$/);
  });

  it("a resend with the saved state answers from KSeF and never sends the invoice twice", async () => {
    const n = network();
    const req = request();
    const first = await n.send(req);
    const second = await n.send(again(req));
    expect(second).toEqual(first);
    expect(fake.invoicesSent).toBe(1);
  });

  it("saves the session and the FA(3)'s hash before the upload and the invoice reference right after it; no secret in the state", async () => {
    const req = request();
    const sentAtSave: number[] = [];
    const o = await network().send({ ...req, saveState: async (state) => (sentAtSave.push(fake.invoicesSent), req.saveState(state)) });
    expect(o.outcome).toBe("delivered");
    const mine = saves.filter((x) => x.submissionId === req.submissionId).map((x) => JSON.parse(x.state));
    expect(sentAtSave.slice(0, 2)).toEqual([0, 1]);
    expect(mine[0]).toEqual({ v: 1, uploads: [{ session: expect.stringMatching(/-SO-/), hash: sha256(fake.accepted[0]!), createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) }] });
    expect(mine[1].uploads[0]).toEqual({ ...mine[0].uploads[0], invoice: expect.stringMatching(/-EE-/) });
    expect(mine.at(-1).accepted).toEqual({ session: mine[0].uploads[0].session, ksefNumber: numberOf(o), hash: sha256(fake.accepted[0]!), upoTries: 0 });
    expect(JSON.stringify(mine)).not.toMatch(/access-|refresh-|20261122-EC-/);
  });

  it("after a process restart while KSeF still processes the invoice, the next attempt polls it and sends nothing again", async () => {
    fake.holdStatus();
    const req = request();
    const first = await ksefNetwork({ baseUrl: fake.url, credentials: { nip: NIP, token: TOKEN }, pollIntervalMs: 20, statusTimeoutMs: 200 }).send(req);
    expect(first).toEqual({ outcome: "retry", reason: expect.stringContaining("still processing the invoice (150") });
    fake.releaseStatus();
    // A new adapter: nothing in memory, only the saved state.
    const second = await network().send(again(req));
    expect(second).toMatchObject({ outcome: "delivered", evidence: { kind: "ksef-upo" } });
    // The FA(3) KSeF accepted in the first attempt, byte for byte, written again from the saved creation time.
    expect(second.outcome === "delivered" && second.transmitted?.content === fake.accepted[0]).toBe(true);
    expect(fake.invoicesSent).toBe(1);
    expect(fake.accepted).toHaveLength(1);
  });

  it("when the upload's answer is lost (KSeF received it), the next attempt finds the invoice in the session by its hash instead of sending it again", async () => {
    fake.cutNextUploadAnswer();
    const req = request();
    const first = await network().send(req);
    expect(first).toEqual({ outcome: "retry", reason: expect.stringContaining("unreachable") });
    expect(JSON.parse(saved.get(req.submissionId)!).uploads[0].invoice).toBeUndefined();
    const second = await network().send(again(req));
    expect(second).toMatchObject({ outcome: "delivered", evidence: { documentHash: sha256(fake.accepted[0]!) } });
    expect(fake.calls).toContain("GET /sessions/{ref}/invoices");
    expect(fake.invoicesSent).toBe(1);
  });

  it("a duplicate (440) whose original is in a session this submission opened is its own invoice: delivered with the original's KSeF number and UPO", async () => {
    const req = request();
    const first = await network().send(req);
    const state = JSON.parse(saved.get(req.submissionId)!);
    // The state of an attempt that gave up on its upload (it was not yet listed in its session), so the next one uploads again.
    const gaveUp = JSON.stringify({ v: 1, uploads: [{ ...state.uploads[0], dead: true }] });
    const o = await network().send({ ...req, attempt: 2, state: gaveUp });
    expect(o).toEqual({
      outcome: "delivered",
      detail: `KSeF number ${numberOf(first)}`,
      evidence: expect.objectContaining({ reference: numberOf(first), documentHash: state.uploads[0].hash }),
      ksefNumber: numberOf(first),
      verificationUrl: linkOf(fake.accepted[0]!, new URL(fake.url).origin),
      // The original's FA(3), not the duplicate's: written again at the original's creation time.
      transmitted: { format: "fa3", mediaType: "application/xml", content: fake.accepted[0]! },
    });
    expect(fake.invoicesSent).toBe(2);
    expect(fake.accepted).toHaveLength(1);
  });

  it("while KSeF has no UPO yet the attempt asks for a retry without sending again; the next attempt delivers with the UPO", async () => {
    fake.upoMissing(1000);
    const n = ksefNetwork({ baseUrl: fake.url, credentials: { nip: NIP, token: TOKEN }, pollIntervalMs: 20, upoTimeoutMs: 0, upoRetries: 1 });
    const req = request();
    const first = await n.send(req);
    expect(first).toEqual({ outcome: "retry", reason: expect.stringMatching(/accepted the invoice as KSeF number \S+ but has no UPO for it yet/) });
    fake.upoMissing(0);
    const second = await n.send(again(req));
    expect(second).toMatchObject({ outcome: "delivered", evidence: { kind: "ksef-upo" } });
    expect(fake.invoicesSent).toBe(1);
    // Bounded: after upoRetries attempts without a UPO, delivered without evidence.
    fake.upoMissing(1000);
    const other = request();
    expect((await n.send(other)).outcome).toBe("retry");
    const last = await n.send(again(other));
    // Without the UPO, the KSeF number and the verification link are still the outcome's.
    expect(last).toEqual({
      outcome: "delivered",
      detail: expect.stringMatching(/^KSeF number \S+ \(KSeF had no UPO for it after 2 attempts/),
      ksefNumber: numberOf(last),
      verificationUrl: linkOf(fake.accepted[1]!, new URL(fake.url).origin),
      transmitted: { format: "fa3", mediaType: "application/xml", content: fake.accepted[1]! },
    });
    expect(fake.invoicesSent).toBe(2);
  });

  it("a system error (550) asks for a retry, and the next attempt uploads again in a new session", async () => {
    await fake.close();
    fake = await startFakeKsef({ nip: NIP, token: TOKEN, flakyBuyer: { nip: "5213017228", failures: 1 } });
    const req = request();
    expect(await network().send(req)).toEqual({ outcome: "retry", reason: expect.stringContaining("KSeF 550") });
    expect((await network().send(again(req))).outcome).toBe("delivered");
    expect(fake.invoicesSent).toBe(2);
    expect(JSON.parse(saved.get(req.submissionId)!).uploads).toHaveLength(2);
  });

  it("a state that cannot be saved stops the attempt before the upload; an unreadable state fails without sending", async () => {
    const req = request();
    const o = await network().send({ ...req, saveState: async () => Promise.reject(new Error("lease lost")) });
    expect(o).toEqual({ outcome: "retry", reason: expect.stringContaining("could not be saved") });
    expect(fake.invoicesSent).toBe(0);
    const bad = await network().send({ ...req, state: "{broken" });
    expect(bad).toEqual({ outcome: "failed", reason: expect.stringContaining("cannot be read") });
    expect(fake.invoicesSent).toBe(0);
  });

  it("an invoice that does not map to FA(3) fails naming the field, and nothing is sent", async () => {
    const o = await network().send(request(randomUUID(), { lines: [{ name: "x", quantity: "1", price: "10.00", cat: { id: "L", percent: "7" } }] }));
    expect(o).toEqual({ outcome: "failed", reason: expect.stringContaining("VAT category L has no FA(3) rate code") });
    expect(fake.invoicesSent).toBe(0);
  });

  it("a credit note is sent as KOR with the corrected invoice's KSeF number the correctedInvoice option gives for the company; unknown, it fails without sending", async () => {
    const n = network();
    const original = await n.send(request());
    const number = numberOf(original);
    const asked: unknown[] = [];
    const withKor = ksefNetwork({ baseUrl: fake.url, credentials: { nip: NIP, token: TOKEN }, pollIntervalMs: 20, correctedInvoice: async (companyId, ref) => (asked.push([companyId, ref]), ref.number === "FV/2026/11/001" ? { ksefNumber: number } : null) });
    const { xml } = ublCreditNote({ id: "KOR/1", corrects: [{ number: "FV/2026/11/001", issueDate: "2026-11-20" }], lines: [{ name: "Usługa", quantity: "1", price: "100.00", cat: { id: "S", percent: "23" } }] });
    const o = await withKor.send(carrying(xml));
    expect(o).toMatchObject({ outcome: "delivered", evidence: { kind: "ksef-upo" } });
    expect(asked).toEqual([[COMPANY, { number: "FV/2026/11/001", issueDate: "2026-11-20" }]]);
    const kor = fake.accepted.at(-1)!;
    expect(fa3Values(kor, "RodzajFaktury")).toEqual(["KOR"]);
    expect(fa3Values(kor, "NrKSeFFaKorygowanej")).toEqual([number]);
    const unknown = ublCreditNote({ id: "KOR/2", corrects: [{ number: "FV/OTHER", issueDate: "2026-11-20" }], lines: [{ name: "Usługa", quantity: "1", price: "100.00", cat: { id: "S", percent: "23" } }] }).xml;
    const sent = fake.invoicesSent;
    const refused = await withKor.send(carrying(unknown));
    expect(refused).toEqual({ outcome: "failed", reason: expect.stringContaining("need the KSeF number of the corrected invoice FV/OTHER") });
    expect(fake.invoicesSent).toBe(sent);
  });

  it("without a resolver of its own, a credit note is sent as KOR with the KSeF number its request carries (correctedInvoices); one the request knows no number for fails without sending", async () => {
    const original = await network().send(request());
    const number = numberOf(original);
    const lines = [{ name: "Usługa", quantity: "1", price: "100.00", cat: { id: "S", percent: "23" } }];
    const ref = { number: "FV/2026/11/001", issueDate: "2026-11-20" };
    const kor = { ...carrying(ublCreditNote({ id: "KOR/R1", corrects: [ref], lines }).xml), correctedInvoices: [{ ...ref, ksefNumber: number }] };
    expect(await network().send(kor)).toMatchObject({ outcome: "delivered", evidence: { kind: "ksef-upo" } });
    expect(fa3Values(fake.accepted.at(-1)!, "NrKSeFFaKorygowanej")).toEqual([number]);
    const sent = fake.invoicesSent;
    const unknown = { ...carrying(ublCreditNote({ id: "KOR/R2", corrects: [ref], lines }).xml), correctedInvoices: [{ ...ref, ksefNumber: null }] };
    expect(await network().send(unknown)).toEqual({ outcome: "failed", reason: expect.stringContaining("need the KSeF number of the corrected invoice FV/2026/11/001") });
    expect(fake.invoicesSent).toBe(sent);
  });

  it("a credit note whose corrected invoice is still on its way to KSeF is retried with the resolver's reason, without sending", async () => {
    const pending = ksefNetwork({
      baseUrl: fake.url,
      credentials: { nip: NIP, token: TOKEN },
      pollIntervalMs: 20,
      correctedInvoice: async () => {
        throw new KsefCorrectionPendingError("the corrected invoice FV/2026/11/001 of 2026-11-20 is still being delivered to KSeF (submission s-1)");
      },
    });
    const { xml } = ublCreditNote({ id: "KOR/3", corrects: [{ number: "FV/2026/11/001", issueDate: "2026-11-20" }], lines: [{ name: "Usługa", quantity: "1", price: "100.00", cat: { id: "S", percent: "23" } }] });
    const sent = fake.invoicesSent;
    const o = await pending.send(carrying(xml));
    expect(o).toEqual({ outcome: "retry", reason: "the corrected invoice FV/2026/11/001 of 2026-11-20 is still being delivered to KSeF (submission s-1)" });
    expect(fake.invoicesSent).toBe(sent);
  });

  it("an accepted invoice whose saved upload has no creation time (a state of an earlier version) is delivered without the transmitted FA(3)", async () => {
    fake.upoMissing(1000);
    const n = ksefNetwork({ baseUrl: fake.url, credentials: { nip: NIP, token: TOKEN }, pollIntervalMs: 20, upoTimeoutMs: 0, upoRetries: 1 });
    const req = request();
    expect((await n.send(req)).outcome).toBe("retry");
    fake.upoMissing(0);
    const older = JSON.parse(saved.get(req.submissionId)!);
    for (const u of older.uploads) delete u.createdAt;
    const o = await n.send({ ...req, attempt: 2, state: JSON.stringify(older) });
    expect(o).toMatchObject({ outcome: "delivered", ksefNumber: expect.any(String) });
    expect(o.outcome === "delivered" && "transmitted" in o).toBe(false);
  });

  it("a semantic rejection (450) fails with the official description and details", async () => {
    fake.rejectNext("Nieprawidłowy NIP nabywcy");
    const o = await network().send(request());
    expect(o).toEqual({ outcome: "failed", reason: "KSeF 450 Błąd weryfikacji semantyki dokumentu faktury: Nieprawidłowy NIP nabywcy" });
  });

  it("the same invoice sent again under another key is a duplicate (440) that fails naming the earlier KSeF number", async () => {
    const n = network();
    const req = request();
    const first = await n.send(req);
    expect(first.outcome).toBe("delivered");
    const earlier = first.outcome === "delivered" ? first.detail!.replace("KSeF number ", "") : "";
    const dup = await n.send({ ...req, idempotencyKey: randomUUID() });
    expect(dup).toEqual({ outcome: "failed", reason: expect.stringContaining(`as KSeF number ${earlier}`) });
  });

  it("429 asks for a retry after the Retry-After seconds; the next attempt delivers", async () => {
    const n = network();
    const req = request();
    fake.throttle(1, 7);
    expect(await n.send(req)).toEqual({ outcome: "retry", reason: expect.stringContaining("429"), retryAfterMs: 7000 });
    expect((await n.send(again(req))).outcome).toBe("delivered");
  });

  it("a wrong KSeF token fails with KSeF's authentication status, the token never in the reason", async () => {
    const o = await network("wrong-token").send(request());
    expect(o).toEqual({ outcome: "failed", reason: expect.stringContaining("KSeF authentication failed: 450") });
    expect(JSON.stringify(o)).not.toContain("wrong-token");
    expect(fake.invoicesSent).toBe(0);
  });

  it("each company authenticates with the NIP and token its send request carries, its access token kept for it; a changed token authenticates again", async () => {
    const OTHER = { nip: "7740001454", token: "20261122-EC-9999999999-FEDCBA9876-54|nip-7740001454|fedcba9876543210" };
    await fake.close();
    fake = await startFakeKsef({ nip: NIP, token: TOKEN, others: [OTHER] });
    const held = new Map<string, { nip: string; token: string }>([[COMPANY, { nip: NIP, token: TOKEN }], ["other", OTHER]]);
    // As the dispatcher hands it: the company's credential on the request.
    const as = (companyId: string): SendRequest => ({ ...request(randomUUID(), {}, companyId), ksefCredential: held.get(companyId) ?? null });
    const n = ksefNetwork({ baseUrl: fake.url, pollIntervalMs: 20 });
    const challenges = () => fake.calls.filter((c) => c === "POST /auth/challenge").length;
    const mine = await n.send(as(COMPANY));
    const theirs = await n.send(as("other"));
    expect(mine).toMatchObject({ outcome: "delivered", detail: expect.stringMatching(/^KSeF number 5260250995-/) });
    expect(theirs).toMatchObject({ outcome: "delivered", detail: expect.stringMatching(/^KSeF number 7740001454-/) });
    expect(challenges()).toBe(2);
    // Both keep their access tokens.
    await n.send(as(COMPANY));
    await n.send(as("other"));
    expect(challenges()).toBe(2);
    // A replaced token is not served by the old access token: the company authenticates again, and a wrong one fails.
    held.set("other", { ...OTHER, token: "replaced-and-wrong" });
    const o = await n.send(as("other"));
    expect(challenges()).toBe(3);
    expect(o).toEqual({ outcome: "failed", reason: expect.stringContaining("KSeF authentication failed: 450") });
    expect(JSON.stringify(o)).not.toContain("replaced-and-wrong");
  });

  it("a company without KSeF credentials (the request's ksefCredential null) fails, saying how to set them, and KSeF is not called", async () => {
    const n = ksefNetwork({ baseUrl: fake.url, pollIntervalMs: 20 });
    const o = await n.send({ ...request(), ksefCredential: null });
    expect(o).toEqual({ outcome: "failed", reason: expect.stringContaining("PATCH /admin/companies/{id}") });
    expect(o.outcome === "failed" && o.reason).toContain("no KSeF credentials");
    expect(fake.calls).toEqual([]);
  });

  it("a request without a credential field (a dispatcher without tokenCipher) is a retry naming the option; a fixed credentials option wins over the request's", async () => {
    const o = await ksefNetwork({ baseUrl: fake.url, pollIntervalMs: 20 }).send(request());
    expect(o).toEqual({ outcome: "retry", reason: expect.stringContaining("createDispatcher's tokenCipher option") });
    expect(fake.calls).toEqual([]);
    const fixed = await network().send({ ...request(), ksefCredential: { nip: NIP, token: "not-this-one" } });
    expect(fixed.outcome).toBe("delivered");
  });

  it("refuses a credentials resolver (the former callback into the core): the credential comes with each request", () => {
    const resolver = async () => ({ nip: NIP, token: TOKEN });
    expect(() => ksefNetwork({ baseUrl: fake.url, credentials: resolver as never })).toThrow(/tokenCipher/);
  });

  it("maps the model the request carries, never parsing the document bytes itself", async () => {
    const req = request();
    const damaged = { ...req, document: new TextEncoder().encode("not xml at all") };
    expect((await network().send(damaged)).outcome).toBe("delivered");
    const unreadable = { ...req, model: () => { throw new Error("the stored document is not valid UTF-8"); } };
    expect(await network().send({ ...unreadable, submissionId: randomUUID() })).toEqual({ outcome: "failed", reason: "the invoice cannot be read for KSeF: the stored document is not valid UTF-8" });
  });

  it("KSeF unreachable is a retry", async () => {
    await fake.close();
    const o = await network().send(request());
    expect(o).toEqual({ outcome: "retry", reason: expect.stringContaining("unreachable") });
    fake = await startFakeKsef({ nip: NIP, token: TOKEN });
  });
});

describe("an endpoint that streams a huge answer (issue 26, finding 5)", () => {
  it("stops reading at 4 MiB: the attempt is retried, the process does not hold the answer", async () => {
    const hostile = await startHostileServer(256 * 1024 * 1024);
    try {
      const before = process.memoryUsage();
      const o = await ksefNetwork({ baseUrl: hostile.url, credentials: { nip: NIP, token: TOKEN }, pollIntervalMs: 20, statusTimeoutMs: 2_000 }).send(request());
      const after = process.memoryUsage();
      expect(o).toEqual({ outcome: "retry", reason: expect.stringMatching(/larger than 4194304 bytes; not read/) });
      // Before: the 256 MiB were read whole (600 MiB raised memory by 734 MiB in the attack).
      expect(hostile.sent()).toBeLessThan(32 * 1024 * 1024);
      expect(after.rss - before.rss).toBeLessThan(64 * 1024 * 1024);
    } finally {
      await hostile.close();
    }
  });
});
