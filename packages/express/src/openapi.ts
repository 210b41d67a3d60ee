// The OpenAPI 3.1 description of the /v1 and /admin APIs, generated from the route tables
// (routes/*.ts) and the core's zod schemas they name.
import { BadRequestSchema, ERROR_STATUS, InternalErrorSchema, PayloadTooLargeSchema, RuleFindingSchema, type ErrorCode } from "@einvoice/core";
import { z } from "zod";
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponsesObject } from "zod-openapi";
import { ADMIN_ROUTES } from "./routes/admin.js";
import { INBOUND_ADMIN_ROUTES } from "./routes/inbound-admin.js";
import { statusOf, type Route, type RouteAuth } from "./routes/route.js";
import { PARTICIPANT_ROUTES } from "./routes/participants.js";
import { SUPPLIER_ROUTES, V1_ROUTES } from "./routes/v1.js";
import { WEBHOOK_ROUTES } from "./routes/webhooks.js";

type Doc = ReturnType<typeof createDocument>;

const json = (schema: z.ZodType, extra: Record<string, unknown> = {}) => ({ content: { "application/json": { schema, ...extra } } });

/**
 * `{code, message}` with the codes this operation can answer for this status; where
 * `invalid_ubl_xml` is one, the optional `errors` of a document refused by the rules (row 9a).
 */
function codeError(status: number, codes: readonly ErrorCode[], description: string) {
  for (const c of codes) if (ERROR_STATUS[c] !== status) throw new Error(`openapi: ${c} is not a ${status}`);
  if (codes.includes("invalid_ubl_xml")) {
    return {
      description,
      ...json(
        z.object({
          code: z.enum(codes as [ErrorCode, ...ErrorCode[]]),
          message: z.string().meta({ description: "What went wrong, for a person." }),
          errors: z
            .array(RuleFindingSchema)
            .max(100)
            .optional()
            .meta({ description: "Only for `invalid_ubl_xml` when a submitted document breaks fatal rules of the rule sets that apply to it (EN 16931, and Peppol BIS Billing 3.0 or a national CIUS when its CustomizationID says so): each broken rule (at most 100)." }),
        }),
      ),
    };
  }
  return {
    description,
    ...json(z.object({ code: z.enum(codes as [ErrorCode, ...ErrorCode[]]), message: z.string().meta({ description: "What went wrong, for a person." }) })),
  };
}

const r400 = { "400": { description: "The body or the query has the wrong shape.", ...json(BadRequestSchema) } };
const r401 = { "401": codeError(401, ["invalid_api_key"], "The API key is missing, malformed, unknown or revoked.") };
/** The answer of every operation that takes a body when it is too large (413). */
const r413 = { "413": { description: "The JSON body is over 10 MiB.", ...json(PayloadTooLargeSchema) } };
/** Retry later (503): the store cannot be reached now, and for an operation with a body, no room for a large body now. */
function r503(body: boolean): ZodOpenApiResponsesObject {
  const storage = "`storage_unavailable`: the database cannot be reached now (down, restarting, or the connection was lost); nothing was half-stored.";
  const busy =
    "`server_busy`: too many large bodies are in flight (the server's body budget, default 64 MiB) and this one waited for room longer than the queue timeout (default 20 s).";
  return {
    "503": {
      ...codeError(503, body ? ["server_busy", "storage_unavailable"] : ["storage_unavailable"], `${body ? `${busy} ` : ""}${storage} Retry after \`Retry-After\` seconds.`),
      headers: z.object({ "Retry-After": z.string().meta({ description: "Seconds to wait before retrying.", example: "5" }) }),
    },
  };
}
const r500 = { "500": { description: "An unexpected error; nothing is revealed.", ...json(InternalErrorSchema) } };
const r429 = {
  "429": {
    ...codeError(
      429,
      ["rate_limited"],
      "Over the rate limit: per company on authenticated operations (all its keys together; default 600 a minute), per client IP on sign-up (20 an hour) and on /admin (120 a minute). Wait `Retry-After` seconds.",
    ),
    headers: z.object({
      "Retry-After": z.string().meta({ description: "Seconds to wait before the next request.", example: "12" }),
    }),
  },
};
const adminR401 = { "401": codeError(401, ["invalid_admin_token"], "The admin token is missing or wrong.") };

const uuidParam = (description: string) => z.string().meta({ description, example: "3f1c2a9e-7d7b-4f1e-9a53-2b8c1d0e4f6a" });

const SECURITY: Record<RouteAuth, Array<Record<string, string[]>> | undefined> = {
  apiKey: undefined, // the document's default
  admin: [{ adminToken: [] }],
  none: [],
};
const UNAUTHORIZED: Record<RouteAuth, ZodOpenApiResponsesObject> = { apiKey: r401, admin: adminR401, none: {} };

/** The request header of the submit routes. */
const IDEMPOTENCY_HEADER = z.object({
  "Idempotency-Key": z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({
      description:
        "Makes a retry safe (as Stripe defines it): the same key with the same body (byte for byte) within 24 hours gets the first answer again (same status and body, header `Idempotent-Replayed: true`) and stores nothing new. Keys are per company: 1 to 255 visible ASCII characters, such as a UUID v4. Another body with the key is 422 `idempotency_key_reused`; while the first request runs, 409 `idempotency_in_progress`. A 400, 429 or 5xx keeps nothing: retry with the same key.",
      example: "5f2b1c9e-0a7d-4c1b-9e3f-6d8a2b4c7e10",
    }),
});
/** The answer header of a replay. */
const REPLAYED_HEADER = z.object({
  "Idempotent-Replayed": z.literal("true").optional().meta({ description: "Present on an answer replayed for an `Idempotency-Key` (nothing new was stored)." }),
});

/** One operation of the document, from its route. */
function operation(route: Route<never>): ZodOpenApiOperationObject {
  const security = SECURITY[route.auth];
  const errors: Record<string, ReturnType<typeof codeError>> = {};
  for (const e of route.errors ?? []) {
    const status = statusOf(e);
    errors[String(status)] = codeError(status, e.codes, e.description);
  }
  const params = route.params
    ? {
        path: z.object(
          Object.fromEntries(
            Object.entries(route.params).map(([name, p]) => [name, typeof p === "string" ? uuidParam(p) : z.string().meta(p)]),
          ),
        ),
      }
    : undefined;
  const query = route.query ? { query: route.query } : undefined;
  const header = route.idempotent ? { header: IDEMPOTENCY_HEADER } : undefined;
  const success = {
    description: route.success.description,
    ...(route.success.mediaType
      ? {
          content: {
            [route.success.mediaType]: { schema: route.success.schema ?? z.string() },
            ...Object.fromEntries(Object.entries(route.success.alternatives ?? {}).map(([type, schema]) => [type, { schema }])),
          },
        }
      : route.success.schema
        ? json(route.success.schema)
        : {}),
    ...(route.idempotent ? { headers: REPLAYED_HEADER } : {}),
  };
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(security ? { security } : {}),
    ...(params || query || header ? { requestParams: { ...params, ...query, ...header } } : {}),
    ...(route.body?.schema
      ? { requestBody: { required: true, ...json(route.body.schema, route.body.examples ? { examples: route.body.examples } : {}) } }
      : {}),
    responses: responses({
      [String(route.success.status)]: success,
      ...r400,
      ...UNAUTHORIZED[route.auth],
      ...(route.body ? r413 : {}),
      ...r503(route.body !== undefined),
      ...errors,
      ...route.otherResponses,
    }),
  };
}

/** The paths of a route table under `prefix`, in the table's order. */
function pathsOf(prefix: string, routes: readonly Route<never>[]): ZodOpenApiPathsObject {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) (paths[prefix + route.path] ??= {})[route.method] = operation(route);
  return paths;
}

function responses(r: ZodOpenApiResponsesObject): ZodOpenApiResponsesObject {
  return { ...r, ...r429, ...r500 };
}

let cached: Doc | undefined;

/**
 * The OpenAPI 3.1 document of the API (version 1.0.0). Built once from the route tables the
 * routers are built from, and the zod schemas that validate the requests, so it cannot drift from them.
 *
 * @example app.get("/openapi.json", (_req, res) => res.json(openApiDocument()))
 */
/** The body of GET /ready (`Readiness` in the core). */
const READINESS = z.object({
  status: z.enum(["ready", "not_ready"]),
  checks: z.object({
    store: z.enum(["ok", "down", "timeout", "migrations_pending"]),
    workers: z.enum(["ok", "disabled", "stopped", "failing"]),
  }),
});

export function openApiDocument(): Doc {
  cached ??= createDocument({
    openapi: "3.1.0",
    info: {
      title: "einvoice API",
      version: "1.0.0",
      description:
        "Submit UBL invoices to Peppol (and KSeF), track each submission, and read invoices and clients. Every /v1 endpoint except sign-up takes the company's API key as a bearer token.\n\nSee an invoice as people read it: [POST /v1/render](#/default/renderInvoice) with its example body (Try it out) answers a printable HTML page, and `GET /v1/invoices/{id}/document?format=html&lang=de` shows any stored invoice, sent or received, with a KSeF invoice's verification QR code.",
    },
    security: [{ apiKey: [] }],
    components: {
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "The company's API key, from sign-up or POST /v1/api-keys." },
        adminToken: { type: "http", scheme: "bearer", description: "The operators' token (ADMIN_TOKEN of the example server)." },
        metricsToken: { type: "http", scheme: "bearer", description: "METRICS_TOKEN of the example server, when it is set." },
      },
    },
    paths: {
      ...pathsOf("/v1", V1_ROUTES as readonly Route<never>[]),
      ...pathsOf("/v1", SUPPLIER_ROUTES as readonly Route<never>[]),
      ...pathsOf("/v1", WEBHOOK_ROUTES as readonly Route<never>[]),
      ...pathsOf("/v1", PARTICIPANT_ROUTES as readonly Route<never>[]),
      "/v1/openapi.json": {
        get: {
          operationId: "getOpenApiDocument",
          summary: "This document",
          security: [],
          responses: { "200": { description: "The OpenAPI document.", content: { "application/json": { schema: z.object({}).loose() } } } },
        },
      },
      ...pathsOf("/admin", ADMIN_ROUTES as readonly Route<never>[]),
      ...pathsOf("/admin", INBOUND_ADMIN_ROUTES as readonly Route<never>[]),
      "/health": {
        get: {
          operationId: "health",
          summary: "Liveness of the example server",
          security: [],
          responses: { "200": { description: "Takes requests.", ...json(z.object({ status: z.literal("ok") })) } },
        },
      },
      "/metrics": {
        get: {
          operationId: "metrics",
          summary: "Metrics of the example server in the Prometheus text format (METRICS=off: no such route)",
          description:
            "einvoice_submissions_total{network,status}, einvoice_delivery_attempts_total{network,outcome}, einvoice_delivery_duration_seconds{network} (submit to delivered), einvoice_queue_depth, einvoice_webhook_deliveries_total{outcome}, einvoice_validation_duration_seconds, einvoice_rate_limited_total{limit}, einvoice_inbound_documents_total{network,outcome} (received documents: stored, duplicate, unmatched), einvoice_inbound_runs_total{source,outcome}, einvoice_inbound_run_documents_total{source}, einvoice_inbound_unmatched (documents for no company), and Node's process metrics. With METRICS_TOKEN set, only for `Authorization: Bearer <METRICS_TOKEN>`.",
          security: [{ metricsToken: [] }, {}],
          responses: {
            "200": { description: "The metrics.", content: { "text/plain": { schema: z.string() } } },
            "401": { description: "METRICS_TOKEN is set and the request did not carry it.", content: { "text/plain": { schema: z.string() } } },
          },
        },
      },
      "/ready": {
        get: {
          operationId: "ready",
          summary: "Readiness of the example server: the store answers, the workers run",
          security: [],
          responses: {
            "200": { description: "Ready.", ...json(READINESS.extend({ status: z.literal("ready") })) },
            "503": { description: "Not ready: each check names what is wrong. Answered within 2 s, even when the database hangs.", ...json(READINESS.extend({ status: z.literal("not_ready") })) },
          },
        },
      },
    },
  });
  return cached;
}
