// The memory store's state, shared by its three ports (a delivery attempt enqueues webhook events,
// a submission enqueues its delivery), and the ordering helpers they use.
import type { EndpointCircuit, QueueItem } from "../../ports/queue.js";
import type { StoredEvidence } from "../../ports/store.js";
import type { TransmittedDocument } from "../../ports/network.js";
import type { BackfillRequest, UnmatchedDocument } from "../../ports/inbound.js";
import type { Account, ApiKeyRecord, ClientRecord, Company, InvoiceRecord, WebhookEventRecord, WebhookRecord } from "../../domain/types.js";

/** The delivery queue state of one `sending` submission (its id is the invoice's). */
export interface DeliveryState extends QueueItem {
  attempts: number;
  /** The network's saved state (`saveDeliveryState`); cleared on a final status. */
  state: string | null;
}

/** Who holds a webhook event, and until when. */
export type Lease = Pick<QueueItem, "leaseOwner" | "leaseUntil">;

export interface MemoryState {
  accountsByEmail: Map<string, Account>;
  companies: Map<string, Company>;
  apiKeys: Map<string, ApiKeyRecord>;
  invoices: Map<string, InvoiceRecord>;
  /** Per company, ascending by (createdAt, id). */
  invoiceOrder: Map<string, InvoiceRecord[]>;
  /** `${companyId} ${sha256}` -> id of the submission that is not failed. */
  active: Map<string, string>;
  /** `numberKey(...)` -> ids of the submissions with that kind and number that are not failed, oldest first. */
  activeNumbers: Map<string, string[]>;
  /** Per company, by client key. */
  clients: Map<string, Map<string, ClientRecord>>;
  /** The decoded documents of accepted submissions, one Latin-1 character a byte (see keepDocument). */
  documents: Map<string, string>;
  /** The documents as submitted when they were converted (a CII, a PDF), by invoice id: content as `documents` keeps it. */
  originals: Map<string, { content: string; mediaType: string; syntax: string }>;
  /** Delivery queue state of `sending` submissions. */
  delivery: Map<string, DeliveryState>;
  /** Delivery evidence by invoice id. */
  evidence: Map<string, StoredEvidence>;
  /** The document a network transmitted (KSeF's FA(3)), by invoice id. */
  transmitted: Map<string, TransmittedDocument>;
  webhooks: Map<string, WebhookRecord>;
  webhookEvents: Map<string, WebhookEventRecord & Lease>;
  /** `endpointKey(companyId, url)` -> the endpoint's circuit; none: closed. */
  endpoints: Map<string, EndpointCircuit>;
  /** `${companyId} ${key}` -> the idempotency key's record. */
  idempotency: Map<string, IdempotencyRecord>;
  /** `${companyId} ${networkReferenceKey}` -> the id of the company's inbound record with that reference. */
  inboundRefs: Map<string, string>;
  /** Per company, the suppliers by key (a namespace apart from `clients`). */
  suppliers: Map<string, Map<string, ClientRecord>>;
  /** Documents for no company, by id, with their bytes (one Latin-1 character a byte) or null. */
  unmatched: Map<string, { doc: UnmatchedDocument; content: string | null }>;
  /** `networkReferenceKey` -> the id of the document for no company with that reference. */
  unmatchedRefs: Map<string, string>;
  /** Participant identifier (`scheme:lower-cased value`) -> the id of the company receiving on it. */
  participants: Map<string, string>;
  /** The inbound sources' sync rows, by `syncKey(source, scope)`. */
  inboundSyncs: Map<string, InboundSyncRow>;
}

/** A sync row of an inbound source as the memory store keeps it, with its lease. */
export interface InboundSyncRow {
  source: string;
  scope: string;
  state: string | null;
  nextRunAt: string;
  requests: BackfillRequest[];
  leaseOwner: string | null;
  leaseUntil: string | null;
}

/** The key of a sync row: its source and scope. */
export const syncKey = (source: string, scope: string): string => `${source}\u0000${scope}`;

/** An `Idempotency-Key` as the memory store keeps it. */
export interface IdempotencyRecord {
  fingerprint: string;
  createdAt: string;
  lockedUntil: string;
  /** The kept answer, once completed. */
  status: number | null;
  body: string | null;
  /** The id of what the request creates, kept for a retry after a crash (`IdempotencyBegin`). */
  resourceId: string;
  /** Given up by its request: free for the next one (which keeps `resourceId` when it is the same request). */
  abandoned: boolean;
}

export function emptyState(): MemoryState {
  return {
    accountsByEmail: new Map(),
    companies: new Map(),
    apiKeys: new Map(),
    invoices: new Map(),
    invoiceOrder: new Map(),
    active: new Map(),
    activeNumbers: new Map(),
    clients: new Map(),
    documents: new Map(),
    originals: new Map(),
    delivery: new Map(),
    evidence: new Map(),
    transmitted: new Map(),
    webhooks: new Map(),
    webhookEvents: new Map(),
    endpoints: new Map(),
    idempotency: new Map(),
    inboundRefs: new Map(),
    suppliers: new Map(),
    unmatched: new Map(),
    unmatchedRefs: new Map(),
    participants: new Map(),
    inboundSyncs: new Map(),
  };
}

/**
 * A document as the store keeps it: its bytes as a string of one Latin-1 character each (a byte for
 * a byte in memory, and exact both ways). On the JavaScript heap the collector compacts the kept
 * documents and reuses the room of those no longer kept; a Buffer's bytes live outside the heap and
 * are freed only when a full collection finds their Buffer dead, so a store that keeps one Buffer
 * per submission put every new document on fresh pages of memory (docs/performance.md).
 */
export function keepDocument(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
}

/** The bytes of a kept document: a copy of their own (a plain Uint8Array, as they came in). */
export function documentBytes(kept: string): Uint8Array {
  const bytes = new Uint8Array(kept.length);
  Buffer.from(bytes.buffer, 0, bytes.length).write(kept, "latin1");
  return bytes;
}

/** The kept documents as the store exposes them: each `get` gives the bytes (a copy of their own). */
export function documentsView(documents: ReadonlyMap<string, string>): ReadonlyMap<string, Uint8Array> {
  type View = ReadonlyMap<string, Uint8Array>;
  // Generators stand for the iterators of a Map (nobody calls the iterator helpers those also declare).
  const entries = function* (): Generator<[string, Uint8Array], undefined> {
    for (const [id, kept] of documents) yield [id, documentBytes(kept)];
  } as View["entries"];
  const values = function* (): Generator<Uint8Array, undefined> {
    for (const kept of documents.values()) yield documentBytes(kept);
  } as View["values"];
  const view: View = {
    get size() {
      return documents.size;
    },
    get: (id) => {
      const kept = documents.get(id);
      return kept === undefined ? undefined : documentBytes(kept);
    },
    has: (id) => documents.has(id),
    keys: () => documents.keys(),
    values,
    entries,
    [Symbol.iterator]: entries,
    forEach(fn, thisArg) {
      for (const [id, bytes] of entries()) fn.call(thisArg, bytes, id, view);
    },
  };
  return view;
}

/** The key of the duplicate rule: one submission per company and document that has not failed. */
export const activeKey = (companyId: string, sha256: string): string => `${companyId} ${sha256}`;

/** The key of the number rule: a company's documents of one kind (invoice, credit note) by number (BT-1). */
export const numberKey = (companyId: string, kind: string, invoiceNumber: string): string => `${companyId} ${kind} ${invoiceNumber}`;

/** Forgets a submission that failed in the number rule's index. */
export function releaseNumber(state: MemoryState, inv: InvoiceRecord): void {
  if (inv.invoiceNumber === null) return;
  const key = numberKey(inv.companyId, inv.kind, inv.invoiceNumber);
  const ids = state.activeNumbers.get(key);
  if (!ids) return;
  const i = ids.indexOf(inv.id);
  if (i >= 0) ids.splice(i, 1);
  if (ids.length === 0) state.activeNumbers.delete(key);
}

/** Orders by (at, id) ascending. */
export function compareKey(aAt: string, aId: string, bAt: string, bId: string): number {
  return aAt < bAt ? -1 : aAt > bAt ? 1 : aId < bId ? -1 : aId > bId ? 1 : 0;
}

/** Index of the first element of the ascending `list` that is >= (at, id). */
export function lowerBound(list: InvoiceRecord[], at: string, id: string): number {
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

/**
 * A string that keeps no larger one alive: V8 makes a slice of 13 or more characters a view of the
 * string it was cut from (and a concatenation a pair of its parts), so a record's field read from a
 * document (its number, a party's name) kept the whole document's text alive for as long as the
 * store kept the record. Shorter slices are copies already.
 */
export function ownString(s: string): string {
  return s.length < 13 ? s : (" " + s).slice(1);
}

/** `clone` for a value the store keeps: its strings are its own as well (see ownString). */
export function keep<T>(v: T): T {
  return copy(v, true);
}

/**
 * A deep copy of a stored value, so that neither the store nor its caller sees the other's later changes.
 * Records are plain data (objects, arrays, strings, numbers, booleans, null): those are copied directly,
 * several times faster than structuredClone, which the rest (a Date, bytes) still goes through.
 */
export function clone<T>(v: T): T {
  return copy(v, false);
}

function copy<T>(v: T, ownStrings: boolean): T {
  if (typeof v === "string") return (ownStrings ? ownString(v) : v) as T;
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) {
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = copy(v[i], ownStrings);
    return out as T;
  }
  if (Object.getPrototypeOf(v) !== Object.prototype) return structuredClone(v);
  const out: Record<string, unknown> = {};
  for (const k in v) out[k] = copy((v as Record<string, unknown>)[k], ownStrings);
  return out as T;
}

/** The key of a webhook endpoint's circuit: the company and the URL. */
export const endpointKey = (companyId: string, url: string): string => `${companyId} ${url}`;
