// The metrics port: what the core counts, for an adapter to export (the example server: prom-client, GET /metrics).
import type { InvoiceStatus } from "../domain/types.js";

/** A submission's route in a metric: its network, or `none` when it failed before one was chosen. */
export type MetricNetwork = "peppol" | "ksef" | "none";

/**
 * Where the core reports what it did. Every method is called synchronously on the request's or
 * the worker's path, so it MUST be cheap and MUST NOT throw (a throw is swallowed). Pass one to the
 * core options (`metrics`), the dispatcher, the webhook sender and the routers; `noMetrics` is the default.
 */
export interface MetricsPort {
  /** A submission was stored: `sending` (accepted) or `failed` (a duplicate, a route that cannot be taken). */
  submission(labels: { network: MetricNetwork; status: InvoiceStatus }): void;
  /** A delivery attempt ended: delivered, to be retried, or failed for good. */
  deliveryAttempt(labels: { network: MetricNetwork; outcome: "delivered" | "retry" | "failed" }): void;
  /** A submission was delivered, `seconds` after it was submitted. */
  deliveryDuration(seconds: number, labels: { network: MetricNetwork }): void;
  /** A webhook delivery attempt ended: delivered (2xx), to be retried, or failed for good. */
  webhookDelivery(labels: { outcome: "delivered" | "retry" | "failed" }): void;
  /** A document was read and checked against the rules (submit or POST /v1/validate), in `seconds`. */
  validationDuration(seconds: number): void;
  /** A request was refused with 429 by the rate limit `limit` (`company`, `sign-up`, `admin`). */
  rateLimited(labels: { limit: string }): void;
  /**
   * Optional: a received document was stored (`stored`), found stored already (`duplicate`), or kept for no company
   * (`unmatched`), by `receiveDocument`.
   */
  inboundReceived?(labels: { network: "peppol" | "ksef"; outcome: "stored" | "duplicate" | "unmatched" }): void;
  /** Optional: an inbound source's run for one scope ended (`ok`), or threw (`failed`); `received` documents handed to store. */
  inboundRun?(labels: { source: string; outcome: "ok" | "failed" }, received: number): void;
}

/** Counts nothing: the default. */
export const noMetrics: MetricsPort = Object.freeze({
  submission() {},
  deliveryAttempt() {},
  deliveryDuration() {},
  webhookDelivery() {},
  validationDuration() {},
  rateLimited() {},
});

const safe = new WeakMap<MetricsPort, MetricsPort>();

/** `metrics` with every call guarded (made once per port): a throwing adapter never breaks a request or a worker. */
export function safeMetrics(metrics: MetricsPort | undefined): MetricsPort {
  if (!metrics || metrics === noMetrics) return noMetrics;
  const made = safe.get(metrics);
  if (made) return made;
  const guard =
    <A extends unknown[]>(f: (...args: A) => void) =>
    (...args: A) => {
      try {
        f.apply(metrics, args);
      } catch {
        // metrics are best effort
      }
    };
  const guarded: MetricsPort = {
    submission: guard(metrics.submission),
    deliveryAttempt: guard(metrics.deliveryAttempt),
    deliveryDuration: guard(metrics.deliveryDuration),
    webhookDelivery: guard(metrics.webhookDelivery),
    validationDuration: guard(metrics.validationDuration),
    rateLimited: guard(metrics.rateLimited),
  };
  // The optional ones only when the port has them (callers test for them).
  if (metrics.inboundReceived) guarded.inboundReceived = guard(metrics.inboundReceived);
  if (metrics.inboundRun) guarded.inboundRun = guard(metrics.inboundRun);
  safe.set(metrics, guarded);
  return guarded;
}
