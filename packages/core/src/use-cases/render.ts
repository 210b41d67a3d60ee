// Use case: what a renderer needs of an invoice (GET /v1/invoices/{id}/document?format=html, POST /v1/render): the
// invoice as InvoiceData, its kind and, for a KSeF invoice, its KSeF number and verification QR code. The core renders
// nothing itself: @einvoice/render does, from this.
import { decodeBase64Strict } from "../document/base64.js";
import { readDocumentData } from "../document/any.js";
import { normaliseInvoiceData } from "../document/invoice-data/normalise.js";
import { readInvoiceData } from "../document/invoice-data/index.js";
import { extractInvoiceXml, isPdf } from "../document/pdf/index.js";
import { ApiError } from "../domain/errors.js";
import type { InvoiceData } from "../domain/invoice-data.js";
import { parseDocumentBody, RenderRequestSchema, type RenderFormat, type RenderLanguage } from "../domain/schemas.js";
import type { AuthContext } from "../domain/types.js";
import type { Store } from "../ports/store.js";
import { getInvoiceDocument, type DocumentReadOptions } from "./document.js";
import { readReceivedData } from "../document/received.js";
import { guardStore, resolveOptions, type CoreOptions } from "./options.js";
import { verificationQrSvg } from "./verification-qr.js";

/** An invoice as a renderer takes it. */
export interface RenderInput {
  invoice: InvoiceData;
  kind: "invoice" | "creditNote";
  /** For an invoice KSeF numbered: its KSeF number, the verification link (KOD I) and the link as a QR code (SVG). */
  ksef: { ksefNumber: string; verificationUrl: string; qrSvg: string } | null;
}

/**
 * One of the company's invoices, sent or received, as a renderer takes it: its stored UBL read into InvoiceData (every
 * value as written), its kind (the UBL root), and for an invoice with a KSeF number its number and verification QR
 * code. A received document is read whatever its syntax (`getInvoiceDocumentData`; 422 `document_unreadable` when it
 * cannot be). Errors as `getInvoiceDocument`: `invoice_not_found`, `document_not_available` for a failed submission.
 *
 * @example const { invoice, kind, ksef } = await getInvoiceRenderInput(store, auth, id); renderHtml(invoice, { kind, ksef: ksef ?? undefined })
 */
export async function getInvoiceRenderInput(store: Store, auth: AuthContext, id: string, options?: DocumentReadOptions): Promise<RenderInput> {
  const bytes = await getInvoiceDocument(store, auth, id);
  // getInvoiceDocument found the record; read it again for its KSeF marks (a small row, by key).
  const record = await guardStore(store).getInvoice(auth.companyId, id.toLowerCase());
  if (record?.direction === "inbound") {
    // A received document, whatever its syntax; its KSeF number is KSeF's, and no verification link is kept with it.
    return { invoice: await readReceivedData(bytes, options), kind: record.kind, ksef: null };
  }
  const { rootElement, documentType: _deprecated, ...invoice } = readInvoiceData(bytes);
  const ksef =
    record?.ksefNumber && record.verificationUrl
      ? { ksefNumber: record.ksefNumber, verificationUrl: record.verificationUrl, qrSvg: await verificationQrSvg(record.verificationUrl, record.ksefNumber) }
      : null;
  return { invoice, kind: rootElement === "CreditNote" ? "creditNote" : "invoice", ksef };
}

/**
 * The body of `POST /v1/render` read into what a renderer takes, nothing stored: `xml` (a UBL document, base64),
 * `document` (base64 of a UBL or CII document or a Factur-X PDF, whose attached CII is read, within the PDF limits) or
 * the invoice as data (`invoice`, `creditNote`: checked as a submit checks it, its totals computed), with the `format`
 * and `lang` asked. The document is read, not judged: a preview of an invoice that breaks a rule still renders
 * (`POST /v1/validate` judges it). 400 for a body of the wrong shape; 422 `invalid_base64_xml`, `invalid_ubl_xml`,
 * `unsupported_document`, `invalid_pdf`, `pdf_encrypted`, `pdf_without_invoice` for a document that cannot be read.
 *
 * @example const { invoice, kind, format } = await readRenderRequest({ invoice: data, format: "html" })
 */
export async function readRenderRequest(
  body: unknown,
  options?: CoreOptions,
): Promise<RenderInput & { format: RenderFormat; lang: RenderLanguage | undefined }> {
  const { limits } = resolveOptions(options);
  const b = parseDocumentBody(RenderRequestSchema, body);
  const answer = (invoice: InvoiceData, kind: "invoice" | "creditNote") => ({ invoice, kind, ksef: null, format: b.format, lang: b.lang });
  if (b.invoice !== undefined) return answer(normaliseInvoiceData(b.invoice, "Invoice"), "invoice");
  if (b.creditNote !== undefined) return answer(normaliseInvoiceData(b.creditNote, "CreditNote"), "creditNote");
  const field = b.xml !== undefined ? "xml" : "document";
  let bytes = decodeBase64Strict((b.xml ?? b.document)!);
  if (isPdf(bytes)) {
    if (field === "xml") throw new ApiError("invalid_ubl_xml", "xml is a PDF: send a Factur-X / ZUGFeRD PDF as document.");
    bytes = Buffer.from((await extractInvoiceXml(bytes)).xml);
  }
  const read = readDocumentData(bytes, limits);
  if (field === "xml" && read.syntax !== "ubl") throw new ApiError("invalid_ubl_xml", `xml is a ${read.syntax.toUpperCase()} document, not UBL: send it as document.`);
  return answer(read.invoice, read.kind);
}
