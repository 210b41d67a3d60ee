// The `InboxStore` port in memory: inbound records (beside the submissions, in the same invoice maps), suppliers,
// documents for no company, participant identifiers, and the inbound sources' sync rows with their leases.
// Every method runs without yielding between its reads and its writes, so each is atomic.
import { randomUUID } from "node:crypto";
import { holdsLease, isLeaseFree } from "../../ports/queue.js";
import { networkReferenceKey, type InboundSync, type InboxStore, type InsertInboundResult, type NewInbound } from "../../ports/inbound.js";
import type { ClientRecord, InvoiceRecord } from "../../domain/types.js";
import { receivedEventData } from "../../domain/webhook-events.js";
import { clone, compareKey, documentBytes, keep, keepDocument, lowerBound, ownString, syncKey, type InboundSyncRow, type MemoryState } from "./state.js";

const ownOrNull = (s: string | null): string | null => (s === null ? null : ownString(s));

/** A sync row as the port hands it out (without its lease). */
function syncView(r: InboundSyncRow): InboundSync {
  return { source: r.source, scope: r.scope, state: r.state, nextRunAt: r.nextRunAt, requests: r.requests.map((q) => ({ ...q })) };
}

/** Orders suppliers (and clients) by `lastInvoiceAt` descending, then `id` descending. */
const newestFirst = (a: ClientRecord, b: ClientRecord): number => compareKey(b.lastInvoiceAt, b.id, a.lastInvoiceAt, a.id);

/** The memory store's `InboxStore`, over the state the other ports share. */
export function memoryInboxStore(state: MemoryState): InboxStore {
  const { invoices, invoiceOrder, documents, companies, webhooks, webhookEvents, inboundRefs, suppliers, unmatched, unmatchedRefs, participants, inboundSyncs } = state;
  /** One received document, without yielding (so atomic); the caller checked it has its inbound facts. */
  function insertOne({ invoice, content, supplier, notify }: NewInbound): InsertInboundResult {
    const refKey = `${invoice.companyId} ${networkReferenceKey(invoice.inbound!.networkReference)}`;
    const existing = inboundRefs.get(refKey);
    if (existing !== undefined) return { inserted: false, existingId: existing };
    const stored = keep(invoice);
    stored.direction = "inbound";
    stored.clientId = null;
    stored.supplierId = null;
    if (supplier) {
      let byKey = suppliers.get(stored.companyId);
      if (!byKey) suppliers.set(stored.companyId, (byKey = new Map()));
      const known = byKey.get(supplier.key);
      if (known) {
        known.invoiceCount += 1;
        if (stored.createdAt > known.lastInvoiceAt) known.lastInvoiceAt = stored.createdAt;
        known.name = ownOrNull(supplier.name);
        known.vatId = ownOrNull(supplier.vatId);
        known.country = ownOrNull(supplier.country);
        stored.supplierId = known.id;
      } else {
        const key = ownString(supplier.key);
        byKey.set(key, {
          id: supplier.id,
          companyId: stored.companyId,
          key,
          name: ownOrNull(supplier.name),
          endpointId: ownString(supplier.endpointId),
          vatId: ownOrNull(supplier.vatId),
          country: ownOrNull(supplier.country),
          invoiceCount: 1,
          firstInvoiceAt: stored.createdAt,
          lastInvoiceAt: stored.createdAt,
        });
        stored.supplierId = supplier.id;
      }
    }
    inboundRefs.set(refKey, stored.id);
    if (content) documents.set(stored.id, keepDocument(content));
    invoices.set(stored.id, stored);
    let order = invoiceOrder.get(stored.companyId);
    if (!order) invoiceOrder.set(stored.companyId, (order = []));
    const last = order[order.length - 1];
    if (!last || compareKey(last.createdAt, last.id, stored.createdAt, stored.id) < 0) order.push(stored);
    else order.splice(lowerBound(order, stored.createdAt, stored.id), 0, stored);
    const result: InvoiceRecord = clone(stored);
    if (notify) {
      let data: string | null = null;
      for (const w of webhooks.values()) {
        if (w.companyId !== stored.companyId || w.deletedAt || !w.events.includes("invoice.received")) continue;
        data ??= receivedEventData(result);
        const id = randomUUID();
        webhookEvents.set(id, {
          id,
          webhookId: w.id,
          companyId: w.companyId,
          type: "invoice.received",
          createdAt: stored.createdAt,
          data,
          status: "pending",
          attempts: 0,
          nextAttemptAt: stored.createdAt,
          deliveredAt: null,
          log: [],
          leaseOwner: null,
          leaseUntil: null,
        });
      }
    }
    return { inserted: true, invoice: result };
  }

  return {
    async insertInbound(input: NewInbound): Promise<InsertInboundResult> {
      if (!input.invoice.inbound) throw new Error("insertInbound: the record has no `inbound` facts.");
      return insertOne(input);
    },

    async insertInboundMany(inputs: NewInbound[]): Promise<InsertInboundResult[]> {
      // Checked before anything is written: all or nothing.
      for (const input of inputs) if (!input.invoice.inbound) throw new Error("insertInboundMany: a record has no `inbound` facts.");
      return inputs.map(insertOne);
    },

    async listSuppliers(companyId, { limit, after }) {
      const all = [...(suppliers.get(companyId)?.values() ?? [])].sort(newestFirst);
      const start = after ? all.findIndex((c) => compareKey(c.lastInvoiceAt, c.id, after.at, after.id) < 0) : 0;
      return start === -1 ? [] : all.slice(start, start + limit).map(clone);
    },

    async getSupplier(companyId, id) {
      for (const s of suppliers.get(companyId)?.values() ?? []) if (s.id === id) return clone(s);
      return null;
    },

    async insertUnmatched(doc, content) {
      const refKey = networkReferenceKey(doc.networkReference);
      const existing = unmatchedRefs.get(refKey);
      if (existing !== undefined) return { inserted: false, id: existing };
      unmatched.set(doc.id, { doc: keep(doc), content: content ? keepDocument(content) : null });
      unmatchedRefs.set(refKey, doc.id);
      return { inserted: true, id: doc.id };
    },

    async listUnmatched({ limit, after }) {
      const all = [...unmatched.values()].map((u) => u.doc).sort((a, b) => compareKey(b.receivedAt, b.id, a.receivedAt, a.id));
      const start = after ? all.findIndex((d) => compareKey(d.receivedAt, d.id, after.at, after.id) < 0) : 0;
      return start === -1 ? [] : all.slice(start, start + limit).map(clone);
    },

    async getUnmatchedContent(id) {
      const u = unmatched.get(id);
      return u && u.content !== null ? documentBytes(u.content) : null;
    },

    async countUnmatched() {
      return unmatched.size;
    },

    async setParticipantIds(companyId, participantIds, at) {
      const c = companies.get(companyId);
      if (!c) return null;
      for (const p of participantIds) {
        const holder = participants.get(p);
        if (holder !== undefined && holder !== companyId) return { ok: false, takenBy: holder, participantId: p };
      }
      for (const p of c.participantIds ?? []) if (participants.get(p) === companyId) participants.delete(p);
      for (const p of participantIds) participants.set(ownString(p), companyId);
      const next = { ...c, participantIds: participantIds.map(ownString), updatedAt: at };
      companies.set(companyId, next);
      return { ok: true, company: clone(next) };
    },

    async findCompanyByParticipant(participantId) {
      return participants.get(participantId) ?? null;
    },

    async findCompanyByLegalEntity(legalEntityId) {
      let found: { id: string; createdAt: string } | null = null;
      for (const c of companies.values()) {
        if (c.legalEntityId !== legalEntityId) continue;
        if (!found || compareKey(c.createdAt, c.id, found.createdAt, found.id) < 0) found = c;
      }
      return found?.id ?? null;
    },

    async ensureInboundSync({ source, scope, now }) {
      const k = syncKey(source, scope);
      if (!inboundSyncs.has(k)) inboundSyncs.set(k, { source, scope, state: null, nextRunAt: now, requests: [], leaseOwner: null, leaseUntil: null });
    },

    async claimInboundSyncs({ source, owner, now, leaseUntil, limit }) {
      const due: InboundSyncRow[] = [];
      for (const r of inboundSyncs.values()) if (r.source === source && r.nextRunAt <= now && isLeaseFree(r, now)) due.push(r);
      due.sort((a, b) => compareKey(a.nextRunAt, a.scope, b.nextRunAt, b.scope));
      return due.slice(0, Math.max(0, limit)).map((r) => {
        r.leaseOwner = owner;
        r.leaseUntil = leaseUntil;
        return syncView(r);
      });
    },

    async saveInboundSync({ source, scope, owner, state: saved, takenRequests, leaseUntil, nextRunAt }) {
      const r = inboundSyncs.get(syncKey(source, scope));
      if (!r || !holdsLease(r, owner)) return false;
      r.state = saved;
      if (takenRequests?.length) {
        const taken = new Set(takenRequests);
        r.requests = r.requests.filter((q) => !taken.has(q.id));
      }
      if (leaseUntil !== undefined) r.leaseUntil = leaseUntil;
      if (nextRunAt !== undefined) {
        r.nextRunAt = nextRunAt;
        r.leaseOwner = null;
        r.leaseUntil = null;
      }
      return true;
    },

    async releaseInboundSync({ source, scope, owner }) {
      const r = inboundSyncs.get(syncKey(source, scope));
      if (r && holdsLease(r, owner)) {
        r.leaseOwner = null;
        r.leaseUntil = null;
      }
    },

    async requestBackfill({ source, scope, request }) {
      const k = syncKey(source, scope);
      const r = inboundSyncs.get(k);
      if (!r) {
        inboundSyncs.set(k, { source, scope, state: null, nextRunAt: request.requestedAt, requests: [{ ...request }], leaseOwner: null, leaseUntil: null });
        return;
      }
      r.requests.push({ ...request });
      r.requests.sort((a, b) => compareKey(a.requestedAt, a.id, b.requestedAt, b.id));
      if (request.requestedAt < r.nextRunAt) r.nextRunAt = request.requestedAt;
    },

    async listInboundSyncs(source) {
      return [...inboundSyncs.values()]
        .filter((r) => r.source === source)
        .sort((a, b) => (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0))
        .map((r) => (r.leaseOwner !== null && r.leaseUntil !== null ? { ...syncView(r), lease: { owner: r.leaseOwner, until: r.leaseUntil } } : syncView(r)));
    },
  };
}
