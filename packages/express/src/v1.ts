// The /v1 router: HTTP in, a core call, HTTP out. No rules live here.
import {
  authenticate,
  createAccount,
  createApiKey,
  EmptyBodySchema,
  getCompany,
  getInvoice,
  listApiKeys,
  listClients,
  listInvoices,
  parseWith,
  revokeApiKey,
  submitInvoice,
  type AuthContext,
  type CoreOptions,
  type Store,
} from "@einvoice/core";
import express, { type Request, type RequestHandler, type Router } from "express";
import { stderrLogger, type Logger } from "./http-errors.js";
import { openApiDocument } from "./openapi.js";
import { apiHeaders, bearerToken, declaredSizeLimit, DEFAULT_BODY_LIMIT, errorHandler, jsonBody, noQuery, notFound, rawQuery, wrap } from "./middleware.js";

export interface V1RouterOptions extends CoreOptions {
  store: Store;
  /** Largest JSON body in bytes; larger gets 413. Default 10 MiB. */
  bodyLimit?: number;
  /** Where unexpected errors are logged. Default: one JSON line on stderr. */
  logger?: Logger;
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

  const authenticated: RequestHandler = (req, _res, next) => {
    authenticate(store, bearerToken(req), options).then(
      (ctx) => {
        (req as AuthedRequest)[AUTH] = ctx;
        next();
      },
      next,
    );
  };
  const noQueryParams = noQuery();

  router.use(apiHeaders());

  router.get("/openapi.json", (_req, res) => {
    res.json(openApiDocument());
  });

  router.post(
    "/accounts",
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
    ...body,
    wrap(async (req, res) => {
      res.status(200).json({ data: await submitInvoice(store, authOf(req), req.body, options) });
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

  router.use(notFound());
  router.use(errorHandler(logger, limit));
  return router;
}
