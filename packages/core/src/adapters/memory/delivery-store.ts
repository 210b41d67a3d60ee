// The `DeliveryStore` port in memory: the dispatcher's queue, and the webhook events an attempt enqueues.
import { randomUUID } from "node:crypto";
import { holdsLease, keepsDeliveryState, pickClaims } from "../../ports/queue.js";
import type { AttemptRecord, DeliveryJob, DeliveryStore } from "../../ports/store.js";
import { activeKey, clone, documentBytes, releaseNumber, type DeliveryState, type MemoryState } from "./state.js";

export function memoryDeliveryStore(state: MemoryState): DeliveryStore {
  const { invoices, active, documents, delivery, evidence, webhooks, webhookEvents } = state;
  return {
    async claimDeliveries({ owner, now, leaseUntil, limit, perCompany, held }): Promise<DeliveryJob[]> {
      const sending: DeliveryState[] = [];
      for (const d of delivery.values()) if (invoices.get(d.id)?.status === "sending") sending.push(d);
      return pickClaims(sending, now, limit, { owner, perCompany, held, companyOf: (d) => invoices.get(d.id)!.companyId }).map((d) => {
        d.leaseOwner = owner;
        d.leaseUntil = leaseUntil;
        const kept = documents.get(d.id);
        return { invoice: clone(invoices.get(d.id)!), document: kept === undefined ? new Uint8Array() : documentBytes(kept), attempts: d.attempts, state: d.state };
      });
    },

    async completeAttempt(a: AttemptRecord) {
      const d = delivery.get(a.id);
      const inv = invoices.get(a.id);
      if (!d || !inv || !holdsLease(d, a.owner)) return null;
      inv.status = a.status;
      inv.errorMessage = a.errorMessage;
      inv.updatedAt = a.updatedAt;
      inv.events.push(clone(a.event));
      d.attempts = a.attempts;
      d.nextAttemptAt = a.nextAttemptAt;
      d.leaseOwner = null;
      d.leaseUntil = null;
      if (!keepsDeliveryState(a.status)) d.state = null;
      if (a.status === "delivered" && a.ksef) {
        inv.ksefNumber = a.ksef.ksefNumber;
        inv.verificationUrl = a.ksef.verificationUrl;
      }
      if (a.status === "delivered" && a.evidence && inv.network) {
        const { kind, mediaType, content, reference, documentHash } = a.evidence;
        evidence.set(inv.id, { invoiceId: inv.id, network: inv.network, kind, mediaType, content, reference, documentHash, deliveredAt: a.updatedAt });
      }
      if (a.status === "delivered" && a.transmitted) {
        const { format, mediaType, content } = a.transmitted;
        state.transmitted.set(inv.id, { format, mediaType, content });
      }
      if (a.status === "failed") {
        const key = activeKey(inv.companyId, inv.sha256);
        if (active.get(key) === inv.id) active.delete(key);
        releaseNumber(state, inv);
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
            leaseOwner: null,
            leaseUntil: null,
          });
        }
      }
      return clone(inv);
    },

    async saveDeliveryState({ id, owner, state: saved }) {
      const d = delivery.get(id);
      if (!d || !holdsLease(d, owner) || invoices.get(id)?.status !== "sending") return false;
      d.state = saved;
      return true;
    },

    async releaseDelivery(id, owner) {
      const d = delivery.get(id);
      if (d && holdsLease(d, owner)) {
        d.leaseOwner = null;
        d.leaseUntil = null;
      }
    },

    async countQueued() {
      let n = 0;
      for (const id of delivery.keys()) if (invoices.get(id)?.status === "sending") n++;
      return n;
    },
  };
}
