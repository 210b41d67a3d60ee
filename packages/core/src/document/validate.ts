// validateInvoice: the document pipeline's checks before the root (readXml, as submit), then the rules
// (validation/, the pipeline's leaf) on the model. Pure: no store.
import { validateModel, type ValidationReport } from "../validation/validate.js";
import { decodeDocument, readXml } from "./read.js";
import { joinChunks, parseValidateBody } from "./request.js";
import { MAX_REPORTED_ERRORS } from "./rules-error.js";
import { requireUblRoot } from "./ubl.js";
import { DEFAULT_XML_LIMITS, type XmlLimits } from "./xml.js";
import type { InvoiceData } from "../domain/invoice-data.js";
import { buildParsedInvoice } from "./invoice-data/index.js";

/**
 * Validates a UBL Invoice or CreditNote against the official rules and returns the report.
 *
 * `document` is the XML: its bytes (a Buffer or Uint8Array, UTF-8), or a string that is either the
 * XML text itself (it starts with `<`, after any whitespace) or the document in base64 (as `xml` in
 * the HTTP body; base64 never contains `<`, so the two cannot be confused).
 * The checks before the rules are those of submit (contract rows 5 to 8, `readXml`), with their codes:
 * bad base64 or not UTF-8 XML text → `invalid_base64_xml`; a ZIP or two documents → `single_xml_only`;
 * not well-formed, a DOCTYPE, another encoding, XML 1.1, over the limits, a root other than Invoice or
 * CreditNote → `invalid_ubl_xml`. A document that breaks rules is not an error: the report says so.
 * `maxItems` keeps the first n findings of each list (all are counted); by default all are listed.
 *
 * @example const report = validateInvoice(readFileSync("invoice.xml")); if (!report.valid) console.log(report.errors)
 * @example validateInvoice(body.xml) // base64, as in POST /v1/validate
 */
export function validateInvoice(document: Uint8Array | string, options: { limits?: XmlLimits; maxItems?: number } = {}): ValidationReport {
  const limits = options.limits ?? DEFAULT_XML_LIMITS;
  let input: Buffer | string;
  if (typeof document === "string") input = /^\uFEFF?[ \t\r\n]*</.test(document) ? document : decodeDocument(document, limits);
  else input = Buffer.isBuffer(document) ? document : Buffer.from(document.buffer, document.byteOffset, document.byteLength);
  return validateModel(requireUblRoot(readXml(input, limits), ["Invoice", "CreditNote"]), { maxItems: options.maxItems });
}

/**
 * A `POST /v1/validate` raw JSON body: its shape (400), its document (422 with the codes of submit,
 * strict base64 first), then the rules' report with at most MAX_REPORTED_ERRORS items a list.
 */
export function validateBody(chunks: readonly Uint8Array[], limits: XmlLimits): ValidationReport & { document?: string } {
  return validateCheckedBody(parseValidateBody(joinChunks(chunks)), limits);
}

/**
 * The report on a checked `POST /v1/validate` body: for `xml`, its document's; for `invoice` or
 * `creditNote` (data), the built document's, whose items carry `path` (the JSON pointer of the field
 * behind each broken rule), with the document itself as `document` (base64): a preview of a submit.
 */
export function validateCheckedBody(body: { xml?: string; invoice?: InvoiceData; creditNote?: InvoiceData }, limits: XmlLimits): ValidationReport & { document?: string } {
  const data = body.invoice ?? body.creditNote;
  if (data) {
    const built = buildParsedInvoice(data, body.invoice ? "Invoice" : "CreditNote", MAX_REPORTED_ERRORS);
    return { ...built.report, document: built.bytes.toString("base64") };
  }
  // Strict base64 first (row 5), exactly as submit: XML text where base64 belongs is invalid_base64_xml.
  return validateInvoice(decodeDocument(body.xml!, limits), { limits, maxItems: MAX_REPORTED_ERRORS });
}
