// Use case: validate a document against the official rules without submitting it (POST /v1/validate).
import { validateRequestAsync } from "../document/default-pool.js";
import { parseDocumentBody, ValidateRequestSchema } from "../domain/schemas.js";
import { validateCheckedBody, validateCheckedBodyAsync, type DocumentReport } from "../document/validate.js";
import { resolveOptions, type CoreOptions } from "./options.js";

/**
 * Checks the body (`{xml}`: base64, as in a submit; or `{invoice}` / `{creditNote}`: the document as
 * data), then returns the rules' report on the document (an Invoice or a CreditNote): at most 100
 * items in `errors` and in `warnings` (MAX_REPORTED_ERRORS), with the count of every broken rule. For
 * data, the items carry `path` (the JSON pointer of the field behind each broken rule) and `document`
 * is the UBL built from it, base64: a preview of what a submit sends. Any authenticated caller may
 * ask; nothing is stored. Throws the `ApiError` of a body of the wrong shape (400, naming the JSON
 * pointer for data) or of a document the rules cannot read (422 with the codes of submit:
 * `invalid_base64_xml`, `single_xml_only`, `invalid_ubl_xml`). Runs on the calling thread:
 * `validateDocumentBody` reads a large body off the event loop.
 *
 * @example const report = validateDocument({ xml: base64 })
 * @example const { valid, errors, document } = validateDocument({ invoice: data })
 */
export function validateDocument(body: unknown, options?: CoreOptions): DocumentReport {
  const { limits, metrics } = resolveOptions(options);
  const started = performance.now();
  try {
    return validateCheckedBody(parseDocumentBody(ValidateRequestSchema, body), limits);
  } finally {
    metrics.validationDuration((performance.now() - started) / 1000);
  }
}

/**
 * `validateDocument` from the raw bytes of the JSON body (one buffer or the chunks as they arrived), as
 * `submitInvoiceBody` is `submitInvoice`'s: a body over the worker threshold (512 KiB) is parsed and
 * validated on a worker thread, so the event loop keeps serving other requests. With `transfer` the
 * chunks are handed to the worker without a copy (they are emptied).
 *
 * @example app.post("/v1/validate", express.raw({ type: "application/json", limit: "10mb" }), async (req, res) => res.json({ data: await validateDocumentBody(req.body) }))
 */
export async function validateDocumentBody(
  rawBody: Uint8Array | readonly Uint8Array[],
  options?: CoreOptions & { transfer?: boolean },
): Promise<DocumentReport> {
  const { limits, metrics } = resolveOptions(options);
  const started = performance.now();
  try {
    return await validateRequestAsync(rawBody, limits, { transfer: options?.transfer === true });
  } finally {
    metrics.validationDuration((performance.now() - started) / 1000);
  }
}

/**
 * `validateDocument` for a body whose `document` may be a Factur-X / ZUGFeRD PDF (opened off the calling thread, within
 * the PDF limits); any other body as `validateDocument`.
 *
 * @example const report = await validateDocumentAsync({ document: readFileSync("factur-x.pdf").toString("base64") })
 */
export async function validateDocumentAsync(body: unknown, options?: CoreOptions): Promise<DocumentReport> {
  const { limits, metrics } = resolveOptions(options);
  const started = performance.now();
  try {
    return await validateCheckedBodyAsync(parseDocumentBody(ValidateRequestSchema, body), limits);
  } finally {
    metrics.validationDuration((performance.now() - started) / 1000);
  }
}

/** @deprecated The former name of `validateDocumentBody` (it takes the raw bytes of the body, not parsed JSON), kept so existing callers still build. */
export const validateDocumentJson = validateDocumentBody;
