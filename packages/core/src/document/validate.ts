// validateInvoice: the document pipeline's checks before the root (readXml, as submit), then the rules
// (validation/, the pipeline's leaf) on the model. Pure: no store.
import { validateModel, type ValidationReport } from "../validation/validate.js";
import { decodeDocument, readXml } from "./read.js";
import { requireUblRoot } from "./ubl.js";
import { DEFAULT_XML_LIMITS, type XmlLimits } from "./xml.js";

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
 *
 * @example const report = validateInvoice(readFileSync("invoice.xml")); if (!report.valid) console.log(report.errors)
 * @example validateInvoice(body.xml) // base64, as in POST /v1/validate
 */
export function validateInvoice(document: Uint8Array | string, options: { limits?: XmlLimits } = {}): ValidationReport {
  const limits = options.limits ?? DEFAULT_XML_LIMITS;
  let input: Buffer | string;
  if (typeof document === "string") input = /^\uFEFF?[ \t\r\n]*</.test(document) ? document : decodeDocument(document, limits);
  else input = Buffer.isBuffer(document) ? document : Buffer.from(document.buffer, document.byteOffset, document.byteLength);
  return validateModel(requireUblRoot(readXml(input, limits), ["Invoice", "CreditNote"]));
}
