// The /v1 router, built from the route tables (routes/v1.ts, routes/webhooks.ts). No rules live here.
import {
  ApiError,
  quoteId,
  authenticate,
  authenticateRequest,
  isInboxStore,
  keepsIdempotencyKeys,
  safeMetrics,
  type AuthContext,
  type CoreOptions,
  type ReceiveSyntax,
  type Store,
  type TargetPolicy,
  type WebhookStore,
} from "@einvoice/core";
import express, { type Request, type RequestHandler, type Router } from "express";
import { bodyGateFor, type BodyBudget, type BodyBudgetOptions } from "./body-budget.js";
import { stderrLogger, type Logger } from "./http-errors.js";
import { bearerToken, authorizationProblem } from "./middleware/auth.js";
import { DEFAULT_BODY_LIMIT } from "./middleware/body.js";
import { errorHandler } from "./middleware/errors.js";
import { malformedPath, notFound } from "./middleware/paths.js";
import { apiHeaders, requestId } from "./middleware/request.js";
import { openApiDocument } from "./openapi.js";
import { clientIp, DEFAULT_KEY_RATE_LIMIT, DEFAULT_SIGN_UP_RATE_LIMIT, limiterFor, rateLimit, type RateLimiter, type RateLimitOptions } from "./rate-limit.js";
import { mountRoutes } from "./routes/route.js";
import { SUPPLIER_ROUTES, V1_ROUTES } from "./routes/v1.js";
import { PARTICIPANT_ROUTES } from "./routes/participants.js";
import { hasWebhooks, WEBHOOK_ROUTES } from "./routes/webhooks.js";

export interface V1RouterOptions extends CoreOptions {
  /**
   * The store; when it also keeps webhooks (`WebhookStore`), the /webhooks routes exist; when it
   * keeps idempotency keys (`IdempotencyStore`), the submit routes take an `Idempotency-Key`; when it
   * keeps an inbox (`InboxStore`), the /suppliers routes exist.
   */
  store: Store & Partial<WebhookStore>;
  /**
   * Syntaxes besides UBL and CII that received documents may be in, to read them as data (`Accept:
   * application/json`, `format=cii`, rendered formats): KSeF's `fa3Syntax` from `@einvoice/ksef`, as the inbound
   * poller's `receive.syntaxes`. Default: none (an FA(3) received is then served as received only).
   */
  syntaxes?: readonly ReceiveSyntax[];
  /** Which webhook targets are allowed. Default: public https only (SSRF guard). */
  webhookTargets?: TargetPolicy;
  /** Largest JSON body in bytes; larger gets 413. Default 10 MiB. */
  bodyLimit?: number;
  /** Where unexpected errors are logged. Default: one JSON line on stderr. */
  logger?: Logger;
  /**
   * Requests per company (all its API keys together, counted after authentication); over it 429
   * with `Retry-After`. Default 600 a minute in this process's memory; a `createRateLimiter` with a
   * PostgreSQL store shares one budget between the servers on that database; `false`: off.
   */
  rateLimit?: RateLimitOptions | RateLimiter | false;
  /**
   * Bytes of large bodies in flight at once (a shared `createBodyBudget()`, its options, or
   * `false`: unbounded). Past it a large body waits, then gets 503 `server_busy` with `Retry-After`.
   * Default: a budget of 64 MiB for this router.
   */
  bodyBudget?: BodyBudget | BodyBudgetOptions | false;
  /** Sign-ups (`POST /accounts`) per client IP (`req.ip`: set `trust proxy` behind a proxy). Default 20 an hour; `false`: off. */
  signUpRateLimit?: RateLimitOptions | RateLimiter | false;
}

/** The 404 of a path whose id does not decode, by the collection it names (see `malformedPath`). */
function malformedIdNotFound(path: string): ApiError | null {
  const [, collection, id = ""] = path.split("/");
  const quoted = quoteId(id);
  if (collection === "invoices") return new ApiError("invoice_not_found", `No invoice with id ${quoted} in this company.`);
  if (collection === "api-keys") return new ApiError("api_key_not_found", `No active API key ${quoted} in this company.`);
  if (collection === "webhooks") return new ApiError("webhook_not_found", `No webhook ${quoted} in this company.`);
  if (collection === "suppliers") return new ApiError("supplier_not_found", `No supplier with id ${quoted} in this company.`);
  return null;
}

const AUTH = Symbol("einvoice.auth");
type AuthedRequest = Request & { [AUTH]?: AuthContext };

function authOf(req: Request): AuthContext {
  const auth = (req as AuthedRequest)[AUTH];
  if (!auth) throw new Error("route is missing the authentication middleware");
  return auth;
}

/**
 * The `/v1` API: submit, reads (sent and received), accounts, API keys, (when the store keeps them) webhooks and
 * suppliers, and (with a `discovery`) participant lookups.
 *
 * @example app.use("/v1", createV1Router({ store: memoryStore() }))
 */
export function createV1Router(options: V1RouterOptions): Router {
  const { store, logger = stderrLogger } = options;
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const router = express.Router();

  // Rate limits: per company right after authentication (so every authenticated route has it), per IP on sign-up.
  // Per company, not per key: keys are free to make, so a per-key budget could be multiplied at will.
  const keyLimiter = limiterFor(options.rateLimit, DEFAULT_KEY_RATE_LIMIT, "company");
  const metrics = safeMetrics(options.metrics);
  const perKey = keyLimiter ? rateLimit(keyLimiter, (req) => authOf(req).companyId, "company", () => metrics.rateLimited({ limit: "company" })) : null;
  const signUpLimiter = limiterFor(options.signUpRateLimit, DEFAULT_SIGN_UP_RATE_LIMIT, "sign-up");
  // The submissions' routes read the company with the key (one store call instead of two per request).
  const authenticatedBy =
    (check: typeof authenticate): RequestHandler =>
    (req, res, next) => {
      const schemeless = authorizationProblem(req, "API key");
      if (schemeless) return next(new ApiError("invalid_api_key", schemeless));
      check(store, bearerToken(req), options).then(
        (ctx) => {
          (req as AuthedRequest)[AUTH] = ctx;
          if (perKey) perKey(req, res, next);
          else next();
        },
        next,
      );
    };
  const authenticated = authenticatedBy(authenticate);
  const mount = {
    limit,
    authenticate: { apiKey: authenticated },
    authenticateWithCompany: authenticatedBy(authenticateRequest),
    signUpLimit: signUpLimiter ? rateLimit(signUpLimiter, clientIp, "client IP", () => metrics.rateLimited({ limit: "sign-up" })) : null,
    authOf,
    bodyGate: bodyGateFor(options.bodyBudget, limit),
    // The submit routes take an Idempotency-Key when the store keeps keys (IdempotencyStore).
    idempotency: keepsIdempotencyKeys(store) ? { store, options } : null,
  };

  router.use(requestId());
  router.use(apiHeaders());
  router.use(malformedPath(malformedIdNotFound));

  router.get("/openapi.json", (_req, res) => {
    res.json(openApiDocument());
  });

  const deps = { store, options, read: { ...(options.syntaxes ? { syntaxes: options.syntaxes } : {}), ...(options.limits ? { limits: options.limits } : {}) } };
  mountRoutes(router, V1_ROUTES, deps, mount);
  if (isInboxStore(store)) mountRoutes(router, SUPPLIER_ROUTES, deps, mount);
  if (hasWebhooks(store)) mountRoutes(router, WEBHOOK_ROUTES, { store, options, targets: options.webhookTargets }, mount);
  if (options.discovery) mountRoutes(router, PARTICIPANT_ROUTES, { discovery: options.discovery }, mount);

  router.use(notFound());
  router.use(errorHandler(logger, limit));
  return router;
}
