// Use case: validate a document against the official rules without submitting it (POST /v1/validate).
import { decodeDocument } from "../document/read.js";
import { parseWith, ValidateRequestSchema } from "../domain/schemas.js";
import { validateInvoice } from "../document/validate.js";
import type { ValidationReport } from "../validation/validate.js";
import { resolveOptions, type CoreOptions } from "./options.js";

/**
 * Checks the body (`{xml}`: base64, as in a submit), then returns the rules' report on the document
 * (an Invoice or a CreditNote). Any authenticated caller may ask; nothing is stored. Throws the
 * `ApiError` of a body of the wrong shape (400) or of a document the rules cannot read (422 with the
 * codes of submit: `invalid_base64_xml`, `single_xml_only`, `invalid_ubl_xml`).
 *
 * @example const report = validateDocument({ xml: base64 })
 */
export function validateDocument(body: unknown, options?: CoreOptions): ValidationReport {
  const { xml } = parseWith(ValidateRequestSchema, body);
  const { limits } = resolveOptions(options);
  // Strict base64 first (row 5), exactly as submit: XML text where base64 belongs is invalid_base64_xml.
  return validateInvoice(decodeDocument(xml, limits), { limits });
}
