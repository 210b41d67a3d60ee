// The shape of a route: one entry of a route table, from which both the Express router and the
// OpenAPI document are built. Adding an endpoint is adding an entry (see docs/architecture.md).
import { ApiError, ERROR_STATUS, idempotent, requestFingerprint, type AuthContext, type CoreOptions, type ErrorCode, type IdempotencyStore, type Store } from "@einvoice/core";
import type { Request, RequestHandler, Router } from "express";
import type { z } from "zod";
import type { ZodOpenApiResponsesObject } from "zod-openapi";
import { toHttp } from "../http-errors.js";
import { declaredSizeLimit, jsonBody, rawJsonBody } from "../middleware/body.js";
import { wrap } from "../middleware/errors.js";
import { noQuery, rawQuery } from "../middleware/paths.js";

export type Method = "get" | "post" | "patch" | "delete";

/**
 * Who may call a route. `apiKey`: the company's key (`Authorization: Bearer <key>`), then the
 * per-key rate limit. `admin`: the operators' token, checked by the /admin router for every
 * request before anything else. `none`: anyone (sign-up, with the per-IP sign-up limit).
 */
export type RouteAuth = "apiKey" | "admin" | "none";

/** What a handler gets. `auth` exists on `apiKey` routes only (reading it elsewhere throws). */
export interface RouteInput<D> {
  deps: D;
  req: Request;
  auth: AuthContext;
  /** The path parameters, by name. */
  params: Record<string, string>;
  /** The raw query (each parameter a string, a repeated one an array), for the core call to validate. */
  query: Record<string, string | string[]>;
  /** The parsed JSON body (`{}` when absent), or for a `raw` body the chunks as they arrived. */
  body: unknown;
  /**
   * On an `idempotent` route called with an `Idempotency-Key`: the id under which the request
   * creates what it creates (the submission's id), the same for a retry after a crash (`idempotent`
   * in the core); null without a key.
   */
  idempotency: { resourceId: string } | null;
}

/** The answers an operation documents beside its success, other than 400/401/413/429/500. */
export interface RouteError {
  /** Codes of one status (`ERROR_STATUS`). */
  codes: readonly ErrorCode[];
  description: string;
}

export interface Route<D> {
  method: Method;
  /** The path under the router's mount point, in OpenAPI form: `/invoices/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  auth: RouteAuth;
  /**
   * For `apiKey` routes whose core call reads the caller's company (the submissions): authentication
   * reads the company with the key (`authenticateRequest`, one store call), and the core call takes
   * it from the context instead of reading it again.
   */
  company?: boolean;
  /** Counted by the per-client-IP sign-up limit (before anything else). */
  signUpLimit?: boolean;
  /**
   * The path parameters, by name: a description (the parameter is an id, a UUID), or a
   * description and an example of another form.
   */
  params?: Record<string, string | { description: string; example: string }>;
  /**
   * The query's schema: the one the core call validates the raw query with (the handler passes
   * `query` on), written into the OpenAPI document as its parameters. Without it the router
   * refuses any query parameter (after authentication).
   */
  query?: z.ZodObject;
  /**
   * The request body. `json`: parsed (any JSON value; absent counts as `{}`). `raw`: its chunks, for
   * a core call that parses it off the event loop. Both refuse a declared size over the limit first.
   * `schema` is what the core call validates the body with, for the OpenAPI document; without it
   * the body is not documented.
   */
  body?: { kind: "json" | "raw"; schema?: z.ZodType; examples?: Record<string, { summary: string; value: unknown }> };
  /**
   * The success answer: its status and, unless 204, its body's schema. With `mediaType` the handler
   * answers the body itself (a string, such as an SVG document), sent with that content type.
   */
  success: { status: 200 | 201 | 202 | 204; description: string; schema?: z.ZodType; mediaType?: string; alternatives?: Record<string, z.ZodType> };
  /**
   * Takes an `Idempotency-Key` header (when the router's store keeps keys): the same key and body
   * replay the first answer (`idempotent` in the core). For `apiKey` routes with a body.
   */
  idempotent?: boolean;
  /** The other answers the operation documents by code. */
  errors?: readonly RouteError[];
  /** Answers of other shapes, as OpenAPI responses (zod schemas), by status. */
  otherResponses?: ZodOpenApiResponsesObject;
  /** The answer's body (ignored for 204). Throw an `ApiError` for a documented error. */
  handle(input: RouteInput<D>): Promise<unknown>;
}

/** An answer in a media type the handler chose (from `Accept`): one of `success.mediaType` and `success.alternatives`. */
export class MediaAnswer {
  constructor(
    readonly mediaType: string,
    readonly body: unknown,
    /** Headers of this answer besides the API's (a rendered page's Content-Security-Policy). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {}
}

/** Every code of `status` in the status table. */
export function codesOf(status: number): ErrorCode[] {
  return (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((c) => ERROR_STATUS[c] === status);
}

/** Checks each error's codes against the status table; returns the status they share. */
export function statusOf(error: RouteError): number {
  const status = ERROR_STATUS[error.codes[0]!];
  for (const c of error.codes) if (ERROR_STATUS[c] !== status) throw new Error(`route error ${c} is not a ${status}`);
  return status;
}

/** `/invoices/{id}` -> `/invoices/:id`. */
export const expressPath = (path: string): string => path.replace(/\{([A-Za-z0-9_]+)\}/g, ":$1");

/** What the router brings: how to authenticate, rate-limit and read bodies. */
export interface MountOptions {
  /** Largest body in bytes. */
  limit: number;
  /** Per auth kind, the middleware that authenticates (and rate-limits by key); none for `admin` and `none`. */
  authenticate: Partial<Record<RouteAuth, RequestHandler>>;
  /** For `apiKey` routes with `company`: the same as `authenticate.apiKey`, with the company read with the key. */
  authenticateWithCompany?: RequestHandler;
  /** The per-IP sign-up limit, for `signUpLimit` routes. */
  signUpLimit?: RequestHandler | null;
  /** The authentication context the `apiKey` middleware set on a request. */
  authOf(req: Request): AuthContext;
  /** The body budget's gate (body-budget.ts), for routes with a body: a large body waits for room before it is read. */
  bodyGate?: RequestHandler;
  /** Where `idempotent` routes keep their keys; without it the header is ignored. */
  idempotency?: { store: Store & IdempotencyStore; options: CoreOptions } | null;
}

/** The bytes of a request body as the route got it (raw chunks, or the parsed JSON), for its fingerprint. */
function bodyBytes(body: unknown): Uint8Array[] | string {
  if (Buffer.isBuffer(body)) return [body];
  if (Array.isArray(body) && body.every((c) => Buffer.isBuffer(c))) return body as Buffer[];
  return JSON.stringify(body ?? {});
}

/**
 * Adds `routes` to `router`. The middleware of each route runs in this order: the sign-up limit,
 * the declared body size, authentication (and the per-key limit), the refusal of any query
 * parameter (routes without `query`), the body budget's gate, the body parser, the handler.
 */
export function mountRoutes<D>(router: Router, routes: readonly Route<D>[], deps: D, mount: MountOptions): void {
  for (const route of routes) {
    const chain: RequestHandler[] = [];
    if (route.signUpLimit && mount.signUpLimit) chain.push(mount.signUpLimit);
    if (route.body) chain.push(declaredSizeLimit(mount.limit));
    const authenticate = route.auth === "apiKey" && route.company && mount.authenticateWithCompany ? mount.authenticateWithCompany : mount.authenticate[route.auth];
    if (authenticate) chain.push(authenticate);
    if (!route.query) chain.push(noQuery());
    if (route.body && mount.bodyGate) chain.push(mount.bodyGate);
    if (route.body) chain.push(...(route.body.kind === "raw" ? rawJsonBody(mount.limit) : jsonBody(mount.limit)));
    chain.push(
      wrap(async (req, res) => {
        const handle = (idempotency: { resourceId: string } | null = null) =>
          route.handle({
            deps,
            req,
            // Read on use: a route that is not `apiKey` has none, and reading it throws.
            get auth() {
              return mount.authOf(req);
            },
            params: Object.fromEntries(Object.entries(req.params).map(([k, v]) => [k, String(v)])),
            query: rawQuery(req),
            body: req.body,
            idempotency,
          });
        const key = route.idempotent && mount.idempotency ? req.get("idempotency-key") : undefined;
        if (key === undefined || !mount.idempotency) {
          const answer = await handle();
          if (route.success.status === 204) res.status(204).end();
          else if (answer instanceof MediaAnswer) {
            res.vary("Accept");
            res.set(answer.headers);
            // Bytes are sent as they are, whatever their type (a received JSON document); a value as JSON.
            if (answer.mediaType === "application/json" && !(answer.body instanceof Uint8Array)) res.status(route.success.status).json(answer.body);
            else res.status(route.success.status).type(answer.mediaType).send(answer.body);
          } else if (route.success.mediaType) res.status(route.success.status).type(route.success.mediaType).send(answer);
          else res.status(route.success.status).json(answer);
          return;
        }
        const fingerprint = requestFingerprint(`${route.method.toUpperCase()} ${route.path}`, bodyBytes(req.body));
        const { answer, replayed } = await idempotent(
          mount.idempotency.store,
          mount.authOf(req),
          { key, fingerprint },
          async (taken) => {
            try {
              return { status: route.success.status, body: await handle(taken) };
            } catch (e) {
              // A documented refusal is the request's answer, kept and replayed like a success; a failure (5xx) is not.
              if (e instanceof ApiError && ERROR_STATUS[e.code] < 500) return toHttp(e);
              throw e;
            }
          },
          mount.idempotency.options,
        );
        if (replayed) res.set("Idempotent-Replayed", "true");
        res.status(answer.status).json(answer.body);
      }),
    );
    router[route.method](expressPath(route.path), ...chain);
  }
}
