// @einvoice/express: mounts @einvoice/core as the /v1 HTTP API and the /admin operator API.
export { createV1Router, type V1RouterOptions } from "./v1.js";
export { createAdminRouter, type AdminRouterOptions } from "./admin.js";
export { toHttp, stderrLogger, type Logger, type HttpAnswer } from "./http-errors.js";
export { bearerToken } from "./middleware/auth.js";
export { DEFAULT_BODY_LIMIT } from "./middleware/body.js";
export { notFound } from "./middleware/paths.js";
export { openApiDocument } from "./openapi.js";
export {
  createRateLimiter,
  DEFAULT_KEY_RATE_LIMIT,
  DEFAULT_SIGN_UP_RATE_LIMIT,
  DEFAULT_ADMIN_RATE_LIMIT,
  type RateLimitOptions,
  type RateLimiter,
  type RateDecision,
  type RateLimitStore,
} from "./rate-limit.js";
export { createBodyBudget, DEFAULT_BODY_BUDGET, type BodyBudget, type BodyBudgetOptions } from "./body-budget.js";
