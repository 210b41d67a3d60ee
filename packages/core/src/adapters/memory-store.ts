// The in-memory store: the default in tests and in the quickstart. Nothing survives the process.
import { randomUUID } from "node:crypto";
import type {
  AttemptRecord,
  CreateAccountResult,
  DeliveryJob,
  DeliveryStore,
  InsertSubmissionResult,
  Keyset,
  NewSubmission,
  Store,
  WebhookJob,
  WebhookStore,
} from "../ports/store.js";
import type { Account, ApiKeyRecord, ClientRecord, Company, InvoiceRecord, WebhookEventRecord, WebhookRecord } from "../domain/types.js";

/** Orders by (at, id) ascending. */
function compareKey(aAt: string, aId: string, bAt: string, bId: string): number {
  return aAt < bAt ? -1 : aAt > bAt ? 1 : aId < bId ? -1 : aId > bId ? 1 : 0;
}

/** Index of the first element of the ascending `list` that is >= (at, id). */
function lowerBound(list: InvoiceRecord[], at: string, id: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const r = list[mid]!;
    if (compareKey(r.createdAt, r.id, at, id) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const clone = <T>(v: T): T => structuredClone(v);

/**
 * A store that keeps everything in this process's memory. Every method runs without yielding,
 * so each is atomic. Records are copied in and out: callers cannot change stored state.
 *
 * @example const store = memoryStore(); const v1 = createV1Router({ store })
 */
interface DeliveryState {
  attempts: number;
  nextAttemptAt: string | null;
  leaseOwner: string | null;
  leaseUntil: string | null;
}

interface Lease {
  owner: string | null;
  until: string | null;
}

export function memoryStore(): Store & DeliveryStore & WebhookStore & { readonly documents: ReadonlyMap<string, Uint8Array> } {
  const accountsByEmail = new Map<string, Account>();
  const companies = new Map<string, Company>();
  const apiKeys = new Map<string, ApiKeyRecord>();
  const invoices = new Map<string, InvoiceRecord>();
  /** Per company, ascending by (createdAt, id). */
  const invoiceOrder = new Map<string, InvoiceRecord[]>();
  /** `${companyId} ${sha256}` -> id of the submission that is not failed. */
  const active = new Map<string, string>();
  const clients = new Map<string, Map<string, ClientRecord>>();
  const documents = new Map<string, Uint8Array>();
  /** Delivery queue state of `sending` submissions. */
  const delivery = new Map<string, DeliveryState>();
  const webhooks = new Map<string, WebhookRecord>();
  const webhookEvents = new Map<string, WebhookEventRecord & Lease>();

  return {
    name: "memory",
    documents,

    async createAccount({ account, company, apiKey }): Promise<CreateAccountResult> {
      if (accountsByEmail.has(account.email)) return { created: false, reason: "email_taken" };
      accountsByEmail.set(account.email, clone(account));
      companies.set(company.id, clone(company));
      apiKeys.set(apiKey.id, clone(apiKey));
      return { created: true };
    },

    async getCompany(companyId) {
      const c = companies.get(companyId);
      return c ? clone(c) : null;
    },

    async updateCompany(companyId, patch) {
      const c = companies.get(companyId);
      if (!c) return null;
      const next = { ...c, ...clone(patch), id: c.id, createdAt: c.createdAt };
      companies.set(companyId, next);
      return clone(next);
    },

    async insertApiKey(key) {
      apiKeys.set(key.id, clone(key));
    },

    async getApiKey(id) {
      const k = apiKeys.get(id);
      return k ? clone(k) : null;
    },

    async listApiKeys(companyId) {
      return [...apiKeys.values()]
        .filter((k) => k.companyId === companyId && !k.revokedAt)
        .sort((a, b) => compareKey(a.createdAt, a.id, b.createdAt, b.id))
        .map(clone);
    },

    async revokeApiKey(companyId, id, at) {
      const k = apiKeys.get(id);
      if (!k || k.companyId !== companyId || k.revokedAt) return false;
      k.revokedAt = at;
      return true;
    },

    async touchApiKey(id, at) {
      const k = apiKeys.get(id);
      if (k) k.lastUsedAt = at;
    },

    async insertSubmission({ invoice, document, client }: NewSubmission): Promise<InsertSubmissionResult> {
      const activeKey = `${invoice.companyId} ${invoice.sha256}`;
      const stored = clone(invoice);
      if (stored.status !== "failed") {
        const earlier = active.get(activeKey);
        if (earlier) return { inserted: false, duplicateOf: earlier };
        active.set(activeKey, stored.id);
        if (client) {
          let byKey = clients.get(stored.companyId);
          if (!byKey) clients.set(stored.companyId, (byKey = new Map()));
          const existing = byKey.get(client.key);
          if (existing) {
            existing.invoiceCount += 1;
            existing.lastInvoiceAt = stored.createdAt;
            existing.name = client.name;
            existing.vatId = client.vatId;
            existing.country = client.country;
            stored.clientId = existing.id;
          } else {
            byKey.set(client.key, {
              id: client.id,
              companyId: stored.companyId,
              key: client.key,
              name: client.name,
              endpointId: client.endpointId,
              vatId: client.vatId,
              country: client.country,
              invoiceCount: 1,
              firstInvoiceAt: stored.createdAt,
              lastInvoiceAt: stored.createdAt,
            });
            stored.clientId = client.id;
          }
        }
      }
      if (document) documents.set(stored.id, document);
      if (stored.status === "sending") delivery.set(stored.id, { attempts: 0, nextAttemptAt: stored.createdAt, leaseOwner: null, leaseUntil: null });
      invoices.set(stored.id, stored);
      let order = invoiceOrder.get(stored.companyId);
      if (!order) invoiceOrder.set(stored.companyId, (order = []));
      const last = order[order.length - 1];
      if (!last || compareKey(last.createdAt, last.id, stored.createdAt, stored.id) < 0) order.push(stored);
      else order.splice(lowerBound(order, stored.createdAt, stored.id), 0, stored);
      return { inserted: true, invoice: clone(stored) };
    },

    async findActiveSubmission(companyId, sha256) {
      return active.get(`${companyId} ${sha256}`) ?? null;
    },

    async getInvoice(companyId, id) {
      const r = invoices.get(id);
      return r && r.companyId === companyId ? clone(r) : null;
    },

    async listInvoices(companyId, { limit, after, status, clientId }) {
      const order = invoiceOrder.get(companyId) ?? [];
      const out: InvoiceRecord[] = [];
      let i = after ? lowerBound(order, after.at, after.id) - 1 : order.length - 1;
      for (; i >= 0 && out.length < limit; i--) {
        const r = order[i]!;
        if (status && r.status !== status) continue;
        if (clientId && r.clientId !== clientId) continue;
        out.push(clone(r));
      }
      return out;
    },

    async claimDeliveries({ owner, now, leaseUntil, limit }): Promise<DeliveryJob[]> {
      const due: Array<[string, DeliveryState]> = [];
      for (const entry of delivery) {
        const [id, d] = entry;
        if (invoices.get(id)?.status !== "sending" || d.nextAttemptAt === null || d.nextAttemptAt > now) continue;
        if (d.leaseUntil !== null && d.leaseUntil > now) continue;
        due.push(entry);
      }
      due.sort((a, b) => compareKey(a[1].nextAttemptAt!, a[0], b[1].nextAttemptAt!, b[0]));
      return due.slice(0, limit).map(([id, d]) => {
        d.leaseOwner = owner;
        d.leaseUntil = leaseUntil;
        return { invoice: clone(invoices.get(id)!), document: documents.get(id) ?? new Uint8Array(), attempts: d.attempts };
      });
    },

    async completeAttempt(a: AttemptRecord) {
      const d = delivery.get(a.id);
      const inv = invoices.get(a.id);
      if (!d || !inv || d.leaseOwner !== a.owner) return null;
      inv.status = a.status;
      inv.errorMessage = a.errorMessage;
      inv.updatedAt = a.updatedAt;
      inv.events.push(clone(a.event));
      d.attempts = a.attempts;
      d.nextAttemptAt = a.nextAttemptAt;
      d.leaseOwner = null;
      d.leaseUntil = null;
      if (a.status === "failed") {
        const key = `${inv.companyId} ${inv.sha256}`;
        if (active.get(key) === inv.id) active.delete(key);
      }
      if (a.notify) {
        for (const w of webhooks.values()) {
          if (w.companyId !== inv.companyId || w.deletedAt || !w.events.includes(a.notify.type)) continue;
          const id = randomUUID();
          webhookEvents.set(id, {
            id,
            webhookId: w.id,
            companyId: w.companyId,
            type: a.notify.type,
            createdAt: a.updatedAt,
            data: a.notify.data,
            status: "pending",
            attempts: 0,
            nextAttemptAt: a.updatedAt,
            deliveredAt: null,
            log: [],
            owner: null,
            until: null,
          });
        }
      }
      return clone(inv);
    },

    async releaseDelivery(id, owner) {
      const d = delivery.get(id);
      if (d && d.leaseOwner === owner) {
        d.leaseOwner = null;
        d.leaseUntil = null;
      }
    },

    async insertWebhook(w) {
      webhooks.set(w.id, clone(w));
    },

    async listWebhooks(companyId) {
      return [...webhooks.values()]
        .filter((w) => w.companyId === companyId && !w.deletedAt)
        .sort((a, b) => compareKey(a.createdAt, a.id, b.createdAt, b.id))
        .map(clone);
    },

    async getWebhook(companyId, id) {
      const w = webhooks.get(id);
      return w && w.companyId === companyId && !w.deletedAt ? clone(w) : null;
    },

    async deleteWebhook(companyId, id, at) {
      const w = webhooks.get(id);
      if (!w || w.companyId !== companyId || w.deletedAt) return false;
      w.deletedAt = at;
      return true;
    },

    async claimWebhookEvents({ owner, now, leaseUntil, limit }): Promise<WebhookJob[]> {
      const due = [...webhookEvents.values()].filter(
        (e) =>
          e.status === "pending" &&
          e.nextAttemptAt !== null &&
          e.nextAttemptAt <= now &&
          (e.until === null || e.until <= now) &&
          !webhooks.get(e.webhookId)?.deletedAt,
      );
      due.sort((a, b) => compareKey(a.nextAttemptAt!, a.id, b.nextAttemptAt!, b.id));
      return due.slice(0, limit).map((e) => {
        e.owner = owner;
        e.until = leaseUntil;
        const w = webhooks.get(e.webhookId)!;
        const { owner: _o, until: _u, ...event } = e;
        return { event: clone(event), url: w.url, secret: w.secret };
      });
    },

    async completeWebhookEvent(input) {
      const e = webhookEvents.get(input.id);
      if (!e || e.owner !== input.owner) return false;
      e.status = input.status;
      e.attempts = input.attempts;
      e.nextAttemptAt = input.nextAttemptAt;
      e.deliveredAt = input.deliveredAt;
      e.log = [...e.log, clone(input.attempt)].slice(-20);
      e.owner = null;
      e.until = null;
      return true;
    },

    async listWebhookEvents(companyId, webhookId, limit) {
      return [...webhookEvents.values()]
        .filter((e) => e.companyId === companyId && e.webhookId === webhookId)
        .sort((a, b) => compareKey(b.createdAt, b.id, a.createdAt, a.id))
        .slice(0, limit)
        .map(({ owner: _o, until: _u, ...event }) => clone(event));
    },

    async listClients(companyId, { limit, after }: { limit: number; after: Keyset | null }) {
      const all = [...(clients.get(companyId)?.values() ?? [])].sort((a, b) =>
        compareKey(b.lastInvoiceAt, b.id, a.lastInvoiceAt, a.id),
      );
      const start = after ? all.findIndex((c) => compareKey(c.lastInvoiceAt, c.id, after.at, after.id) < 0) : 0;
      return start === -1 ? [] : all.slice(start, start + limit).map(clone);
    },
  };
}
