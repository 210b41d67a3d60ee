// The `WebhookStore` port in memory: webhooks and the queue of their events.
import type { WebhookJob, WebhookStore } from "../../ports/store.js";
import { clone, compareKey, type MemoryState } from "./state.js";

/** How many attempts an event's log keeps (the newest). */
const LOG_LENGTH = 20;

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
        const previousSecret = w.previousSecret && w.previousSecretExpiresAt && w.previousSecretExpiresAt > now ? w.previousSecret : null;
        return { event: clone(event), url: w.url, secret: w.secret, previousSecret };
      });
    },

    async completeWebhookEvent(input) {
      const e = webhookEvents.get(input.id);
      if (!e || e.owner !== input.owner) return false;
      e.status = input.status;
      e.attempts = input.attempts;
      e.nextAttemptAt = input.nextAttemptAt;
      e.deliveredAt = input.deliveredAt;
      e.log = [...e.log, clone(input.attempt)].slice(-LOG_LENGTH);
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
  };
}
