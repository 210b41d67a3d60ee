// The ports of the core: storage and routing. Adapters implement these; the rules are written on each method.
import type {
  DocumentKind,
  WebhookAttempt,
  WebhookEventRecord,
  WebhookEventStatus,
  WebhookEventType,
  WebhookRecord,
  InvoiceEvent,
  Account,
  ApiKeyRecord,
  ClientRecord,
  Company,
  Direction,
  InvoiceRecord,
  InvoiceStatus,
  Network,
  ParticipantId,
  TargetNetwork,
} from "../domain/types.js";
import type { DeliveryEvidence, TransmittedDocument } from "./network.js";
import type { CircuitUpdate } from "./queue.js";

/** A position in a keyset-ordered list: the sort value and the id of the last row seen. */
export interface Keyset {
  at: string;
  id: string;
}

/** A client to create or update when a submission is accepted. */
export interface ClientUpsert {
  /** Used only when the client does not exist yet. */
  id: string;
  /** `scheme:lower-cased value`: the identity of the client within its company. */
  key: string;
  endpointId: string;
  name: string | null;
  vatId: string | null;
  country: string | null;
}

export interface NewSubmission {
  /** The full record; `clientId` is null here and set by the store for accepted submissions. */
  invoice: InvoiceRecord;
  /** The decoded document, kept for delivery. Given for `sending` submissions, null for failed ones. */
  document: Uint8Array | null;
  /**
   * The document as the client submitted it, when it is not `document` (a CII or a Factur-X PDF converted to the UBL
   * in `document`): kept with an accepted submission, in the same atomic step, and read back with
   * `getOriginalDocument`. Absent or null when the UBL is what was submitted, and for failed submissions.
   */
  original?: OriginalDocumentRecord | null;
  /** For `sending` submissions: the client of the recipient. */
  client: ClientUpsert | null;
}

/** A submitted document as it came in, when it was converted to the UBL that is sent. */
export interface OriginalDocumentRecord {
  /** The bytes exactly as received (after base64). */
  content: Uint8Array;
  /** `application/xml` (a CII) or `application/pdf` (a Factur-X / ZUGFeRD PDF). */
  mediaType: string;
  /** `cii` or `pdf`. */
  syntax: string;
}

export type InsertSubmissionResult =
  | { inserted: true; invoice: InvoiceRecord }
  | {
      inserted: false;
      duplicateOf: string;
      /**
       * `number`: refused by the number rule (a document built from data whose number an earlier
       * submission of its kind already carries, in other bytes). Absent: the same document (sha256).
       */
      rule?: "number";
    };

export type CreateAccountResult = { created: true } | { created: false; reason: "email_taken" };

/**
 * The storage port. Ids are lower-case UUIDs (the core lower-cases what it is given); an id in
 * another form names no row. Every method is scoped to one company where it takes a `companyId`:
 * it MUST NOT read or change another company's rows. Missing rows come back as `null` or `[]`,
 * never as an exception; an exception means the store itself failed, and one with
 * `unavailable: true` (`StoreUnavailableError`) that it cannot reach its storage now.
 *
 * Timestamps are ISO 8601 strings in UTC with milliseconds (`2026-01-02T03:04:05.678Z`), so they
 * sort as text. Adapters hold no business rules: the core decides, the store keeps and enforces
 * the uniqueness rules below atomically.
 *
 * Run `testStore(factory)` from `@einvoice/core/testing` against any implementation.
 */
/**
 * The signal a store adapter gives when it cannot reach its storage right now (the database is
 * down, restarting or unreachable; the connection was refused, lost or timed out): an error with
 * `unavailable: true`, as this class is, or the adapter's own error class with that property. The
 * core then answers 503 `storage_unavailable` (retry later) instead of a 500. An adapter MUST NOT
 * mark an error of its own logic or of a statement (a constraint, a syntax error) this way, and a
 * call that fails so MUST have changed nothing, or all of what it was to change (its atomic step).
 */
export class StoreUnavailableError extends Error {
  override readonly name: string = "StoreUnavailableError";
  readonly unavailable = true as const;
  constructor(message = "The store cannot be reached.", options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
  }
}

/** Whether a store's error says it cannot reach its storage now (`unavailable: true`; see `StoreUnavailableError`). */
export function isStoreUnavailable(e: unknown): boolean {
  return typeof e === "object" && e !== null && (e as { unavailable?: unknown }).unavailable === true;
}

/** What `Store.revokeApiKey` did. */
export type RevokeApiKeyResult = "revoked" | "not_found" | "last_key";

export interface Store {
  /** A short name for logs, such as `memory` or `postgres`. */
  readonly name: string;

  /**
   * Creates an account, its company and its first API key together, or nothing.
   * MUST answer `{created:false, reason:"email_taken"}` when an account with the same email exists
   * (emails arrive lower-cased), atomically: of two concurrent calls with one email, one wins.
   */
  createAccount(input: { account: Account; company: Company; apiKey: ApiKeyRecord }): Promise<CreateAccountResult>;

  getCompany(companyId: string): Promise<Company | null>;

  /** Applies the given fields and `updatedAt`; returns the updated company, or null when unknown. */
  updateCompany(companyId: string, patch: Partial<Omit<Company, "id" | "createdAt">>): Promise<Company | null>;

  /**
   * Adds an API key to its company. With `maxActive`, only while the company has fewer active keys
   * than that, checked and done as one step (concurrent inserts cannot pass the cap); returns
   * false when the cap refused it.
   */
  insertApiKey(key: ApiKeyRecord, limit?: { maxActive?: number }): Promise<boolean>;

  /** The key with this id (revoked or not), or null. Not scoped: used to authenticate. */
  getApiKey(id: string): Promise<ApiKeyRecord | null>;

  /**
   * Optional: the key with this id (revoked or not) and its company, read together (for a database,
   * in one statement: one round trip instead of two), or null when there is no such key; `company`
   * is null when the key's company is gone. The same records `getApiKey` and `getCompany` give. When
   * a store has it, `authenticateRequest` reads through it and the request's submission takes the
   * company from there instead of reading it again (`authenticate` reads the key alone).
   */
  getApiKeyWithCompany?(id: string): Promise<{ apiKey: ApiKeyRecord; company: Company | null } | null>;

  /** The company's keys that are not revoked, oldest first. */
  listApiKeys(companyId: string): Promise<ApiKeyRecord[]>;

  /**
   * Marks the company's key revoked at `at`, unless it is the company's last active key: checked
   * and done as one step, so that two revocations racing cannot both succeed and leave the company
   * without a key. `not_found` when it is unknown, another company's, or already revoked.
   */
  revokeApiKey(companyId: string, id: string, at: string): Promise<RevokeApiKeyResult>;

  /** Records that the key was used at `at`. */
  touchApiKey(id: string, at: string): Promise<void>;

  /**
   * Stores a submission.
   *
   * For a submission that is not `failed`: MUST refuse it with `{inserted:false, duplicateOf}` when the
   * company already has a submission with the same `sha256` whose status is not `failed`, atomically:
   * of any number of concurrent identical submissions, exactly one is inserted. When inserted, MUST
   * in the same atomic step create the client `client.key` of the company (with `invoiceCount` 1,
   * first and last invoice at `invoice.createdAt`) or update it (count + 1, `lastInvoiceAt`, and
   * `name`, `vatId`, `country` from this submission; `endpointId` and `id` stay), and set the
   * stored and returned invoice's `clientId` to that client's id.
   *
   * The number rule, for a submission that is not `failed` and is `fromData` (built by the service
   * from the invoice as data) with an `invoiceNumber`: MUST refuse it with `{inserted:false,
   * duplicateOf, rule:"number"}` when the company already has a submission that is not `failed` with
   * the same `kind` and the same `invoiceNumber` (compared exactly), whether that one was
   * built from data or sent as XML; when it is also the same document (sha256), the answer is the
   * sha256 rule's (no `rule`). Atomically among `fromData` submissions: of any number of concurrent
   * ones with one number, exactly one is inserted. A submission sent as XML (`fromData` absent or
   * false) is held to the sha256 rule only, and may repeat a number.
   *
   * A `failed` submission is always inserted, creates no client and counts for no client.
   * `ksefNumber` and `verificationUrl` are null on a new submission: only a delivered attempt sets
   * them (`DeliveryStore.completeAttempt`).
   */
  insertSubmission(submission: NewSubmission): Promise<InsertSubmissionResult>;

  /** The id of the company's submission with this sha256 that is not failed, or null. */
  findActiveSubmission(companyId: string, sha256: string): Promise<string | null>;

  /**
   * The id of the company's earliest submission that is not failed, of this document kind and with
   * this invoice number (BT-1, compared exactly), built from data or sent as XML; null when none.
   */
  findActiveNumber(companyId: string, kind: DocumentKind, invoiceNumber: string): Promise<string | null>;

  /** The company's invoice, or null (also for another company's id). */
  getInvoice(companyId: string, id: string): Promise<InvoiceRecord | null>;

  /**
   * The delivery evidence kept with the company's invoice (see `AttemptRecord.evidence`), with
   * the network that delivered it and when; null when there is none, also for another company's
   * invoice or an unknown id.
   */
  getEvidence(companyId: string, invoiceId: string): Promise<StoredEvidence | null>;

  /**
   * The document the network transmitted for the company's delivered invoice when it was another
   * form than the UBL (`AttemptRecord.transmitted`: KSeF's FA(3)), its content as it was given; null
   * when there is none, also for another company's invoice or an unknown id.
   */
  getTransmittedDocument(companyId: string, invoiceId: string): Promise<TransmittedDocument | null>;

  /**
   * The document of the company's invoice as stored at submission (`NewSubmission.document`), byte
   * for byte; null when none is kept (a failed submission), also for another company's invoice or an
   * unknown id.
   */
  getDocument(companyId: string, invoiceId: string): Promise<Uint8Array | null>;

  /**
   * The document of the company's invoice as the client submitted it when it was converted (`NewSubmission.original`:
   * a CII, a Factur-X PDF), byte for byte with its media type and syntax; null when none is kept (the UBL itself was
   * submitted, a failed submission), also for another company's invoice or an unknown id.
   */
  getOriginalDocument(companyId: string, invoiceId: string): Promise<OriginalDocumentRecord | null>;

  /**
   * The company's invoices ordered by `createdAt` descending, then `id` descending, strictly after
   * `after` in that order when given; at most `limit`. Filters combine with AND; `invoiceNumber`
   * matches BT-1 (`InvoiceRecord.invoiceNumber`) exactly, case and spaces included.
   * Cost MUST NOT grow with the depth of `after` (keyset, not offset).
   */
  listInvoices(
    companyId: string,
    query: {
      limit: number;
      after: Keyset | null;
      status: InvoiceStatus | null;
      clientId: string | null;
      /** Only records of this kind. */
      kind?: DocumentKind | null;
      invoiceNumber?: string | null;
      /** Matches `InvoiceRecord.ksefNumber` exactly. */
      ksefNumber?: string | null;
      /** `YYYY-MM-DD`: the first 10 characters of `issueDate` at or after this date (a record without an issue date never matches). */
      issueDateFrom?: string | null;
      /** `YYYY-MM-DD`: the first 10 characters of `issueDate` at or before this date. */
      issueDateTo?: string | null;
      /** A port timestamp: `createdAt` at or after it. */
      createdFrom?: string | null;
      /** A port timestamp: `createdAt` strictly before it. */
      createdTo?: string | null;
      /**
       * Only the company's submissions (`outbound`: records whose `direction` is `outbound` or absent) or only the
       * documents it received (`inbound`); absent or null: both.
       */
      direction?: Direction | null;
      /** Only inbound records of this supplier (`InvoiceRecord.supplierId`, `InboxStore.listSuppliers`). */
      supplierId?: string | null;
    },
  ): Promise<InvoiceRecord[]>;

  /** The company's clients ordered by `lastInvoiceAt` descending, then `id` descending, after `after`; at most `limit`. */
  listClients(companyId: string, query: { limit: number; after: Keyset | null }): Promise<ClientRecord[]>;

  /**
   * Readiness: resolves `ok` when the store answers a query and its schema is the one this code
   * needs, `migrations_pending` when the schema is older; rejects when the store cannot answer.
   * MUST NOT change anything. Optional: a store without it is taken as always ready.
   */
  health?(): Promise<"ok" | "migrations_pending">;

  /** Releases what the store holds (connections). The store is unusable afterwards. */
  close?(): Promise<void>;
}

/** What the routing port decides for one submission. */
export type RoutingDecision = { ok: true; network: Network } | { ok: false; reason: string };

/**
 * The routing port: picks the network of a submission from the issuing company and the network it
 * asked for. The default follows contract section 1 (`defaultRouting`: the issuer decides). It is
 * asked before the document is read (the eligibility of contract row 3 depends on the network it
 * chooses; on KSeF the recipient needs no Peppol identifier), possibly once for each target network
 * (`auto`, `peppol`, `ksef`) before the body is parsed: it MUST NOT have side effects, and MUST answer
 * the same for the same input. `{ok:false}` stores the submission `failed` with the reason.
 */
export interface Routing {
  readonly name: string;
  route(input: { company: Company; targetNetwork: TargetNetwork }): RoutingDecision | Promise<RoutingDecision>;
}

/** The delivery evidence of an invoice as stored: what the network gave, where and when it was delivered. */
export interface StoredEvidence extends DeliveryEvidence {
  invoiceId: string;
  network: Network;
  /** The `updatedAt` of the delivered attempt. */
  deliveredAt: string;
}

/** A submission claimed for one delivery attempt. */
export interface DeliveryJob {
  invoice: InvoiceRecord;
  /** The decoded document as stored at submission. */
  document: Uint8Array;
  /** Attempts already made (0 for the first). */
  attempts: number;
  /** What the network saved in earlier attempts (`saveDeliveryState`), or null. */
  state: string | null;
}

/** The outcome of one attempt, to record with the lease still held. */
export interface AttemptRecord {
  id: string;
  owner: string;
  /** Attempts made, this one included. */
  attempts: number;
  status: InvoiceStatus;
  errorMessage: string | null;
  /** Appended to the invoice's `events`. */
  event: InvoiceEvent;
  /** When the next attempt is due (status `sending`), or null (delivered or failed). */
  nextAttemptAt: string | null;
  updatedAt: string;
  /**
   * For a change of status: the webhook event to enqueue, in the same atomic step as the change,
   * once for each of the company's webhooks (not deleted) subscribed to `type`. `data` is the
   * event's JSON text. Null when the status stays as it was.
   */
  notify?: { type: WebhookEventType; data: string } | null;
  /**
   * For status `delivered`: the network's evidence, stored in the same atomic step as the status
   * (read back with `Store.getEvidence`, `network` from the invoice, `deliveredAt` = `updatedAt`).
   * Ignored for any other status.
   */
  evidence?: DeliveryEvidence | null;
  /**
   * For status `delivered`: the KSeF number and verification link the network gave, set on the
   * invoice (`ksefNumber`, `verificationUrl`) in the same atomic step. Ignored for any other status.
   */
  ksef?: { ksefNumber: string; verificationUrl: string | null } | null;
  /**
   * For status `delivered`: the document the network transmitted (KSeF: the FA(3)), stored in the
   * same atomic step as the status, read back with `Store.getTransmittedDocument`. Ignored for any
   * other status.
   */
  transmitted?: TransmittedDocument | null;
}

/**
 * The delivery side of a store: the dispatcher's queue of `sending` submissions, with leases.
 * A new `sending` submission is due at once (next attempt at its `createdAt`, 0 attempts).
 */
export interface DeliveryStore {
  /**
   * Leases up to `limit` submissions to `owner` until `leaseUntil`: status `sending`, next attempt
   * due at or before `now`, and no lease or an expired one (a dispatcher that died). MUST be atomic
   * across processes: while a lease holds, no other claim returns that submission (in SQL:
   * `FOR UPDATE SKIP LOCKED`).
   *
   * Fair among companies (`pickClaims` in ports/queue.ts, the rule every store keeps): a submission's
   * rank is its company's places taken (`held[company]` when `held` is given, else the number of
   * `owner`'s live leases on its company's submissions) plus the number of its company's claimable
   * submissions due before it; MUST take none of rank `perCompany` or more (when
   * given), and MUST take them by rank, then oldest due first, then by id. So one company's backlog
   * (or a network that hangs on its sends) holds at most `perCompany` of a dispatcher's places, and
   * another company's submission is taken by the next claim.
   */
  claimDeliveries(input: ClaimInput): Promise<DeliveryJob[]>;

  /**
   * Records an attempt, only if `owner` still holds the lease (the owner is checked, not the
   * expiry: a lease past its time that nobody claimed again is still the owner's; leases are
   * compared with the dispatchers' clocks, so keep them in sync): sets status, errorMessage,
   * updatedAt, attempts and the next due time, appends the event, and releases the lease.
   * Returns the updated invoice, or null when the lease was lost (nothing is changed then).
   */
  completeAttempt(attempt: AttemptRecord): Promise<InvoiceRecord | null>;

  /**
   * Saves the network's delivery state of the submission (handed back in `DeliveryJob.state` by
   * every later claim, across restarts and dispatchers), only while `owner` holds the lease (the
   * owner is checked, as in `completeAttempt`); durable once it resolves. Returns false, changing
   * nothing, when the lease was lost. A `completeAttempt` to `delivered` or `failed` clears the
   * state (no attempt follows; only the evidence is kept); one to `sending` keeps it.
   */
  saveDeliveryState(input: { id: string; owner: string; state: string }): Promise<boolean>;

  /** Gives a lease back without an attempt (a graceful stop), so another dispatcher can take it now. */
  releaseDelivery(id: string, owner: string): Promise<void>;

  /** How many submissions wait to be sent (status `sending`, leased or not), for the queue-depth gauge. Optional. */
  countQueued?(): Promise<number>;
}

/** A webhook event claimed for one delivery attempt, with where and how to send it. */
export interface WebhookJob {
  event: WebhookEventRecord;
  url: string;
  secret: string;
  /** The secret before the last rotation while it still signs (its expiry after the claim's `now`), else null. */
  previousSecret?: string | null;
  /** The failures in a row of the event's endpoint (the company's URL) at the claim (`EndpointCircuit.failures`); 0 when none. */
  endpointFailures?: number;
}

/** What a queue claim asks for (`claimDeliveries`, `claimWebhookEvents`). */
export interface ClaimInput {
  /** Who claims: a worker's name, kept in the leases it takes. */
  owner: string;
  now: string;
  leaseUntil: string;
  /** At most this many items in this claim. */
  limit: number;
  /**
   * A company's share of `owner`'s places: at most this many of `owner`'s live leases per company
   * (those it holds already count). Undefined: no cap, the order is still round-robin by company.
   */
  perCompany?: number | undefined;
  /**
   * The caller's places taken, by company id: its attempts in flight. When given, these count as
   * the company's places taken instead of `owner`'s live leases (an attempt that outlived its lease
   * still takes its place: a network that hangs longer than the lease must not win more places).
   */
  held?: Readonly<Record<string, number>> | undefined;
}

/**
 * The webhook side of a store: the companies' webhooks and the queue of their events. Events are
 * enqueued by `DeliveryStore.completeAttempt` (its `notify`), in the same atomic step as the
 * status change, so that no change is lost and none is announced that did not happen.
 */
export interface WebhookStore {
  /**
   * Adds a webhook. With `max`, only while the company has fewer webhooks (not deleted) than that,
   * checked and done as one step; returns false when the cap refused it.
   */
  insertWebhook(webhook: WebhookRecord, limit?: { max?: number }): Promise<boolean>;
  /** The company's webhooks that are not deleted, oldest first. */
  listWebhooks(companyId: string): Promise<WebhookRecord[]>;
  /** The company's webhook (not deleted), or null. */
  getWebhook(companyId: string, id: string): Promise<WebhookRecord | null>;
  /**
   * Rotates the company's webhook's signing secret, in one step: the current secret becomes the
   * previous one (signing too until `previousSecretExpiresAt`; a previous one before it is dropped)
   * and `secret` the current one. Returns the webhook as it is now, or null when it is unknown,
   * another company's or deleted.
   */
  rotateWebhookSecret(companyId: string, id: string, input: { secret: string; previousSecretExpiresAt: string }): Promise<WebhookRecord | null>;
  /** Deletes the company's webhook at `at`; its pending events are never sent. False when unknown, another company's or deleted. */
  deleteWebhook(companyId: string, id: string, at: string): Promise<boolean>;
  /**
   * Leases up to `limit` pending events whose next attempt is due at `now`, not leased (or the lease
   * expired), of webhooks not deleted. Atomic across processes like `claimDeliveries`, and fair among
   * companies by the same rule (`perCompany`, rank, then oldest due first, then id).
   *
   * The endpoint's circuit (`EndpointCircuit`, the company's URL; `circuitAt` in ports/queue.ts):
   * MUST take no event of an `open` endpoint (its events keep their due times and attempts; they wait
   * for the pause), and of a `half-open` one only its oldest due event, and only while none of its
   * events is under a live lease (of any owner): one probe at a time. Each job carries its
   * endpoint's failures in a row (`endpointFailures`).
   */
  claimWebhookEvents(input: ClaimInput): Promise<WebhookJob[]>;
  /**
   * Records an attempt if `owner` still holds the lease: appends to the log (keeping the last 20),
   * sets status, attempts, next due time and delivery time, and releases the lease. False when the
   * lease was lost (nothing changes then, the circuit neither). With `circuit`, in the same atomic
   * step, updates the endpoint's circuit as `circuitAfter` says (ports/queue.ts): `delivered` closes
   * it, any other status counts a failure and from `circuit.threshold` failures in a row pauses it
   * until `circuit.pauseUntil` (or the later pause it has); without, the circuit stays as it is.
   */
  completeWebhookEvent(input: {
    id: string;
    owner: string;
    status: WebhookEventStatus;
    attempts: number;
    nextAttemptAt: string | null;
    deliveredAt: string | null;
    attempt: WebhookAttempt;
    circuit?: CircuitUpdate | null;
  }): Promise<boolean>;
  /** The webhook's most recent events, newest first (by createdAt, then id), at most `limit`. */
  listWebhookEvents(companyId: string, webhookId: string, limit: number): Promise<WebhookEventRecord[]>;
}

/** What `IdempotencyStore.beginIdempotentRequest` found. */
export type IdempotencyBegin =
  /**
   * The key is this request's now: process it, then `complete` or `abandon` it. `resourceId` is the
   * id of what the request creates (the submission's id): the one this call proposed, or, when the
   * key is taken over from an earlier request with the same fingerprint, that request's (which may
   * already have created it before it died).
   */
  | { state: "started"; resourceId: string }
  /** Another request holds the key and is still being processed. */
  | { state: "in_progress"; fingerprint: string }
  /** A request with this key was answered: its fingerprint and answer, to replay or refuse. */
  | { state: "completed"; fingerprint: string; status: number; body: string };

/**
 * The `Idempotency-Key`s of the companies (one namespace per company), so that a client retrying a
 * request gets the first answer again, on any instance on the store and after a restart.
 *
 * A request creates its resource (the submission, under `resourceId`) and keeps its answer in two
 * steps: the instance may die between them (kill -9), leaving the resource stored and the key in
 * progress. The key therefore names its resource before the resource exists, and a request that
 * takes the key over gets that same `resourceId` back, so it finds the resource already made and
 * answers with it instead of creating another (`submitInvoice`'s `submissionId` option).
 */
export interface IdempotencyStore {
  /**
   * Takes `key` for a request, atomically: of any number of concurrent calls with one key, exactly
   * one is `started`. A key is taken over (`started`) when it is unknown, when its record was
   * created at or before `expiredBefore` (its 24 hours are over), when it was abandoned, or when it
   * is still in progress but its lock ended at or before `now` (the instance processing it died).
   * Otherwise the record as it is: `in_progress` or `completed`, with the fingerprint it was taken
   * with. Taking records `fingerprint`, `createdAt = now` and `lockedUntil`.
   *
   * `resourceId` is a fresh id the caller proposes. `started` answers the `resourceId` the key keeps,
   * in the same atomic step: MUST be the one recorded by the earlier request when the key is taken
   * over from a request with the same fingerprint that was abandoned or whose lock ended (within the
   * key's 24 hours), so that the retry of a request cut off after it created its resource finds it;
   * else (an unknown or expired key, another fingerprint) the proposed one, which is recorded.
   */
  beginIdempotentRequest(input: {
    companyId: string;
    key: string;
    fingerprint: string;
    now: string;
    lockedUntil: string;
    expiredBefore: string;
    resourceId: string;
  }): Promise<IdempotencyBegin>;
  /** Keeps the answer of the request that holds the key (`status`, `body` as JSON text); the key is `completed` from then on. */
  completeIdempotentRequest(input: { companyId: string; key: string; fingerprint: string; status: number; body: string }): Promise<void>;
  /**
   * Gives up a key still in progress with this fingerprint (the request failed without an answer to
   * keep): the next request with it is `started` at once. The key keeps its `resourceId` for a retry
   * with the same fingerprint (the failed request may have created its resource before it failed).
   */
  abandonIdempotentRequest(input: { companyId: string; key: string; fingerprint: string }): Promise<void>;
}
