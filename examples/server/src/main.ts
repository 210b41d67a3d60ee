// Starts the example server: `pnpm start` at the repository root.
// Environment: PORT, DATA_DIR, DATABASE_URL (DATABASE_SCHEMA), ADMIN_TOKEN (required when NODE_ENV=production), SHUTDOWN_TIMEOUT_MS, METRICS, METRICS_TOKEN; delivery: STORECOVE_API_KEY and STORECOVE_URL,
// KSEF_URL and KSEF_TOKEN_KEY (the ksef route directly to KSeF, docs/delivery.md); receiving (docs/receiving.md): INBOUND,
// KSEF_INBOUND_INTERVAL_S, STORECOVE_RECEIVE_INTERVAL_S, INBOUND_LEASE_MS;
// protection (docs/security.md): HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, RATE_LIMIT_PER_MINUTE,
// SIGNUP_RATE_LIMIT_PER_HOUR, ADMIN_RATE_LIMIT_PER_MINUTE, BODY_BUDGET_MB, BODY_QUEUE_TIMEOUT_MS, TRUST_PROXY; LOG_LEVEL; participant discovery (docs/discovery.md):
// PEPPOL_DISCOVERY, SML_ZONE, DNS_SERVERS, PEPPOL_SMP_CA, PEPPOL_SMP_ALLOW_HTTP, DISCOVERY_CACHE_TTL_S, DISCOVERY_TIMEOUT_MS.
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { readinessCheck, sandboxInbox } from "@einvoice/core";
import { createRateLimiter, type RateLimitStore } from "@einvoice/express";
import pg from "pg";
import { createApp, createLogger } from "./app.js";
import { ksefFromEnv, startDelivery, startWebhooks, webhookConfig, type KsefSetup } from "./delivery.js";
import { discoveryFromEnv, type DiscoverySetup } from "./discovery.js";
import { inboundFromEnv, RECEIVE_SYNTAXES, startInbound, type InboundConfig } from "./inbound.js";
import { draining } from "./shutdown.js";
import { metricsHandler, prometheusMetrics } from "./metrics.js";
import { openStore, type OpenedStore } from "./store.js";

function fatal(message: string): never {
  console.error(`einvoice example server: ${message}`);
  process.exit(1);
}

const port = Number(process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 0 || port > 65535) fatal(`PORT must be a port number, not ${JSON.stringify(process.env.PORT)}.`);
// pnpm runs the script in examples/server; a relative DATA_DIR means where `pnpm start` was typed.
const baseDir = process.env.INIT_CWD || process.cwd();
const dataDir = resolve(baseDir, process.env.DATA_DIR || "./data");
const databaseUrl = process.env.DATABASE_URL || undefined;
const production = process.env.NODE_ENV === "production";
if (production && !process.env.ADMIN_TOKEN) {
  fatal("ADMIN_TOKEN must be set when NODE_ENV=production (at least 16 characters; openssl rand -base64 24 makes one): a generated token would change at every restart.");
}
const generatedToken = !process.env.ADMIN_TOKEN;
const adminToken = process.env.ADMIN_TOKEN || randomBytes(24).toString("base64url");
if (adminToken.length < 16) fatal("ADMIN_TOKEN must be at least 16 characters long.");
const storecove =
  process.env.STORECOVE_API_KEY && process.env.STORECOVE_URL ? { apiKey: process.env.STORECOVE_API_KEY, baseUrl: process.env.STORECOVE_URL } : undefined;

// KSEF_URL and KSEF_TOKEN_KEY: both (the ksef route goes to KSeF directly) or neither.
let ksef: KsefSetup | null;
try {
  ksef = ksefFromEnv(process.env);
} catch (e) {
  fatal((e as Error).message);
}

// Receiving: the poller and how often it asks KSeF and Storecove (checked before the store opens).
let inboundConfig: InboundConfig;
try {
  inboundConfig = inboundFromEnv(process.env);
} catch (e) {
  fatal((e as Error).message);
}

/** A non-negative integer from the environment, or the default; anything else stops the server. */
function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) fatal(`${name} must be a whole number ≥ 0, not ${JSON.stringify(raw)}.`);
  return n;
}
// Slow clients: a request's headers must arrive within HEADERS_TIMEOUT_MS and the whole request within
// REQUEST_TIMEOUT_MS, or the socket is closed (408); an idle keep-alive socket is closed after KEEP_ALIVE_TIMEOUT_MS.
const leaseMs = intEnv("DISPATCH_LEASE_MS", 30_000);
const sandboxDelayMs = intEnv("SANDBOX_DELAY_MS", 300);
if (process.env.WEBHOOK_RETRY_BASE_MS) intEnv("WEBHOOK_RETRY_BASE_MS", 0);
if (leaseMs < 1_000) fatal("DISPATCH_LEASE_MS must be at least 1000.");
// On SIGTERM or SIGINT: how long the requests and deliveries in flight may take to finish.
const shutdownTimeoutMs = intEnv("SHUTDOWN_TIMEOUT_MS", 10_000);
const headersTimeout = intEnv("HEADERS_TIMEOUT_MS", 10_000);
const requestTimeout = intEnv("REQUEST_TIMEOUT_MS", 60_000);
const keepAliveTimeout = intEnv("KEEP_ALIVE_TIMEOUT_MS", 5_000);
if (requestTimeout !== 0 && headersTimeout > requestTimeout) fatal("HEADERS_TIMEOUT_MS must not be larger than REQUEST_TIMEOUT_MS.");
// Rate limits (0 turns one off): per API key, sign-ups per client IP, operator requests per client IP.
const perMinute = intEnv("RATE_LIMIT_PER_MINUTE", 600);
const signUpsPerHour = intEnv("SIGNUP_RATE_LIMIT_PER_HOUR", 20);
const adminPerMinute = intEnv("ADMIN_RATE_LIMIT_PER_MINUTE", 120);
// Large bodies in flight (MiB; 0: unbounded) and how long one may wait for room before a 503.
const bodyBudgetMiB = intEnv("BODY_BUDGET_MB", 64);
const bodyQueueTimeoutMs = intEnv("BODY_QUEUE_TIMEOUT_MS", 20_000);
// With DATABASE_URL the counts live in a table of that database (rate-limiter-flexible's PostgreSQL
// store), so that every server on it shares one budget; otherwise in this process's memory.
const rateLimitPool = databaseUrl ? new pg.Pool({ connectionString: databaseUrl, max: 4, connectionTimeoutMillis: 10_000 }) : null;
rateLimitPool?.on("error", () => undefined); // an idle connection that drops is replaced on next use
const rateStore: RateLimitStore = rateLimitPool ? { kind: "postgres", pool: rateLimitPool, schemaName: process.env.DATABASE_SCHEMA || "einvoice" } : { kind: "memory" };
const limit = (requests: number, windowMs: number, keyPrefix: string) =>
  requests === 0 ? (false as const) : createRateLimiter({ requests, windowMs, keyPrefix, store: rateStore });
// TRUST_PROXY: Express's `trust proxy` ("true", a hop count, or addresses such as "loopback, 10.0.0.0/8").
const trustProxyRaw = process.env.TRUST_PROXY?.trim();
const trustProxy = !trustProxyRaw || trustProxyRaw === "false" ? false : trustProxyRaw === "true" ? true : /^\d+$/.test(trustProxyRaw) ? Number(trustProxyRaw) : trustProxyRaw;

// GET /metrics (Prometheus text format): on unless METRICS=off; with METRICS_TOKEN only for `Authorization: Bearer <token>`.
const metricsOff = process.env.METRICS === "off";
const metricsToken = process.env.METRICS_TOKEN || undefined;
if (metricsToken !== undefined && metricsToken.length < 16) fatal("METRICS_TOKEN must be at least 16 characters long.");

// JSON lines on stderr, authorization headers and keys redacted (the banner below stays plain text on stdout).
const logger = createLogger({ level: process.env.LOG_LEVEL || "info" });

/** Fails fast when the port is taken, before the store opens (a first PGlite start takes many seconds). */
async function checkPortFree(): Promise<void> {
  if (port === 0) return;
  const probe = createNetServer();
  await new Promise<void>((resolveProbe) => {
    probe.once("error", (e: NodeJS.ErrnoException) =>
      fatal(e.code === "EADDRINUSE" ? `port ${port} is in use; set PORT to another.` : `cannot listen on port ${port}: ${e.message}`),
    );
    probe.listen(port, "0.0.0.0", () => probe.close(() => resolveProbe()));
  });
}
await checkPortFree();

let opened: OpenedStore;
try {
  opened = await openStore({ dataDir, databaseUrl, schema: process.env.DATABASE_SCHEMA || undefined });
} catch (e) {
  fatal(`the store could not be opened: ${e instanceof Error ? e.message : String(e)}`);
}
const metrics = metricsOff
  ? null
  : prometheusMetrics({ queueDepth: () => opened.store.countQueued?.() ?? Promise.resolve(0), unmatched: () => opened.store.countUnmatched() });
let discovery: DiscoverySetup;
try {
  discovery = await discoveryFromEnv(process.env);
} catch (e) {
  fatal(e instanceof Error ? e.message : String(e));
}
const delivery =
  process.env.DISPATCHER === "off"
    ? null
    : startDelivery(
        opened.store,
        {
          storecove,
          leaseMs,
          sandboxDelayMs,
          stopTimeoutMs: shutdownTimeoutMs,
          ...(metrics ? { metrics: metrics.port } : {}),
          discovery: discovery.discovery ?? undefined,
          ...(ksef ? { ksef } : {}),
          // The sandbox delivers a Peppol invoice to a participant id a company here receives on into its inbox.
          inbox: sandboxInbox(opened.store, { syntaxes: RECEIVE_SYNTAXES, ...(metrics ? { metrics: metrics.port } : {}) }),
        },
        logger,
      );
// Receiving from KSeF (each company in PL with a credential) and from Storecove's pull queue, under leases in the store.
const inbound = startInbound({
  store: opened.store,
  config: inboundConfig,
  ...(storecove ? { storecove } : {}),
  ...(ksef ? { ksef } : {}),
  stopTimeoutMs: shutdownTimeoutMs,
  ...(metrics ? { metrics: metrics.port } : {}),
  logger,
});
const webhooks = webhookConfig(process.env);
const webhookSender = process.env.DISPATCHER === "off" ? null : startWebhooks(opened.store, { ...webhooks, stopTimeoutMs: shutdownTimeoutMs, ...(metrics ? { metrics: metrics.port } : {}) }, logger);
const app = createApp({
  store: opened.store,
  webhookTargets: webhooks.targets,
  adminToken,
  logger,
  requestLogger: logger,
  rateLimit: limit(perMinute, 60_000, "company"),
  signUpRateLimit: limit(signUpsPerHour, 3_600_000, "sign-up"),
  adminRateLimit: limit(adminPerMinute, 60_000, "admin"),
  bodyBudget: bodyBudgetMiB === 0 ? false : { maxBytes: bodyBudgetMiB * 1024 * 1024, queueTimeoutMs: bodyQueueTimeoutMs },
  trustProxy,
  // GET /ready: the store answers within 1.5 s and the workers of this instance run.
  ...(metrics ? { metrics: metrics.port, metricsEndpoint: metricsHandler(metrics.registry, metricsToken) } : {}),
  readiness: readinessCheck({ store: opened.store, workers: [delivery?.dispatcher, webhookSender, inbound.poller].filter((w) => w != null) }),
  // A received FA(3) is read as data (Accept: application/json, format=cii, html) as the poller reads it.
  syntaxes: RECEIVE_SYNTAXES,
  ...(discovery.discovery ? { discovery: discovery.discovery } : {}),
  // Direct KSeF: tokens are encrypted with KSEF_TOKEN_KEY, a company needs its credential to send to
  // KSeF, and a credit note goes as a correction (KOR) of the invoice this service delivered there.
  ...(ksef ? { tokenCipher: ksef.cipher, ksefCredentialsRequired: true, ksefCorrections: true } : {}),
});
// The timeouts are checked every second (Node's default is every 30 s), so a slow client is cut off close to its bound.
const http = draining(app);
const server = createServer({ headersTimeout, requestTimeout, keepAliveTimeout, connectionsCheckingInterval: 1_000 }, http.listener);
server.listen(port, "0.0.0.0");
server.once("error", (e: NodeJS.ErrnoException) => fatal(e.code === "EADDRINUSE" ? `port ${port} is in use; set PORT to another.` : `cannot listen: ${e.message}`));
await once(server, "listening");
const address = server.address();
const actualPort = typeof address === "object" && address ? address.port : port;
const base = `http://localhost:${actualPort}`;

/** The example invoice of the quickstart (examples/invoice.xml), as a path from where `pnpm start` was typed. */
const exampleInvoice = (() => {
  const file = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "invoice.xml");
  const rel = relative(baseDir, file);
  const path = rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : file;
  return /^[\w./-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
})();
// The banner is written at once and ends with the "ready" line: whoever reads it (a person, a test) sees it whole.
console.log(
  [
    `einvoice example server on ${base}, store: ${opened.description}`,
    `delivery: ${delivery ? delivery.description : "off (DISPATCHER=off): run a dispatcher elsewhere"}`,
    `participant discovery: ${discovery.description}`,
    `receiving: ${inbound.description}`,
    ksef
      ? `ksef: directly to KSeF at ${ksef.baseUrl} (KSEF_URL), as each company with its own NIP and KSeF token (PATCH /admin/companies/{id}, the ksef object; tokens encrypted with KSEF_TOKEN_KEY, key id ${ksef.cipher.keyId}); verification links (KOD I) to ${ksef.qrBase}`
      : `ksef: through the ${storecove ? "Storecove access point" : "sandbox network"}, like Peppol (set KSEF_URL and KSEF_TOKEN_KEY to send to KSeF directly)`,
    ...(webhooks.targets.allowPrivate ? ["webhooks: private and http targets allowed (WEBHOOK_ALLOW_PRIVATE=true)"] : []),
    ...(generatedToken ? [`ADMIN_TOKEN was not set; this run's admin token: ${adminToken}`] : []),
    `Quickstart (README.md), in another shell where \`pnpm start\` was typed (any UBL invoice will do in step 3):`,
    `  BASE=${base}`,
    `  ADMIN_TOKEN=${generatedToken ? adminToken : "<the ADMIN_TOKEN this server was started with>"}`,
    `  1. ACCOUNT=$(curl -s -X POST $BASE/v1/accounts -H 'content-type: application/json' -d '{"email":"you@example.com","companyName":"Acme B.V.","country":"NL"}')`,
    `     COMPANY_ID=$(node -p 'JSON.parse(process.argv[1]).data.companyId' "$ACCOUNT"); API_KEY=$(node -p 'JSON.parse(process.argv[1]).data.apiKey' "$ACCOUNT")`,
    `  2. curl -s -X PATCH $BASE/admin/companies/$COMPANY_ID -H "authorization: Bearer $ADMIN_TOKEN" -H 'content-type: application/json' -d '{"enterprise":true,"subscription":"pro","legalEntityId":"LE-1","peppolSendingEnabled":true}'`,
    `  3. node -e 'process.stdout.write(JSON.stringify({xml:require("fs").readFileSync(process.argv[1]).toString("base64")}))' ${exampleInvoice} > body.json`,
    `     curl -s -X POST $BASE/v1/peppol/invoice -H "authorization: Bearer $API_KEY" -H 'content-type: application/json' --data-binary @body.json`,
    `ready: taking requests on ${base} (Ctrl-C stops)`,
  ].join("\n"),
);

let stopping = false;
/**
 * SIGTERM (a process manager, a container runtime) or SIGINT (Ctrl-C): stop taking requests, let
 * those in flight, the deliveries and the receiving runs under way finish (each bounded by SHUTDOWN_TIMEOUT_MS; a
 * receiving run keeps the mark of its last checkpoint), give back the leases still held (another instance takes them
 * at once), close the store, exit 0.
 * A second signal exits at once (1).
 */
async function stop(signal: string): Promise<void> {
  if (stopping) {
    logger.warn({ signal }, "second signal while stopping: exiting now");
    process.exit(1);
  }
  stopping = true;
  console.log(`${signal}: stopping (requests and deliveries in flight get up to ${shutdownTimeoutMs} ms)`);
  logger.info({ signal, serverPid: process.pid, inFlightRequests: http.inFlight, shutdownTimeoutMs }, "stopping");
  // Should anything below hang (a database that does not answer), the process still ends.
  setTimeout(() => {
    logger.error({ signal }, "stop did not finish in time: exiting");
    process.exit(1);
  }, shutdownTimeoutMs + 10_000).unref();
  const [cutRequests] = await Promise.all([http.close(server, shutdownTimeoutMs), delivery?.dispatcher.stop(), webhookSender?.stop(), inbound.poller?.stop()]);
  await opened.close().catch((e: unknown) => logger.error({ error: e instanceof Error ? e.name : typeof e }, "the store did not close cleanly"));
  await rateLimitPool?.end().catch(() => undefined);
  logger.info({ signal, cutRequests }, "stopped");
  process.exit(0);
}
process.on("SIGTERM", () => void stop("SIGTERM"));
process.on("SIGINT", () => void stop("SIGINT"));
