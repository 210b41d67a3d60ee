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
