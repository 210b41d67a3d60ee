// testDeliveryStore: the conformance suite of the DeliveryStore port (the dispatcher's queue with leases).
import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DeliveryStore, Store } from "../ports/store.js";
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
      expect(jobs).toEqual([{ invoice: inv, document: doc, attempts: 0 }]);
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
  });
}
