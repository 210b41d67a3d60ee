// Use case: the document of an invoice (GET /v1/invoices/{id}/document): the UBL bytes as sent, the document as it was
// submitted (a CII, a Factur-X PDF), a received document as received, the invoice as EN 16931 CII, or as InvoiceData.
import { readInvoiceData } from "../document/invoice-data/index.js";
import { cii } from "../document/syntaxes/cii/index.js";
import { DocumentQuerySchema, parseWith, type DocumentFormat, type RenderLanguage } from "../domain/schemas.js";
import type { InvoiceData } from "../domain/invoice-data.js";
import { ApiError, quoteId } from "../domain/errors.js";
import type { AuthContext, InvoiceRecord } from "../domain/types.js";
import type { Store } from "../ports/store.js";
import { INBOUND_DOCUMENT_MAX_BYTES } from "../ports/inbound.js";
import { readReceivedData, type ReceiveSyntax } from "../document/received.js";
import type { XmlLimits } from "../document/xml.js";
import { guardStore } from "./options.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Options of the readers of a stored document: for a received one, the extra syntaxes it may be in (FA(3)) and the XML limits. */
export interface DocumentReadOptions {
  /** Syntaxes besides UBL and CII a received document may be in, such as KSeF's `fa3Syntax` (as `ReceiveOptions.syntaxes`). */
  syntaxes?: readonly ReceiveSyntax[];
  /** XML limits, as `CoreOptions.limits`. */
  limits?: Partial<XmlLimits>;
}

/** The company's record and its stored bytes; the errors of `getInvoiceDocument`. */
async function storedDocument(store: Store, auth: AuthContext, id: string): Promise<{ record: InvoiceRecord; bytes: Buffer }> {
  const s = guardStore(store);
  const r = UUID.test(id) ? await s.getInvoice(auth.companyId, id.toLowerCase()) : null;
  if (!r) throw new ApiError("invoice_not_found", `No invoice with id ${quoteId(id)} in this company.`);
  const bytes = await s.getDocument(auth.companyId, r.id);
  if (!bytes) {
    if (r.direction === "inbound") {
      throw new ApiError(
        "document_not_available",
        `Invoice ${r.id} was received without its bytes: the document was larger than ${INBOUND_DOCUMENT_MAX_BYTES} bytes, the most a received document is kept with (its record and its error are kept).`,
      );
    }
    throw new ApiError(
      "document_not_available",
      `Invoice ${r.id} keeps no document: it failed at submission (${r.errorMessage ?? "see its events"}), and a failed submission's document is not stored.`,
    );
  }
  return { record: r, bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
}

/**
 * The stored document of the company's invoice, byte for byte: for a submission, the UBL as it was stored at
 * submission (as sent as `xml`, or as built from `invoice` / `creditNote`); for a received document (`direction`
 * `inbound`), the bytes exactly as received, whatever they are (its media type: `getInvoiceOriginal`).
 * `invoice_not_found` for an unknown, malformed or another company's id; `document_not_available` for a failed
 * submission, which keeps no document, and for a received document kept without its bytes (too large).
 *
 * @example const xml = await getInvoiceDocument(store, auth, submissionId)
 */
export async function getInvoiceDocument(store: Store, auth: AuthContext, id: string): Promise<Buffer> {
  return (await storedDocument(store, auth, id)).bytes;
}

/**
 * `getInvoiceDocument` read as InvoiceData: the invoice as JSON, its totals as written. A received document is read
 * whatever its syntax (UBL, CII, a Factur-X PDF's CII, FA(3) and other syntaxes given in `options.syntaxes`); one that
 * cannot be read as an invoice is a 422 `document_unreadable` (its bytes are still served as received).
 *
 * @example const data = await getInvoiceDocumentData(store, auth, submissionId); console.log(data.totals?.payable)
 */
export async function getInvoiceDocumentData(store: Store, auth: AuthContext, id: string, options?: DocumentReadOptions): Promise<InvoiceData> {
  const { record, bytes } = await storedDocument(store, auth, id);
  if (record.direction === "inbound") return readReceivedData(bytes, options);
  const { rootElement: _root, documentType: _deprecated, ...data } = readInvoiceData(bytes);
  return data;
}

/**
 * The document of the company's invoice exactly as the client submitted it, with its media type: a CII
 * (`application/xml`) or a Factur-X PDF (`application/pdf`) that was converted to the UBL sent; for a submission made
 * as UBL `xml` or as data, the UBL itself (what was submitted). For a received document, its bytes as received with
 * the media type and syntax told at receipt (`application/xml`, `application/pdf`, `application/octet-stream`;
 * `ubl`, `cii`, `pdf`, `fa3`, `unknown`). Errors as `getInvoiceDocument`.
 *
 * @example const { mediaType, content } = await getInvoiceOriginal(store, auth, submissionId)
 */
export async function getInvoiceOriginal(store: Store, auth: AuthContext, id: string): Promise<{ mediaType: string; syntax: string; content: Buffer }> {
  const { record, bytes } = await storedDocument(store, auth, id);
  if (record.inbound) return { mediaType: record.inbound.mediaType, syntax: record.inbound.syntax, content: bytes };
  const original = await guardStore(store).getOriginalDocument(auth.companyId, record.id);
  if (!original) return { mediaType: "application/xml", syntax: "ubl", content: bytes };
  const c = original.content;
  return { mediaType: original.mediaType, syntax: original.syntax, content: Buffer.from(c.buffer, c.byteOffset, c.byteLength) };
}

/**
 * The company's invoice as EN 16931 CII D16B (UTF-8 XML), written from its stored document (`getInvoiceDocument`)
 * through InvoiceData: every value it holds, in CII. A received document is read as `getInvoiceDocumentData` reads it.
 * Errors as `getInvoiceDocumentData`.
 *
 * @example const xml = await getInvoiceCii(store, auth, submissionId)
 */
export async function getInvoiceCii(store: Store, auth: AuthContext, id: string, options?: DocumentReadOptions): Promise<Buffer> {
  const { record, bytes } = await storedDocument(store, auth, id);
  if (record.direction === "inbound") return Buffer.from(cii.write(await readReceivedData(bytes, options), { kind: record.kind }), "utf8");
  const { rootElement, documentType: _deprecated, ...data } = readInvoiceData(bytes);
  return Buffer.from(cii.write(data, { kind: rootElement === "CreditNote" ? "creditNote" : "invoice" }), "utf8");
}

/** The `format` of a `GET /v1/invoices/{id}/document` query (`DocumentQuerySchema`): `ubl` when absent; 400 for anything else. */
export function documentFormat(query: unknown = {}): DocumentFormat {
  return documentQuery(query).format;
}

/**
 * The whole query of `GET /v1/invoices/{id}/document` (`DocumentQuerySchema`): the `format` (`ubl` when absent) and,
 * for a rendered format, the `lang` asked (absent: the renderer's default). 400 for anything else.
 *
 * @example documentQuery({ format: "html", lang: "de" }) // { format: "html", lang: "de" }
 */
export function documentQuery(query: unknown = {}): { format: DocumentFormat; lang: RenderLanguage | undefined } {
  const q = parseWith(DocumentQuerySchema, query);
  return { format: q.format ?? "ubl", lang: q.lang };
}

/**
 * The FA(3) of the company's invoice exactly as it was sent to KSeF, the bytes KSeF accepted (kept
 * with the delivered status: `Store.getTransmittedDocument`). `invoice_not_found` as
 * `getInvoiceDocument`; `document_not_available` (409), saying why, for an invoice that is not a
 * KSeF invoice, is still being sent, failed, or was delivered without a kept FA(3).
 *
 * @example const fa3 = await getInvoiceFa3(store, auth, submissionId) // Buffer of the FA(3) XML
 */
export async function getInvoiceFa3(store: Store, auth: AuthContext, id: string): Promise<Buffer> {
  const s = guardStore(store);
  const r = UUID.test(id) ? await s.getInvoice(auth.companyId, id.toLowerCase()) : null;
  if (!r) throw new ApiError("invoice_not_found", `No invoice with id ${quoteId(id)} in this company.`);
  const none = (why: string) => new ApiError("document_not_available", `Invoice ${r.id} has no FA(3): ${why}`);
  // Failed at submission (no network): it keeps no document at all, so its UBL is not there either.
  if (r.status === "failed" && r.network === null) throw none(`it failed at submission (${r.errorMessage ?? "see its events"}), and such a submission keeps no document: neither an FA(3) nor its UBL.`);
  if (r.network !== "ksef") throw none(`it is not a KSeF invoice (network ${r.network}); only invoices sent to KSeF have one. Ask without format (or format=ubl) for its UBL.`);
  if (r.status === "sending") throw none("it is still being sent to KSeF; its FA(3) is kept once KSeF has accepted it (status delivered). Ask again then.");
  if (r.status === "failed") throw none(`it failed (${r.errorMessage ?? "see its events"}), and only the FA(3) KSeF accepted is kept.`);
  const t = await s.getTransmittedDocument(auth.companyId, r.id);
  if (!t || t.format !== "fa3") {
    throw none("it was delivered without a kept FA(3): by a network that does not write FA(3) itself (the sandbox, an access point), or before this service kept it. Its UBL is served without format.");
  }
  return Buffer.from(t.content, "utf8");
}
