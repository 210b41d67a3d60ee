// The dispatcher: takes `sending` submissions from the store with a lease, hands them to their
// network, retries transient failures with backoff and jitter, and records every attempt.
// A worker: it depends on the ports and the domain (and the discovery cache), never on a use-case.
import { DELIVERY_STATE_MAX_BYTES, EVIDENCE_MAX_BYTES, TRANSMITTED_MAX_BYTES, type DeliveryEvidence, type NetworkPort, type SendOutcome, type TransmittedDocument } from "../ports/network.js";
import { queueWorker, queueWorkerSettings, type QueueWorkerOptions, type QueueWorker, type WorkerLogger } from "./polling-loop.js";
import type { AttemptRecord, DeliveryJob, DeliveryStore, Store } from "../ports/store.js";
import { asCachedDiscovery } from "../adapters/cached-discovery.js";
import { backoffDelay, type RetryPolicy } from "../domain/backoff.js";
import { statusChangedEvent } from "../domain/webhook-events.js";
import { checkRecipient } from "../routing/routing.js";
import { documentTypeOf } from "../document/doctype.js";
import type { DiscoveryPort } from "../ports/discovery.js";
import type { Company, DocumentFacts, InvoiceRecord, Network, ParticipantId } from "../domain/types.js";
import type { TokenCipher } from "../domain/token-cipher.js";
import { correctionsOf, credentialOf, documentModel } from "./send-request.js";

export const DEFAULT_RETRY: RetryPolicy = Object.freeze({ maxAttempts: 8, baseDelayMs: 30_000, maxDelayMs: 3_600_000, factor: 2 });

/** Where the dispatcher reports what went wrong. */
export type DispatcherLogger = WorkerLogger;

export interface DispatcherOptions extends QueueWorkerOptions {
  store: Store & DeliveryStore;
  /** The network of each route. A route without a network fails its submissions with a clear reason. */
  networks: Partial<Record<Network, NetworkPort>>;
  /** The retry policy of every route (over `DEFAULT_RETRY`). */
  retry?: Partial<RetryPolicy>;
  /**
   * A route's own retry policy, over `retry`: for a deployment whose routes reach different
   * networks (a sandbox on `peppol` that retries within seconds, KSeF itself on `ksef`).
   */
  retryByRoute?: Partial<Record<Network, Partial<RetryPolicy>>>;
  /** Default 60 s. In-flight sends still running after `stopTimeoutMs` have their leases given back. */
  leaseMs?: number;
  /**
   * Peppol participant discovery, looked up before each attempt on `peppol` (a cached answer is
   * reused): not registered, or not for this document type, fails the submission; a lookup that
   * fails is a transient failure (retried with backoff). A bare port gets `cachedDiscovery`'s
   * defaults. Pass the same instance as to the routers so the two share one cache. Default: none.
   */
  discovery?: DiscoveryPort;
  /**
   * The cipher of the companies' KSeF tokens (the routers' `tokenCipher`): with it, each attempt on
   * the `ksef` route carries the company's credential (`SendRequest.ksefCredential`), for a network
   * that sends to KSeF itself (`ksefNetwork`). A token it cannot read makes the attempt a retry
   * whose reason says what the operator must do (the detail is logged). Default: none.
   */
  tokenCipher?: TokenCipher;
}

/**
 * A queue worker on the submissions: `runOnce` claims and processes one batch (resolving with how
 * many submissions it attempted), `start` runs rounds until `stop()`, which stops taking work, waits
 * for in-flight sends (up to `stopTimeoutMs`) and gives back what is left; `status` for `readinessCheck`.
 */
export interface Dispatcher extends QueueWorker {
  /** Its name in the leases it takes. */
  readonly owner: string;
}

const utf8Length = (s: string): number => new TextEncoder().encode(s).length;

/** Splits a stored `scheme:value` endpoint into a participant id. */
export function parseEndpointId(endpointId: string | null): ParticipantId | null {
  if (!endpointId) return null;
  const i = endpointId.indexOf(":");
  return i <= 0 ? null : { scheme: endpointId.slice(0, i), value: endpointId.slice(i + 1) };
}

/**
 * Makes a dispatcher. Run one or many (on one or several machines) against one store: the
 * store's leases keep them from sending a submission twice at once, and a resend after a crash
 * carries the same idempotency key (the submission id).
 *
 * @example
 * const d = createDispatcher({ store, networks: { peppol: sandboxNetwork(), ksef: sandboxNetwork() } })
 * d.start(); process.on("SIGTERM", () => d.stop())
 */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { store, networks } = options;
  const retry: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const retryOf = (route: Network | null): RetryPolicy => {
    const own = route ? options.retryByRoute?.[route] : undefined;
    return own ? { ...retry, ...own } : retry;
  };
  const leaseMs = options.leaseMs ?? 60_000;
  const { batchSize, perCompany, pollIntervalMs, stopTimeoutMs, owner, clock, random, logger, metrics } = queueWorkerSettings(options, "dispatcher");
  const discovery = options.discovery ? asCachedDiscovery(options.discovery) : null;

  const iso = (ms: number) => new Date(ms).toISOString();

  async function attempt(job: DeliveryJob): Promise<void> {
    const inv = job.invoice;
    /** `SendRequest.saveState`: durable before it resolves, refused once the lease is lost. */
    const saveState = async (state: string): Promise<void> => {
      if (typeof state !== "string" || state.includes("\u0000")) throw new TypeError("The delivery state must be text without U+0000.");
      if (utf8Length(state) > DELIVERY_STATE_MAX_BYTES) throw new RangeError(`The delivery state is larger than ${DELIVERY_STATE_MAX_BYTES} bytes.`);
      if (!(await store.saveDeliveryState({ id: inv.id, owner, state }))) {
        throw new Error(`The lease on submission ${inv.id} was lost: another dispatcher owns it now, so this attempt must stop.`);
      }
    };
    const attemptNo = job.attempts + 1;
    const startedMs = clock().getTime();
    const network = inv.network ? networks[inv.network] : undefined;
    let outcome: SendOutcome;
    if (!inv.network || !network) {
      outcome = { outcome: "failed", reason: `No network is configured for route ${inv.network ?? "(none)"}.` };
    } else {
      const recipient = parseEndpointId(inv.recipient.endpointId);
      const company = await store.getCompany(inv.companyId);
      if (!recipient && inv.network !== "ksef") outcome = { outcome: "failed", reason: "The stored invoice has no recipient identifier." };
      else if (!company?.legalEntityId) outcome = { outcome: "retry", reason: "The company has no legal entity at the access point any more." };
      else outcome = (await checkBeforeSend(inv.network, recipient, job.document, inv.facts)) ?? (await send(network, inv.network, recipient, company as Company & { legalEntityId: string }));
    }
    const record = withNotice(inv, toAttempt(inv, attemptNo, outcome));
    const updated = await store.completeAttempt(record);
    if (!updated) {
      logger?.error({ submissionId: inv.id, owner }, "lease lost before the attempt was recorded; another dispatcher will retry");
      return;
    }
    // One line per outcome, for the operator to follow a submission: what happened, on which try, how long it took, and why.
    const result = record.status === "delivered" ? "delivered" : record.status === "failed" ? "failed" : "retry";
    const route = inv.network ?? "none";
    metrics.deliveryAttempt({ network: route, outcome: result });
    if (result === "delivered") metrics.deliveryDuration(Math.max(0, Date.parse(record.updatedAt) - Date.parse(inv.createdAt)) / 1000, { network: route });
    logger?.info?.(
      {
        submissionId: inv.id,
        companyId: inv.companyId,
        network: inv.network,
        attempt: attemptNo,
        outcome: result,
        durationMs: Math.max(0, clock().getTime() - startedMs),
        ...(outcome.outcome !== "delivered" ? { reason: outcome.reason } : {}),
        ...(record.nextAttemptAt ? { nextAttemptAt: record.nextAttemptAt } : {}),
      },
      `delivery ${result}`,
    );

    async function send(network: NetworkPort, route: Network, recipient: ParticipantId | null, company: Company & { legalEntityId: string }): Promise<SendOutcome> {
      const credential = credentialOf(route, company, options.tokenCipher, { submissionId: inv.id, logger });
      if ("outcome" in credential) return credential.outcome;
      const model = documentModel(job.document);
      const corrections = await correctionsOf(route, inv, model, store);
      if ("outcome" in corrections) return corrections.outcome;
      try {
        return await network.send({
          submissionId: inv.id,
          idempotencyKey: inv.id,
          companyId: inv.companyId,
          document: job.document,
          model,
          ...credential,
          ...corrections,
          routing: { network: route, recipient },
          legalEntityId: company.legalEntityId,
          attempt: attemptNo,
          state: job.state,
          saveState,
        });
      } catch (e) {
        return { outcome: "retry", reason: `The ${network.name} network call failed (${e instanceof Error ? e.name : "error"}).` };
      }
    }
  }

  /** The participant lookup before an attempt on Peppol: an outcome that replaces the send, or null to send. */
  async function checkBeforeSend(route: Network, recipient: ParticipantId | null, document: Uint8Array, facts: DocumentFacts | undefined): Promise<SendOutcome | null> {
    if (!discovery || route !== "peppol" || !recipient) return null;
    // The document type was computed at submit and stored with the record; only a record stored before
    // the facts were kept has the document read again for it.
    const peppolDocumentType = facts ? facts.peppolDocumentType : documentTypeOf(document);
    const check = await checkRecipient(discovery, recipient, peppolDocumentType);
    if (check.kind === "refused") return { outcome: "failed", reason: check.reason };
    if (check.kind === "unknown") return { outcome: "retry", reason: `The Peppol participant lookup failed (${check.why}); it is made again before the next attempt.` };
    return null;
  }

  /** For a change of status: the webhook event, carrying the invoice as it will read after the change. */
  function withNotice(inv: InvoiceRecord, record: AttemptRecord): AttemptRecord {
    if (record.status === inv.status) return record;
    const after: InvoiceRecord = {
      ...inv,
      status: record.status,
      errorMessage: record.errorMessage,
      updatedAt: record.updatedAt,
      events: [...inv.events, record.event],
      ...(record.status === "delivered" && record.ksef ? { ksefNumber: record.ksef.ksefNumber, verificationUrl: record.ksef.verificationUrl } : {}),
    };
    return { ...record, notify: statusChangedEvent(after) };
  }

  function toAttempt(inv: InvoiceRecord, attemptNo: number, outcome: SendOutcome): AttemptRecord {
    const nowMs = clock().getTime();
    const at = iso(nowMs);
    const on = inv.network ?? "no network";
    const base = { id: inv.id, owner, attempts: attemptNo, updatedAt: at, notify: null };
    if (outcome.outcome === "delivered") {
      return {
        ...base,
        status: "delivered",
        errorMessage: null,
        nextAttemptAt: null,
        event: { status: "delivered", at, detail: `Delivered on ${on} (attempt ${attemptNo}).${outcome.detail ? " " + outcome.detail : ""}` },
        evidence: keptEvidence(inv.id, outcome.evidence),
        ksef: keptKsef(inv.id, outcome),
        transmitted: keptTransmitted(inv.id, outcome.transmitted),
      };
    }
    const policy = retryOf(inv.network);
    if (outcome.outcome === "failed" || attemptNo >= policy.maxAttempts) {
      const message =
        outcome.outcome === "failed"
          ? `Delivery on ${on} failed: ${outcome.reason}`
          : `Delivery on ${on} failed after ${attemptNo} attempts; the last said: ${outcome.reason}`;
      return { ...base, status: "failed", errorMessage: message, nextAttemptAt: null, event: { status: "failed", at, detail: message } };
    }
    const delay = Math.max(backoffDelay(policy, attemptNo, random), outcome.retryAfterMs ?? 0);
    const next = iso(nowMs + delay);
    return {
      ...base,
      status: "sending",
      errorMessage: null,
      nextAttemptAt: next,
      event: { status: "sending", at, detail: `Attempt ${attemptNo} on ${on} failed: ${outcome.reason} Next try at ${next}.` },
    };
  }

  /** The KSeF number and verification link to keep on the record: what the network gave when it is short text, else null (logged). */
  function keptKsef(submissionId: string, o: Extract<SendOutcome, { outcome: "delivered" }>): AttemptRecord["ksef"] {
    if (o.ksefNumber === undefined) return null;
    const fits = (v: unknown, max: number): v is string => typeof v === "string" && v.length > 0 && v.length <= max && !/[\u0000-\u001f]/.test(v);
    if (!fits(o.ksefNumber, 100) || (o.verificationUrl !== undefined && !fits(o.verificationUrl, 1000))) {
      logger?.error({ submissionId }, "the network's KSeF number or verification link is malformed; it is not kept");
      return null;
    }
    return { ksefNumber: o.ksefNumber, verificationUrl: o.verificationUrl ?? null };
  }

  /** The transmitted document to store: what the network gave when it keeps the port's shape and bound, else null (logged). */
  function keptTransmitted(submissionId: string, d: TransmittedDocument | undefined): TransmittedDocument | null {
    if (d === undefined) return null;
    const ok = !!d && typeof d.format === "string" && /^[a-z0-9]{1,20}$/.test(d.format) && typeof d.mediaType === "string" && d.mediaType.length <= 200 && typeof d.content === "string" && !d.content.includes("\u0000");
    if (!ok || utf8Length(d.content) > TRANSMITTED_MAX_BYTES) {
      logger?.error({ submissionId }, `the network's transmitted document is malformed or larger than ${TRANSMITTED_MAX_BYTES} bytes; it is not kept`);
      return null;
    }
    return { format: d.format, mediaType: d.mediaType, content: d.content };
  }

  /** The evidence to store: what the network gave when it keeps the port's shape and bound, else null (logged). */
  function keptEvidence(submissionId: string, e: DeliveryEvidence | undefined): DeliveryEvidence | null {
    if (e === undefined) return null;
    // Text the stores keep as it is: no U+0000 (PostgreSQL text cannot hold it), short labels.
    const text = (v: unknown, max: number): v is string => typeof v === "string" && !v.includes("\u0000") && v.length <= max;
    const textOrNull = (v: unknown): v is string | null | undefined => v === null || v === undefined || text(v, 1000);
    if (!e || !text(e.kind, 100) || !text(e.mediaType, 200) || !text(e.content, Infinity) || !textOrNull(e.reference) || !textOrNull(e.documentHash)) {
      logger?.error({ submissionId }, "the network's delivery evidence is malformed; it is not kept");
      return null;
    }
    if (utf8Length(e.content) > EVIDENCE_MAX_BYTES) {
      logger?.error({ submissionId, bytes: utf8Length(e.content) }, `the network's delivery evidence is larger than ${EVIDENCE_MAX_BYTES} bytes; it is not kept`);
      return null;
    }
    return { kind: e.kind, mediaType: e.mediaType, content: e.content, reference: e.reference ?? null, documentHash: e.documentHash ?? null };
  }

  const worker = queueWorker<DeliveryJob>(
    {
      name: "dispatcher",
      owner,
      leaseMs,
      batchSize,
      perCompany,
      clock,
      claim: (window) => store.claimDeliveries(window),
      attempt,
      describe: (job) => ({ submissionId: job.invoice.id }),
      companyOf: (job) => job.invoice.companyId,
      release: (job) => store.releaseDelivery(job.invoice.id, owner),
    },
    { pollIntervalMs, stopTimeoutMs, maxBackoffMs: options.maxBackoffMs, logger },
  );
  return { owner, ...worker };
}
