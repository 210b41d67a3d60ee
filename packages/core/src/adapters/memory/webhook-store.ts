// The `WebhookStore` port in memory: webhooks and the queue of their events.
import { appendToLog, circuitAfter, circuitAt, claimOrder, holdsLease, isLeaseFree, pickClaims, previousSecretSigns } from "../../ports/queue.js";
import type { WebhookJob, WebhookStore } from "../../ports/store.js";
import type { WebhookEventRecord } from "../../domain/types.js";
import { clone, compareKey, endpointKey, type Lease, type MemoryState } from "./state.js";

export function memoryWebhookStore(state: MemoryState): WebhookStore {
  const { webhooks, webhookEvents, endpoints } = state;
  return {
    async insertWebhook(w, limit) {
      // The count and the write in one step on the event loop: concurrent inserts cannot pass the cap.
      if (limit?.max !== undefined) {
        let n = 0;
        for (const x of webhooks.values()) if (x.companyId === w.companyId && !x.deletedAt) n++;
        if (n >= limit.max) return false;
      }
      webhooks.set(w.id, clone(w));
      return true;
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

    async rotateWebhookSecret(companyId, id, { secret, previousSecretExpiresAt }) {
      const w = webhooks.get(id);
      if (!w || w.companyId !== companyId || w.deletedAt) return null;
      w.previousSecret = w.secret;
      w.previousSecretExpiresAt = previousSecretExpiresAt;
      w.secret = secret;
      return clone(w);
    },

    async deleteWebhook(companyId, id, at) {
      const w = webhooks.get(id);
      if (!w || w.companyId !== companyId || w.deletedAt) return false;
      w.deletedAt = at;
      return true;
    },

    async claimWebhookEvents({ owner, now, leaseUntil, limit, perCompany, held }): Promise<WebhookJob[]> {
      type Event = WebhookEventRecord & Lease;
      const keyOf = (e: Event) => endpointKey(e.companyId, webhooks.get(e.webhookId)!.url);
      const pending = [...webhookEvents.values()].filter((e) => e.status === "pending" && !webhooks.get(e.webhookId)?.deletedAt);
      // The circuits: none of an open endpoint's events; of a half-open one, its oldest due event while none is leased (one probe).
      const probing = new Set<string>();
      for (const e of pending) if (!isLeaseFree(e, now)) probing.add(keyOf(e));
      const probe = new Map<string, Event>();
      const open: Event[] = [];
      for (const e of pending) {
        const key = keyOf(e);
        const state = circuitAt(endpoints.get(key), now);
        if (state === "closed") open.push(e);
        else if (state === "half-open" && !probing.has(key) && isLeaseFree(e, now) && e.nextAttemptAt !== null && e.nextAttemptAt <= now) {
          const first = probe.get(key);
          if (!first || claimOrder(e, first) < 0) probe.set(key, e);
        } else if (!isLeaseFree(e, now)) open.push(e); // a live lease still counts for its company's share
      }
      return pickClaims([...open, ...probe.values()], now, limit, { owner, perCompany, held, companyOf: (e) => e.companyId }).map((e) => {
        e.leaseOwner = owner;
        e.leaseUntil = leaseUntil;
        const w = webhooks.get(e.webhookId)!;
        const { leaseOwner: _o, leaseUntil: _u, ...event } = e;
        const previousSecret = w.previousSecret && previousSecretSigns(w.previousSecretExpiresAt, now) ? w.previousSecret : null;
        return { event: clone(event), url: w.url, secret: w.secret, previousSecret, endpointFailures: endpoints.get(keyOf(e))?.failures ?? 0 };
      });
    },

    async completeWebhookEvent(input) {
      const e = webhookEvents.get(input.id);
      if (!e || !holdsLease(e, input.owner)) return false;
      e.status = input.status;
      e.attempts = input.attempts;
      e.nextAttemptAt = input.nextAttemptAt;
      e.deliveredAt = input.deliveredAt;
      e.log = appendToLog(e.log, clone(input.attempt));
      e.leaseOwner = null;
      e.leaseUntil = null;
      if (input.circuit) {
        const w = webhooks.get(e.webhookId)!;
        const key = endpointKey(e.companyId, w.url);
        const after = circuitAfter(endpoints.get(key), input.status === "delivered", input.circuit);
        if (after.failures === 0 && after.pausedUntil === null) endpoints.delete(key);
        else endpoints.set(key, after);
      }
      return true;
    },

    async listWebhookEvents(companyId, webhookId, limit) {
      return [...webhookEvents.values()]
        .filter((e) => e.companyId === companyId && e.webhookId === webhookId)
        .sort((a, b) => compareKey(b.createdAt, b.id, a.createdAt, a.id))
        .slice(0, limit)
        .map(({ leaseOwner: _o, leaseUntil: _u, ...event }) => clone(event));
    },
  };
}
