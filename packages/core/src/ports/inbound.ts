// The receiving side: the store's inbox (inbound records, suppliers, documents for no company, the sources' marks and
// leases) and the port a network implements to hand over what it received (`InboundSource`). Sending is `NetworkPort`
// (ports/network.ts); a network that does both implements the two.
import type { KsefCredential } from "../domain/token-cipher.js";
import type { ClientRecord, Company, InvoiceRecord, Network, NetworkReference } from "../domain/types.js";
import type { ClientUpsert, Keyset } from "./store.js";

/** The largest received document kept as it is: 10 MiB. A larger one is stored as a record without its bytes, with the error. */
export const INBOUND_DOCUMENT_MAX_BYTES = 10 * 1024 * 1024;

/** The most findings an inbound record keeps (`InboundFacts.errors`). */
export const INBOUND_ERRORS_MAX = 100;

/** The largest state a source keeps between runs (`InboundSync.state`): 64 KiB of UTF-8 text. */
export const INBOUND_STATE_MAX_BYTES = 64 * 1024;

/** The key under which a network reference is unique within a company: `ksef:<number>`, `storecove:<guid>`, `sandbox:<submissionId>`. */
export function networkReferenceKey(ref: NetworkReference): string {
  if ("ksefNumber" in ref) return `ksef:${ref.ksefNumber}`;
  if ("storecoveGuid" in ref) return `storecove:${ref.storecoveGuid}`;
  return `sandbox:${ref.submissionId}`;
}

/** A received document to store for its company. */
export interface NewInbound {
  /**
   * The full record: `direction` `inbound`, `status` `received`, `inbound` set, `clientId` null, `supplierId` null (the
   * store sets it from `supplier`). `createdAt` = `updatedAt` = `inbound.receivedAt`. `sha256` and `size` are those of
   * `content` (of the bytes as received, also when they are not kept).
   */
  invoice: InvoiceRecord;
  /** The bytes exactly as received; null when they were not kept (larger than `INBOUND_DOCUMENT_MAX_BYTES`). */
  content: Uint8Array | null;
  /**
   * The seller, to create or update among the company's suppliers (a namespace of its own, apart from its clients) in
   * the same atomic step, as `insertSubmission` does with clients: count + 1, `lastInvoiceAt`, name, vatId, country.
   * Null when the document names no seller identifier.
   */
  supplier: ClientUpsert | null;
  /**
   * When true: in the same atomic step, enqueue one `invoice.received` webhook event for each of the company's webhooks
   * (not deleted) subscribed to it, with `data` = `receivedEventData(stored invoice)` (domain/webhook-events.ts),
   * due at once.
   */
  notify: boolean;
}

export type InsertInboundResult =
  | { inserted: true; invoice: InvoiceRecord }
  /** The company already has a record with this network reference (`networkReferenceKey`): nothing was changed. */
  | { inserted: false; existingId: string };

/** A received document that belongs to no company of this server (a Storecove legal entity nobody has), kept for the operator. */
export interface UnmatchedDocument {
  id: string;
  network: Network;
  networkReference: NetworkReference;
  /** The network's id of whom it was for (Storecove's legal entity id), when it gave one. */
  legalEntityId: string | null;
  /** Why it belongs to no company, for the operator. */
  reason: string;
  receivedAt: string;
  mediaType: string;
  sha256: string;
  /** Of the bytes as received. */
  size: number;
}

/** One source's run for one scope: its mark, its lease, and what an operator asked of it. */
export interface InboundSync {
  /** The source's name (`InboundSource.name`): `ksef`, `storecove`, ... */
  source: string;
  /** A company id for a per-company source; `*` for one that serves the whole server (Storecove's queue). */
  scope: string;
  /** What the source saved at its last checkpoint (its mark), or null before its first. */
  state: string | null;
  /** When it is due. */
  nextRunAt: string;
  /** Backfills an operator asked for and the source has not taken yet (`InboxStore.requestBackfill`), oldest first. */
  requests: BackfillRequest[];
  /**
   * Only from `listInboundSyncs` (an operator's view), and only while a lease is recorded: who runs the sync (the
   * poller's owner name) and until when its lease holds (a time in the past: the owner stopped without giving it back;
   * the next claim takes it over). Absent when no lease is recorded.
   */
  lease?: { owner: string; until: string };
}

/** An operator's request to receive again over a period (KSeF: invoices whose permanent-storage date is in it). */
export interface BackfillRequest {
  id: string;
  /** Port timestamps; `from` inclusive, `to` exclusive. */
  from: string;
  to: string;
  requestedAt: string;
}

/**
 * The receiving side of a store. Companies are scoped as in `Store`: a method that takes a `companyId` reads and
 * changes only that company's rows.
 *
 * Run `testInboxStore(factory)` from `@einvoice/core/testing` against any implementation.
 */
export interface InboxStore {
  /**
   * Stores a received document, atomically with its supplier and its webhook events. MUST refuse it with
   * `{inserted:false, existingId}` (changing nothing) when the company already has a record with the same network
   * reference (`networkReferenceKey(invoice.inbound.networkReference)`), atomically: of any number of concurrent calls
   * with one reference, exactly one is inserted. Inbound records are not held to the sha256 rule of submissions (a
   * company may receive the bytes it sent, or the same bytes under two references), and count for no client.
   * Read back with `Store.getInvoice`, `Store.listInvoices`, `Store.getDocument` (the bytes as received).
   */
  insertInbound(input: NewInbound): Promise<InsertInboundResult>;

  /**
   * Optional: stores a page of received documents in one atomic step (all or nothing; one commit), each as
   * `insertInbound` would: deduplicated by network reference, also against an earlier item of the same call (the later
   * one answers `{inserted:false, existingId}` with the earlier one's id), each with its supplier (two documents of one
   * supplier in one call count + 2) and its webhook events. Answers in the order of `inputs`. Of any number of
   * concurrent calls (and `insertInbound` calls) sharing references, each reference is inserted exactly once, and
   * concurrent calls MUST NOT fail on each other (a store that locks orders its work, e.g. by reference, and retries a
   * transaction the database aborted). Rejects, having stored none of them, when the store fails. Without it, callers
   * store one document at a time with `insertInbound`.
   */
  insertInboundMany?(inputs: NewInbound[]): Promise<InsertInboundResult[]>;

  /** The company's suppliers ordered by `lastInvoiceAt` descending, then `id` descending, after `after`; at most `limit`. */
  listSuppliers(companyId: string, query: { limit: number; after: Keyset | null }): Promise<ClientRecord[]>;

  /** The company's supplier, or null. */
  getSupplier(companyId: string, id: string): Promise<ClientRecord | null>;

  /**
   * Keeps a document for no company, with its bytes (null: not kept, too large), once per network reference: a second
   * call with the same reference (`networkReferenceKey`) changes nothing and answers the first one's id.
   */
  insertUnmatched(doc: UnmatchedDocument, content: Uint8Array | null): Promise<{ inserted: boolean; id: string }>;
  /** The documents for no company, newest first (`receivedAt` descending, then `id` descending), after `after`; at most `limit`. */
  listUnmatched(query: { limit: number; after: Keyset | null }): Promise<UnmatchedDocument[]>;
  /** The bytes of a document for no company, or null. */
  getUnmatchedContent(id: string): Promise<Uint8Array | null>;
  /** How many documents for no company are kept (for `/metrics`). */
  countUnmatched(): Promise<number>;

  /**
   * Sets the company's participant identifiers (`Company.participantIds`; keys `scheme:lower-cased value`, given
   * already normalised and without repeats), replacing the ones it had, and its `updatedAt`, atomically: MUST refuse
   * (changing nothing) when another company holds one of them, answering which; of two concurrent calls for one
   * identifier, at most one succeeds. Null when the company is unknown.
   */
  setParticipantIds(
    companyId: string,
    participantIds: string[],
    at: string,
  ): Promise<{ ok: true; company: Company } | { ok: false; takenBy: string; participantId: string } | null>;
  /** The id of the company that receives on this participant identifier (`scheme:lower-cased value`), or null. */
  findCompanyByParticipant(participantId: string): Promise<string | null>;
  /** The id of the company with this `legalEntityId` (compared exactly), or null; the oldest when several share it. */
  findCompanyByLegalEntity(legalEntityId: string): Promise<string | null>;

  /**
   * Makes sure `source` has a sync row for `scope` (created due at `now`, state null, when missing; an existing one is
   * left as it is). Idempotent.
   */
  ensureInboundSync(input: { source: string; scope: string; now: string }): Promise<void>;
  /**
   * Leases up to `limit` of `source`'s sync rows due at or before `now` whose lease is free or expired, to `owner`
   * until `leaseUntil`, oldest due first. Atomic across processes (`FOR UPDATE SKIP LOCKED`): while a lease holds, no
   * other claim returns that row, so each scope's sync runs in one place at a time.
   */
  claimInboundSyncs(input: { source: string; owner: string; now: string; leaseUntil: string; limit: number }): Promise<InboundSync[]>;
  /**
   * Saves the source's mark while `owner` holds the lease (the owner is checked, as `completeAttempt` does), durable
   * once it resolves; with `takenRequests`, deletes those backfill requests in the same atomic step; with `leaseUntil`,
   * extends the lease. With `nextRunAt`, also sets when it is next due and releases the lease (the run is over). False,
   * changing nothing, when the lease was lost.
   */
  saveInboundSync(input: {
    source: string;
    scope: string;
    owner: string;
    state: string | null;
    takenRequests?: string[];
    leaseUntil?: string;
    nextRunAt?: string;
  }): Promise<boolean>;
  /** Gives a lease back without a run (a graceful stop), due again at once. */
  releaseInboundSync(input: { source: string; scope: string; owner: string }): Promise<void>;
  /**
   * Adds an operator's backfill request to `source`'s row for `scope` (created when missing) and makes it due at
   * `request.requestedAt`; its state is left as it is.
   */
  requestBackfill(input: { source: string; scope: string; request: BackfillRequest }): Promise<void>;
  /** The sync rows of a source (an operator's view), by scope. */
  listInboundSyncs(source: string): Promise<InboundSync[]>;
}

/** One document a source hands over. */
export interface ReceivedDocument {
  reference: NetworkReference;
  /** The bytes exactly as the network gave them. */
  content: Uint8Array;
  /** As the network says, when it does; otherwise told from the content. */
  mediaType?: string;
  /** For a source serving the whole server: the network's id of the receiving company (Storecove's legal entity id). */
  legalEntityId?: string | null;
  /**
   * What the source found wrong with what the network gave (a queue item that names no document, an answer without
   * the document), said to the operator: the reason of a document for no company, or the first error of the record.
   */
  problem?: string;
  /**
   * The source read only the first bytes of a document larger than it keeps (`content` is that prefix): the record keeps
   * no bytes, is invalid (`too_large`), and its `size` and `sha256` are those of the prefix.
   */
  truncated?: boolean;
}

/** What storing a received document did. */
export type StoredOutcome =
  | { outcome: "stored"; invoiceId: string }
  /** Received before (the same network reference): nothing was added. */
  | { outcome: "duplicate"; invoiceId: string }
  /** It belongs to no company: kept for the operator. */
  | { outcome: "unmatched"; id: string };

/** What a source's run is given. */
export interface InboundRun {
  /** `*` for a source of the whole server, else the company's id. */
  scope: string;
  /** The company, for a per-company source; null for `*`. */
  company: Company | null;
  /** For KSeF, when the poller has a token cipher and the company a credential: its NIP and token. Secret. */
  ksefCredential: KsefCredential | null;
  /** The mark saved by the last checkpoint, or null before the first run. */
  state: string | null;
  /** Backfills an operator asked for, not yet taken. */
  requests: BackfillRequest[];
  /**
   * Stores one received document durably (read, judged and kept as an inbound record, or kept for the operator) and
   * resolves once it is stored, or found stored already. Only then may the source acknowledge it to its network. It
   * does not throw for the document's content (a broken document is stored with its error); it rejects only when the
   * store fails: the source must then stop without acknowledging.
   */
  store(doc: ReceivedDocument): Promise<StoredOutcome>;
  /**
   * Optional (the inbound poller gives it): stores a page of documents as `store` stores one, but with one commit for
   * the page, and answers their outcomes in the order given. All or nothing: it rejects only when the store fails, and
   * then none of them may be acknowledged. The run may acknowledge them (checkpoint past them, delete the queue
   * items) only after it resolves. A source without it at hand calls `store` for each.
   */
  storeMany?(docs: ReceivedDocument[]): Promise<StoredOutcome[]>;
  /**
   * Saves the source's mark (at most `INBOUND_STATE_MAX_BYTES`), with the backfill requests it has taken over into it,
   * durably, and extends the lease. Rejects when the lease was lost: stop then without acknowledging anything more.
   */
  checkpoint(state: string, takenRequests?: string[]): Promise<void>;
  /** Aborted when the server stops: end the run soon (the mark of the last checkpoint is kept). */
  signal: AbortSignal;
}

/** How a run ended. */
export interface InboundRunResult {
  /** The mark to keep (saved with the run's end). */
  state: string | null;
  /** When to run next, in ms from now: the interval, or the network's `Retry-After`. */
  nextRunInMs: number;
  /** Backfill requests taken over into `state` by this run (deleted with its end). */
  takenRequests?: string[];
  /** Documents handed to `store` (for logs and metrics). */
  received: number;
  /** Why the run stopped early, for the operator's log (never a secret): a rate limit, the network unreachable... */
  note?: string;
}

/**
 * The receiving port of a network: one run takes what waits for a scope, hands each document to `store`, and only after
 * `store` resolved acknowledges it to the network (deletes the queue item, moves its mark with `checkpoint`). A run MUST
 * NOT throw for the network's answers (return a `nextRunInMs`); a throw is taken as a failed run, retried after the
 * interval. Runs of one scope never overlap (the store's lease), but a run may be cut at any moment (kill -9): what was
 * stored and not acknowledged is received again, and `store` answers `duplicate`.
 */
export interface InboundSource {
  /** `ksef`, `storecove`: the sync rows' `source`. */
  readonly name: string;
  readonly network: Network;
  /** `company`: one run per company `appliesTo` accepts; `server`: one run (scope `*`) for all. */
  readonly scope: "company" | "server";
  /** For a per-company source: whether it receives for this company (KSeF: in PL with a credential). */
  appliesTo?(company: Company): boolean;
  run(ctx: InboundRun): Promise<InboundRunResult>;
}
