// The zod schemas: the single source for request validation, the TypeScript types and the API description.
import { z } from "zod";
import { isIsoCountry } from "./countries.js";
import { dayExists } from "./dates.js";
import { normaliseNip } from "./nip.js";
import { badRequest, type ApiError } from "./errors.js";
import { dataIssueMessage, dataIssueMessages, InvoiceDataSchema, UNPAIRED_SURROGATE, type InvoiceDataInput } from "./invoice-data.js";
import { type TargetNetwork, DIRECTIONS, DOCUMENT_KINDS, INVOICE_STATUSES, NETWORKS, SUBSCRIPTIONS, TARGET_NETWORKS, WEBHOOK_EVENT_TYPES } from "./types.js";

const oneOf = (name: string, values: readonly string[]) => `${name} must be one of the following values: ${values.join(", ")}`;
const mustBeString = (name: string) => ({
  error: (iss: { input?: unknown }) => (iss.input === undefined ? `${name} should not be empty` : `${name} must be a string`),
});
const notObject = { error: "body must be a JSON object" };

// ---------- requests ----------

const targetNetworkField = z
  .enum(TARGET_NETWORKS, { error: oneOf("targetNetwork", TARGET_NETWORKS) })
  .default("auto")
  .meta({ description: "`auto` (default): the issuer decides, a company in PL issues through KSeF, every other company sends through Peppol, whatever the recipient. `peppol` (companies in NL, BE, DE) and `ksef` (companies in PL): as asked." });
const xmlField = z
  .string(mustBeString("xml"))
  .min(1, { error: "xml should not be empty" })
  .meta({ description: "The UBL document, base64. Exactly one of `xml`, `document` and the document as data." });
const documentField = z
  .string(mustBeString("document"))
  .min(1, { error: "document should not be empty" })
  .meta({
    description:
      "The document, base64, in any syntax einvoice reads, told apart by its content: a UBL Invoice or CreditNote, a UN/CEFACT CII CrossIndustryInvoice (EN 16931, XRechnung, Factur-X / ZUGFeRD 2.x XML), or a Factur-X / ZUGFeRD PDF (the invoice XML attached to it is read). Exactly one of `xml`, `document` and the document as data.",
  });

/** The names of a body's document fields: exactly one of them is given. */
const documentKeys = (key: string) => `xml, document or ${key}`;

/** A body with the document as `xml` (UBL, base64), `document` (any syntax, base64) or as data under `key`: exactly one of them. */
function documentBody<K extends "invoice" | "creditNote">(key: K, extra: { targetNetwork?: typeof targetNetworkField }) {
  const shape = { xml: xmlField.optional(), document: documentField.optional(), [key]: InvoiceDataSchema.optional(), ...extra } as {
    xml: z.ZodOptional<typeof xmlField>;
    document: z.ZodOptional<typeof documentField>;
    targetNetwork: typeof targetNetworkField;
  } & Record<K, z.ZodOptional<typeof InvoiceDataSchema>>;
  return z.strictObject(shape, notObject).superRefine((body, ctx) => {
    const b = body as Record<string, unknown>;
    const given = [b["xml"], b["document"], b[key]].filter((v) => v !== undefined).length;
    if (given === 0) ctx.addIssue({ code: "custom", path: ["xml"], message: "xml should not be empty" });
    if (given > 1) ctx.addIssue({ code: "custom", path: [], message: `give exactly one of ${documentKeys(key)}` });
  }, ANY_OBJECT);
}

/**
 * Which document fields a body gives is checked even when a field itself is bad (zod skips a refinement
 * after another issue by default): a body with both `xml` and a malformed `invoice` is told it gives both.
 */
const ANY_OBJECT = { when: (payload: { value: unknown }) => typeof payload.value === "object" && payload.value !== null && !Array.isArray(payload.value) };

/** Body of `POST /v1/peppol/invoice`: the UBL as `xml` (base64), any syntax as `document` (base64), or the invoice as data (`invoice`). */
export const InvoiceRequestSchema = documentBody("invoice", { targetNetwork: targetNetworkField }).meta({ id: "InvoiceRequest" });
/** Body of `POST /v1/peppol/credit-note`: the UBL as `xml` (base64), any syntax as `document`, or the credit note as data (`creditNote`). */
export const CreditNoteRequestSchema = documentBody("creditNote", { targetNetwork: targetNetworkField }).meta({ id: "CreditNoteRequest" });

/**
 * What `submitInvoice` takes: the UBL (`xml`, base64), a document in any syntax (`document`, base64: UBL, CII or a
 * Factur-X PDF) or the invoice as data (`invoice`), exactly one, and the target network. A misspelt key is a compile error.
 */
export type InvoiceRequest = { targetNetwork?: TargetNetwork } & (
  | { xml: string; document?: never; invoice?: never }
  | { document: string; xml?: never; invoice?: never }
  | { invoice: InvoiceDataInput; xml?: never; document?: never }
);
/** What `submitCreditNote` takes: `xml`, `document` or `creditNote` (the credit note as data), and the target network. */
export type CreditNoteRequest = { targetNetwork?: TargetNetwork } & (
  | { xml: string; document?: never; creditNote?: never }
  | { document: string; xml?: never; creditNote?: never }
  | { creditNote: InvoiceDataInput; xml?: never; document?: never }
);

/** The body of POST /v1/validate: the document, base64-encoded, as in a submit (`xml` UBL, `document` any syntax), or an invoice or credit note as data. */
export const ValidateRequestSchema = z
  .strictObject({ xml: xmlField.optional(), document: documentField.optional(), invoice: InvoiceDataSchema.optional(), creditNote: InvoiceDataSchema.optional() }, notObject)
  .superRefine((b, ctx) => {
    const given = [b.xml, b.document, b.invoice, b.creditNote].filter((v) => v !== undefined).length;
    if (given === 0) ctx.addIssue({ code: "custom", path: ["xml"], message: "xml should not be empty" });
    if (given > 1) ctx.addIssue({ code: "custom", path: [], message: "give exactly one of xml, document, invoice and creditNote" });
  }, ANY_OBJECT)
  .meta({ id: "ValidateRequest" });
export type ValidateRequest = { xml: string } | { document: string } | { invoice: InvoiceDataInput } | { creditNote: InvoiceDataInput };

/**
 * `parseWith` for a body that may hold an InvoiceData: the messages of its fields start with their
 * JSON pointer in the body (`/invoice/lines/0/vat/rate: is required for category S`).
 */
export function parseDocumentBody<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  // A body that passes is parsed without the error map: zod is then several times faster (0.2 to 0.9 µs
  // against 2 to 5 for a submit body, docs/performance.md), and an error map changes messages, never
  // the verdict. Only a body that fails is parsed again with it, for the messages.
  const passed = schema.safeParse(input);
  if (passed.success) return passed.data;
  const result = schema.safeParse(input, { error: dataIssueMessage });
  if (result.success) return result.data;
  const isData = (i: z.core.$ZodIssue) => i.path[0] === "invoice" || i.path[0] === "creditNote";
  const data = result.error.issues.filter(isData);
  const rest = result.error.issues.filter((i) => !isData(i));
  throw badRequest([...new Set([...(rest.length > 0 ? validationError(new z.ZodError(rest)).details! : []), ...dataIssueMessages(data)])]);
}

/** Text without C0 control characters or DEL: what a name or an identifier a person typed may hold (a database refuses NUL in text). */
const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f]*$/;

const country = (name: string) =>
  z
    .string({ error: `${name} must be a valid ISO31661 Alpha2 code` })
    .refine(isIsoCountry, { error: `${name} must be a valid ISO31661 Alpha2 code (two upper-case letters, such as NL)` });

/** Body of `POST /v1/accounts`. */
export const AccountRequestSchema = z
  .strictObject(
    {
      email: z
        .string({ error: "email must be an email" })
        .max(254, { error: "email must be shorter than or equal to 254 characters" })
        .pipe(z.email({ error: "email must be an email" })),
      companyName: z
        .string(mustBeString("companyName"))
        .trim()
        .min(1, { error: "companyName should not be empty" })
        .max(200, { error: "companyName must be shorter than or equal to 200 characters" })
        .regex(NO_CONTROL_CHARACTERS, { error: "companyName must not contain control characters (line breaks, tabs, NUL)" })
        .refine((v) => !UNPAIRED_SURROGATE.test(v), { error: "companyName must be valid Unicode text: it holds half of a character (an unpaired surrogate such as \\ud800)" }),
      country: country("country"),
    },
    notObject,
  )
  .meta({ id: "AccountRequest" });
export type AccountRequest = z.input<typeof AccountRequestSchema>;

/** The longest KSeF token taken (KSeF's own are about 100 characters). */
export const KSEF_TOKEN_MAX_LENGTH = 1000;

/** `ksef` of a company patch: who the company is to KSeF and its token. No message quotes the token. */
const KsefCredentialsPatchSchema = z
  .strictObject(
    {
      nip: z
        .string({ error: "ksef.nip must be a string" })
        .transform((v, ctx) => {
          const nip = normaliseNip(v);
          if (nip === null) {
            ctx.addIssue({ code: "custom", message: "ksef.nip must be a Polish NIP: 10 digits with a valid check digit (a PL prefix, spaces and dashes are allowed)" });
            return z.NEVER;
          }
          return nip;
        })
        .meta({ description: "The company's NIP: 10 digits with a valid check digit; a `PL` prefix, spaces and dashes are removed.", example: "5260250995" }),
      token: z
        .string({ error: "ksef.token must be a string" })
        .trim()
        .min(1, { error: "ksef.token should not be empty" })
        .max(KSEF_TOKEN_MAX_LENGTH, { error: `ksef.token must be shorter than or equal to ${KSEF_TOKEN_MAX_LENGTH} characters` })
        .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), { error: "ksef.token must not contain control characters (line breaks, tabs)" })
        .meta({ description: "The company's KSeF token (generated in KSeF with the right to send invoices); surrounding whitespace is removed. Stored encrypted, never returned." }),
    },
    { error: "ksef must be an object with nip and token, or null" },
  )
  .nullable()
  .meta({ description: "The company's KSeF credential, used when the deployment delivers to KSeF directly; null removes it." });

/** Body of `PATCH /admin/companies/{companyId}`: any subset of the operator-controlled fields. */
export const CompanyPatchSchema = z
  .strictObject(
    {
      enterprise: z.boolean({ error: "enterprise must be a boolean value" }).optional(),
      subscription: z.enum(SUBSCRIPTIONS, { error: oneOf("subscription", SUBSCRIPTIONS) }).optional(),
      country: country("country").optional(),
      legalEntityId: z
        .string({ error: "legalEntityId must be a string or null" })
        .trim()
        .min(1, { error: "legalEntityId should not be empty (use null to clear it)" })
        .max(100, { error: "legalEntityId must be shorter than or equal to 100 characters" })
        .regex(NO_CONTROL_CHARACTERS, { error: "legalEntityId must not contain control characters (line breaks, tabs, NUL)" })
        .refine((v) => !UNPAIRED_SURROGATE.test(v), { error: "legalEntityId must be valid Unicode text: it holds half of a character (an unpaired surrogate such as \\ud800)" })
        .nullable()
        .optional(),
      peppolSendingEnabled: z.boolean({ error: "peppolSendingEnabled must be a boolean value" }).optional(),
      ksef: KsefCredentialsPatchSchema.optional(),
      participantIds: z
        .array(
          z
            .string({ error: "participantIds must hold strings such as \"0106:12345678\"" })
            .regex(/^[0-9]{4}:[^\s:][^\s]{0,134}$/, { error: "each of participantIds must be `scheme:value`: a four-digit ICD scheme, a colon and the identifier, such as 0106:12345678" }),
          { error: "participantIds must be an array of `scheme:value` strings" },
        )
        .max(20, { error: "participantIds must hold at most 20 identifiers" })
        .optional(),
    },
    notObject,
  )
  .meta({ id: "CompanyPatch" });
export type CompanyPatch = z.output<typeof CompanyPatchSchema>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(s: string): boolean {
  return UUID.test(s);
}

/**
 * A query parameter given once; a repeated one arrives as an array and is refused. Numbers are
 * taken as their text, for library callers who pass `{ limit: 50 }`.
 */
function param<T extends z.ZodType<unknown, string>>(name: string, inner: T, doc: ParamDoc) {
  return z
    .preprocess(
      (v) => (typeof v === "number" && Number.isFinite(v) ? String(v) : v),
      z.string({ error: (iss) => (Array.isArray(iss.input) ? `${name} must not be repeated` : `${name} must be a string`) }),
    )
    .pipe(inner)
    .optional()
    .meta(doc);
}

/** How the OpenAPI document describes a query parameter (its JSON Schema, as a client sends it). */
type ParamDoc = {
  description: string;
  example?: string;
  /** The parameter's schema when it is more than a string (an integer, an enum). */
  override?: Record<string, unknown>;
};

const limit = param(
  "limit",
  z
    .string()
    .regex(/^-?[0-9]+$/, { error: "limit must be an integer number" })
    .transform(Number)
    .pipe(z.number().min(1, { error: "limit must not be less than 1" }).max(100, { error: "limit must not be greater than 100" })),
  { description: "Page size, 1 to 100 (default 20).", override: { type: "integer", minimum: 1, maximum: 100, default: 20 } },
);
/** The one message for any cursor this API did not make. */
export const BAD_CURSOR = "cursor must be a valid pagination cursor (pass nextCursor from the previous page unchanged)";
const cursor = param("cursor", z.string().min(1, { error: BAD_CURSOR }), { description: "The `nextCursor` of the previous page, unchanged." });

/** A query parameter matched exactly: non-empty text of at most `max` characters, without control characters. */
function exactText(name: string, max: number, doc: { description: string; example: string }) {
  const text = z
    .string()
    .min(1, { error: `${name} must not be empty` })
    .max(max, { error: `${name} must be at most ${max} characters` })
    .regex(/^[^\u0000-\u001f\u007f]*$/, { error: `${name} must not contain control characters` });
  return param(name, text, doc);
}

/**
 * True for a calendar date `YYYY-MM-DD` that exists, in the years 0001 to 9999 (what a database's date
 * holds; JavaScript's Date would take year 0 and roll 2026-02-30 over into March).
 */
function isCalendarDate(v: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) return false;
  const year = Number(m[1]);
  return year >= 1 && dayExists(year, Number(m[2]), Number(m[3]));
}

/** A calendar date `YYYY-MM-DD` that exists (years 0001 to 9999). */
function dateParam(name: string, description: string) {
  const date = z.string().refine(isCalendarDate, { error: `${name} must be a date that exists (YYYY-MM-DD, years 0001 to 9999)` });
  return param(name, date, { description, example: "2026-01-31" });
}

// The instants a time parameter may name: those whose UTC date is in the years 0001 to 9999 (as an ISO
// string, year 0 or a six-digit year is what PostgreSQL refuses).
const EARLIEST_TIME = Date.parse("0001-01-01T00:00:00Z");
const LATEST_TIME = Date.parse("9999-12-31T23:59:59.999Z");

/** An ISO 8601 date-time with a time zone (`Z` or `+01:00`), or a date (midnight UTC); its date must exist. */
function timeParam(name: string, description: string) {
  const time = z.string().refine(
    (v) => {
      if (!isCalendarDate(v.slice(0, 10))) return false;
      if (v.length !== 10 && !z.iso.datetime({ offset: true }).safeParse(v).success) return false;
      const t = Date.parse(v.length === 10 ? `${v}T00:00:00Z` : v);
      return t >= EARLIEST_TIME && t <= LATEST_TIME;
    },
    { error: `${name} must be an ISO 8601 date-time with a time zone (such as 2026-01-31T00:00:00Z) or a date (YYYY-MM-DD), on a date that exists in the years 0001 to 9999; in a URL, write the + of an offset as %2B` },
  );
  return param(name, time, { description, example: "2026-01-31T00:00:00Z" });
}

/** Query of `GET /v1/invoices`. */
export const ListInvoicesQuerySchema = z
  .strictObject({
    limit,
    cursor,
    status: param("status", z.enum(INVOICE_STATUSES, { error: oneOf("status", INVOICE_STATUSES) }), {
      description: "Only invoices in this status.",
      override: { type: "string", enum: [...INVOICE_STATUSES] },
    }),
    kind: param("kind", z.enum(DOCUMENT_KINDS, { error: oneOf("kind", DOCUMENT_KINDS) }), {
      description: "Only invoices (`invoice`) or only credit notes (`creditNote`).",
      override: { type: "string", enum: [...DOCUMENT_KINDS] },
    }),
    documentType: param("documentType", z.enum(DOCUMENT_KINDS, { error: oneOf("documentType", DOCUMENT_KINDS) }), {
      description: "Deprecated: the former name of `kind`, still accepted (given with `kind`, the two must agree).",
      override: { type: "string", enum: [...DOCUMENT_KINDS] },
    }),
    direction: param("direction", z.enum(DIRECTIONS, { error: oneOf("direction", DIRECTIONS) }), {
      description: "Only the company's submissions (`outbound`) or only the documents it received (`inbound`); absent: both.",
      override: { type: "string", enum: [...DIRECTIONS] },
    }),
    supplierId: param("supplierId", z.string().regex(UUID, { error: "supplierId must be a UUID" }), {
      description: "Only received documents of this supplier (GET /v1/suppliers).",
      example: "3f1c2a9e-7d7b-4f1e-9a53-2b8c1d0e4f6a",
    }),
    clientId: param("clientId", z.string().regex(UUID, { error: "clientId must be a UUID" }), {
      description: "Only invoices of this client.",
      example: "3f1c2a9e-7d7b-4f1e-9a53-2b8c1d0e4f6a",
    }),
    invoiceNumber: exactText("invoiceNumber", 200, {
      description: "Only invoices and credit notes with this number (BT-1), exactly (case and spaces count).",
      example: "FV/2026/11/001",
    }),
    ksefNumber: exactText("ksefNumber", 100, { description: "Only the invoice KSeF numbered so (`ksefNumber` of the record), exactly.", example: "5260250995-20261120-0100001AF629-AF" }),
    issueDateFrom: dateParam("issueDateFrom", "Only documents issued on or after this date (BT-2, `issueDate`); documents without one are left out."),
    issueDateTo: dateParam("issueDateTo", "Only documents issued on or before this date (BT-2, `issueDate`); documents without one are left out."),
    createdFrom: timeParam("createdFrom", "Only submissions created at or after this time (`createdAt`); a date means its midnight UTC."),
    createdTo: timeParam("createdTo", "Only submissions created before this time (`createdAt`, exclusive); a date means its midnight UTC."),
  })
  .meta({ id: "ListInvoicesQuery" });
export type ListInvoicesQuery = z.input<typeof ListInvoicesQuerySchema>;

/** Query of `GET /v1/clients`. */
export const ListClientsQuerySchema = z.strictObject({ limit, cursor }).meta({ id: "ListClientsQuery" });
export type ListClientsQuery = z.input<typeof ListClientsQuerySchema>;

/**
 * The forms @einvoice/render makes of an invoice (the core renders none of them): `html`, a printable page; `pdf`; and
 * `facturx`, a PDF/A-3 with the invoice's EN 16931 CII attached. One list for `GET /v1/invoices/{id}/document` and
 * `POST /v1/render`; a router serves each through a renderer of its own (express: `routes/render.ts`).
 */
export const RENDER_FORMATS = ["html", "pdf", "facturx"] as const;
export type RenderFormat = (typeof RENDER_FORMATS)[number];

/** The languages a rendered invoice is shown in (@einvoice/render's `LANGUAGES`). */
export const RENDER_LANGUAGES = ["en", "de", "nl", "fr", "pl"] as const;
export type RenderLanguage = (typeof RENDER_LANGUAGES)[number];

/** Whether a document format is one @einvoice/render makes. */
export function isRenderFormat(format: string | undefined): format is RenderFormat {
  return (RENDER_FORMATS as readonly string[]).includes(format ?? "");
}

/**
 * The forms `GET /v1/invoices/{id}/document` serves: the UBL as stored (what is sent on Peppol), the document as it
 * came in (`original`: a CII or PDF `document` as received), the invoice as EN 16931 CII, the FA(3) sent to KSeF, or
 * the invoice rendered for people (`RENDER_FORMATS`).
 */
export const DOCUMENT_FORMATS = ["ubl", "original", "cii", "fa3", ...RENDER_FORMATS] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

const langParam = param("lang", z.enum(RENDER_LANGUAGES, { error: oneOf("lang", RENDER_LANGUAGES) }), {
  description: "The language of a rendered invoice (`html`, `pdf`, `facturx`): its labels, dates and number formats. Default: the buyer's country's (DE, AT: de; NL, BE: nl; FR: fr; PL: pl), else en.",
  override: { type: "string", enum: [...RENDER_LANGUAGES] },
});

/** Query of `GET /v1/invoices/{id}/document`. */
export const DocumentQuerySchema = z
  .strictObject({
    format: param("format", z.enum(DOCUMENT_FORMATS, { error: oneOf("format", DOCUMENT_FORMATS) }), {
      description:
        "`ubl` (the default): the UBL stored at submission, what is sent (a CII or Factur-X `document` was converted to it). `original`: the document exactly as it was submitted (`application/xml`, or `application/pdf` for a Factur-X PDF; the UBL itself for `xml` and data). `cii`: the invoice as EN 16931 CII D16B, written from the stored UBL (`application/xml`). `fa3`: for an invoice delivered through KSeF, the FA(3) XML exactly as it was sent to KSeF (always `application/xml`, whatever `Accept` says). `html`: the invoice as a printable page for people (`text/html`, no script, served under a Content-Security-Policy that allows none), with the KSeF number and verification QR code of a KSeF invoice. `pdf`: the same as a PDF. `facturx`: a Factur-X PDF (PDF/A-3 with the EN 16931 CII attached).",
      override: { type: "string", enum: [...DOCUMENT_FORMATS] },
    }),
    lang: langParam,
  })
  .superRefine((q, ctx) => {
    if (q.lang !== undefined && !isRenderFormat(q.format)) ctx.addIssue({ code: "custom", path: ["lang"], message: `lang is only for format ${RENDER_FORMATS.join(", ")}` });
  })
  .meta({ id: "DocumentQuery" });

/** Body of `POST /v1/render`: the document as `xml` (UBL, base64), `document` (any syntax, base64) or as data, the format and the language. */
export const RenderRequestSchema = z
  .strictObject(
    {
      xml: xmlField.optional(),
      document: documentField.optional(),
      invoice: InvoiceDataSchema.optional(),
      creditNote: InvoiceDataSchema.optional(),
      format: z
        .enum(RENDER_FORMATS, { error: (iss) => (iss.input === undefined ? "format should not be empty" : oneOf("format", RENDER_FORMATS)) })
        .meta({ description: "`html`: a printable page (`text/html`); `pdf`: a PDF; `facturx`: a Factur-X PDF (PDF/A-3 with the EN 16931 CII attached)." }),
      lang: z
        .enum(RENDER_LANGUAGES, { error: oneOf("lang", RENDER_LANGUAGES) })
        .optional()
        .meta({ description: "Labels, dates and number formats. Default: the buyer's country's (DE, AT: de; NL, BE: nl; FR: fr; PL: pl), else en." }),
    },
    notObject,
  )
  .superRefine((b, ctx) => {
    const given = [b.xml, b.document, b.invoice, b.creditNote].filter((v) => v !== undefined).length;
    if (given === 0) ctx.addIssue({ code: "custom", path: ["xml"], message: "xml should not be empty" });
    if (given > 1) ctx.addIssue({ code: "custom", path: [], message: "give exactly one of xml, document, invoice and creditNote" });
  }, ANY_OBJECT)
  .meta({ id: "RenderRequest" });
export type RenderRequest = { format: RenderFormat; lang?: RenderLanguage } & (
  | { xml: string }
  | { document: string }
  | { invoice: InvoiceDataInput }
  | { creditNote: InvoiceDataInput }
);

/** Query of endpoints that take none. */
export const EmptyQuerySchema = z.strictObject({});

/** Body of endpoints that take none (`POST /v1/api-keys`): absent or `{}`. */
export const EmptyBodySchema = z.strictObject({}, notObject);

/** Body of `POST /v1/webhooks`. */
export const WebhookRequestSchema = z
  .strictObject(
    {
      url: z
        .string(mustBeString("url"))
        .min(1, { error: "url should not be empty" })
        .max(2048, { error: "url must be shorter than or equal to 2048 characters" }),
      events: z
        .array(z.enum(WEBHOOK_EVENT_TYPES, { error: oneOf("each value in events", WEBHOOK_EVENT_TYPES) }), { error: "events must be an array" })
        .min(1, { error: "events should not be empty" })
        .refine((a) => new Set(a).size === a.length, { error: "All events's elements must be unique" })
        .default(["invoice.status_changed"]),
    },
    notObject,
  )
  .meta({ id: "WebhookRequest" });
export type WebhookRequest = z.input<typeof WebhookRequestSchema>;

// ---------- responses ----------

const timestamp = z.string().meta({ format: "date-time" });
const decimal = z.string().nullable().meta({ description: "Decimal amount exactly as written in the XML." });

export const SubmissionSchema = z
  .object({
    submissionId: z.uuid(),
    success: z.boolean(),
    status: z.enum(["sending", "failed"]),
    errorMessage: z.string().optional(),
  })
  .meta({ id: "Submission" });
export type Submission = z.infer<typeof SubmissionSchema>;

export const PartySchema = z
  .object({
    name: z.string().nullable(),
    endpointId: z.string().nullable().meta({ description: "`scheme:value` of cbc:EndpointID." }),
    vatId: z.string().nullable(),
    country: z.string().nullable(),
  })
  .meta({ id: "Party" });

export const InvoiceEventSchema = z
  .object({ status: z.enum(INVOICE_STATUSES), at: timestamp, detail: z.string() })
  .meta({ id: "InvoiceEvent" });

/** One broken rule: the official rule id, what is wrong (naming the values), where (a path such as /Invoice/cac:InvoiceLine[3]/cbc:LineExtensionAmount). */
export const RuleFindingSchema = z
  .object({
    rule: z.string(),
    message: z.string().meta({ description: "What is wrong, naming the values (at most 1,000 characters: a longer one is cut and ends with '...')." }),
    location: z.string().meta({ description: "Where, such as /Invoice/cac:InvoiceLine[3]/cbc:LineExtensionAmount (at most 1,000 characters)." }),
    path: z
      .string()
      .optional()
      .meta({
        description:
          "For a document sent as data: the JSON pointer of the field behind the broken rule, in `invoice` or `creditNote`, such as `/lines/2/vat/rate` (\"\" for the whole document). For a CII document converted to UBL: the InvoiceData field behind it.",
      }),
    source: z
      .string()
      .optional()
      .meta({
        description:
          "For a CII document converted to Peppol BIS UBL (`document`): where the field behind the broken rule is in the CII as sent, such as `/rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeAgreement/ram:BuyerReference` (the rule's `location` is in the converted UBL).",
      }),
  })
  .meta({ id: "RuleFinding" });
/** One broken rule of a validation report, and how many times it is broken. */
export const RuleCountSchema = z
  .object({ rule: z.string(), flag: z.enum(["fatal", "warning"]), count: z.number().int().positive() })
  .meta({ id: "RuleCount" });
export const InvoiceSchema = z
  .object({
    id: z.uuid(),
    status: z.enum(INVOICE_STATUSES),
    targetNetwork: z.enum(TARGET_NETWORKS),
    network: z.enum(NETWORKS).nullable(),
    errorMessage: z.string().nullable(),
    kind: z
      .enum(DOCUMENT_KINDS)
      .meta({ description: "`invoice` for a UBL Invoice (POST /v1/peppol/invoice), `creditNote` for a UBL CreditNote (POST /v1/peppol/credit-note)." }),
    documentType: z
      .enum(DOCUMENT_KINDS)
      .meta({ description: "Deprecated: the same as `kind`, under its former name, kept for existing clients." }),
    billingReference: z
      .string()
      .nullable()
      .meta({ description: "BT-25: the number of the invoice this document corrects (cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID); null when absent." }),
    invoiceNumber: z.string().nullable(),
    issueDate: z.string().nullable(),
    dueDate: z.string().nullable(),
    currency: z.string().nullable(),
    totals: z.object({ taxExclusive: decimal, taxInclusive: decimal, payable: decimal }),
    supplier: PartySchema,
    recipient: PartySchema,
    clientId: z.uuid().nullable(),
    ksefNumber: z
      .string()
      .nullable()
      .meta({ description: "The KSeF number KSeF gave the invoice once it accepted it (network `ksef`); null before, and on Peppol.", example: "5260250995-20261120-0100001AF629-AF" }),
    verificationUrl: z.string().nullable().meta({
      description:
        "The KSeF verification link (KOD I) of an invoice delivered to KSeF: `{qr host}/invoice/{seller NIP}/{issue date DD-MM-YYYY}/{SHA-256 of the FA(3), base64url}`. It must be printed as a QR code on any visualisation of the invoice (GET /v1/invoices/{id}/evidence/qr). Null until delivered, and on Peppol.",
      example: "https://qr-test.ksef.mf.gov.pl/invoice/5260250995/20-11-2026/UtQp9Gpc51y-u3xApZjIjgkpZ01js-J8KflSPW8WzIE",
    }),
    sha256: z.string(),
    size: z.number().int(),
    createdAt: timestamp,
    updatedAt: timestamp,
    events: z.array(InvoiceEventSchema),
    warnings: z
      .array(RuleFindingSchema)
      .meta({ description: "The warning rules of the rule sets that apply (EN 16931, Peppol BIS Billing 3.0, a national CIUS) the document breaks (they never block a submission)." }),
    duplicateOf: z
      .uuid()
      .nullable()
      .meta({ description: "For a submission answered `failed` as a duplicate: the id of the earlier submission of the same document (same sha256; for a document sent as data, also the same kind and number, BT-1) that is not failed. Null otherwise." }),
    direction: z.enum(DIRECTIONS).meta({
      description: "`outbound`: a submission of the company (POST /v1/peppol/...); `inbound`: a document a network delivered to the company (KSeF, Peppol through the access point, or another company of this server in the sandbox). An inbound record's status is always `received`.",
    }),
    receivedAt: timestamp.nullable().meta({ description: "Inbound: when the service stored the document. Null on outbound records." }),
    syntax: z.enum(["ubl", "cii", "pdf", "fa3", "unknown"]).nullable().meta({
      description:
        "The syntax of the document as submitted or received: `ubl`, `cii`, `pdf` (Factur-X / ZUGFeRD), `fa3` (KSeF's FA(3)); `unknown` for a received document that could not be read (not XML, not an invoice). Null on outbound records submitted before it was kept.",
    }),
    valid: z.boolean().nullable().meta({
      description: "Inbound: whether the document passed the rules that apply to it (false when it could not be read; it is stored all the same). Null on outbound records (an accepted submission passed them).",
    }),
    errors: z.array(RuleFindingSchema).max(100).meta({
      description: "Inbound: the fatal rules the received document breaks, or why it could not be read, at most 100. Empty on outbound records.",
    }),
    networkReference: z
      .union([
        z.strictObject({ ksefNumber: z.string() }),
        z.strictObject({ storecoveGuid: z.string() }),
        z.strictObject({ submissionId: z.uuid() }),
      ])
      .nullable()
      .meta({
        description:
          "Inbound: the network's reference of the document, by which receiving it again adds nothing: `{ksefNumber}` (KSeF), `{storecoveGuid}` (Peppol through Storecove), `{submissionId}` (the sender's submission, in the sandbox). Null on outbound records.",
      }),
    supplierId: z.uuid().nullable().meta({ description: "Inbound: the supplier (GET /v1/suppliers) who sent it; null when the document names no seller identifier. Null on outbound records." }),
  })
  .meta({ id: "Invoice" });
export type Invoice = z.infer<typeof InvoiceSchema>;

/** The proof of an invoice's delivery, as the network gave it (GET /v1/invoices/{id}/evidence). */
export const DeliveryEvidenceSchema = z
  .object({
    invoiceId: z.uuid(),
    network: z.enum(NETWORKS).meta({ description: "The network that delivered the invoice." }),
    kind: z.string().meta({
      description: "What the evidence is: `ksef-upo` (KSeF's official receipt, UPO), `storecove` (the access point's evidence of the Peppol transmission), `sandbox` (synthetic: nothing was sent), or another network's name.",
      example: "sandbox",
    }),
    mediaType: z.string().meta({ description: "The media type of `content`, such as `application/xml` or `application/json`.", example: "application/json" }),
    content: z.string().meta({ description: "The evidence document as the network gave it, as text (at most 1 MiB of UTF-8)." }),
    reference: z.string().nullable().meta({ description: "The network's reference of the delivered document, such as the KSeF number; null when it gives none." }),
    documentHash: z.string().nullable().meta({ description: "The hash of the delivered document as the network states it (the sandbox: SHA-256, hex); null when it states none." }),
    verificationUrl: z.string().nullable().meta({ description: "For KSeF: the invoice's verification link (KOD I), as on the invoice record; null otherwise." }),
    deliveredAt: timestamp.meta({ description: "When the delivery was recorded (the invoice's delivered event)." }),
  })
  .meta({ id: "DeliveryEvidence" });
export type DeliveryEvidenceView = z.infer<typeof DeliveryEvidenceSchema>;

export const ClientSchema = z
  .object({
    id: z.uuid(),
    name: z.string().nullable(),
    endpointId: z.string(),
    vatId: z.string().nullable(),
    country: z.string().nullable(),
    invoiceCount: z.number().int(),
    firstInvoiceAt: timestamp,
    lastInvoiceAt: timestamp,
  })
  .meta({ id: "Client" });
export type Client = z.infer<typeof ClientSchema>;

export const CompanySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    country: z.string().meta({ description: "ISO 3166-1 alpha-2, upper case." }),
    enterprise: z.boolean(),
    subscription: z.enum(SUBSCRIPTIONS),
    legalEntityId: z.string().nullable().meta({ description: "The company's legal entity id at the access point; null until an operator registers one." }),
    peppolSendingEnabled: z.boolean(),
    participantIds: z.array(z.string()).meta({
      description:
        "The Peppol participant identifiers (`scheme:value`) on which the company receives in the sandbox, set by an operator (PATCH /admin/companies/{id}), lower-cased values, sorted; empty when none.",
      example: ["0106:12345678"],
    }),
    ksef: z
      .object({
        nip: z.string().meta({ description: "The company's NIP (10 digits)." }),
        tokenSet: z.literal(true).meta({ description: "A KSeF token is stored (encrypted; it is never returned)." }),
        updatedAt: timestamp,
      })
      .nullable()
      .meta({ description: "The company's KSeF credential as set by an operator (never the token); null when none is set." }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: "Company" });
export type CompanyView = z.infer<typeof CompanySchema>;

export const AccountCreatedSchema = z
  .object({ accountId: z.uuid(), companyId: z.uuid(), apiKey: z.string() })
  .meta({ id: "AccountCreated" });
export type AccountCreated = z.infer<typeof AccountCreatedSchema>;

const keyName = z.string().meta({ description: "The company's label for the key (POST /v1/api-keys `name`); null when it has none." }).nullable();
export const ApiKeySchema = z
  .object({ id: z.uuid(), name: keyName, prefix: z.string(), createdAt: timestamp, lastUsedAt: timestamp.nullable() })
  .meta({ id: "ApiKey" });
export type ApiKeyView = z.infer<typeof ApiKeySchema>;

export const ApiKeyCreatedSchema = z
  .object({ id: z.uuid(), name: keyName, apiKey: z.string(), prefix: z.string(), createdAt: timestamp })
  .meta({ id: "ApiKeyCreated" });

/** Body of `POST /v1/api-keys`: absent, `{}`, or a `name`. */
export const ApiKeyRequestSchema = z
  .strictObject(
    {
      name: z
        .string({ error: "name must be a string" })
        .trim()
        .min(1, { error: "name should not be empty" })
        .max(100, { error: "name must be at most 100 characters" })
        .regex(/^[^\u0000-\u001f\u007f]*$/, { error: "name must not contain control characters" })
        .refine((v) => !UNPAIRED_SURROGATE.test(v), { error: "name must be valid Unicode text: it holds half of a character (an unpaired surrogate such as \\ud800)" })
        .optional()
        .meta({ description: "A label for the key, shown in GET /v1/api-keys (such as `ERP production`): 1 to 100 characters.", example: "ERP production" }),
    },
    notObject,
  )
  .meta({ id: "ApiKeyRequest" });
export type ApiKeyCreated = z.infer<typeof ApiKeyCreatedSchema>;

// ---------- error bodies (the HTTP layer's `toHttp` writes them; see ERROR_STATUS) ----------

/** The body of every error code but `bad_request`, `payload_too_large` and `internal_error`. */
export const CodeErrorSchema = z
  .object({
    code: z.string(),
    message: z.string(),
    /** Only on a 422 invalid_ubl_xml for broken rules: each broken fatal rule, at most 100. */
    errors: z.array(RuleFindingSchema).max(100).optional(),
  })
  .meta({ id: "CodeError" });
/** What POST /v1/validate answers in `data` (and validateInvoice returns). */
export const ValidationReportSchema = z
  .object({
    valid: z.boolean(),
    syntax: z.enum(["ubl", "cii", "pdf"]).meta({
      description:
        "The syntax of the document sent: `ubl` (OASIS UBL 2.1), `cii` (UN/CEFACT CII D16B), or `pdf` for a Factur-X / ZUGFeRD PDF, whose attached invoice (`attachment`) was read and judged. The rules that ran are those of the XML's own syntax (`ruleSets`).",
    }),
    rootElement: z
      .enum(["Invoice", "CreditNote", "CrossIndustryInvoice"])
      .meta({ description: "The root element of the XML judged: a UBL `Invoice` or `CreditNote`, or a CII `CrossIndustryInvoice`." }),
    documentType: z.enum(["Invoice", "CreditNote", "CrossIndustryInvoice"]).meta({ description: "Deprecated: the same as `rootElement`, under its former name, kept for existing clients." }),
    customizationId: z.string().nullable().meta({ description: "The specification identifier (BT-24): UBL's cbc:CustomizationID, CII's guideline id (GuidelineSpecifiedDocumentContextParameter/ID)." }),
    ruleSets: z.array(z.string()),
    errors: z.array(RuleFindingSchema).meta({ description: "The broken fatal rules, in the order the rule sets report them: the first 100 (see `truncated`)." }),
    warnings: z.array(RuleFindingSchema).meta({ description: "The broken warning rules: the first 100." }),
    errorCount: z.number().int().nonnegative().meta({ description: "How many fatal findings there are in all." }),
    warningCount: z.number().int().nonnegative().meta({ description: "How many warnings there are in all." }),
    ruleCounts: z
      .array(RuleCountSchema)
      .meta({ description: "Every broken rule, with its flag and how many times it is broken, in the order first reported (all of them, also past the first 100 findings)." }),
    truncated: z.boolean().meta({ description: "True when `errors` or `warnings` lists fewer items than `errorCount` or `warningCount`." }),
    document: z.string().optional().meta({ description: "For `invoice` or `creditNote` (data): the UBL document built from it, base64 (a preview of what a submit would send)." }),
    attachment: z
      .object({
        name: z.string().meta({ description: "The attached file's name, such as `factur-x.xml`." }),
        afRelationship: z.string().nullable().meta({ description: "Its `/AFRelationship` in the PDF (`Data`, `Alternative`, `Source`), or null when it has none." }),
      })
      .optional()
      .meta({ description: "For a PDF (`syntax` `pdf`): the invoice XML attached to it, which was read and judged." }),
    invoice: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({
        description:
          "For `xml` and `document`: the invoice read from the document as InvoiceData (the same fields as a submit's `invoice`), every value as written, whatever its syntax; absent when the document cannot be read into it, or when it is over 64 KiB as JSON even without its attachments' contents (`invoiceOmitted` says what was left out). A document that breaks rules may lack fields a submit as data requires.",
      }),
    invoiceOmitted: z
      .string()
      .optional()
      .meta({
        description:
          "What of the invoice read is left out of `invoice`, and why (an answer stays small): the attached documents' contents (BT-125), when the invoice is over 64 KiB as JSON with them and not without (`invoice` is then there, every other value in it); or the whole invoice, when it is over 64 KiB even without them.",
      }),
  })
  .meta({ id: "ValidationReport" });
/** The body of `bad_request` (400). */
export const BadRequestSchema = z
  .object({
    statusCode: z.literal(400),
    message: z.array(z.string()).meta({ description: "One message per problem (class-validator wording); one entry when the body is not JSON." }),
    error: z.literal("Bad Request"),
    code: z.literal("invalid_request").meta({ description: "The same on every 400, so that a client reads every error by `code`." }),
  })
  .meta({ id: "BadRequestError" });
/** The body of `payload_too_large` (413). */
export const PayloadTooLargeSchema = z
  .object({ statusCode: z.literal(413), message: z.string(), error: z.literal("Payload Too Large") })
  .meta({ id: "PayloadTooLargeError" });
/** The body of `internal_error` (500): nothing about the cause. */
export const InternalErrorSchema = z.object({ statusCode: z.literal(500), message: z.string() }).meta({ id: "InternalError" });

// ---------- parsing ----------

/**
 * Validates `input` against `schema`; throws a 400 `ApiError` whose details are class-validator
 * style messages ("property foo should not exist", "xml must be a string", ...).
 */
export function parseWith<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationError(result.error);
}

export function validationError(error: z.ZodError): ApiError {
  const messages: string[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) messages.push(`property ${[...issue.path, key].join(".")} should not exist`);
    } else {
      messages.push(issue.message);
    }
  }
  return badRequest([...new Set(messages)]);
}

export const WebhookSchema = z
  .object({ id: z.uuid(), url: z.string(), events: z.array(z.enum(WEBHOOK_EVENT_TYPES)), createdAt: timestamp })
  .meta({ id: "Webhook" });
export type WebhookView = z.infer<typeof WebhookSchema>;

export const WebhookSecretRotatedSchema = z
  .object({
    id: z.uuid(),
    secret: z.string().meta({ description: "The new signing secret, shown once." }),
    previousSecretExpiresAt: timestamp.meta({ description: "Until then the previous secret signs too: each delivery carries one `v1=` signature per secret." }),
  })
  .meta({ id: "WebhookSecretRotated" });
export type WebhookSecretRotated = z.infer<typeof WebhookSecretRotatedSchema>;

export const WebhookCreatedSchema = z
  .object({ id: z.uuid(), url: z.string(), events: z.array(z.enum(WEBHOOK_EVENT_TYPES)), secret: z.string(), createdAt: timestamp })
  .meta({ id: "WebhookCreated" });
export type WebhookCreated = z.infer<typeof WebhookCreatedSchema>;

export const WebhookDeliverySchema = z
  .object({
    eventId: z.uuid(),
    type: z.enum(WEBHOOK_EVENT_TYPES),
    status: z.enum(["pending", "delivered", "failed"]),
    createdAt: timestamp,
    attempts: z.number().int(),
    nextAttemptAt: timestamp.nullable(),
    deliveredAt: timestamp.nullable(),
    log: z.array(
      z.object({
        at: timestamp,
        statusCode: z.number().int().nullable(),
        error: z.string().nullable(),
        durationMs: z.number().int(),
      }),
    ),
  })
  .meta({ id: "WebhookDelivery" });
export type WebhookDeliveryView = z.infer<typeof WebhookDeliverySchema>;
