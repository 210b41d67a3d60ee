// The `Store` port in memory: accounts, companies, API keys, submissions, invoices and clients.
import { firstAttemptAt } from "../../ports/queue.js";
import type { CreateAccountResult, InsertSubmissionResult, NewSubmission, Store } from "../../ports/store.js";
import type { InvoiceRecord } from "../../domain/types.js";
import { activeKey, clone, compareKey, documentBytes, keep, keepDocument, lowerBound, numberKey, ownString, type MemoryState } from "./state.js";

const ownOrNull = (s: string | null): string | null => (s === null ? null : ownString(s));

export function memoryStorePort(state: MemoryState): Omit<Store, "name"> {
  const { accountsByEmail, companies, apiKeys, invoices, invoiceOrder, active, activeNumbers, clients, documents, delivery, evidence } = state;
  const activeKeys = (companyId: string): number => {
    let n = 0;
    for (const k of apiKeys.values()) if (k.companyId === companyId && !k.revokedAt) n++;
    return n;
  };
  return {
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

    // No await between the count and the write: each is one step on the event loop, so concurrent
    // calls cannot interleave (the caps and the last-key rule hold under any concurrency).
    async insertApiKey(key, limit) {
      if (limit?.maxActive !== undefined && activeKeys(key.companyId) >= limit.maxActive) return false;
      apiKeys.set(key.id, clone(key));
      return true;
    },

    async getApiKey(id) {
      const k = apiKeys.get(id);
      return k ? clone(k) : null;
    },

    async getApiKeyWithCompany(id) {
      const k = apiKeys.get(id);
      if (!k) return null;
      const c = companies.get(k.companyId);
      return { apiKey: clone(k), company: c ? clone(c) : null };
    },

    async listApiKeys(companyId) {
      return [...apiKeys.values()]
        .filter((k) => k.companyId === companyId && !k.revokedAt)
        .sort((a, b) => compareKey(a.createdAt, a.id, b.createdAt, b.id))
        .map(clone);
    },

    async revokeApiKey(companyId, id, at) {
      const k = apiKeys.get(id);
      if (!k || k.companyId !== companyId || k.revokedAt) return "not_found";
      if (activeKeys(companyId) <= 1) return "last_key";
      k.revokedAt = at;
      return "revoked";
    },

    async touchApiKey(id, at) {
      const k = apiKeys.get(id);
      if (k) k.lastUsedAt = at;
    },

    async insertSubmission({ invoice, document, client, original }: NewSubmission): Promise<InsertSubmissionResult> {
      const key = activeKey(invoice.companyId, invoice.sha256);
      // Kept with strings of its own: its fields, read from the document, would otherwise keep the document's text alive.
      const stored = keep(invoice);
      if (stored.status !== "failed") {
        const earlier = active.get(key);
        if (earlier) return { inserted: false, duplicateOf: earlier };
        const byNumber = stored.invoiceNumber === null ? null : numberKey(stored.companyId, stored.kind, stored.invoiceNumber);
        const sameNumber = byNumber === null ? undefined : activeNumbers.get(byNumber);
        if (stored.fromData && sameNumber?.length) return { inserted: false, duplicateOf: sameNumber[0]!, rule: "number" };
        active.set(key, stored.id);
        if (byNumber !== null) {
          if (sameNumber) sameNumber.push(stored.id);
          else activeNumbers.set(byNumber, [stored.id]);
        }
        if (client) {
          let byKey = clients.get(stored.companyId);
          if (!byKey) clients.set(stored.companyId, (byKey = new Map()));
          const existing = byKey.get(client.key);
          if (existing) {
            existing.invoiceCount += 1;
            existing.lastInvoiceAt = stored.createdAt;
            existing.name = ownOrNull(client.name);
            existing.vatId = ownOrNull(client.vatId);
            existing.country = ownOrNull(client.country);
            stored.clientId = existing.id;
          } else {
            const clientKey = ownString(client.key);
            byKey.set(clientKey, {
              id: client.id,
              companyId: stored.companyId,
              key: clientKey,
              name: ownOrNull(client.name),
              endpointId: ownString(client.endpointId),
              vatId: ownOrNull(client.vatId),
              country: ownOrNull(client.country),
              invoiceCount: 1,
              firstInvoiceAt: stored.createdAt,
              lastInvoiceAt: stored.createdAt,
            });
            stored.clientId = client.id;
          }
        }
      }
      if (document) documents.set(stored.id, keepDocument(document));
      if (document && original) state.originals.set(stored.id, { content: keepDocument(original.content), mediaType: ownString(original.mediaType), syntax: ownString(original.syntax) });
      if (stored.status === "sending") delivery.set(stored.id, { id: stored.id, attempts: 0, nextAttemptAt: firstAttemptAt(stored.status, stored.createdAt), leaseOwner: null, leaseUntil: null, state: null });
      invoices.set(stored.id, stored);
      let order = invoiceOrder.get(stored.companyId);
      if (!order) invoiceOrder.set(stored.companyId, (order = []));
      const last = order[order.length - 1];
      if (!last || compareKey(last.createdAt, last.id, stored.createdAt, stored.id) < 0) order.push(stored);
      else order.splice(lowerBound(order, stored.createdAt, stored.id), 0, stored);
      // What was stored, without a second deep copy: `stored` is already a copy of `invoice`, and only clientId was set on it since.
      return { inserted: true, invoice: { ...invoice, clientId: stored.clientId } };
    },

    async findActiveSubmission(companyId, sha256) {
      return active.get(activeKey(companyId, sha256)) ?? null;
    },

    async findActiveNumber(companyId, kind, invoiceNumber) {
      return activeNumbers.get(numberKey(companyId, kind, invoiceNumber))?.[0] ?? null;
    },

    async getInvoice(companyId, id) {
      const r = invoices.get(id);
      return r && r.companyId === companyId ? clone(r) : null;
    },

    async getEvidence(companyId, invoiceId) {
      const e = evidence.get(invoiceId);
      return e && invoices.get(invoiceId)?.companyId === companyId ? clone(e) : null;
    },

    async getTransmittedDocument(companyId, invoiceId) {
      const t = state.transmitted.get(invoiceId);
      return t && invoices.get(invoiceId)?.companyId === companyId ? { ...t } : null;
    },

    async getDocument(companyId, invoiceId) {
      const d = documents.get(invoiceId);
      return d !== undefined && invoices.get(invoiceId)?.companyId === companyId ? documentBytes(d) : null;
    },

    async getOriginalDocument(companyId, invoiceId) {
      const o = state.originals.get(invoiceId);
      return o !== undefined && invoices.get(invoiceId)?.companyId === companyId ? { content: documentBytes(o.content), mediaType: o.mediaType, syntax: o.syntax } : null;
    },

    async listInvoices(companyId, { limit, after, status, clientId, kind, invoiceNumber, ksefNumber, issueDateFrom, issueDateTo, createdFrom, createdTo, direction, supplierId }) {
      const order = invoiceOrder.get(companyId) ?? [];
      const out: InvoiceRecord[] = [];
      let i = after ? lowerBound(order, after.at, after.id) - 1 : order.length - 1;
      for (; i >= 0 && out.length < limit; i--) {
        const r = order[i]!;
        if (status && r.status !== status) continue;
        if (kind && r.kind !== kind) continue;
        if (invoiceNumber != null && r.invoiceNumber !== invoiceNumber) continue;
        if (ksefNumber != null && r.ksefNumber !== ksefNumber) continue;
        const issued = r.issueDate?.slice(0, 10) ?? null;
        if (issueDateFrom != null && (issued === null || issued < issueDateFrom)) continue;
        if (issueDateTo != null && (issued === null || issued > issueDateTo)) continue;
        if (createdFrom != null && r.createdAt < createdFrom) continue;
        if (createdTo != null && r.createdAt >= createdTo) continue;
        if (clientId && r.clientId !== clientId) continue;
        if (direction && (r.direction ?? "outbound") !== direction) continue;
        if (supplierId && r.supplierId !== supplierId) continue;
        out.push(clone(r));
      }
      return out;
    },

    async listClients(companyId, { limit, after }) {
      const all = [...(clients.get(companyId)?.values() ?? [])].sort((a, b) => compareKey(b.lastInvoiceAt, b.id, a.lastInvoiceAt, a.id));
      const start = after ? all.findIndex((c) => compareKey(c.lastInvoiceAt, c.id, after.at, after.id) < 0) : 0;
      return start === -1 ? [] : all.slice(start, start + limit).map(clone);
    },
  };
}
