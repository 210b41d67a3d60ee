// The operators' side of receiving (/admin/inbound/..., /admin/companies/{id}/ksef/backfill): the documents that
// belong to no company, the sources' sync rows, and a KSeF backfill. Mounted by the /admin router when its store
// keeps an inbox (`InboxStore`); the operators' token is checked before any of them.
import {
  ApiError,
  isStoreUnavailable,
  isUuid,
  parseWith,
  quoteId,
  ListClientsQuerySchema,
  BAD_CURSOR,
  badRequest,
  type BackfillRequest,
  type CoreOptions,
  type InboundSync,
  type InboxStore,
  type Keyset,
  type Store,
  type UnmatchedDocument,
} from "@einvoice/core";
import { z } from "zod";
import { MediaAnswer, type Route } from "./route.js";
import { RECEIVED_BYTES_HEADERS } from "./v1.js";
import { data, page } from "./schemas.js";

export interface InboundAdminDeps {
  store: Store & InboxStore;
  options: CoreOptions;
}

/** A store call with the core's guard: an outage is `storage_unavailable` (503), any other failure one logged 500. */
async function stored<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof ApiError) throw e;
    if (isStoreUnavailable(e)) throw new ApiError("storage_unavailable", "The storage cannot be reached right now: retry in a few seconds.", { cause: e });
    throw new ApiError("internal_error", `The store failed during ${what}.`, { cause: e });
  }
}

const now = (options: CoreOptions) => (options.clock ? options.clock() : new Date()).toISOString();
const newId = (options: CoreOptions) => (options.newId ? options.newId() : crypto.randomUUID()).toLowerCase();

// ---------- cursors of the operator's lists ----------

const ISO = /^(?!0000)\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** An opaque cursor of the unmatched list (its own kind letter: another list's cursor is refused). */
export function encodeUnmatchedCursor(k: Keyset): string {
  return Buffer.from(JSON.stringify(["u", k.at, k.id])).toString("base64url");
}

export function decodeUnmatchedCursor(cursor: string): Keyset {
  try {
    if (/^[A-Za-z0-9_-]+$/.test(cursor)) {
      const v: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
      if (Array.isArray(v) && v.length === 3 && v[0] === "u" && typeof v[1] === "string" && ISO.test(v[1]) && new Date(v[1]).toISOString() === v[1] && typeof v[2] === "string" && isUuid(v[2])) {
        return { at: v[1], id: v[2].toLowerCase() };
      }
    }
  } catch {
    // fall through
  }
  throw badRequest([BAD_CURSOR]);
}

// ---------- schemas ----------

const timestamp = z.string().meta({ format: "date-time" });

const NetworkReferenceSchema = z.union([z.strictObject({ ksefNumber: z.string() }), z.strictObject({ storecoveGuid: z.string() }), z.strictObject({ submissionId: z.string() })]);

export const UnmatchedDocumentSchema = z
  .object({
    id: z.uuid(),
    network: z.enum(["peppol", "ksef"]),
    networkReference: NetworkReferenceSchema.meta({ description: "The network's reference of the document (`{storecoveGuid}` for Peppol through Storecove): receiving it again adds nothing." }),
    legalEntityId: z.string().nullable().meta({ description: "The network's id of whom it was for (Storecove's legal entity id), when it gave one: give a company this `legalEntityId` (PATCH /admin/companies/{id}) to receive what comes next for it." }),
    reason: z.string().meta({ description: "Why it belongs to no company." }),
    receivedAt: timestamp,
    mediaType: z.string().meta({ description: "The media type of the bytes as received." }),
    sha256: z.string().meta({ description: "SHA-256 of the bytes as received, hex." }),
    size: z.number().int().meta({ description: "Bytes as received." }),
  })
  .meta({ id: "UnmatchedDocument", description: "A received document that belongs to no company of this server, kept for the operator with its bytes." });

/** A name that hints at a secret: such a field of a source's mark (and all under it) is never shown. */
const SECRET_NAME = /key|secret|token|passw|cipher|^iv$|nonce|auth|credential|session|signature/i;
/** The most fields of a mark shown. */
const MARK_FIELDS_MAX = 50;

/**
 * The fields of a source's mark an operator may see: its scalars down to two levels as dotted paths (`inc.from`),
 * arrays as their length (`inc.seen.count`); none under a name that hints at a secret, no text over 200 characters.
 */
export function markFields(mark: string): Record<string, string | number | boolean | null> {
  const out: Record<string, string | number | boolean | null> = {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(mark);
  } catch {
    return out;
  }
  const walk = (v: unknown, path: string[], depth: number) => {
    if (Object.keys(out).length >= MARK_FIELDS_MAX) return;
    const name = path.join(".");
    if (Array.isArray(v)) {
      if (path.length > 0) out[`${name}.count`] = v.length;
      return;
    }
    if (v !== null && typeof v === "object") {
      if (depth >= 2) return;
      for (const [k, child] of Object.entries(v)) {
        if (SECRET_NAME.test(k) || k.length > 100) continue;
        walk(child, [...path, k], depth + 1);
      }
      return;
    }
    if (path.length === 0) return;
    if (v === null || typeof v === "number" || typeof v === "boolean" || (typeof v === "string" && v.length <= 200)) out[name] = v;
  };
  walk(parsed, [], 0);
  return out;
}

export const InboundSyncSchema = z
  .object({
    source: z.string().meta({ description: "`ksef` (one row per company in PL with a KSeF credential) or `storecove` (one row, scope `*`, for the whole server)." }),
    scope: z.string().meta({ description: "The company's id, or `*` for a source serving the whole server." }),
    nextRunAt: timestamp.meta({ description: "When the sync is next due (at once after a backfill request or a graceful stop)." }),
    state: z
      .object({
        bytes: z.number().int().meta({ description: "Size of the saved mark in bytes." }),
        fields: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).meta({
          description:
            "The mark's fields when it is JSON, as dotted paths down to two levels (KSeF: `inc.from`, where its incremental sync goes on; `export.referenceNumber` while an export is prepared), arrays as their length (`inc.seen.count`). A field whose name hints at a secret (a key, an IV, a token, ...), everything under it, and any text longer than 200 characters are left out; at most 50 fields.",
          example: { v: 1, "inc.from": "2026-11-29T08:55:00.000Z", "inc.to": null, "inc.seen.count": 2, "backfills.count": 0, span: 7689600000 },
        }),
      })
      .nullable()
      .meta({ description: "A summary of the source's saved mark (null before its first checkpoint); never the secrets a mark could hold." }),
    requests: z
      .array(z.object({ id: z.uuid(), from: timestamp, to: timestamp, requestedAt: timestamp }))
      .meta({ description: "Backfills asked for and not yet taken by the source, oldest first." }),
    lease: z
      .object({
        owner: z.string().meta({ description: "The instance's poller running the sync (its owner name, as in the server's logs)." }),
        until: timestamp.meta({ description: "Until when its lease holds; a time in the past: the instance stopped without giving it back, and the next claim takes it over." }),
      })
      .nullable()
      .meta({ description: "Who runs the sync now (one instance at a time holds its lease); null when nobody does." }),
  })
  .meta({ id: "InboundSync", description: "One source's sync for one scope, as an operator sees it." });
export type InboundSyncView = z.infer<typeof InboundSyncSchema>;

/** An operator's view of a sync row: a summary of the mark, never the mark itself. */
export function inboundSyncView(row: InboundSync): InboundSyncView {
  const state: InboundSyncView["state"] = row.state === null ? null : { bytes: Buffer.byteLength(row.state, "utf8"), fields: markFields(row.state) };
  return {
    source: row.source,
    scope: row.scope,
    nextRunAt: row.nextRunAt,
    state,
    requests: row.requests.map(({ id, from, to, requestedAt }) => ({ id, from, to, requestedAt })),
    lease: row.lease ? { owner: row.lease.owner, until: row.lease.until } : null,
  };
}

/** The sources an operator can read the syncs of. */
export const INBOUND_SOURCES = ["ksef", "storecove"] as const;

export const ListInboundSyncsQuerySchema = z
  .strictObject({
    source: z
      .string({ error: (iss) => (Array.isArray(iss.input) ? "source must not be repeated" : "source must be a string") })
      .pipe(z.enum(INBOUND_SOURCES, { error: `source must be one of the following values: ${INBOUND_SOURCES.join(", ")}` }))
      .optional()
      .meta({ description: "Only this source's rows; absent: every source's.", override: { type: "string", enum: [...INBOUND_SOURCES] } }),
  })
  .meta({ id: "ListInboundSyncsQuery" });

/** The longest period one backfill request may cover. */
export const BACKFILL_MAX_DAYS = 366;
const DAY_MS = 86_400_000;

/** A date (its midnight UTC) or an ISO 8601 date-time with a time zone. */
function instant(name: string) {
  return z
    .string({ error: (iss) => (iss.input === undefined ? `${name} should not be empty` : `${name} must be a string`) })
    .refine(
      (v) => {
        if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v);
        return z.iso.datetime({ offset: true }).safeParse(v).success && !Number.isNaN(Date.parse(v)) && Date.parse(v) >= Date.parse("2000-01-01T00:00:00Z");
      },
      { error: `${name} must be a date (YYYY-MM-DD, its midnight UTC) or an ISO 8601 date-time with a time zone (such as 2026-02-01T00:00:00+01:00), in 2000 or later` },
    )
    .transform((v) => new Date(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v).toISOString());
}

export const BackfillRequestSchema = z
  .strictObject(
    {
      from: instant("from").meta({ description: "Start of the period, inclusive: a date (its midnight UTC) or a date-time with a time zone.", example: "2026-02-01" }),
      to: instant("to").meta({ description: "End of the period, exclusive: a date (its midnight UTC) or a date-time with a time zone.", example: "2026-03-01" }),
    },
    { error: "body must be a JSON object" },
  )
  .refine((b) => b.from < b.to, { error: "from must be before to", path: ["to"] })
  .refine((b) => Date.parse(b.to) - Date.parse(b.from) <= BACKFILL_MAX_DAYS * DAY_MS, {
    error: `the period from .. to must be at most ${BACKFILL_MAX_DAYS} days long (ask for a longer one in several requests)`,
    path: ["to"],
  })
  .meta({ id: "BackfillRequest" });

export const BackfillAcceptedSchema = z
  .object({
    id: z.uuid(),
    source: z.literal("ksef"),
    companyId: z.uuid(),
    from: timestamp,
    to: timestamp,
    requestedAt: timestamp,
  })
  .meta({ id: "BackfillAccepted", description: "The backfill request as kept: the KSeF sync of the company takes it at its next run (due at once)." });

// ---------- routes ----------

const notFoundUnmatched = (id: string) => new ApiError("unmatched_document_not_found", `No document for no company with id ${quoteId(id)} (or its bytes were too large to keep).`);

export const INBOUND_ADMIN_ROUTES: readonly Route<InboundAdminDeps>[] = [
  {
    method: "get",
    path: "/inbound/unmatched",
    operationId: "adminListUnmatched",
    summary: "Operators: list the received documents that belong to no company, newest first",
    description:
      "A document the access point received for a Storecove legal entity that no company of this server has (`legalEntityId`) is kept here with its bytes (acknowledged to the network all the same, so that it does not block the queue behind it). Give the company that legal entity id to receive the next ones; the kept ones stay here. `/metrics` counts them (`einvoice_inbound_unmatched`). Keyset pagination as `GET /v1/clients`.",
    auth: "admin",
    query: ListClientsQuerySchema,
    success: { status: 200, description: "A page of documents for no company.", schema: page(UnmatchedDocumentSchema) },
    handle: async ({ deps, query }) => {
      const q = parseWith(ListClientsQuerySchema, query);
      const limit = q.limit ?? 20;
      const after = q.cursor === undefined ? null : decodeUnmatchedCursor(q.cursor);
      const rows = await stored("listUnmatched", () => deps.store.listUnmatched({ limit: limit + 1, after }));
      const shown = rows.slice(0, limit);
      const last = shown[shown.length - 1];
      return {
        data: shown.map((d: UnmatchedDocument) => ({
          id: d.id,
          network: d.network,
          networkReference: { ...d.networkReference },
          legalEntityId: d.legalEntityId,
          reason: d.reason,
          receivedAt: d.receivedAt,
          mediaType: d.mediaType,
          sha256: d.sha256,
          size: d.size,
        })),
        nextCursor: rows.length > limit && last ? encodeUnmatchedCursor({ at: last.receivedAt, id: last.id }) : null,
      };
    },
  },
  {
    method: "get",
    path: "/inbound/unmatched/{id}/document",
    operationId: "adminGetUnmatchedDocument",
    summary: "Operators: the bytes of a document for no company, exactly as received",
    description:
      "`application/xml` when the bytes are XML, `application/pdf` for a PDF, `application/json` for a JSON object (a queue item that was not a document, kept as it came), `application/octet-stream` otherwise: told from the bytes, which are untrusted (served with `Content-Security-Policy: default-src 'none'; sandbox` and `X-Content-Type-Options: nosniff`: nothing in them runs).",
    auth: "admin",
    params: { id: "The document's id (GET /admin/inbound/unmatched)." },
    success: {
      status: 200,
      description: "The document as received.",
      mediaType: "application/xml",
      schema: z.string().meta({ description: "The XML as received." }),
      alternatives: {
        "application/pdf": z.string().meta({ format: "binary", description: "A PDF as received." }),
        "application/json": z.string().meta({ description: "A JSON object as received (a queue item that was not a document)." }),
        "application/octet-stream": z.string().meta({ format: "binary", description: "Bytes that are neither XML, PDF nor JSON, as received." }),
      },
    },
    errors: [{ codes: ["unmatched_document_not_found"], description: "No such document for no company, or its bytes were not kept (larger than 10 MiB)." }],
    handle: async ({ deps, params }) => {
      const id = params.id!;
      if (!isUuid(id)) throw notFoundUnmatched(id);
      const bytes = await stored("getUnmatchedContent", () => deps.store.getUnmatchedContent(id.toLowerCase()));
      if (!bytes) throw notFoundUnmatched(id);
      const content = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      return new MediaAnswer(sniffMediaType(content), content, RECEIVED_BYTES_HEADERS);
    },
  },
  {
    method: "get",
    path: "/inbound/syncs",
    operationId: "adminListInboundSyncs",
    summary: "Operators: the receiving syncs (KSeF per company, Storecove's queue), with their marks and pending backfills",
    description:
      "One row per source and scope: when it is due next, a summary of its saved mark (never a secret), and the backfills waiting for it. A KSeF row exists for each company in PL with a KSeF credential once the server's poller has seen it. `lease` names the instance running a sync now and until when its lease holds.",
    auth: "admin",
    query: ListInboundSyncsQuerySchema,
    success: { status: 200, description: "The sync rows, by source, then scope.", schema: data(z.array(InboundSyncSchema)) },
    handle: async ({ deps, query }) => {
      const q = parseWith(ListInboundSyncsQuerySchema, query);
      const sources = q.source ? [q.source] : [...INBOUND_SOURCES];
      const rows: InboundSyncView[] = [];
      for (const source of sources) {
        const found = await stored("listInboundSyncs", () => deps.store.listInboundSyncs(source));
        rows.push(...[...found].sort((a, b) => (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0)).map(inboundSyncView));
      }
      return { data: rows };
    },
  },
  {
    method: "post",
    path: "/companies/{companyId}/ksef/backfill",
    operationId: "adminRequestKsefBackfill",
    summary: "Operators: receive a company's KSeF invoices of a period again",
    description: `Asks the company's KSeF sync to fetch the invoices in which the company is the buyer whose permanent-storage date is in [from, to), at its next run (made due at once), besides its incremental sync. What was received before is not received twice (deduplicated by KSeF number). At most ${BACKFILL_MAX_DAYS} days a request. The company must be in PL with a KSeF credential; a server without KSeF receiving (KSEF_URL) keeps the request until one runs.`,
    auth: "admin",
    params: { companyId: "The company's id." },
    body: { kind: "json", schema: BackfillRequestSchema, examples: { february: { summary: "February 2026", value: { from: "2026-02-01", to: "2026-03-01" } } } },
    success: { status: 202, description: "Accepted: the request is kept and the sync is due at once.", schema: data(BackfillAcceptedSchema) },
    errors: [
      { codes: ["company_not_found"], description: "No such company." },
      { codes: ["ksef_not_configured"], description: "The company is not in PL or has no KSeF credential (PATCH /admin/companies/{id} with `ksef`): KSeF holds nothing this server can fetch for it." },
    ],
    handle: async ({ deps, params, body }) => {
      const companyId = params.companyId!;
      const b = parseWith(BackfillRequestSchema, body);
      const company = isUuid(companyId) ? await stored("getCompany", () => deps.store.getCompany(companyId.toLowerCase())) : null;
      if (!company) throw new ApiError("company_not_found", `No company with id ${quoteId(companyId)}.`);
      if (company.country !== "PL" || !company.ksef) {
        throw new ApiError(
          "ksef_not_configured",
          company.country !== "PL"
            ? `Company ${company.id} is in ${company.country}, not PL: it receives no invoices through KSeF.`
            : `Company ${company.id} has no KSeF credential: set one (PATCH /admin/companies/${company.id} with ksef: {nip, token}) before asking for a backfill.`,
        );
      }
      const request: BackfillRequest = { id: newId(deps.options), from: b.from, to: b.to, requestedAt: now(deps.options) };
      await stored("requestBackfill", () => deps.store.requestBackfill({ source: "ksef", scope: company.id, request }));
      return { data: { id: request.id, source: "ksef" as const, companyId: company.id, from: request.from, to: request.to, requestedAt: request.requestedAt } };
    },
  },
];

/** The media type of untrusted bytes, told from their start: a PDF, XML or a JSON object (a BOM and blanks allowed), or none of them. */
export function sniffMediaType(bytes: Uint8Array): string {
  let i = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3;
  if (bytes[i] === 0x25 && bytes[i + 1] === 0x50 && bytes[i + 2] === 0x44 && bytes[i + 3] === 0x46) return "application/pdf";
  while (i < bytes.length && i < 1024 && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i++;
  if (bytes[i] === 0x3c) return "application/xml";
  // A queue item that was not a document (kept as its JSON body, with why).
  if (bytes[i] === 0x7b) return "application/json";
  return "application/octet-stream";
}
