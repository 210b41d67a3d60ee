// The one error type of einvoice: a closed union of codes, each with its HTTP status.

/**
 * Every error the library reports, with the HTTP status it maps to.
 * Adding a code without a status fails to compile (the table is exhaustive).
 */
export const ERROR_STATUS = {
  bad_request: 400,
  invalid_api_key: 401,
  invalid_admin_token: 401,
  enterprise_required: 403,
  subscription_upgrade_required: 403,
  peppol_country_not_supported: 403,
  /** A submission routed to KSeF from a company outside Poland (KSeF is for Polish taxpayers). */
  ksef_country_not_supported: 403,
  invoice_not_found: 404,
  company_not_found: 404,
  api_key_not_found: 404,
  webhook_not_found: 404,
  /** No supplier (GET /v1/suppliers) with this id in the company. */
  supplier_not_found: 404,
  /** No route has this method and path (there is no 405). */
  route_not_found: 404,
  /** /admin/inbound/unmatched/{id}: no such document for no company (or its bytes were not kept). */
  unmatched_document_not_found: 404,
  email_taken: 409,
  last_api_key: 409,
  too_many_api_keys: 409,
  /** The invoice exists but has no delivery evidence (still sending, failed, or delivered without any). */
  evidence_not_available: 409,
  document_not_available: 409,
  /** An `Idempotency-Key` whose first request is still being processed. */
  idempotency_in_progress: 409,
  /** A company patch with a Peppol participant identifier another company of this server already receives on (the message names the identifier). */
  participant_id_taken: 409,
  payload_too_large: 413,
  /** Over a rate limit; the answer carries `Retry-After`. */
  rate_limited: 429,
  invalid_base64_xml: 422,
  single_xml_only: 422,
  invalid_ubl_xml: 422,
  /**
   * A `document` einvoice does not read: neither UBL, CII nor a Factur-X PDF (ZUGFeRD 1.0 is named, with what to
   * send instead).
   */
  unsupported_document: 422,
  missing_recipient: 422,
  no_legal_entity: 422,
  peppol_sending_not_enabled: 422,
  /** A submission routed to KSeF for a company without a KSeF credential, where KSeF is delivered to directly. */
  ksef_not_configured: 422,
  /** On the KSeF route, the invoice's seller VAT id (BT-31) is not the company's KSeF NIP. */
  ksef_seller_mismatch: 422,
  /** A company patch with a KSeF token while the deployment has no key to encrypt it with. */
  ksef_token_key_not_configured: 422,
  /** An `Idempotency-Key` used before with another request (another body or endpoint). */
  idempotency_key_reused: 422,
  /** Not a PDF, a broken one, or one past a limit of reading a PDF (the message names the limit). */
  invalid_pdf: 422,
  /** An encrypted PDF: it cannot be read; the unencrypted PDF or the XML can. */
  pdf_encrypted: 422,
  /** A PDF without a Factur-X / ZUGFeRD / XRechnung attachment (the message lists the attachments it has). */
  pdf_without_invoice: 422,
  /**
   * A received document asked for as data (InvoiceData) that cannot be read as an invoice (not XML, not an invoice,
   * broken): its bytes as received are still served without `Accept: application/json`.
   */
  document_unreadable: 422,
  internal_error: 500,
  participant_lookup_failed: 502,
  server_busy: 503,
  /**
   * The store cannot be reached now (its database is down, restarting or unreachable, or the
   * connection was lost): the store said so (`isStoreUnavailable`). Nothing was half-stored; retry
   * after a few seconds (`Retry-After` over HTTP).
   */
  storage_unavailable: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Codes whose HTTP body is `{ code, message }` (the others use the `{ statusCode, message, error }` shape). */
export function hasCodeBody(code: ErrorCode): boolean {
  const status = ERROR_STATUS[code];
  return status !== 400 && status !== 413 && status !== 500;
}

/** One broken rule in an error's `errors`: the official rule id, what is wrong, and where. */
export interface RuleError {
  rule: string;
  message: string;
  location: string;
  /** For a document built from data: the JSON pointer (into the invoice or creditNote) of the field behind it. */
  path?: string;
  /** For a CII document converted to UBL: where the field behind it is in the CII as sent (an XPath). */
  source?: string;
}

/**
 * The single error class thrown by every core function.
 *
 * @example
 * try { await submitInvoice(store, auth, body) }
 * catch (e) { if (e instanceof ApiError) console.log(e.status, e.code, e.message) }
 */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly code: ErrorCode;
  /** For `bad_request`: the list of problems (class-validator wording), or one string for unparseable input. */
  readonly details: string[] | undefined;
  /** For `invalid_ubl_xml` from broken rules: each broken fatal rule (at most 100), as `errors` in the HTTP body. */
  readonly errors: RuleError[] | undefined;

  constructor(code: ErrorCode, message: string, options?: { details?: string[]; errors?: RuleError[]; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options?.details;
    this.errors = options?.errors;
  }

  /** The HTTP status of this error's code. */
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/** A 400 with a list of class-validator style messages. */
/** The most problems a 400 lists, and the longest one: an answer stays small whatever the request held. */
export const MAX_PROBLEMS_LISTED = 50;
export const MAX_PROBLEM_CHARS = 500;

/**
 * A 400 listing `details`, one entry per problem: at most MAX_PROBLEMS_LISTED of them (the last entry then
 * says how many more there are), each cut at MAX_PROBLEM_CHARS. A body with 200,000 unknown keys got a
 * 7 MB answer before.
 */
export function badRequest(details: string[]): ApiError {
  const cut = (d: string) => (d.length > MAX_PROBLEM_CHARS ? `${d.slice(0, MAX_PROBLEM_CHARS - 1)}…` : d);
  const listed =
    details.length <= MAX_PROBLEMS_LISTED
      ? details.map(cut)
      : [...details.slice(0, MAX_PROBLEMS_LISTED - 1).map(cut), `and ${details.length - (MAX_PROBLEMS_LISTED - 1)} more problems (the first ${MAX_PROBLEMS_LISTED - 1} are listed)`];
  return new ApiError("bad_request", listed.join("; "), { details: listed });
}

/** An id as a message quotes it: JSON-quoted, and cut after 100 characters (a path may hold thousands). */
export function quoteId(id: string): string {
  return id.length <= 100 ? JSON.stringify(id) : `${JSON.stringify(id.slice(0, 100))}… (${id.length} characters)`;
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}
