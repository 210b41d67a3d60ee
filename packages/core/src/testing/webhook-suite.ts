// testWebhookStore: the conformance suite of the WebhookStore port.
import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DeliveryStore, Store, WebhookStore } from "../ports/store.js";
import type { Company, WebhookRecord } from "../domain/types.js";
import { sampleAccount, sampleApiKey, sampleCompany, sampleInvoiceRecord } from "./fixtures.js";

type S = Store & DeliveryStore & WebhookStore;
const at = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString();

/**
 * Registers a vitest `describe` block that checks a store's webhooks and their event queue:
 * events enqueued atomically with a status change, leases, the attempt log, deletion, scoping.
 */
export function testWebhookStore(label: string, factory: () => S | Promise<S>): void {
  describe(`webhook store conformance: ${label}`, () => {
    let store: S;
    let company: Company;

    async function newCompany(): Promise<Company> {
      const c = sampleCompany();
      await store.createAccount({ account: sampleAccount(c), company: c, apiKey: sampleApiKey(c.id) });
      return c;
    }
    function hook(companyId: string, over: Partial<WebhookRecord> = {}): WebhookRecord {
      return { id: randomUUID(), companyId, url: "https://hooks.example/x", events: ["invoice.status_changed"], secret: "whsec_x", createdAt: at(0), deletedAt: null, previousSecret: null, previousSecretExpiresAt: null, ...over };
    }
    /** Accepts an invoice and records a delivered attempt with a notice: the events it enqueues. */
    async function deliverOne(companyId: string, notify = true): Promise<string> {
      const inv = sampleInvoiceRecord(companyId, { createdAt: at(1), updatedAt: at(1) });
      await store.insertSubmission({ invoice: inv, document: new Uint8Array([60]), client: null });
      const [job] = await store.claimDeliveries({ owner: "d", now: at(2), leaseUntil: at(60), limit: 1 });
      expect(job?.invoice.id).toBe(inv.id);
      await store.completeAttempt({
        id: inv.id,
        owner: "d",
        attempts: 1,
        status: "delivered",
        errorMessage: null,
        event: { status: "delivered", at: at(3), detail: "ok" },
        nextAttemptAt: null,
        updatedAt: at(3),
        notify: notify ? { type: "invoice.status_changed", data: `{"invoice":{"id":"${inv.id}"}}` } : null,
      });
      return inv.id;
    }

    beforeEach(async () => {
      store = await factory();
      company = await newCompany();
    });
    afterEach(async () => {
      await store.close?.();
    });

    it("keeps webhooks per company, lists them oldest first, deletes within the company only", async () => {
      const other = await newCompany();
      const a = hook(company.id, { createdAt: at(2) });
      const b = hook(company.id, { createdAt: at(1), events: ["invoice.status_changed"] });
      await store.insertWebhook(a);
      await store.insertWebhook(b);
      expect((await store.listWebhooks(company.id)).map((w) => w.id)).toEqual([b.id, a.id]);
      expect(await store.getWebhook(company.id, a.id)).toEqual(a);
      expect(await store.getWebhook(other.id, a.id)).toBeNull();
      expect(await store.deleteWebhook(other.id, a.id, at(5))).toBe(false);
      expect(await store.deleteWebhook(company.id, a.id, at(5))).toBe(true);
      expect(await store.deleteWebhook(company.id, a.id, at(6))).toBe(false);
      expect(await store.getWebhook(company.id, a.id)).toBeNull();
      expect((await store.listWebhooks(company.id)).map((w) => w.id)).toEqual([b.id]);
    });

    it("the cap of webhooks holds under concurrent inserts (60 at once, cap 10); deleted ones do not count", async () => {
      const gone = hook(company.id, { deletedAt: at(0) });
      expect(await store.insertWebhook(gone, { max: 10 })).toBe(true);
      const results = await Promise.all(Array.from({ length: 60 }, () => store.insertWebhook(hook(company.id), { max: 10 })));
      expect(results.filter(Boolean)).toHaveLength(10);
      expect(await store.listWebhooks(company.id)).toHaveLength(10);
      expect(await store.insertWebhook(hook(company.id))).toBe(true); // without a cap, always
    });

    it("enqueues one event per subscribed webhook of the company with the status change, and none without a notice", async () => {
      const other = await newCompany();
      const h1 = hook(company.id);
      const h2 = hook(company.id);
      const gone = hook(company.id, { deletedAt: at(0) });
      await store.insertWebhook(h1);
      await store.insertWebhook(h2);
      await store.insertWebhook(gone);
      await store.insertWebhook(hook(other.id));
      const invoiceId = await deliverOne(company.id);
      await deliverOne(company.id, false);
      const jobs = await store.claimWebhookEvents({ owner: "w", now: at(3), leaseUntil: at(30), limit: 10 });
      expect(jobs.map((j) => j.event.webhookId).sort()).toEqual([h1.id, h2.id].sort());
      for (const j of jobs) {
        expect(j).toMatchObject({ url: "https://hooks.example/x", secret: "whsec_x" });
        expect(j.event).toMatchObject({ companyId: company.id, type: "invoice.status_changed", createdAt: at(3), status: "pending", attempts: 0, deliveredAt: null, log: [] });
        expect(JSON.parse(j.event.data)).toEqual({ invoice: { id: invoiceId } });
      }
      expect(jobs[0]!.event.id).not.toBe(jobs[1]!.event.id);
    });

    it("leases events, records attempts (keeping the last 20), and refuses a lost lease", async () => {
      const h = hook(company.id);
      await store.insertWebhook(h);
      await deliverOne(company.id);
      const [job] = await store.claimWebhookEvents({ owner: "w1", now: at(3), leaseUntil: at(30), limit: 10 });
      expect(await store.claimWebhookEvents({ owner: "w2", now: at(10), leaseUntil: at(40), limit: 10 })).toEqual([]);
      const attempt = (n: number) => ({ at: at(n), statusCode: 500, error: "HTTP 500", durationMs: 3 });
      expect(await store.completeWebhookEvent({ id: job!.event.id, owner: "w2", status: "pending", attempts: 1, nextAttemptAt: at(40), deliveredAt: null, attempt: attempt(4) })).toBe(false);
      expect(await store.completeWebhookEvent({ id: job!.event.id, owner: "w1", status: "pending", attempts: 1, nextAttemptAt: at(40), deliveredAt: null, attempt: attempt(4) })).toBe(true);
      expect(await store.claimWebhookEvents({ owner: "w2", now: at(39), leaseUntil: at(99), limit: 10 })).toEqual([]);
      for (let n = 2; n <= 22; n++) {
        const [again] = await store.claimWebhookEvents({ owner: "w2", now: at(40 + n), leaseUntil: at(41 + n), limit: 10 });
        expect(again?.event.attempts).toBe(n - 1);
        const last = n === 22;
        await store.completeWebhookEvent({ id: job!.event.id, owner: "w2", status: last ? "delivered" : "pending", attempts: n, nextAttemptAt: last ? null : at(41 + n), deliveredAt: last ? at(40 + n) : null, attempt: attempt(40 + n) });
      }
      const [listed] = await store.listWebhookEvents(company.id, h.id, 10);
      expect(listed).toMatchObject({ status: "delivered", attempts: 22, deliveredAt: at(62), nextAttemptAt: null });
      expect(listed!.log).toHaveLength(20);
      expect(listed!.log.at(-1)).toEqual(attempt(62));
      expect(listed!.log[0]).toEqual(attempt(43));
      expect(await store.claimWebhookEvents({ owner: "w3", now: at(999), leaseUntil: at(1999), limit: 10 })).toEqual([]);
    });

    it("rotates a secret within the company only: the previous one comes with the claimed job until it expires", async () => {
      const other = await newCompany();
      const h = hook(company.id, { secret: "whsec_old" });
      await store.insertWebhook(h);
      expect(await store.rotateWebhookSecret(other.id, h.id, { secret: "whsec_evil", previousSecretExpiresAt: at(100) })).toBeNull();
      const rotated = await store.rotateWebhookSecret(company.id, h.id, { secret: "whsec_new", previousSecretExpiresAt: at(100) });
      expect(rotated).toMatchObject({ id: h.id, secret: "whsec_new", previousSecret: "whsec_old", previousSecretExpiresAt: at(100) });
      expect(await store.getWebhook(company.id, h.id)).toEqual(rotated);
      await deliverOne(company.id);
      const [during] = await store.claimWebhookEvents({ owner: "w", now: at(99), leaseUntil: at(99.5), limit: 10 });
      expect([during?.secret, during?.previousSecret]).toEqual(["whsec_new", "whsec_old"]);
      const [after] = await store.claimWebhookEvents({ owner: "w2", now: at(100), leaseUntil: at(200), limit: 10 });
      expect([after?.secret, after?.previousSecret ?? null]).toEqual(["whsec_new", null]);
      // A second rotation drops the oldest secret.
      expect(await store.rotateWebhookSecret(company.id, h.id, { secret: "whsec_newer", previousSecretExpiresAt: at(300) })).toMatchObject({ secret: "whsec_newer", previousSecret: "whsec_new" });
      await store.deleteWebhook(company.id, h.id, at(301));
      expect(await store.rotateWebhookSecret(company.id, h.id, { secret: "whsec_x", previousSecretExpiresAt: at(400) })).toBeNull();
    });

    it("takes an expired lease back, and skips events of deleted webhooks", async () => {
      const h = hook(company.id);
      await store.insertWebhook(h);
      await deliverOne(company.id);
      await store.claimWebhookEvents({ owner: "dead", now: at(3), leaseUntil: at(10), limit: 10 });
      expect(await store.claimWebhookEvents({ owner: "w", now: at(10), leaseUntil: at(20), limit: 10 })).toHaveLength(1);
      await store.deleteWebhook(company.id, h.id, at(11));
      expect(await store.claimWebhookEvents({ owner: "x", now: at(30), leaseUntil: at(40), limit: 10 })).toEqual([]);
    });

    /** A failed (or, with `delivered`, a successful) attempt on a claimed event, with the circuit's update. */
    function record(id: string, owner: string, second: number, delivered: boolean, circuit: { threshold: number; pauseUntil: string } | null) {
      return store.completeWebhookEvent({
        id,
        owner,
        status: delivered ? "delivered" : "pending",
        attempts: 1,
        nextAttemptAt: delivered ? null : at(second),
        deliveredAt: delivered ? at(second) : null,
        attempt: { at: at(second), statusCode: delivered ? 200 : null, error: delivered ? null : "No answer within 5000 ms.", durationMs: 5000 },
        circuit,
      });
    }

    it("shares a claim among companies round-robin, at most perCompany of one company counting the owner's live leases", async () => {
      const other = await newCompany();
      const hooks = [hook(company.id), hook(company.id), hook(company.id)];
      for (const h of hooks) await store.insertWebhook(h);
      await store.insertWebhook(hook(other.id));
      await deliverOne(company.id); // 3 events of company, due at(3)
      const theirs = await store.claimWebhookEvents({ owner: "seed", now: at(3), leaseUntil: at(3.5), limit: 10 });
      expect(theirs).toHaveLength(3);
      await deliverOne(other.id); // 1 event of other, due at(3), after company's in id order or not: rank decides
      const first = await store.claimWebhookEvents({ owner: "w", now: at(4), leaseUntil: at(30), limit: 10, perCompany: 2 });
      expect(first.map((j) => j.event.companyId)).toEqual([first[0]!.event.companyId, first[1]!.event.companyId, company.id]);
      expect(first.slice(0, 2).map((j) => j.event.companyId).sort()).toEqual([company.id, other.id].sort());
      // w holds 2 of company's events: its third waits for one of them; another owner's places are its own.
      expect(await store.claimWebhookEvents({ owner: "w", now: at(5), leaseUntil: at(30), limit: 10, perCompany: 2 })).toEqual([]);
      expect(await store.claimWebhookEvents({ owner: "v", now: at(5), leaseUntil: at(30), limit: 10, perCompany: 2 })).toHaveLength(1);
    });

    it("pauses a company's URL as a whole after `threshold` failures in a row, probes it once the pause is over, and a success closes it", async () => {
      const other = await newCompany();
      const x1 = hook(company.id, { url: "https://x.example/h" });
      const x2 = hook(company.id, { url: "https://x.example/h" });
      const y = hook(company.id, { url: "https://y.example/h" });
      const otherX = hook(other.id, { url: "https://x.example/h" });
      for (const h of [x1, x2, y, otherX]) await store.insertWebhook(h);
      await deliverOne(company.id);
      await deliverOne(company.id);
      await deliverOne(other.id);
      const jobs = await store.claimWebhookEvents({ owner: "w", now: at(3), leaseUntil: at(30), limit: 10 });
      expect(jobs).toHaveLength(7);
      expect(jobs.every((j) => (j.endpointFailures ?? 0) === 0)).toBe(true);
      const onX = jobs.filter((j) => j.event.webhookId === x1.id || j.event.webhookId === x2.id);
      const onY = jobs.filter((j) => j.event.webhookId === y.id);
      const onOtherX = jobs.filter((j) => j.event.webhookId === otherX.id);
      const trip = { threshold: 2, pauseUntil: at(100) };
      const xOf = (claimed: { event: { id: string; webhookId: string } }[]) => claimed.filter((j) => j.event.webhookId === x1.id || j.event.webhookId === x2.id).map((j) => j.event.id);
      // x fails twice (the threshold) and twice more; y fails once, then succeeds; the other company's x fails once.
      for (const [i, j] of onX.entries()) expect(await record(j.event.id, "w", 10 + i, false, trip)).toBe(true);
      expect(await record(onY[0]!.event.id, "w", 10, false, trip)).toBe(true);
      expect(await record(onY[1]!.event.id, "w", 11, true, trip)).toBe(true);
      expect(await record(onOtherX[0]!.event.id, "w", 10, false, trip)).toBe(true);
      // A lost lease changes no circuit.
      expect(await record(onY[1]!.event.id, "late", 12, false, trip)).toBe(false);

      // Open: none of x's four events, though all are due; y's first (its circuit closed by the success) and the other company's x go.
      const during = await store.claimWebhookEvents({ owner: "w", now: at(50), leaseUntil: at(60), limit: 10 });
      expect(during.map((j) => j.event.id).sort()).toEqual([onY[0]!.event.id, onOtherX[0]!.event.id].sort());
      expect(during.find((j) => j.event.id === onOtherX[0]!.event.id)?.endpointFailures).toBe(1);
      expect(during.find((j) => j.event.id === onY[0]!.event.id)?.endpointFailures ?? 0).toBe(0);
      // An attempt recorded without `circuit` leaves it as it is.
      for (const j of during) expect(await record(j.event.id, "w", 51, false, null)).toBe(true);
      expect(await store.claimWebhookEvents({ owner: "w", now: at(99), leaseUntil: at(99.5), limit: 10 })).toHaveLength(2);

      // Half-open at the pause's end: one probe, the oldest due of x's events, and no second while it is out (any owner).
      const half = await store.claimWebhookEvents({ owner: "w", now: at(100), leaseUntil: at(130), limit: 10 });
      expect(xOf(half)).toEqual([onX[0]!.event.id]);
      const probe = half.find((j) => j.event.id === onX[0]!.event.id);
      expect(probe?.endpointFailures).toBe(4);
      expect(xOf(await store.claimWebhookEvents({ owner: "v", now: at(101), leaseUntil: at(130), limit: 10 }))).toEqual([]);
      // The probe fails: paused again, until the new time.
      expect(await record(probe!.event.id, "w", 102, false, { threshold: 2, pauseUntil: at(200) })).toBe(true);
      expect(xOf(await store.claimWebhookEvents({ owner: "v", now: at(199), leaseUntil: at(199.5), limit: 10 }))).toEqual([]);
      // The next probe succeeds: the circuit is closed, and x's other events all go at once.
      expect(xOf(await store.claimWebhookEvents({ owner: "w", now: at(200), leaseUntil: at(230), limit: 10 }))).toEqual([onX[1]!.event.id]);
      expect(await record(onX[1]!.event.id, "w", 201, true, trip)).toBe(true);
      const after = await store.claimWebhookEvents({ owner: "w", now: at(202), leaseUntil: at(230), limit: 10 });
      expect(after.filter((j) => j.event.webhookId === x1.id || j.event.webhookId === x2.id).map((j) => [j.event.id, j.endpointFailures ?? 0])).toEqual(
        [onX[2]!, onX[3]!, onX[0]!].map((j) => [j.event.id, 0]),
      );
    });

    it("lists a webhook's events newest first, within its company only", async () => {
      const other = await newCompany();
      const h = hook(company.id);
      await store.insertWebhook(h);
      await deliverOne(company.id);
      expect(await store.listWebhookEvents(company.id, h.id, 10)).toHaveLength(1);
      expect(await store.listWebhookEvents(other.id, h.id, 10)).toEqual([]);
    });
  });
}
