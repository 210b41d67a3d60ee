// The read side: invoices and clients of the caller's company, with keyset cursor pagination.
import { ApiError, badRequest, quoteId } from "../domain/errors.js";
import { guardStore } from "./options.js";
import type { Keyset, Store } from "../ports/store.js";
import { inboxOf } from "./inbox.js";
import {
  BAD_CURSOR,
  isUuid,
  ListClientsQuerySchema,
  ListInvoicesQuerySchema,
  parseWith,
  type Client,
  type DeliveryEvidenceView,
  type Invoice,
} from "../domain/schemas.js";
import type { AuthContext } from "../domain/types.js";
import { clientView, invoiceView } from "../domain/views.js";

export interface Page<T> {
  data: T[];
  /** Pass as `cursor` to get the next page; null on the last page. */
  nextCursor: string | null;
}

const DEFAULT_LIMIT = 20;
/** A port timestamp of the years 0001 to 9999: year 0 is a valid JavaScript date but not a PostgreSQL one (error 22008). */
const ISO = /^(?!0000)\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Encodes a keyset position as an opaque cursor. The kind letter (`i` invoices, `c` clients, `s` suppliers) keeps one list's cursor out of another. */
export function encodeCursor(kind: "i" | "c" | "s", k: Keyset): string {
  return Buffer.from(JSON.stringify([kind, k.at, k.id])).toString("base64url");
}

/** Decodes a cursor made by `encodeCursor`; anything else is a 400. */
export function decodeCursor(kind: "i" | "c" | "s", cursor: string): Keyset {
  try {
    if (/^[A-Za-z0-9_-]+$/.test(cursor)) {
      const v: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
      if (
        Array.isArray(v) &&
        v.length === 3 &&
        v[0] === kind &&
        typeof v[1] === "string" &&
        ISO.test(v[1]) &&
        !Number.isNaN(Date.parse(v[1])) &&
        new Date(v[1]).toISOString() === v[1] &&
        typeof v[2] === "string" &&
        isUuid(v[2])
      ) {
        return { at: v[1], id: v[2].toLowerCase() };
      }
    }
  } catch {
    // fall through
  }
  throw badRequest([BAD_CURSOR]);
}

/**
 * Lists the company's invoices, newest first: its submissions and the documents it received (`direction`:
 * `outbound` or `inbound` for one of them; `supplierId` for one supplier's received documents). `query` is the raw
 * query string as an object (`{limit:"10", status:"failed"}`); a repeated parameter arrives as an array and is refused.
 *
 * @example const { data, nextCursor } = await listInvoices(store, auth, { limit: "50" })
 */
export async function listInvoices(store: Store, auth: AuthContext, query: unknown = {}): Promise<Page<Invoice>> {
  const q = parseWith(ListInvoicesQuerySchema, query);
  if (q.kind !== undefined && q.documentType !== undefined && q.kind !== q.documentType) throw badRequest(["kind and documentType (its former name) must not differ"]);
  const limit = q.limit ?? DEFAULT_LIMIT;
  const after = q.cursor === undefined ? null : decodeCursor("i", q.cursor);
  const rows = await guardStore(store).listInvoices(auth.companyId, {
    limit: limit + 1,
    after,
    status: q.status ?? null,
    kind: q.kind ?? q.documentType ?? null,
    invoiceNumber: q.invoiceNumber ?? null,
    ksefNumber: q.ksefNumber ?? null,
    issueDateFrom: q.issueDateFrom ?? null,
    issueDateTo: q.issueDateTo ?? null,
    // Port timestamps (UTC, milliseconds), whatever zone or precision the client wrote.
    createdFrom: q.createdFrom === undefined ? null : new Date(q.createdFrom).toISOString(),
    createdTo: q.createdTo === undefined ? null : new Date(q.createdTo).toISOString(),
    clientId: q.clientId?.toLowerCase() ?? null,
    direction: q.direction ?? null,
    supplierId: q.supplierId?.toLowerCase() ?? null,
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    data: page.map(invoiceView),
    nextCursor: rows.length > limit && last ? encodeCursor("i", { at: last.createdAt, id: last.id }) : null,
  };
}

/**
 * One invoice of the company. Unknown, malformed and other companies' ids are all
 * `invoice_not_found`: another company's invoice is never revealed.
 */
export async function getInvoice(store: Store, auth: AuthContext, id: string): Promise<Invoice> {
  const r = isUuid(id) ? await guardStore(store).getInvoice(auth.companyId, id.toLowerCase()) : null;
  if (!r) throw new ApiError("invoice_not_found", `No invoice with id ${quoteId(id)} in this company.`);
  return invoiceView(r);
}

/**
 * The delivery evidence of one of the company's invoices. `invoice_not_found` as `getInvoice`;
 * `evidence_not_available` (409) when the invoice has none, with a message that says why: it is
 * still being delivered, its delivery failed, or it was delivered without evidence (the network
 * gave none, or the delivery predates the keeping of evidence).
 *
 * @example const { content, mediaType } = await getInvoiceEvidence(store, auth, submissionId)
 */
export async function getInvoiceEvidence(store: Store, auth: AuthContext, id: string): Promise<DeliveryEvidenceView> {
  const guarded = guardStore(store);
  const r = isUuid(id) ? await guarded.getInvoice(auth.companyId, id.toLowerCase()) : null;
  if (!r) throw new ApiError("invoice_not_found", `No invoice with id ${quoteId(id)} in this company.`);
  const e = r.status === "delivered" ? await guarded.getEvidence(auth.companyId, r.id) : null;
  if (e) {
    const { invoiceId, network, kind, mediaType, content, reference, documentHash, deliveredAt } = e;
    return { invoiceId, network, kind, mediaType, content, reference, documentHash, verificationUrl: r.verificationUrl, deliveredAt };
  }
  const why =
    r.status === "sending"
      ? "it is still being delivered (status sending); its evidence is kept when the network confirms the delivery"
      : r.status === "failed"
        ? "it was not delivered (status failed), so there is no delivery evidence"
        : `it was delivered on ${r.network ?? "its network"} without evidence (the network gave none, or the delivery predates the keeping of evidence)`;
  throw new ApiError("evidence_not_available", `Invoice ${r.id} has no delivery evidence: ${why}.`);
}

/** Lists the company's clients, latest invoice first. */
export async function listClients(store: Store, auth: AuthContext, query: unknown = {}): Promise<Page<Client>> {
  const q = parseWith(ListClientsQuerySchema, query);
  const limit = q.limit ?? DEFAULT_LIMIT;
  const after = q.cursor === undefined ? null : decodeCursor("c", q.cursor);
  const rows = await guardStore(store).listClients(auth.companyId, { limit: limit + 1, after });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    data: page.map(clientView),
    nextCursor: rows.length > limit && last ? encodeCursor("c", { at: last.lastInvoiceAt, id: last.id }) : null,
  };
}

/**
 * Lists the company's suppliers (the sellers of the documents it received, a list apart from its clients), latest
 * received document first, with a keyset cursor as `listClients`; each in the shape of a client. The store must keep
 * an inbox (`InboxStore`).
 *
 * @example const { data, nextCursor } = await listSuppliers(store, auth, { limit: "50" })
 */
export async function listSuppliers(store: Store, auth: AuthContext, query: unknown = {}): Promise<Page<Client>> {
  const q = parseWith(ListClientsQuerySchema, query);
  const limit = q.limit ?? DEFAULT_LIMIT;
  const after = q.cursor === undefined ? null : decodeCursor("s", q.cursor);
  const rows = await inboxOf(store).listSuppliers(auth.companyId, { limit: limit + 1, after });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    data: page.map(clientView),
    nextCursor: rows.length > limit && last ? encodeCursor("s", { at: last.lastInvoiceAt, id: last.id }) : null,
  };
}

/**
 * One supplier of the company, in the shape of a client. Unknown, malformed and other companies' ids are all
 * `supplier_not_found` (404).
 *
 * @example const supplier = await getSupplier(store, auth, invoice.supplierId)
 */
export async function getSupplier(store: Store, auth: AuthContext, id: string): Promise<Client> {
  const r = isUuid(id) ? await inboxOf(store).getSupplier(auth.companyId, id.toLowerCase()) : null;
  if (!r) throw new ApiError("supplier_not_found", `No supplier with id ${quoteId(id)} in this company.`);
  return clientView(r);
}
