// The /v1 router: HTTP in, a core call, HTTP out. No rules live here.
import {
  ApiError,
  authenticate,
  createAccount,
  createApiKey,
  EmptyBodySchema,
  getCompany,
  getInvoice,
  listApiKeys,
  listClients,
  listInvoices,
  lookupParticipant,
  parseWith,
  revokeApiKey,
  submitInvoice,
  submitInvoiceJson,
  type AuthContext,
  type CoreOptions,
  type Store,
  type TargetPolicy,
  type WebhookStore,
} from "@einvoice/core";
import express, { type Request, type RequestHandler, type Router } from "express";
import { stderrLogger, type Logger } from "./http-errors.js";
import { openApiDocument } from "./openapi.js";
import { mountWebhooks } from "./webhooks.js";
import { apiHeaders, bearerToken, declaredSizeLimit, DEFAULT_BODY_LIMIT, errorHandler, jsonBody, malformedPath, noQuery, notFound, rawJsonBody, rawQuery, requestId, wrap } from "./middleware.js";
import { clientIp, DEFAULT_KEY_RATE_LIMIT, DEFAULT_SIGN_UP_RATE_LIMIT, limiterFor, rateLimit, type RateLimitOptions } from "./rate-limit.js";

export interface V1RouterOptions extends CoreOptions {
  /** The store; when it also keeps webhooks (`WebhookStore`), the /webhooks routes exist. */
  store: Store & Partial<WebhookStore>;
  /** Which webhook targets are allowed. Default: public https only (SSRF guard). */
  webhookTargets?: TargetPolicy;
  /** Largest JSON body in bytes; larger gets 413. Default 10 MiB. */
  bodyLimit?: number;
  /** Where unexpected errors are logged. Default: one JSON line on stderr. */
  logger?: Logger;
  /** Requests per API key (by key id, after authentication); over it 429 with `Retry-After`. Default 600 a minute; `false`: off. */
  rateLimit?: RateLimitOptions | false;
  /** Sign-ups (`POST /accounts`) per client IP (`req.ip`: set `trust proxy` behind a proxy). Default 20 an hour; `false`: off. */
  signUpRateLimit?: RateLimitOptions | false;
}

/** The 404 of a path whose id does not decode, by the collection it names (see `malformedPath`). */
function malformedIdNotFound(path: string): ApiError | null {
  const [, collection, id = ""] = path.split("/");
  const quoted = JSON.stringify(id);
  if (collection === "invoices") return new ApiError("invoice_not_found", `No invoice with id ${quoted} in this company.`);
  if (collection === "api-keys") return new ApiError("api_key_not_found", `No active API key ${quoted} in this company.`);
  if (collection === "webhooks") return new ApiError("webhook_not_found", `No webhook ${quoted} in this company.`);
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
 * The `/v1` API: submit, reads, accounts and API keys.
 *
 * @example app.use("/v1", createV1Router({ store: memoryStore() }))
 */
export function createV1Router(options: V1RouterOptions): Router {
  const { store, logger = stderrLogger } = options;
  const limit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const router = express.Router();
  const body = jsonBody(limit);

  // Rate limits: per API key right after authentication (so every authenticated route has it), per IP on sign-up.
  const keyLimiter = limiterFor(options.rateLimit, DEFAULT_KEY_RATE_LIMIT, options.clock);
  const perKey = keyLimiter ? rateLimit(keyLimiter, (req) => authOf(req).apiKeyId, "API key") : null;
  const signUpLimiter = limiterFor(options.signUpRateLimit, DEFAULT_SIGN_UP_RATE_LIMIT, options.clock);
  const perIp: RequestHandler[] = signUpLimiter ? [rateLimit(signUpLimiter, clientIp, "client IP")] : [];
  const authenticated: RequestHandler = (req, res, next) => {
    authenticate(store, bearerToken(req), options).then(
      (ctx) => {
        (req as AuthedRequest)[AUTH] = ctx;
        if (perKey) perKey(req, res, next);
        else next();
      },
      next,
    );
  };
  const noQueryParams = noQuery();

  router.use(requestId());
  router.use(apiHeaders());
  router.use(malformedPath(malformedIdNotFound));

  router.get("/openapi.json", (_req, res) => {
    res.json(openApiDocument());
  });

  router.post(
    "/accounts",
    ...perIp,
    declaredSizeLimit(limit),
    noQueryParams,
    ...body,
    wrap(async (req, res) => {
      res.status(201).json({ data: await createAccount(store, req.body, options) });
    }),
  );

  router.post(
    "/peppol/invoice",
    declaredSizeLimit(limit),
    authenticated,
    noQueryParams,
    ...rawJsonBody(limit),
    wrap(async (req, res) => {
      // The raw bytes go to the core: a large body is parsed off the event loop, with its document.
      const data = Buffer.isBuffer(req.body) || Array.isArray(req.body)
        ? await submitInvoiceJson(store, authOf(req), req.body, { ...options, transfer: true })
        : await submitInvoice(store, authOf(req), {}, options);
      res.status(200).json({ data });
    }),
  );

  router.get(
    "/invoices",
    authenticated,
    wrap(async (req, res) => {
      res.json(await listInvoices(store, authOf(req), rawQuery(req)));
    }),
  );

  router.get(
    "/invoices/:id",
    authenticated,
    noQueryParams,
    wrap(async (req, res) => {
      res.json({ data: await getInvoice(store, authOf(req), String(req.params.id)) });
    }),
  );

  router.get(
    "/clients",
    authenticated,
    wrap(async (req, res) => {
      res.json(await listClients(store, authOf(req), rawQuery(req)));
    }),
  );

  router.get(
    "/company",
    authenticated,
    noQueryParams,
    wrap(async (req, res) => {
      res.json({ data: await getCompany(store, authOf(req).companyId) });
    }),
  );

  router.get(
    "/api-keys",
    authenticated,
    noQueryParams,
    wrap(async (req, res) => {
      res.json({ data: await listApiKeys(store, authOf(req)) });
    }),
  );

  router.post(
    "/api-keys",
    declaredSizeLimit(limit),
    authenticated,
    noQueryParams,
    ...body,
    wrap(async (req, res) => {
      parseWith(EmptyBodySchema, req.body);
      res.status(201).json({ data: await createApiKey(store, authOf(req), options) });
    }),
  );

  router.delete(
    "/api-keys/:id",
    authenticated,
    noQueryParams,
    wrap(async (req, res) => {
      await revokeApiKey(store, authOf(req), String(req.params.id), options);
      res.status(204).end();
    }),
  );

  const discovery = options.discovery;
  if (discovery) {
    router.get(
      "/participants/:participantId",
      authenticated,
      wrap(async (req, res) => {
        res.json({ data: await lookupParticipant(discovery, String(req.params.participantId), rawQuery(req)) });
      }),
    );
  }

  mountWebhooks(router, { store, options, targets: options.webhookTargets, limit, authenticated, noQuery: noQueryParams, authOf });

  router.use(notFound());
  router.use(errorHandler(logger, limit));
  return router;
}
