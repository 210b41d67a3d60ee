// testDeliveryStore: the conformance suite of the DeliveryStore port (the dispatcher's queue with leases).
import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AttemptRecord, DeliveryStore, Store } from "../ports/store.js";
import type { DeliveryEvidence } from "../ports/network.js";
import type { InvoiceRecord } from "../domain/types.js";
import { sampleCompany, sampleInvoiceRecord } from "./fixtures.js";

type S = Store & DeliveryStore;

/** Two stores on one database (two processes, say), and how to close them. */
export interface DeliveryFixture {
  a: S;
  b: S;
  close(): Promise<void>;
}

const T0 = Date.UTC(2026, 0, 1);
const at = (seconds: number): string => new Date(T0 + seconds * 1000).toISOString();

/**
 * Registers a vitest `describe` block that checks a DeliveryStore: due times, leases held and
 * expired, fencing of late answers, atomic claims across two stores on one database.
 * `factory` is called before each test; for a single-process store, pass the same store as `a` and `b`.
 *
 * @example testDeliveryStore("memory", async () => { const s = memoryStore(); return { a: s, b: s, close: async () => {} } })
 */
export function testDeliveryStore(label: string, factory: () => Promise<DeliveryFixture>): void {
  describe(`delivery queue: ${label}`, () => {
    let f: DeliveryFixture;
    let companyId: string;

    beforeEach(async () => {
      f = await factory();
      const company = sampleCompany();
      companyId = company.id;
      const r = await f.a.createAccount({
        account: { id: randomUUID(), email: `${randomUUID()}@example.com`, companyId, createdAt: company.createdAt },
        company,
        apiKey: { id: randomUUID(), companyId, prefix: "p", hash: "00", createdAt: company.createdAt, lastUsedAt: null, revokedAt: null },
      });
      expect(r.created).toBe(true);
    });
    afterEach(async () => {
      await f.close();
    });

    async function submit(createdAtSeconds: number, overrides: Partial<InvoiceRecord> = {}, document = new Uint8Array([60, 105, 47, 62])) {
      const invoice = sampleInvoiceRecord(companyId, { createdAt: at(createdAtSeconds), updatedAt: at(createdAtSeconds), ...overrides });
      const failed = invoice.status === "failed";
      const r = await f.a.insertSubmission({
        invoice,
        document: failed ? null : document,
        client: failed ? null : { id: randomUUID(), key: "0208:1", endpointId: "0208:1", name: null, vatId: null, country: null },
      });
      if (!r.inserted) throw new Error("not inserted");
      return r.invoice;
    }

    it("offers a new sending submission at once, with its document and no attempts, and never a failed one", async () => {
      const doc = new Uint8Array([0, 255, 1, 128]);
      const inv = await submit(10, {}, doc);
      await submit(5, { status: "failed", network: null, errorMessage: "no" });
      expect(await f.b.claimDeliveries({ owner: "x", now: at(9), leaseUntil: at(69), limit: 10 })).toEqual([]);
      const jobs = await f.b.claimDeliveries({ owner: "x", now: at(10), leaseUntil: at(70), limit: 10 });
      expect(jobs).toEqual([{ invoice: inv, document: doc, attempts: 0, state: null }]);
    });

    it("hands out the oldest due first, at most `limit`", async () => {
      const late = await submit(30);
      const early = await submit(10);
      const middle = await submit(20);
      const first = await f.a.claimDeliveries({ owner: "x", now: at(100), leaseUntil: at(160), limit: 2 });
      expect(first.map((j) => j.invoice.id)).toEqual([early.id, middle.id]);
      const rest = await f.b.claimDeliveries({ owner: "y", now: at(100), leaseUntil: at(160), limit: 2 });
      expect(rest.map((j) => j.invoice.id)).toEqual([late.id]);
    });

    it("hands out submissions due at the same time in the order of their ids", async () => {
      const same = [await submit(10), await submit(10), await submit(10), await submit(10)];
      const byId = same.map((i) => i.id).sort();
      const first = await f.a.claimDeliveries({ owner: "x", now: at(10), leaseUntil: at(70), limit: 3 });
      expect(first.map((j) => j.invoice.id)).toEqual(byId.slice(0, 3));
      const rest = await f.b.claimDeliveries({ owner: "y", now: at(10), leaseUntil: at(70), limit: 3 });
      expect(rest.map((j) => j.invoice.id)).toEqual(byId.slice(3));
    });

    it("leaves a lease past its time with its holder until another claim takes it: the holder's attempt is still recorded", async () => {
      const inv = await submit(0);
      await f.a.claimDeliveries({ owner: "x", now: at(1), leaseUntil: at(61), limit: 10 });
      // Long after the lease ran out, nobody claimed the submission: x's answer is recorded, and the lease released.
      const done = await f.b.completeAttempt(attemptOf(inv.id, "x", 500, "sending"));
      expect(done?.updatedAt).toBe(at(500));
      expect(await f.a.claimDeliveries({ owner: "y", now: at(529), leaseUntil: at(589), limit: 10 })).toEqual([]);
      expect((await f.a.claimDeliveries({ owner: "y", now: at(530), leaseUntil: at(590), limit: 10 })).map((j) => [j.invoice.id, j.attempts])).toEqual([[inv.id, 1]]);
    });

    it("keeps a leased submission from other claims until the lease runs out", async () => {
      const inv = await submit(0);
      expect(await f.a.claimDeliveries({ owner: "x", now: at(1), leaseUntil: at(61), limit: 10 })).toHaveLength(1);
      expect(await f.b.claimDeliveries({ owner: "y", now: at(60), leaseUntil: at(120), limit: 10 })).toEqual([]);
      // The first dispatcher died: its lease ran out and another takes the submission.
      const again = await f.b.claimDeliveries({ owner: "y", now: at(61), leaseUntil: at(121), limit: 10 });
      expect(again.map((j) => j.invoice.id)).toEqual([inv.id]);
      // ...and the dead one's late answer is refused.
      const late = await f.a.completeAttempt({
        id: inv.id,
        owner: "x",
        attempts: 1,
        status: "delivered",
        errorMessage: null,
        event: { status: "delivered", at: at(62), detail: "late" },
        nextAttemptAt: null,
        updatedAt: at(62),
      });
      expect(late).toBeNull();
      expect((await f.a.getInvoice(companyId, inv.id))?.status).toBe("sending");
    });

    it("records an attempt only for the lease holder: status, error, events, attempts and the next due time", async () => {
      const inv = await submit(0);
      await f.a.claimDeliveries({ owner: "x", now: at(1), leaseUntil: at(61), limit: 10 });
      const retry = {
        id: inv.id,
        owner: "x",
        attempts: 1,
        status: "sending" as const,
        errorMessage: null,
        event: { status: "sending" as const, at: at(2), detail: "Attempt 1 failed (timeout); next attempt at " + at(32) + "." },
        nextAttemptAt: at(32),
        updatedAt: at(2),
      };
      expect(await f.b.completeAttempt({ ...retry, owner: "y" })).toBeNull();
      expect(await f.a.getInvoice(companyId, inv.id)).toEqual(inv);
      const updated = await f.b.completeAttempt(retry);
      expect(updated).toEqual({ ...inv, updatedAt: at(2), events: [...inv.events, retry.event] });
      expect(await f.a.getInvoice(companyId, inv.id)).toEqual(updated);
      // The lease is released, and the submission waits for its next due time.
      expect(await f.a.claimDeliveries({ owner: "z", now: at(31), leaseUntil: at(91), limit: 10 })).toEqual([]);
      const next = await f.a.claimDeliveries({ owner: "z", now: at(32), leaseUntil: at(92), limit: 10 });
      expect(next.map((j) => [j.invoice.id, j.attempts])).toEqual([[inv.id, 1]]);
      const done = await f.a.completeAttempt({
        ...retry,
        owner: "z",
        attempts: 2,
        status: "delivered",
        event: { status: "delivered", at: at(33), detail: "Delivered." },
        nextAttemptAt: null,
        updatedAt: at(33),
      });
      expect(done?.status).toBe("delivered");
      expect(done?.events.map((e) => e.status)).toEqual(["sending", "sending", "delivered"]);
      expect(await f.b.claimDeliveries({ owner: "z", now: at(9999), leaseUntil: at(99999), limit: 10 })).toEqual([]);
      // Delivered still counts as the company's submission of that document.
      expect(await f.b.findActiveSubmission(companyId, inv.sha256)).toBe(inv.id);
    });

    it("frees the document for a new submission once its submission failed", async () => {
      const inv = await submit(0);
      await f.a.claimDeliveries({ owner: "x", now: at(1), leaseUntil: at(61), limit: 10 });
      const failed = await f.a.completeAttempt({
        id: inv.id,
        owner: "x",
        attempts: 1,
        status: "failed",
        errorMessage: "The recipient is unreachable.",
        event: { status: "failed", at: at(2), detail: "The recipient is unreachable." },
        nextAttemptAt: null,
        updatedAt: at(2),
      });
      expect(failed).toMatchObject({ status: "failed", errorMessage: "The recipient is unreachable." });
      expect(await f.b.findActiveSubmission(companyId, inv.sha256)).toBeNull();
      const again = await submit(3, { sha256: inv.sha256 });
      expect(await f.b.findActiveSubmission(companyId, inv.sha256)).toBe(again.id);
    });

    it("frees the number of a document built from data once its submission failed, and keeps it while delivered", async () => {
      const inv = await submit(0, { invoiceNumber: "N-1", fromData: true });
      const kept = await submit(0, { invoiceNumber: "N-2", fromData: true });
      await f.a.claimDeliveries({ owner: "x", now: at(1), leaseUntil: at(61), limit: 10 });
      const done = (id: string, status: "failed" | "delivered") =>
        f.a.completeAttempt({ id, owner: "x", attempts: 1, status, errorMessage: status === "failed" ? "Unreachable." : null, event: { status, at: at(2), detail: "." }, nextAttemptAt: null, updatedAt: at(2) });
      expect((await done(inv.id, "failed"))?.status).toBe("failed");
      expect((await done(kept.id, "delivered"))?.status).toBe("delivered");
      expect(await f.b.findActiveNumber(companyId, "invoice", "N-1")).toBeNull();
      expect(await f.b.findActiveNumber(companyId, "invoice", "N-2")).toBe(kept.id);
      const again = await submit(3, { invoiceNumber: "N-1", fromData: true });
      expect(await f.b.findActiveNumber(companyId, "invoice", "N-1")).toBe(again.id);
      const refused = await f.a.insertSubmission({ invoice: sampleInvoiceRecord(companyId, { invoiceNumber: "N-2", fromData: true, createdAt: at(4) }), document: new Uint8Array([1]), client: null });
      expect(refused).toEqual({ inserted: false, duplicateOf: kept.id, rule: "number" });
    });

    it("counts the submissions waiting to be sent (countQueued, when the store has it): leased or not, not delivered or failed", async () => {
      if (!f.a.countQueued) return;
      const base = await f.a.countQueued();
      const one = await submit(0);
      await submit(1);
      expect(await f.b.countQueued!()).toBe(base + 2);
      await f.a.claimDeliveries({ owner: "x", now: at(2), leaseUntil: at(62), limit: 10 });
      expect(await f.a.countQueued()).toBe(base + 2);
      await f.a.completeAttempt({
        id: one.id,
        owner: "x",
        attempts: 1,
        status: "delivered",
        errorMessage: null,
        event: { status: "delivered", at: at(3), detail: "Delivered." },
        nextAttemptAt: null,
        updatedAt: at(3),
      });
      expect(await f.a.countQueued()).toBe(base + 1);
    });

    it("gives a lease back only for its holder", async () => {
      const inv = await submit(0);
      await f.a.claimDeliveries({ owner: "x", now: at(1), leaseUntil: at(61), limit: 10 });
      await f.b.releaseDelivery(inv.id, "y");
      expect(await f.b.claimDeliveries({ owner: "y", now: at(2), leaseUntil: at(62), limit: 10 })).toEqual([]);
      await f.b.releaseDelivery(inv.id, "x");
      const taken = await f.b.claimDeliveries({ owner: "y", now: at(2), leaseUntil: at(62), limit: 10 });
      expect(taken.map((j) => [j.invoice.id, j.attempts])).toEqual([[inv.id, 0]]);
    });

    it("never hands one submission to two of many concurrent claims on two stores", async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 30; i++) ids.add((await submit(i)).id);
      const claims = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (i % 2 ? f.a : f.b).claimDeliveries({ owner: `d${i}`, now: at(100), leaseUntil: at(160), limit: 4 })),
      );
      const claimed = claims.flat().map((j) => j.invoice.id);
      expect(new Set(claimed).size).toBe(claimed.length);
      for (const id of claimed) expect(ids.has(id)).toBe(true);
      // 12 claims of up to 4 could take 48: all 30 are taken, each once.
      expect(claimed.length).toBe(30);
    });

    async function otherCompany(): Promise<string> {
      const company = sampleCompany();
      await f.a.createAccount({
        account: { id: randomUUID(), email: `${randomUUID()}@example.com`, companyId: company.id, createdAt: company.createdAt },
        company,
        apiKey: { id: randomUUID(), companyId: company.id, prefix: "p", hash: "00", createdAt: company.createdAt, lastUsedAt: null, revokedAt: null },
      });
      return company.id;
    }

    it("shares a claim among companies round-robin, oldest due first within each, at most perCompany of one company", async () => {
      const b = await otherCompany();
      const c = await otherCompany();
      const a1 = await submit(1);
      const a2 = await submit(2);
      const a3 = await submit(3);
      const a4 = await submit(4);
      const b1 = await submit(10, { companyId: b });
      const b2 = await submit(11, { companyId: b });
      const c1 = await submit(20, { companyId: c });
      // Rank 0 of each company (by due time), then rank 1, then rank 2; A's fourth is past its share.
      const first = await f.a.claimDeliveries({ owner: "x", now: at(100), leaseUntil: at(160), limit: 10, perCompany: 3 });
      expect(first.map((j) => j.invoice.id)).toEqual([a1.id, b1.id, c1.id, a2.id, b2.id, a3.id]);
      // x's live leases count: A holds its 3 places of x, so x gets none of A until one ends.
      expect(await f.b.claimDeliveries({ owner: "x", now: at(101), leaseUntil: at(161), limit: 10, perCompany: 3 })).toEqual([]);
      // Another worker's places are its own.
      expect((await f.b.claimDeliveries({ owner: "y", now: at(101), leaseUntil: at(161), limit: 10, perCompany: 3 })).map((j) => j.invoice.id)).toEqual([a4.id]);
      // An attempt of x on A ends: A has a free place of x again (a retry due at once counts as due).
      expect(await f.a.completeAttempt(attemptOf(a1.id, "x", 102, "sending", { nextAttemptAt: at(102) }))).not.toBeNull();
      expect((await f.a.claimDeliveries({ owner: "x", now: at(103), leaseUntil: at(163), limit: 10, perCompany: 3 })).map((j) => j.invoice.id)).toEqual([a1.id]);
      // Leases that ran out count for nobody: past 161, x's and y's claims are all free again.
      const later = await f.b.claimDeliveries({ owner: "x", now: at(170), leaseUntil: at(230), limit: 10, perCompany: 2 });
      expect(later.map((j) => j.invoice.id)).toEqual([a2.id, b1.id, c1.id, a3.id, b2.id]);
    });

    it("counts the caller's places taken (held) instead of its live leases when given, also past a lease", async () => {
      const b = await otherCompany();
      const a1 = await submit(1);
      await submit(2);
      const b1 = await submit(10, { companyId: b });
      const claim = (second: number, held: Record<string, number>) =>
        f.a.claimDeliveries({ owner: "x", now: at(second), leaseUntil: at(second + 60), limit: 10, perCompany: 2, held }).then((jobs) => jobs.map((j) => j.invoice.id));
      expect(await claim(100, { [companyId]: 2 })).toEqual([b1.id]);
      expect(await claim(100, { [companyId]: 1, [b]: 0 })).toEqual([a1.id]);
      // a1's lease ran out, but its attempt is still in flight (held): the company's share is taken.
      expect(await claim(200, { [companyId]: 2, [b]: 2 })).toEqual([]);
    });

    it("without perCompany takes every company's items, still round-robin by company", async () => {
      const b = await otherCompany();
      const a1 = await submit(1);
      const a2 = await submit(2);
      const a3 = await submit(3);
      const b1 = await submit(10, { companyId: b });
      const jobs = await f.a.claimDeliveries({ owner: "x", now: at(100), leaseUntil: at(160), limit: 3 });
      expect(jobs.map((j) => j.invoice.id)).toEqual([a1.id, b1.id, a2.id]);
      expect((await f.b.claimDeliveries({ owner: "x", now: at(100), leaseUntil: at(160), limit: 3 })).map((j) => j.invoice.id)).toEqual([a3.id]);
    });

    /** An attempt of `owner` on `id` at second `second`, to complete. */
    function attemptOf(id: string, owner: string, second: number, status: "sending" | "delivered" | "failed", over: Partial<AttemptRecord> = {}): AttemptRecord {
      return {
        id,
        owner,
        attempts: 1,
        status,
        errorMessage: status === "failed" ? "Refused." : null,
        event: { status, at: at(second), detail: `Attempt: ${status}.` },
        nextAttemptAt: status === "sending" ? at(second + 30) : null,
        updatedAt: at(second),
        ...over,
      };
    }

    const EVIDENCE: DeliveryEvidence = {
      kind: "ksef-upo",
      mediaType: "application/xml",
      // Non-ASCII, line breaks and quotes survive as they are.
      content: '<?xml version="1.0" encoding="UTF-8"?>\n<Potwierdzenie>Zażółć gęślą jaźń \'&amp;\' ✓</Potwierdzenie>\n',
      reference: "5260250995-20261122-0100A1B2C3D4-E5",
      documentHash: "qL9xV0C4m7s2rX2nGkq3y9Z1pQ8=",
    };

    it("keeps the network's saved state across a re-claim after the lease ran out, and through a retry", async () => {
      const inv = await submit(0);
      const [first] = await f.a.claimDeliveries({ owner: "x", now: at(1), leaseUntil: at(61), limit: 10 });
      expect(first?.state).toBeNull();
      expect(await f.a.saveDeliveryState({ id: inv.id, owner: "x", state: "uploaded: session S-1, invoice R-1" })).toBe(true);
      // x died after saving; its lease runs out and y takes the submission with what x saved.
      const [second] = await f.b.claimDeliveries({ owner: "y", now: at(61), leaseUntil: at(121), limit: 10 });
      expect(second).toMatchObject({ invoice: { id: inv.id }, attempts: 0, state: "uploaded: session S-1, invoice R-1" });
      const big = "é".repeat(32 * 1024); // 64 KiB of UTF-8: the port's bound
      expect(await f.b.saveDeliveryState({ id: inv.id, owner: "y", state: big })).toBe(true);
      expect(await f.b.completeAttempt(attemptOf(inv.id, "y", 62, "sending"))).not.toBeNull();
      const [third] = await f.a.claimDeliveries({ owner: "z", now: at(92), leaseUntil: at(152), limit: 10 });
      expect(third?.attempts).toBe(1);
      expect(third?.state).toBe(big);
    });

    it("refuses to save a delivery state for anyone but the lease holder, and changes nothing then", async () => {
      const inv = await submit(0);
      // Not leased at all.
      expect(await f.a.saveDeliveryState({ id: inv.id, owner: "x", state: "early" })).toBe(false);
      await f.a.claimDeliveries({ owner: "x", now: at(1), leaseUntil: at(61), limit: 10 });
      expect(await f.a.saveDeliveryState({ id: inv.id, owner: "x", state: "mine" })).toBe(true);
      expect(await f.b.claimDeliveries({ owner: "y", now: at(61), leaseUntil: at(121), limit: 10 })).toHaveLength(1);
      // x lost its lease to y: its saves are refused and y's state stays.
      expect(await f.a.saveDeliveryState({ id: inv.id, owner: "x", state: "late" })).toBe(false);
      expect(await f.b.saveDeliveryState({ id: randomUUID(), owner: "y", state: "unknown" })).toBe(false);
      expect(await f.b.saveDeliveryState({ id: "not-a-uuid", owner: "y", state: "bad id" })).toBe(false);
      await f.b.releaseDelivery(inv.id, "y");
      const [job] = await f.a.claimDeliveries({ owner: "z", now: at(62), leaseUntil: at(122), limit: 10 });
      expect(job?.state).toBe("mine");
      // Once delivered, there is no lease to save under.
      await f.a.completeAttempt(attemptOf(inv.id, "z", 63, "delivered"));
      expect(await f.a.saveDeliveryState({ id: inv.id, owner: "z", state: "after" })).toBe(false);
    });

    it("stores evidence with a delivered attempt, for its company only", async () => {
      const inv = await submit(0);
      const other = sampleCompany();
      await f.a.createAccount({
        account: { id: randomUUID(), email: `${randomUUID()}@example.com`, companyId: other.id, createdAt: other.createdAt },
        company: other,
        apiKey: { id: randomUUID(), companyId: other.id, prefix: "p", hash: "00", createdAt: other.createdAt, lastUsedAt: null, revokedAt: null },
      });
      await f.a.claimDeliveries({ owner: "x", now: at(1), leaseUntil: at(61), limit: 10 });
      expect(await f.a.getEvidence(companyId, inv.id)).toBeNull();
      const done = await f.b.completeAttempt(attemptOf(inv.id, "x", 5, "delivered", { evidence: EVIDENCE }));
      expect(done?.status).toBe("delivered");
      const expected = { ...EVIDENCE, invoiceId: inv.id, network: inv.network, deliveredAt: at(5) };
      expect(await f.a.getEvidence(companyId, inv.id)).toEqual(expected);
      expect(await f.b.getEvidence(companyId, inv.id)).toEqual(expected);
      expect(await f.a.getEvidence(other.id, inv.id)).toBeNull();
      expect(await f.a.getEvidence(companyId, randomUUID())).toBeNull();
      expect(await f.a.getEvidence(companyId, "not-a-uuid")).toBeNull();
    });

    it("keeps no evidence with a retry, a failure, a delivery without any, or an attempt whose lease was lost", async () => {
      const retried = await submit(0);
      const failed = await submit(1);
      const bare = await submit(2);
      const late = await submit(3);
      await f.a.claimDeliveries({ owner: "x", now: at(10), leaseUntil: at(70), limit: 10 });
      await f.a.completeAttempt(attemptOf(retried.id, "x", 11, "sending", { evidence: EVIDENCE }));
      await f.a.completeAttempt(attemptOf(failed.id, "x", 11, "failed", { evidence: EVIDENCE }));
      await f.a.completeAttempt(attemptOf(bare.id, "x", 11, "delivered", { evidence: null }));
      expect(await f.b.claimDeliveries({ owner: "y", now: at(70), leaseUntil: at(130), limit: 10 })).toHaveLength(2); // retried and late
      expect(await f.a.completeAttempt(attemptOf(late.id, "x", 71, "delivered", { evidence: EVIDENCE }))).toBeNull();
      for (const inv of [retried, failed, bare, late]) expect(await f.b.getEvidence(companyId, inv.id)).toBeNull();
      expect((await f.a.getInvoice(companyId, bare.id))?.status).toBe("delivered");
    });

    it("sets the KSeF number and verification link with a delivered attempt only, and lists the company's invoices by KSeF number", async () => {
      const KSEF = "5260250995-20261120-0100001AF629-AF";
      const URL_ = "https://qr-test.ksef.mf.gov.pl/invoice/5260250995/20-11-2026/UtQp9Gpc51y-u3xApZjIjgkpZ01js-J8KflSPW8WzIE";
      const inv = await submit(0, { network: "ksef", targetNetwork: "ksef" });
      const retried = await submit(1, { network: "ksef", targetNetwork: "ksef" });
      const other = await submit(2, { network: "ksef", targetNetwork: "ksef" });
      expect(inv).toMatchObject({ ksefNumber: null, verificationUrl: null });
      await f.a.claimDeliveries({ owner: "x", now: at(3), leaseUntil: at(63), limit: 10 });
      const ksef = { ksefNumber: KSEF, verificationUrl: URL_ };
      expect(await f.a.completeAttempt(attemptOf(retried.id, "x", 4, "sending", { ksef }))).toMatchObject({ ksefNumber: null, verificationUrl: null });
      const done = await f.b.completeAttempt(attemptOf(inv.id, "x", 5, "delivered", { ksef }));
      expect(done).toMatchObject({ status: "delivered", ksefNumber: KSEF, verificationUrl: URL_ });
      await f.b.completeAttempt(attemptOf(other.id, "x", 5, "delivered", { ksef: { ksefNumber: "5260250995-20261120-0100001AF630-00", verificationUrl: null } }));
      expect(await f.a.getInvoice(companyId, inv.id)).toMatchObject({ ksefNumber: KSEF, verificationUrl: URL_ });
      expect(await f.b.getInvoice(companyId, other.id)).toMatchObject({ verificationUrl: null });
      const q = { limit: 10, after: null, status: null, clientId: null };
      expect((await f.b.listInvoices(companyId, { ...q, ksefNumber: KSEF })).map((i) => i.id)).toEqual([inv.id]);
      expect(await f.a.listInvoices(companyId, { ...q, ksefNumber: KSEF.toLowerCase() })).toEqual([]);
      expect(await f.a.listInvoices(companyId, { ...q, ksefNumber: KSEF, status: "sending" })).toEqual([]);
      expect(await f.a.listInvoices(sampleCompany().id, { ...q, ksefNumber: KSEF })).toEqual([]);
      expect(await f.a.listInvoices(companyId, { ...q, ksefNumber: null })).toHaveLength(3);
    });

    it("stores the transmitted document (KSeF's FA(3)) with a delivered attempt only, exactly as given, for its company only", async () => {
      const FA3 = { format: "fa3", mediaType: "application/xml", content: '<?xml version="1.0" encoding="UTF-8"?>\n<Faktura xmlns="http://crd.gov.pl/wzor/2025/06/25/13775/"><P_7>Zażółć &amp; ✓</P_7></Faktura>' };
      const inv = await submit(0, { network: "ksef", targetNetwork: "ksef" });
      const retried = await submit(1, { network: "ksef", targetNetwork: "ksef" });
      const failed = await submit(2, { network: "ksef", targetNetwork: "ksef" });
      const late = await submit(3, { network: "ksef", targetNetwork: "ksef" });
      await f.a.claimDeliveries({ owner: "x", now: at(4), leaseUntil: at(64), limit: 10 });
      expect(await f.a.getTransmittedDocument(companyId, inv.id)).toBeNull();
      await f.a.completeAttempt(attemptOf(retried.id, "x", 5, "sending", { transmitted: FA3 }));
      await f.a.completeAttempt(attemptOf(failed.id, "x", 5, "failed", { transmitted: FA3 }));
      expect((await f.b.completeAttempt(attemptOf(inv.id, "x", 5, "delivered", { transmitted: FA3 })))?.status).toBe("delivered");
      expect(await f.b.claimDeliveries({ owner: "y", now: at(70), leaseUntil: at(130), limit: 10 })).toHaveLength(2); // retried and late
      expect(await f.a.completeAttempt(attemptOf(late.id, "x", 71, "delivered", { transmitted: FA3 }))).toBeNull();
      const stored = await f.a.getTransmittedDocument(companyId, inv.id);
      expect(stored).toEqual(FA3);
      expect(stored!.content === FA3.content).toBe(true);
      expect(await f.b.getTransmittedDocument(companyId, inv.id)).toEqual(FA3);
      for (const other of [retried, failed, late]) expect(await f.a.getTransmittedDocument(companyId, other.id)).toBeNull();
      expect(await f.a.getTransmittedDocument(sampleCompany().id, inv.id)).toBeNull();
      expect(await f.a.getTransmittedDocument(companyId, randomUUID())).toBeNull();
      expect(await f.a.getTransmittedDocument(companyId, "not-a-uuid")).toBeNull();
    });

    it("keeps evidence of up to 1 MiB as it was given", async () => {
      const inv = await submit(0);
      await f.a.claimDeliveries({ owner: "x", now: at(1), leaseUntil: at(61), limit: 10 });
      const line = '{"n":"Zażółć ✓"}\n';
      const content = line.repeat(Math.floor((1024 * 1024) / new TextEncoder().encode(line).length));
      await f.a.completeAttempt(attemptOf(inv.id, "x", 2, "delivered", { evidence: { ...EVIDENCE, mediaType: "application/json", content, reference: null, documentHash: null } }));
      const stored = await f.b.getEvidence(companyId, inv.id);
      expect(stored?.content.length).toBe(content.length);
      expect(stored?.content === content).toBe(true);
      expect(stored).toMatchObject({ mediaType: "application/json", reference: null, documentHash: null });
    });
  });
}
