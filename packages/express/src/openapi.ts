// The OpenAPI 3.1 description of the /v1 and /admin APIs, generated from the core's zod schemas.
import {
  AccountCreatedSchema,
  AccountRequestSchema,
  ApiKeyCreatedSchema,
  ApiKeySchema,
  ClientSchema,
  CompanyPatchSchema,
  CompanySchema,
  ERROR_STATUS,
  InvoiceRequestSchema,
  InvoiceSchema,
  ParticipantSchema,
  SubmissionSchema,
  WebhookCreatedSchema,
  WebhookDeliverySchema,
  WebhookRequestSchema,
  WebhookSchema,
  type ErrorCode,
} from "@einvoice/core";
import { z } from "zod";
import { createDocument, type ZodOpenApiResponsesObject } from "zod-openapi";

type Doc = ReturnType<typeof createDocument>;

const json = (schema: z.ZodType, extra: Record<string, unknown> = {}) => ({ content: { "application/json": { schema, ...extra } } });

const data = <T extends z.ZodType>(schema: T) => z.object({ data: schema });
const page = <T extends z.ZodType>(schema: T) =>
  z.object({
    data: z.array(schema),
    nextCursor: z.string().nullable().meta({ description: "Pass as `cursor` for the next page; null on the last page." }),
  });

function codesOf(status: number): ErrorCode[] {
  return (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((c) => ERROR_STATUS[c] === status);
}

/** `{code, message}` with the codes this operation can answer for this status. */
function codeError(status: number, codes: ErrorCode[], description: string) {
  for (const c of codes) if (ERROR_STATUS[c] !== status) throw new Error(`openapi: ${c} is not a ${status}`);
  return {
    description,
    ...json(z.object({ code: z.enum(codes as [ErrorCode, ...ErrorCode[]]), message: z.string().meta({ description: "What went wrong, for a person." }) })),
  };
}

const BadRequest = z
  .object({
    statusCode: z.literal(400),
    message: z.union([z.array(z.string()), z.string()]).meta({ description: "One message per problem (class-validator wording), or one string when the body is not JSON." }),
    error: z.literal("Bad Request"),
  })
  .meta({ id: "BadRequestError" });
const PayloadTooLarge = z
  .object({ statusCode: z.literal(413), message: z.string(), error: z.literal("Payload Too Large") })
  .meta({ id: "PayloadTooLargeError" });
const InternalError = z.object({ statusCode: z.literal(500), message: z.string() }).meta({ id: "InternalError" });

const r400 = { "400": { description: "The body or the query has the wrong shape.", ...json(BadRequest) } };
const r401 = { "401": codeError(401, ["invalid_api_key"], "The API key is missing, malformed, unknown or revoked.") };
const r413 = { "413": { description: "The JSON body is over 10 MiB.", ...json(PayloadTooLarge) } };
const r500 = { "500": { description: "An unexpected error; nothing is revealed.", ...json(InternalError) } };
const TooManyRequests = z
  .object({ statusCode: z.literal(429), message: z.string(), error: z.literal("Too Many Requests") })
  .meta({ id: "TooManyRequestsError" });
const r429 = {
  "429": {
    description:
      "Over the rate limit: per API key on authenticated operations (default 600 a minute), per client IP on sign-up (20 an hour) and on /admin (120 a minute). Wait `Retry-After` seconds.",
    headers: z.object({
      "Retry-After": z.string().meta({ description: "Seconds to wait before the next request.", example: "12" }),
    }),
    ...json(TooManyRequests),
  },
};
const adminR401 = { "401": codeError(401, ["invalid_admin_token"], "The admin token is missing or wrong.") };

const uuidParam = (description: string) => z.string().meta({ description, example: "3f1c2a9e-7d7b-4f1e-9a53-2b8c1d0e4f6a" });
const pathId = (name: string, description: string) => ({ path: z.object({ [name]: uuidParam(description) }) });

const limitParam = z
  .string()
  .optional()
  .meta({ description: "Page size, 1 to 100 (default 20).", override: { type: "integer", minimum: 1, maximum: 100, default: 20 } });
const cursorParam = z.string().optional().meta({ description: "The `nextCursor` of the previous page, unchanged." });

const SUBMIT_EXAMPLES = {
  autoRouting: {
    summary: "Let the service choose the network",
    value: { xml: "PD94bWwgdmVyc2lvbj0iMS4wIiBlbmNvZGluZz0iVVRGLTgiPz4KPEludm9pY2UgeG1sbnM9InVybjpvYXNpczpuYW1lczpzcGVjaWZpY2F0aW9uOnVibDpzY2hlbWE6eHNkOkludm9pY2UtMiI+Li4uPC9JbnZvaWNlPg==" },
  },
  explicitPeppol: {
    summary: "Send on Peppol",
    value: { xml: "PD94bWwgdmVyc2lvbj0iMS4wIiBlbmNvZGluZz0iVVRGLTgiPz4KPEludm9pY2UgeG1sbnM9InVybjpvYXNpczpuYW1lczpzcGVjaWZpY2F0aW9uOnVibDpzY2hlbWE6eHNkOkludm9pY2UtMiI+Li4uPC9JbnZvaWNlPg==", targetNetwork: "peppol" },
  },
  explicitKsef: {
    summary: "Send to KSeF (recipient scheme 9945)",
    value: { xml: "PD94bWwgdmVyc2lvbj0iMS4wIiBlbmNvZGluZz0iVVRGLTgiPz4KPEludm9pY2UgeG1sbnM9InVybjpvYXNpczpuYW1lczpzcGVjaWZpY2F0aW9uOnVibDpzY2hlbWE6eHNkOkludm9pY2UtMiI+Li4uPC9JbnZvaWNlPg==", targetNetwork: "ksef" },
  },
};

function responses(r: ZodOpenApiResponsesObject): ZodOpenApiResponsesObject {
  return { ...r, ...r429, ...r500 };
}

let cached: Doc | undefined;

/**
 * The OpenAPI 3.1 document of the API (version 1.0.0). Built once from the zod schemas that
 * validate the requests, so it cannot drift from them.
 *
 * @example app.get("/openapi.json", (_req, res) => res.json(openApiDocument()))
 */
export function openApiDocument(): Doc {
  cached ??= createDocument({
    openapi: "3.1.0",
    info: {
      title: "einvoice API",
      version: "1.0.0",
      description:
        "Submit UBL invoices to Peppol (and KSeF), track each submission, and read invoices and clients. Every /v1 endpoint except sign-up takes the company's API key as a bearer token.",
    },
    security: [{ apiKey: [] }],
    components: {
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "The company's API key, from sign-up or POST /v1/api-keys." },
        adminToken: { type: "http", scheme: "bearer", description: "The operators' token (ADMIN_TOKEN of the example server)." },
      },
    },
    paths: {
      "/v1/accounts": {
        post: {
          operationId: "createAccount",
          summary: "Create an account, its company and its first API key",
          security: [],
          requestBody: { required: true, ...json(AccountRequestSchema) },
          responses: responses({
            "201": { description: "Created. The API key is shown once.", ...json(data(AccountCreatedSchema)) },
            ...r400,
            "409": codeError(409, ["email_taken"], "An account with this email exists."),
            ...r413,
          }),
        },
      },
      "/v1/peppol/invoice": {
        post: {
          operationId: "submitInvoice",
          summary: "Submit one UBL invoice",
          description:
            "HTTP 200 means the request was processed: inspect `data.status`. `sending`: accepted and queued. `failed`: not sent, `errorMessage` says why (a duplicate of an earlier submission, a route that cannot be taken).",
          requestBody: { required: true, ...json(InvoiceRequestSchema, { examples: SUBMIT_EXAMPLES }) },
          responses: responses({
            "200": { description: "Processed: `sending` or `failed`.", ...json(data(SubmissionSchema)) },
            ...r400,
            ...r401,
            "403": codeError(403, codesOf(403), "The company is not eligible for the Peppol API."),
            ...r413,
            "422": codeError(422, codesOf(422), "The invoice or the account failed validation."),
          }),
        },
      },
      "/v1/invoices": {
        get: {
          operationId: "listInvoices",
          summary: "List invoices, newest first",
          requestParams: {
            query: z.object({
              limit: limitParam,
              cursor: cursorParam,
              status: z.enum(["sending", "delivered", "failed"]).optional().meta({ description: "Only invoices in this status." }),
              clientId: uuidParam("Only invoices of this client.").optional(),
            }),
          },
          responses: responses({ "200": { description: "A page of invoices.", ...json(page(InvoiceSchema)) }, ...r400, ...r401 }),
        },
      },
      "/v1/invoices/{id}": {
        get: {
          operationId: "getInvoice",
          summary: "Get one invoice",
          requestParams: pathId("id", "The submissionId."),
          responses: responses({
            "200": { description: "The invoice.", ...json(data(InvoiceSchema)) },
            ...r400,
            ...r401,
            "404": codeError(404, ["invoice_not_found"], "No such invoice in this company."),
          }),
        },
      },
      "/v1/clients": {
        get: {
          operationId: "listClients",
          summary: "List clients, latest invoice first",
          requestParams: { query: z.object({ limit: limitParam, cursor: cursorParam }) },
          responses: responses({ "200": { description: "A page of clients.", ...json(page(ClientSchema)) }, ...r400, ...r401 }),
        },
      },
      "/v1/company": {
        get: {
          operationId: "getCompany",
          summary: "The caller's company and its eligibility",
          responses: responses({ "200": { description: "The company.", ...json(data(CompanySchema)) }, ...r400, ...r401 }),
        },
      },
      "/v1/api-keys": {
        get: {
          operationId: "listApiKeys",
          summary: "List the company's active API keys (never the keys)",
          responses: responses({ "200": { description: "The keys.", ...json(data(z.array(ApiKeySchema))) }, ...r400, ...r401 }),
        },
        post: {
          operationId: "createApiKey",
          summary: "Make another API key (shown once)",
          responses: responses({ "201": { description: "Created.", ...json(data(ApiKeyCreatedSchema)) }, ...r400, ...r401, ...r413 }),
        },
      },
      "/v1/api-keys/{id}": {
        delete: {
          operationId: "revokeApiKey",
          summary: "Revoke an API key; it gets 401 from the next request on",
          requestParams: pathId("id", "The key's id."),
          responses: responses({
            "204": { description: "Revoked." },
            ...r400,
            ...r401,
            "404": codeError(404, ["api_key_not_found"], "No such active key in this company."),
            "409": codeError(409, ["last_api_key"], "The company's last active key: create another first."),
          }),
        },
      },
      "/v1/webhooks": {
        post: {
          operationId: "createWebhook",
          summary: "Register a webhook for invoice status changes (the secret is shown once)",
          description:
            "Each change of an invoice's status after creation (`delivered`, `failed`) is POSTed as `{id, type, createdAt, data:{invoice}}` with the headers `Einvoice-Event-Id` and `Einvoice-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<raw body>\" with the secret>`, retried with backoff until a 2xx. The URL must be https and resolve to public addresses.",
          requestBody: { required: true, ...json(WebhookRequestSchema) },
          responses: responses({ "201": { description: "Created.", ...json(data(WebhookCreatedSchema)) }, ...r400, ...r401, ...r413 }),
        },
        get: {
          operationId: "listWebhooks",
          summary: "List the company's webhooks (never their secrets)",
          responses: responses({ "200": { description: "The webhooks.", ...json(data(z.array(WebhookSchema))) }, ...r400, ...r401 }),
        },
      },
      "/v1/webhooks/{id}": {
        delete: {
          operationId: "deleteWebhook",
          summary: "Delete a webhook; its pending events are not sent",
          requestParams: pathId("id", "The webhook's id."),
          responses: responses({
            "204": { description: "Deleted." },
            ...r400,
            ...r401,
            "404": codeError(404, ["webhook_not_found"], "No such webhook in this company."),
          }),
        },
      },
      "/v1/webhooks/{id}/deliveries": {
        get: {
          operationId: "listWebhookDeliveries",
          summary: "The webhook's recent deliveries, newest first, with each attempt's status code and error",
          requestParams: pathId("id", "The webhook's id."),
          responses: responses({
            "200": { description: "The deliveries.", ...json(data(z.array(WebhookDeliverySchema))) },
            ...r400,
            ...r401,
            "404": codeError(404, ["webhook_not_found"], "No such webhook in this company."),
          }),
        },
      },
      "/v1/participants/{participantId}": {
        get: {
          operationId: "lookupParticipant",
          summary: "Look a recipient up on Peppol: registered, the document types it accepts, its endpoint",
          description:
            "Asks the configured participant discovery (SML/SMP, the access point, or the sandbox), with a cache and a timeout. `registered: false` is the network's answer; a lookup that cannot be made is a 502, never `registered: false`. Present when the server has a discovery configured.",
          requestParams: {
            path: z.object({
              participantId: z.string().meta({ description: "The Peppol participant identifier `scheme:value`.", example: "0208:0123456789" }),
            }),
            query: z.object({
              documentType: z
                .string()
                .optional()
                .meta({
                  description:
                    "A document type identifier (`busdox-docid-qns::...`, or its value alone); the answer then carries the endpoint for it, or null when the participant does not accept it.",
                  example:
                    "busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1",
                }),
            }),
          },
          responses: responses({
            "200": { description: "The participant as the network knows it.", ...json(data(ParticipantSchema)) },
            ...r400,
            ...r401,
            "404": {
              description: "The server has no participant discovery configured.",
              ...json(z.object({ statusCode: z.literal(404), message: z.string(), error: z.literal("Not Found") })),
            },
            "502": codeError(502, ["participant_lookup_failed"], "The lookup could not be made (timeout, SML or SMP unreachable, an SMP answer that is not signed or not trusted); try again later."),
          }),
        },
      },
      "/v1/openapi.json": {
        get: {
          operationId: "getOpenApiDocument",
          summary: "This document",
          security: [],
          responses: { "200": { description: "The OpenAPI document.", content: { "application/json": { schema: z.object({}).loose() } } } },
        },
      },
      "/admin/companies/{companyId}": {
        get: {
          operationId: "adminGetCompany",
          summary: "Operators: read a company",
          security: [{ adminToken: [] }],
          requestParams: pathId("companyId", "The company's id."),
          responses: responses({
            "200": { description: "The company.", ...json(data(CompanySchema)) },
            ...r400,
            ...adminR401,
            "404": codeError(404, ["company_not_found"], "No such company."),
          }),
        },
        patch: {
          operationId: "adminUpdateCompany",
          summary: "Operators: change a company's eligibility and access-point settings",
          security: [{ adminToken: [] }],
          requestParams: pathId("companyId", "The company's id."),
          requestBody: { required: true, ...json(CompanyPatchSchema) },
          responses: responses({
            "200": { description: "The updated company.", ...json(data(CompanySchema)) },
            ...r400,
            ...adminR401,
            "404": codeError(404, ["company_not_found"], "No such company."),
            ...r413,
          }),
        },
      },
      "/health": {
        get: {
          operationId: "health",
          summary: "Liveness of the example server",
          security: [],
          responses: { "200": { description: "Takes requests.", ...json(z.object({ status: z.literal("ok") })) } },
        },
      },
    },
  });
  return cached;
}
