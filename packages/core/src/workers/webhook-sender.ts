// The webhook sender: takes due events from the store with a lease, POSTs them signed, retries
// failures with backoff until a 2xx or the bound. Survives restarts: the queue is in the store.
import { backoffDelay, type RetryPolicy } from "../domain/backoff.js";
import { queueWorker, queueWorkerSettings, type QueueWorker, type QueueWorkerOptions } from "./polling-loop.js";
import type { Store, WebhookJob, WebhookStore } from "../ports/store.js";
import type { WebhookAttempt } from "../domain/types.js";
import { signWebhook } from "../domain/webhook-signature.js";
import { Agent, fetch as undiciFetch } from "undici";
import { checkWebhookTarget, guardedLookup, notPublic, TargetRefusedError, type TargetPolicy } from "../domain/webhook-target.js";
import { webhookBody } from "../domain/webhook-events.js";

/** 10 attempts: nine waits of 10 s, 20 s, 40 s, ... 2,560 s (the 1 h cap is not reached), about 43 to 85 minutes in all with the jitter. */
export const DEFAULT_WEBHOOK_RETRY: RetryPolicy = Object.freeze({ maxAttempts: 10, baseDelayMs: 10_000, maxDelayMs: 3_600_000, factor: 2 });

export interface WebhookSenderOptions extends QueueWorkerOptions {
  store: Store & WebhookStore;
  /**
   * The HTTP call. Default: undici's `fetch` on an agent whose connections resolve the host with
   * the target policy and connect only to a global unicast address (see `guardedLookup`). A fetch
   * given here replaces that guard: it must make the same check itself.
   */
  fetch?: typeof fetch;
  retry?: Partial<RetryPolicy>;
  /** Per-request timeout. Default 5 s. */
  timeoutMs?: number;
  /** Which targets may be called (checked again at every send: DNS may have changed). */
  targets?: TargetPolicy;
  /**
   * The endpoints' circuit: after `failures` failed attempts in a row (default 3: no 2xx in time) on
   * one URL of a company, that URL is paused as a whole: its other events wait in the store (their
   * attempts and due times untouched) instead of each taking its own timeout. The pause is the retry
   * policy's backoff, growing with each failure past the threshold (10 s, 20 s, 40 s, ... by default);
   * then one event is sent as a probe: a 2xx closes the circuit, a failure pauses it again.
   * `false`: no circuit (each event on its own backoff only).
   */
  circuit?: { failures?: number } | false;
}

/**
 * A queue worker on the webhook events: `runOnce` claims and sends one batch (resolving with how many
 * events it attempted), `start` runs rounds until `stop()`, which stops taking work and waits for the
 * sends in flight (up to `stopTimeoutMs`); `status` for `readinessCheck`.
 */
export type WebhookSender = QueueWorker;

/**
 * Makes a webhook sender. Each POST carries `Content-Type: application/json`,
 * `Einvoice-Event-Id` and `Einvoice-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>`; redirects
 * are not followed; a 2xx is success, anything else (or no answer in time) is retried.
 *
 * @example const sender = createWebhookSender({ store }); sender.start()
 */
export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const { store } = options;
  // Without allowPrivate every connection goes through the guarded lookup: the address checked is the
  // address connected, at every attempt (a name may resolve elsewhere between the check and the call).
  const agent = options.fetch || options.targets?.allowPrivate ? null : new Agent({ connect: { lookup: guardedLookup(options.targets) } });
  const doFetch: typeof fetch =
    options.fetch ?? (agent ? ((input, init) => undiciFetch(input as string, { ...(init as object), dispatcher: agent }) as unknown as Promise<Response>) : globalThis.fetch);
  const retry: RetryPolicy = { ...DEFAULT_WEBHOOK_RETRY, ...options.retry };
  const timeoutMs = options.timeoutMs ?? 5_000;
  const leaseMs = options.leaseMs ?? Math.max(30_000, timeoutMs * 3);
  const { batchSize, perCompany, pollIntervalMs, stopTimeoutMs, owner, clock, random, logger, metrics } = queueWorkerSettings(options, "webhooks");
  const circuit = options.circuit === false ? null : { failures: Math.max(1, options.circuit?.failures ?? 3) };

  async function post(job: WebhookJob): Promise<WebhookAttempt> {
    const startedMs = clock().getTime();
    const at = new Date(startedMs).toISOString();
    const done = (statusCode: number | null, error: string | null): WebhookAttempt => ({
      at,
      statusCode,
      error,
      durationMs: Math.max(0, clock().getTime() - startedMs),
    });
    // The tenant's log gets generic reasons; the detail (which address, which socket error) goes to
    // the operator's log only, so that the deliveries list cannot be used to scan a network.
    const refusal = await checkWebhookTarget(job.url, options.targets);
    if (refusal) return done(null, `Not sent: ${refusal}.`); // the same words for a name that does not resolve and a private one
    const body = webhookBody(job.event);
    const timestamp = Math.floor(startedMs / 1000);
    try {
      const res = await doFetch(job.url, {
        method: "POST",
        redirect: "manual",
        headers: {
          "content-type": "application/json",
          "user-agent": "einvoice-webhooks/1",
          "einvoice-event-id": job.event.id,
          // During a rotation both secrets sign: the receiver accepts either.
          "einvoice-signature": signWebhook(job.previousSecret ? [job.secret, job.previousSecret] : job.secret, timestamp, body),
        },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      await res.body?.cancel().catch(() => undefined);
      return res.status >= 200 && res.status < 300 ? done(res.status, null) : done(res.status, `The receiver answered HTTP ${res.status}.`);
    } catch (e) {
      const name = e instanceof Error ? e.name : "Error";
      const timedOut = name === "TimeoutError" || name === "AbortError";
      if (timedOut) return done(null, `No answer within ${timeoutMs} ms.`);
      const cause = (e as { cause?: unknown })?.cause;
      if (cause instanceof TargetRefusedError) {
        logger?.error({ eventId: job.event.id, webhookId: job.event.webhookId, errorCode: cause.code, address: cause.address }, "webhook not sent: the target resolved to a non-public address when connecting");
        return done(null, `Not sent: ${notPublic(cause.hostname)}.`);
      }
      const code = (cause as { code?: unknown } | undefined)?.code;
      logger?.error({ eventId: job.event.id, webhookId: job.event.webhookId, error: name, ...(typeof code === "string" ? { errorCode: code } : {}) }, "webhook receiver could not be reached");
      return done(null, "The receiver could not be reached.");
    }
  }

  async function attempt(job: WebhookJob): Promise<void> {
    const result = await post(job);
    const attempts = job.event.attempts + 1;
    const ok = result.error === null;
    const giveUp = !ok && attempts >= retry.maxAttempts;
    const nowMs = clock().getTime();
    const next = ok || giveUp ? null : new Date(nowMs + backoffDelay(retry, attempts, random)).toISOString();
    // The endpoint's pause, should this failure trip (or keep tripped) its circuit: the backoff of its failures past the threshold.
    const pastThreshold = circuit ? (job.endpointFailures ?? 0) + 2 - circuit.failures : 0;
    const pauseUntil = new Date(nowMs + backoffDelay(retry, Math.max(1, pastThreshold), random)).toISOString();
    const recorded = await store.completeWebhookEvent({
      id: job.event.id,
      owner,
      status: ok ? "delivered" : giveUp ? "failed" : "pending",
      attempts,
      nextAttemptAt: next,
      deliveredAt: ok ? result.at : null,
      attempt: result,
      circuit: circuit ? { threshold: circuit.failures, pauseUntil } : null,
    });
    if (!recorded) logger?.error({ eventId: job.event.id, owner }, "webhook lease lost before the attempt was recorded");
    else metrics.webhookDelivery({ outcome: ok ? "delivered" : giveUp ? "failed" : "retry" });
  }

  const worker = queueWorker<WebhookJob>(
    {
      name: "webhook sender",
      owner,
      leaseMs,
      batchSize,
      perCompany,
      clock,
      claim: (window) => store.claimWebhookEvents(window),
      attempt,
      describe: (job) => ({ eventId: job.event.id }),
      companyOf: (job) => job.event.companyId,
    },
    { pollIntervalMs, stopTimeoutMs, maxBackoffMs: options.maxBackoffMs, logger },
  );
  return {
    ...worker,
    async stop() {
      await worker.stop();
      await agent?.close().catch(() => undefined);
    },
  };
}
