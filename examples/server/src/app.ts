// The example service: a store, the /v1 and /admin routers, and /health, on one Express app,
// with request ids, structured request logs (secrets redacted) and security headers.
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { readinessCheck, type Readiness } from "@einvoice/core";
import { createAdminRouter, createBodyBudget, createV1Router, notFound, type AdminRouterOptions, type Logger, type V1RouterOptions } from "@einvoice/express";
import express, { type Express, type RequestHandler } from "express";
import helmet from "helmet";
import { pino, type DestinationStream, type Logger as PinoLogger } from "pino";
import { pinoHttp } from "pino-http";
import { docsRouter } from "./docs-page.js";

export interface AppConfig extends Omit<V1RouterOptions, "logger"> {
  adminToken: string;
  /** Where unexpected errors are logged (a pino logger fits). Default: one JSON line on stderr. */
  logger?: Logger;
  /**
   * When given, one log line per request through pino-http (`RequestLine`: id, method, path, status,
   * duration; no headers), at info, at debug for `/health`, at error for a 5xx.
   */
  requestLogger?: PinoLogger;
  /** Operator requests per client IP; see `createAdminRouter`. */
  adminRateLimit?: AdminRouterOptions["adminRateLimit"];
  /** Express's `trust proxy` setting: needed behind a reverse proxy so that `req.ip` (sign-up limit) is the client's. */
  trustProxy?: boolean | number | string;
  /** `GET /ready`'s check (`readinessCheck` from the core). Default: the store only, without workers. */
  readiness?: () => Promise<Readiness>;
  /** `GET /metrics` (`metricsHandler`); absent: no such route (404). */
  metricsEndpoint?: RequestHandler;
}

/**
 * What the logs never show: credentials in request headers (the API key and the admin token travel
 * as `Authorization: Bearer …`), cookies, and the secrets in bodies should a body ever be logged
 * (a company patch's KSeF token included).
 */
export const LOG_REDACT_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  'req.headers["proxy-authorization"]',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  "apiKey",
  "*.apiKey",
  "adminToken",
  "*.adminToken",
  "secret",
  "*.secret",
  "token",
  "*.token",
  "ksef.token",
  "*.ksef.token",
];

/**
 * The example server's pino logger: JSON lines with `LOG_REDACT_PATHS` censored.
 *
 * @example const log = createLogger({ level: "info" }) // to stderr
 */
export function createLogger(options: { level?: string; destination?: DestinationStream } = {}): PinoLogger {
  return pino(
    { level: options.level ?? "info", redact: { paths: LOG_REDACT_PATHS, censor: "[redacted]" }, base: { service: "einvoice-example-server" } },
    options.destination ?? pino.destination({ dest: 2, sync: true }),
  );
}

/** Query parameters whose values a log never shows (the API takes none of them; a client may send one by mistake). */
const SECRET_PARAM = /key|token|secret|passw|auth|sig|session|credential/i;

/** The URL of a request for a log: values of credential-like query parameters replaced by `[redacted]`. */
export function scrubUrl(url: string): string {
  const q = url.indexOf("?");
  if (q === -1) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  let changed = false;
  for (const name of new Set(params.keys())) {
    if (SECRET_PARAM.test(name)) {
      params.set(name, "[redacted]");
      changed = true;
    }
  }
  return changed ? `${url.slice(0, q)}?${params}` : url;
}

/** The request's URL as the client sent it (Express rewrites `req.url` inside routers). */
function urlOf(req: IncomingMessage): string {
  return (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? "";
}

/** The path of a request, without its query. */
function pathOf(req: IncomingMessage): string {
  const url = urlOf(req);
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}

/**
 * The fields of a request's log line: its id, method, path (with the query, credential-like values
 * redacted), status and duration in milliseconds. No headers: nothing a client sends as a credential.
 */
export interface RequestLine {
  requestId: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
}

function requestLine(req: IncomingMessage, res: { statusCode: number }, durationMs: number): RequestLine {
  return { requestId: String((req as IncomingMessage & { id?: unknown }).id ?? ""), method: req.method ?? "", path: scrubUrl(urlOf(req)), status: res.statusCode, durationMs };
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** Every request gets an id (a well-formed `X-Request-Id` from a proxy, else a new UUID), every answer the header. */
function requestIds(): RequestHandler {
  return (req, res, next) => {
    const sent = req.headers["x-request-id"];
    const id = typeof sent === "string" && REQUEST_ID.test(sent) ? sent : randomUUID();
    (req as IncomingMessage & { id?: unknown }).id = id;
    res.setHeader("X-Request-Id", id);
    next();
  };
}

/** The API answers only JSON: nothing may load, frame or run from it. */
const API_CSP = { useDefaults: false, directives: { "default-src": ["'none'"], "frame-ancestors": ["'none'"], "base-uri": ["'none'"], "form-action": ["'none'"] } };
/** The probes' and the scraper's paths: logged at debug. */
const PROBES = new Set(["/health", "/ready", "/metrics"]);

/** The /docs page (Swagger UI, from this server only): its scripts and styles, inline styles, data: images. */
const DOCS_CSP = {
  useDefaults: false,
  directives: {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "frame-ancestors": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
  },
};

/** Builds the Express app of the example server (no listening: tests use it with supertest). */
export function createApp(config: AppConfig): Express {
  const { adminToken, requestLogger, trustProxy, adminRateLimit, readiness, metricsEndpoint, ...routerOptions } = config;
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("trust proxy", trustProxy ?? false);
  app.use(requestIds());
  if (requestLogger) {
    // One line per request, when its answer is finished: requestLine's fields, nothing from the headers.
    app.use(
      pinoHttp({
        logger: requestLogger,
        genReqId: (req) => (req as IncomingMessage & { id?: string }).id ?? randomUUID(),
        // /health and /ready are polled by load balancers and orchestrators: debug (an outage is
        // logged once by the workers, not at every probe). A 503 (server_busy: too many large bodies
        // at once) is load, not a fault: a warning.
        customLogLevel: (req, res, err) =>
          PROBES.has(pathOf(req)) && !err && res.statusCode !== 500
            ? "debug"
            : res.statusCode === 503
              ? "warn"
              : err || res.statusCode >= 500
                ? "error"
                : "info",
        quietResLogger: true,
        customSuccessObject: (req, res, val: { responseTime: number }) => requestLine(req, res, val.responseTime),
        customErrorObject: (req, res, _err, val: { responseTime: number }) => requestLine(req, res, val.responseTime),
        customSuccessMessage: (req, res) => `${req.method} ${pathOf(req)} ${res.statusCode}`,
        customErrorMessage: (req, res) => `${req.method} ${pathOf(req)} ${res.statusCode}`,
      }),
    );
  }
  app.use(helmet({ contentSecurityPolicy: API_CSP }));
  // Liveness: the process answers. Readiness: it can serve (the store answers, the workers run).
  app.get("/health", (_req, res) => {
    res.json({ status: "ok" });
  });
  const ready = readiness ?? readinessCheck({ store: routerOptions.store });
  app.get("/ready", async (_req, res) => {
    const answer = await ready();
    res.status(answer.status === "ready" ? 200 : 503).set("Cache-Control", "no-store").json(answer);
  });
  if (metricsEndpoint) app.get("/metrics", metricsEndpoint);
  // One budget of large bodies in flight for the whole process, shared by both routers.
  const option = routerOptions.bodyBudget;
  const bodyBudget = option === false ? false : option && "gate" in option ? option : createBodyBudget(option ?? {});
  app.use("/v1", createV1Router({ ...routerOptions, bodyBudget }));
  app.use("/admin", createAdminRouter({ ...routerOptions, adminToken, adminRateLimit, bodyBudget }));
  app.use("/docs", helmet.contentSecurityPolicy(DOCS_CSP), docsRouter());
  app.use(notFound());
  return app;
}
