// The /admin router, built from its route table (routes/admin.ts): operators read and change companies, with their own bearer token.
import { createHash, timingSafeEqual } from "node:crypto";
import { ApiError, isInboxStore, quoteId, type CoreOptions, type InboxStore, type Store, safeMetrics } from "@einvoice/core";
import express, { type RequestHandler, type Router } from "express";
import { bodyGateFor, type BodyBudget, type BodyBudgetOptions } from "./body-budget.js";
import { stderrLogger, type Logger } from "./http-errors.js";
import { bearerToken, authorizationProblem } from "./middleware/auth.js";
import { DEFAULT_BODY_LIMIT } from "./middleware/body.js";
import { errorHandler } from "./middleware/errors.js";
import { malformedPath, notFound } from "./middleware/paths.js";
import { apiHeaders, requestId } from "./middleware/request.js";
import { clientIp, DEFAULT_ADMIN_RATE_LIMIT, limiterFor, rateLimit, type RateLimiter, type RateLimitOptions } from "./rate-limit.js";
import { ADMIN_ROUTES } from "./routes/admin.js";
import { INBOUND_ADMIN_ROUTES } from "./routes/inbound-admin.js";
import { mountRoutes } from "./routes/route.js";

export interface AdminRouterOptions extends CoreOptions {
  /** The store; when it also keeps an inbox (`InboxStore`), the /inbound routes and the KSeF backfill exist. */
  store: Store & Partial<InboxStore>;
  /** The operators' bearer token. At least 16 characters. */
  adminToken: string;
  bodyLimit?: number;
  logger?: Logger;
  /**
   * Requests per client IP, counted before the token is checked (so guessing it is slow too).
   * Over the limit: 429 with `Retry-After`. Default 120 a minute; `false` turns it off.
   */
  adminRateLimit?: RateLimitOptions | RateLimiter | false;
  /** Bytes of large bodies in flight; see `V1RouterOptions.bodyBudget`. */
  bodyBudget?: BodyBudget | BodyBudgetOptions | false;
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/**
 * The `/admin` API: `GET` and `PATCH /companies/{companyId}`; with an inbox store, the documents for no company
 * (`/inbound/unmatched`), the receiving syncs (`/inbound/syncs`) and a company's KSeF backfill.
 *
 * @example app.use("/admin", createAdminRouter({ store, adminToken: process.env.ADMIN_TOKEN! }))
 */
export function createAdminRouter(options: AdminRouterOptions): Router {
  const { store, logger = stderrLogger } = options;
  if (typeof options.adminToken !== "string" || options.adminToken.length < 16) {
    throw new TypeError("createAdminRouter: adminToken must be a string of at least 16 characters");
  }
  const expected = digest(options.adminToken);
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const router = express.Router();

  const operator: RequestHandler = (req, _res, next) => {
    const token = bearerToken(req);
    // Compare digests: constant time, whatever the lengths.
    const ok = timingSafeEqual(digest(token ?? ""), expected) && token !== null;
    const missing = authorizationProblem(req, "ADMIN_TOKEN") ?? "Missing admin token: send Authorization: Bearer <ADMIN_TOKEN>.";
    next(ok ? undefined : new ApiError("invalid_admin_token", token === null ? missing : "The admin token is not valid."));
  };

  router.use(requestId());
  router.use(apiHeaders());
  router.use(
    malformedPath((path) => {
      const [, collection, second = "", third = ""] = path.split("/");
      if (collection === "companies") return new ApiError("company_not_found", `No company with id ${quoteId(second)}.`);
      if (collection === "inbound" && second === "unmatched") return new ApiError("unmatched_document_not_found", `No document for no company with id ${quoteId(third)}.`);
      return null;
    }),
  );
  const limiter = limiterFor(options.adminRateLimit, DEFAULT_ADMIN_RATE_LIMIT, "admin");
  const metrics = safeMetrics(options.metrics);
  if (limiter) router.use(rateLimit(limiter, clientIp, "client IP", () => metrics.rateLimited({ limit: "admin" })));
  router.use(operator);

  // The token is checked above for every request (unknown paths too), so the routes add no authentication.
  const mount = {
    limit,
    authenticate: {},
    authOf: () => {
      throw new Error("admin routes have no API key");
    },
    bodyGate: bodyGateFor(options.bodyBudget, limit),
  };
  mountRoutes(router, ADMIN_ROUTES, { store, options }, mount);
  if (isInboxStore(store)) mountRoutes(router, INBOUND_ADMIN_ROUTES, { store, options }, mount);

  router.use(notFound());
  router.use(errorHandler(logger, limit));
  return router;
}
