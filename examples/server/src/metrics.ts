// GET /metrics: the core's metrics port on prom-client, in the Prometheus text format, with Node's default process metrics.
import { timingSafeEqual } from "node:crypto";
import type { MetricsPort } from "@einvoice/core";
import type { RequestHandler } from "express";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export interface PrometheusMetrics {
  /** Give it to the core (`metrics` of the routers, the dispatcher and the webhook sender). */
  port: MetricsPort;
  registry: Registry;
}

/**
 * The example server's metrics, on a registry of their own. `queueDepth` is asked at each scrape
 * (bounded by `queueDepthTimeoutMs`; when it fails or is late the gauge keeps its last value).
 *
 * @example const m = prometheusMetrics({ queueDepth: () => store.countQueued() })
 */
export function prometheusMetrics(
  options: {
    queueDepth?: () => Promise<number>;
    queueDepthTimeoutMs?: number;
    /** How many received documents belong to no company (`InboxStore.countUnmatched`), asked at each scrape like `queueDepth`. */
    unmatched?: () => Promise<number>;
  } = {},
): PrometheusMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) => new Counter<L>({ name, help, labelNames, registers: [registry] });
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]) =>
    new Histogram<L>({ name, help, labelNames, buckets, registers: [registry] });
  const submissions = counter(
    "einvoice_submissions_total",
    "Submissions stored, by the network the routing chose (none: it chose none) and the status answered (sending or failed).",
    ["network", "status"],
  );
  const attempts = counter("einvoice_delivery_attempts_total", "Delivery attempts, by network and outcome (delivered, retry, failed).", ["network", "outcome"]);
  const deliveryDuration = histogram("einvoice_delivery_duration_seconds", "Time from submission to delivered, by network.", ["network"], [0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600, 14400, 86400]);
  const webhooks = counter("einvoice_webhook_deliveries_total", "Webhook delivery attempts, by outcome (delivered, retry, failed).", ["outcome"]);
  const validation = histogram(
    "einvoice_validation_duration_seconds",
    "Time to read a document and check it against the rules (submit and POST /v1/validate).",
    [],
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  );
  const rateLimited = counter("einvoice_rate_limited_total", "Requests refused with 429, by limit (company, sign-up, admin).", ["limit"]);
  const inboundDocuments = counter(
    "einvoice_inbound_documents_total",
    "Received documents handed to the store, by network (peppol, ksef) and outcome: stored (a new inbound record), duplicate (received before: nothing added), unmatched (for no company: kept for the operator).",
    ["network", "outcome"],
  );
  const inboundRuns = counter("einvoice_inbound_runs_total", "Runs of the receiving sources (a KSeF sync of one company, a read of Storecove's queue), by source and outcome (ok, failed: it threw).", ["source", "outcome"]);
  const inboundReceived = counter("einvoice_inbound_run_documents_total", "Documents the receiving sources' runs handed to the store, by source.", ["source"]);
  const timeoutMs = options.queueDepthTimeoutMs ?? 1_000;
  /** A gauge asked of the store at each scrape, bounded by `timeoutMs`; when the store fails or is late it keeps its last value. */
  const storeGauge = (name: string, help: string, read: (() => Promise<number>) | undefined) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        if (!read) return;
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs)));
        const n = await Promise.race([read().catch(() => null), late]);
        clearTimeout(timer);
        if (n !== null) this.set(n);
      },
    });
  storeGauge("einvoice_queue_depth", "Submissions waiting to be sent (status sending), in the whole store: the same on every instance on one database.", options.queueDepth);
  storeGauge(
    "einvoice_inbound_unmatched",
    "Received documents that belong to no company (GET /admin/inbound/unmatched), in the whole store: the same on every instance on one database.",
    options.unmatched,
  );
  return {
    registry,
    port: {
      submission: (l) => submissions.inc({ network: l.network, status: l.status }),
      deliveryAttempt: (l) => attempts.inc({ network: l.network, outcome: l.outcome }),
      deliveryDuration: (seconds, l) => deliveryDuration.observe({ network: l.network }, seconds),
      webhookDelivery: (l) => webhooks.inc({ outcome: l.outcome }),
      validationDuration: (seconds) => validation.observe(seconds),
      rateLimited: (l) => rateLimited.inc({ limit: l.limit }),
      inboundReceived: (l) => inboundDocuments.inc({ network: l.network, outcome: l.outcome }),
      inboundRun: (l, received) => {
        inboundRuns.inc({ source: l.source, outcome: l.outcome });
        if (received > 0) inboundReceived.inc({ source: l.source }, received);
      },
    },
  };
}

/** `GET /metrics`: the registry in the text format; with a `token`, only for `Authorization: Bearer <token>` (else 401). */
export function metricsHandler(registry: Registry, token?: string): RequestHandler {
  const expected = token ? Buffer.from(`Bearer ${token}`) : null;
  return async (req, res) => {
    if (expected) {
      const given = Buffer.from(req.get("authorization") ?? "");
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        res.status(401).set("WWW-Authenticate", 'Bearer realm="metrics"').type("text/plain").send("Unauthorized: send Authorization: Bearer <METRICS_TOKEN>.\n");
        return;
      }
    }
    const body = await registry.metrics();
    res.status(200).set("Cache-Control", "no-store").type(registry.contentType).send(body);
  };
}
