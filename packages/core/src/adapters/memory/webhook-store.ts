// The `WebhookStore` port in memory: webhooks and the queue of their events.
import { appendToLog, holdsLease, pickClaims, previousSecretSigns } from "../../ports/queue.js";
import type { WebhookJob, WebhookStore } from "../../ports/store.js";
import { clone, compareKey, type MemoryState } from "./state.js";

export function memoryWebhookStore(state: MemoryState): WebhookStore {
  const { webhooks, webhookEvents } = state;
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

    async claimWebhookEvents({ owner, now, leaseUntil, limit }): Promise<WebhookJob[]> {
      const pending = [...webhookEvents.values()].filter((e) => e.status === "pending" && !webhooks.get(e.webhookId)?.deletedAt);
      return pickClaims(pending, now, limit).map((e) => {
        e.leaseOwner = owner;
        e.leaseUntil = leaseUntil;
        const w = webhooks.get(e.webhookId)!;
        const { leaseOwner: _o, leaseUntil: _u, ...event } = e;
        const previousSecret = w.previousSecret && previousSecretSigns(w.previousSecretExpiresAt, now) ? w.previousSecret : null;
        return { event: clone(event), url: w.url, secret: w.secret, previousSecret };
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
