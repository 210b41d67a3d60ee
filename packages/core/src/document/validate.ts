// validateInvoice: the document pipeline's checks before the root (readXml, as submit), then the rules
// (validation/, the pipeline's leaf) on the model; validateAnyDocument: the same for a document of any syntax
// einvoice reads (UBL, CII, a Factur-X PDF). Pure: no store.
import { ApiError } from "../domain/errors.js";
import { validateModel, type ValidationReport } from "../validation/validate.js";
import { decodeDocument, readXml } from "./read.js";
import { joinChunks, parseValidateBody } from "./request.js";
import { MAX_REPORTED_ERRORS } from "./rules-error.js";
import { requireUblRoot } from "./ubl.js";
import { DEFAULT_XML_LIMITS, type XmlLimits } from "./xml.js";
import type { InvoiceData } from "../domain/invoice-data.js";
import { buildParsedInvoice } from "./invoice-data/index.js";
import type { DocumentNode } from "./model.js";
import { requireKnownSyntax } from "./any.js";
import { extractInvoiceXml, isPdf } from "./pdf/index.js";
import { syntaxOf } from "./syntaxes/index.js";

/** What `POST /v1/validate` answers: the rules' report, and what the request's document was read as. */
export type DocumentReport = Omit<ValidationReport, "syntax"> & {
  /** The syntax of the document sent: `ubl`, `cii`, or `pdf` for a Factur-X PDF (its attachment was judged). */
  syntax: "ubl" | "cii" | "pdf";
  /** For data: the UBL built from it, base64. */
  document?: string;
  /** For a PDF: the attached invoice XML that was read and judged. */
  attachment?: { name: string; afRelationship: string | null };
  /** For `xml` and `document`: the invoice read from the document (values as written), when it can be read and is small enough (see MAX_REPORTED_INVOICE_BYTES). */
  invoice?: InvoiceData;
  /**
   * What of the invoice read is not in `invoice`, and why: the attached documents' contents (then `invoice` is there
   * without them), or the whole invoice (then `invoice` is absent), when it is larger than an answer carries.
   */
  invoiceOmitted?: string;
};

/**
 * The largest `invoice` (as JSON, in bytes) a report carries: an answer stays small whatever the document held (a
 * 30,000-line invoice is 2.4 MB as data). Past it the report says so in `invoiceOmitted`.
 */
export const MAX_REPORTED_INVOICE_BYTES = 64 * 1024;

/** The report with the invoice read from its document, or with why it is left out. */
function withInvoice<R extends object>(report: R, root: DocumentNode): R & Pick<DocumentReport, "invoice" | "invoiceOmitted"> {
  const invoice = invoiceOf(root);
  if (!invoice) return report;
  const size = Buffer.byteLength(JSON.stringify(invoice));
  if (size <= MAX_REPORTED_INVOICE_BYTES) return { ...report, invoice };
  // Attached documents (BT-125, base64, often a PDF of the invoice) are most of a large invoice: without their
  // contents it usually fits, and every other value is still there.
  const attachments = invoice.attachments?.filter((a) => a.content !== undefined) ?? [];
  if (attachments.length > 0) {
    const slim: InvoiceData = { ...invoice, attachments: invoice.attachments!.map(({ content: _content, ...rest }) => rest) as InvoiceData["attachments"] };
    const slimSize = Buffer.byteLength(JSON.stringify(slim));
    if (slimSize <= MAX_REPORTED_INVOICE_BYTES) {
      const names = attachments.map((a) => JSON.stringify(a.filename ?? a.id)).slice(0, 5).join(", ");
      return { ...report, invoice: slim, invoiceOmitted: `The contents of the attached documents (BT-125: ${names}${attachments.length > 5 ? ", ..." : ""}) are left out of invoice, which would be ${Math.ceil(size / 1024)} KiB as JSON with them, more than the ${MAX_REPORTED_INVOICE_BYTES / 1024} KiB this answer carries; every other value is there.` };
    }
  }
  return {
    ...report,
    invoiceOmitted: `The invoice read from the document is ${Math.ceil(size / 1024)} KiB as JSON, more than the ${MAX_REPORTED_INVOICE_BYTES / 1024} KiB this answer carries. After a submit, GET /v1/invoices/{id}/document with Accept: application/json gives it whole; in the library, readDocumentData does.`,
  };
}

/** The invoice of a parsed document as InvoiceData, or undefined when its reader cannot make one of it. */
function invoiceOf(root: DocumentNode): InvoiceData | undefined {
  try {
    return syntaxOf(root)?.read(root);
  } catch {
    return undefined;
  }
}

/** The report on an XML document of any syntax (UBL or CII): its own syntax's rule sets, and the invoice read from it. */
function reportOnXml(input: Buffer | string, limits: XmlLimits, maxItems: number | undefined): DocumentReport {
  const root = readXml(input, limits).root;
  requireKnownSyntax(root);
  return withInvoice(validateModel(root, { maxItems }), root);
}

/**
 * Validates a document of any syntax against the official rules of its syntax: a UBL Invoice or CreditNote (EN 16931
 * UBL, and Peppol and national sets by CustomizationID), a CII CrossIndustryInvoice (EN 16931 CII, XRechnung CII by
 * guideline id), or a Factur-X / ZUGFeRD PDF (its attached CII). `document` as in `validateInvoice`: bytes, XML text or
 * base64. The report carries `syntax` and the invoice read from the document (`invoice`). A document einvoice does not
 * read is a 422 `unsupported_document` (ZUGFeRD 1.0 named); a broken PDF `invalid_pdf`, an encrypted one `pdf_encrypted`,
 * one without an invoice `pdf_without_invoice`.
 *
 * @example const report = await validateAnyDocument(readFileSync("factur-x.pdf")); console.log(report.syntax, report.valid)
 */
export async function validateAnyDocument(document: Uint8Array | string, options: { limits?: XmlLimits; maxItems?: number } = {}): Promise<DocumentReport> {
  const limits = options.limits ?? DEFAULT_XML_LIMITS;
  const input = toInput(document, limits);
  if (typeof input !== "string" && isPdf(input)) {
    const extracted = await extractInvoiceXml(input);
    const report = reportOnXml(extracted.xml, limits, options.maxItems);
    return { ...report, syntax: "pdf", attachment: { name: extracted.attachmentName, afRelationship: extracted.afRelationship } };
  }
  return reportOnXml(input, limits, options.maxItems);
}

function toInput(document: Uint8Array | string, limits: XmlLimits): Buffer | string {
  if (typeof document === "string") return /^\uFEFF?[ \t\r\n]*</.test(document) ? document : decodeDocument(document, limits);
  return Buffer.isBuffer(document) ? document : Buffer.from(document.buffer, document.byteOffset, document.byteLength);
}

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
export function validateBody(chunks: readonly Uint8Array[], limits: XmlLimits): Promise<DocumentReport> {
  let body: ReturnType<typeof parseValidateBody>;
  try {
    body = parseValidateBody(joinChunks(chunks));
  } catch (e) {
    return Promise.reject(e);
  }
  return validateCheckedBodyAsync(body, limits);
}

/** `validateCheckedBody`, with a PDF `document` too (opened off the calling thread). */
export async function validateCheckedBodyAsync(body: { xml?: string; document?: string; invoice?: InvoiceData; creditNote?: InvoiceData }, limits: XmlLimits): Promise<DocumentReport> {
  if (body.document === undefined) return validateCheckedBody(body, limits);
  return validateAnyDocument(decodeDocument(body.document, limits), { limits, maxItems: MAX_REPORTED_ERRORS });
}

/**
 * The report on a checked `POST /v1/validate` body: for `xml`, its document's; for `invoice` or
 * `creditNote` (data), the built document's, whose items carry `path` (the JSON pointer of the field
 * behind each broken rule), with the document itself as `document` (base64): a preview of a submit.
 */
export function validateCheckedBody(body: { xml?: string; document?: string; invoice?: InvoiceData; creditNote?: InvoiceData }, limits: XmlLimits): DocumentReport {
  const data = body.invoice ?? body.creditNote;
  if (data) {
    const built = buildParsedInvoice(data, body.invoice ? "Invoice" : "CreditNote", MAX_REPORTED_ERRORS);
    return { ...built.report, syntax: "ubl", document: built.bytes.toString("base64") };
  }
  if (body.document !== undefined) {
    const bytes = decodeDocument(body.document, limits);
    if (isPdf(bytes)) throw new ApiError("unsupported_document", "document is a PDF: validate it with validateDocumentBody or validateAnyDocument (a PDF is opened off the calling thread).");
    return reportOnXml(bytes, limits, MAX_REPORTED_ERRORS);
  }
  // Strict base64 first (row 5), exactly as submit: XML text where base64 belongs is invalid_base64_xml. `xml` is UBL only.
  const root = requireUblRoot(readXml(decodeDocument(body.xml!, limits), limits), ["Invoice", "CreditNote"]);
  return withInvoice({ ...validateModel(root, { maxItems: MAX_REPORTED_ERRORS }), syntax: "ubl" as const }, root);
}
