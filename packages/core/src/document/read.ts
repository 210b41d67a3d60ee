// The document pipeline in one call: base64 text in, a checked UBL invoice out, on the calling thread.
import { createHash } from "node:crypto";
import { ApiError } from "../domain/errors.js";
import type { ParticipantId } from "../domain/types.js";
import { base64DecodedSize, checkBase64 } from "./base64.js";
import { extractFields, INVOICE_KEEP, type InvoiceFields } from "./fields.js";
import { extractRecipient } from "./recipient.js";
import { extractDocumentType, type DocumentType } from "./doctype.js";
import { DEFAULT_XML_LIMITS, limitError, scanXml, type XmlLimits } from "./scan.js";
import { decodeUtf8, decodeUtf8Lossy, notUtf8Error, rejectZip, requireMarkupStart } from "./text.js";
import { requireInvoiceRoot } from "./ubl.js";
import { parseXml } from "./xml.js";

/** A base64 UBL invoice that passed every check of the pipeline. */
export interface ReadInvoice {
  /** The decoded document, byte for byte. */
  bytes: Buffer;
  /** Hex SHA-256 of `bytes`. */
  sha256: string;
  recipient: ParticipantId;
  fields: InvoiceFields;
  /** The Peppol document type and process (from the root, CustomizationID and ProfileID); null without a CustomizationID. */
  documentType: DocumentType | null;
}

function tooLarge(bytes: number, limits: XmlLimits): ApiError {
  const mib = (n: number) => (n / (1024 * 1024)).toFixed(1);
  return new ApiError("invalid_ubl_xml", `xml is too large to accept: the document is ${mib(bytes)} MiB; the limit is ${mib(limits.maxBytes)} MiB.`);
}

/**
 * Runs the checks of contract section 1, steps 5 to 9, in order: base64, one document, UTF-8
 * XML text, well-formed UBL Invoice (no DOCTYPE, UTF-8 only, within the limits), recipient.
 * Throws the `ApiError` of the first that fails. Synchronous: it runs on the calling thread
 * (`readInvoiceAsync` sends large documents to a worker thread instead).
 *
 * @example const { sha256, recipient, fields } = readInvoice(body.xml)
 */
export function readInvoice(xmlBase64: string, limits: XmlLimits = DEFAULT_XML_LIMITS): ReadInvoice {
  return readDocument(decodeDocument(xmlBase64, limits), limits);
}

/** Far past the limit, a document is refused before it is even decoded (memory stays bounded). */
const PRE_DECODE_FACTOR = 4;

/**
 * Step 1: strict base64, then the decoded bytes. A document far past the size limit is refused
 * here without decoding it; the exact limit is checked in its place among the XML checks. With `ownBuffer` the bytes get an ArrayBuffer of their own and of their exact
 * size (not a slice of Node's shared pool), so that a worker can transfer them without a copy.
 */
export function decodeDocument(xmlBase64: string, limits: XmlLimits, ownBuffer = false): Buffer {
  const compact = checkBase64(xmlBase64);
  const size = base64DecodedSize(compact);
  if (size > limits.maxBytes * PRE_DECODE_FACTOR) throw tooLarge(size, limits);
  if (!ownBuffer) return Buffer.from(compact, "base64");
  const bytes = Buffer.allocUnsafeSlow(size);
  const written = bytes.write(compact, "base64");
  return written === size ? bytes : bytes.subarray(0, written);
}

/** Steps 2 to 9 on decoded bytes: one document, UTF-8 XML text, one parse, the root, recipient and fields, one hash. */
export function readDocument(bytes: Buffer, limits: XmlLimits): ReadInvoice {
  rejectZip(bytes);
  const text = decodeUtf8(bytes);
  if (text === null) {
    // Row 6 comes before row 7: look for a second document (the limits belong to row 8).
    if (scanXml(decodeUtf8Lossy(bytes), limits).multipleDocuments) throw multipleDocuments();
    throw notUtf8Error();
  }
  const scan = scanXml(text, limits);
  if (scan.multipleDocuments) throw multipleDocuments();
  requireMarkupStart(text);
  // Row 8, the size limits first: nothing heavy is built for a document over them.
  if (bytes.length > limits.maxBytes) throw tooLarge(bytes.length, limits);
  if (scan.limitExceeded) throw limitError(scan.limitExceeded);
  const doc = parseXml(text, scan, INVOICE_KEEP);
  const invoice = requireInvoiceRoot(doc);
  const recipient = extractRecipient(invoice);
  const fields = extractFields(invoice);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  return { bytes, sha256, recipient, fields, documentType: extractDocumentType(invoice) };
}

function multipleDocuments(): ApiError {
  return new ApiError(
    "single_xml_only",
    "xml holds more than one XML document (a second XML declaration or a second root element); send one invoice per request.",
  );
}
