// The memory store's Idempotency-Keys: one record per company and key.
import type { IdempotencyStore } from "../../ports/store.js";
import type { MemoryState } from "./state.js";

export function memoryIdempotencyStore(state: MemoryState): IdempotencyStore {
  const keyOf = (companyId: string, key: string) => `${companyId} ${key}`;
  let begins = 0;
  return {
    async beginIdempotentRequest({ companyId, key, fingerprint, now, lockedUntil, expiredBefore, resourceId }) {
      // Now and then, forget the keys whose 24 hours are over (nothing else would).
      if (++begins % 1000 === 0) for (const [k, r] of state.idempotency) if (r.createdAt <= expiredBefore) state.idempotency.delete(k);
      const k = keyOf(companyId, key);
      const held = state.idempotency.get(k);
      const expired = !held || held.createdAt <= expiredBefore;
      if (expired || (held.status === null && (held.abandoned || held.lockedUntil <= now))) {
        // A retry of a request that died or failed (same fingerprint) keeps that request's resource id.
        const kept = !expired && held.fingerprint === fingerprint ? held.resourceId : resourceId;
        state.idempotency.set(k, { fingerprint, createdAt: now, lockedUntil, status: null, body: null, resourceId: kept, abandoned: false });
        return { state: "started", resourceId: kept };
      }
      if (held.status === null || held.body === null) return { state: "in_progress", fingerprint: held.fingerprint };
      return { state: "completed", fingerprint: held.fingerprint, status: held.status, body: held.body };
    },
    async completeIdempotentRequest({ companyId, key, fingerprint, status, body }) {
      const held = state.idempotency.get(keyOf(companyId, key));
      if (held && held.fingerprint === fingerprint && held.status === null) Object.assign(held, { status, body });
    },
    async abandonIdempotentRequest({ companyId, key, fingerprint }) {
      const k = keyOf(companyId, key);
      const held = state.idempotency.get(k);
      if (held && held.fingerprint === fingerprint && held.status === null) held.abandoned = true;
    },
  };
}
