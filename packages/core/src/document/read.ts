// The document pipeline in one call: base64 text in, a checked and validated UBL invoice out, on the calling thread.
import { ApiError } from "../domain/errors.js";
import { sha256Hex } from "../domain/sha256.js";
import type { ParticipantId } from "../domain/types.js";
import { validateModel, type ValidationItem } from "../validation/validate.js";
import { MAX_REPORTED_ERRORS, rulesError } from "./rules-error.js";
import { base64DecodedSize, checkBase64, decodeBase64Into, decodeCanonicalBase64 } from "./base64.js";
import { extractFields, requireStorableDates, requireStorableIdentifiers, type InvoiceFields } from "./fields.js";
import { extractRecipient } from "./recipient.js";
import { extractDocumentType, type PeppolDocumentType } from "./doctype.js";
import { decodeUtf8, decodeUtf8Lossy, notUtf8Error, rejectZip, requireMarkupStart } from "./text.js";
import { requireSubmitRoot, type UblRoot } from "./ubl.js";
import { DEFAULT_XML_LIMITS, parseXml, parseXmlUtf8, probeForSecondDocument, type XmlDocument, type XmlLimits } from "./xml.js";

/** A base64 UBL invoice that passed every check of the pipeline. */
export interface ReadInvoice {
  /** The decoded document, byte for byte. */
  bytes: Buffer;
  /** Hex SHA-256 of `bytes`. */
  sha256: string;
  /**
   * The recipient's Peppol identifier. Null only when it was read as optional (the KSeF route: the
   * buyer receives the invoice inside KSeF) and the document has none, or none of a Peppol scheme.
   */
  recipient: ParticipantId | null;
  fields: InvoiceFields;
  /** The Peppol document type and process (from the root, CustomizationID and ProfileID); null without a CustomizationID. */
  peppolDocumentType: PeppolDocumentType | null;
  /** The warning rules the document breaks (they never block; kept with the invoice). */
  warnings: ValidationItem[];
  /** The rule sets applied (the report's `ruleSets`). */
  ruleSets: string[];
  /** True when the document was built from the invoice as data (`readDataDocument`), not read from `xml`. */
  fromData?: boolean;
  /**
   * The document as it was submitted, when it is not the UBL in `bytes` (a CII converted to UBL, a Factur-X PDF): kept
   * with the record and served as `format=original`. `sha256` and the record's size are then the original's.
   */
  original?: OriginalDocument;
}

/** A submitted document that was converted to the UBL sent: its bytes as received and what they are. */
export interface OriginalDocument {
  bytes: Buffer;
  /** `cii` for a CII XML, `pdf` for a Factur-X / ZUGFeRD PDF (the CII attached to it was read). */
  syntax: "cii" | "pdf";
  /** `application/xml` or `application/pdf`. */
  mediaType: string;
}

function tooLarge(bytes: number, limits: XmlLimits): ApiError {
  const mib = (n: number) => (n / (1024 * 1024)).toFixed(1);
  return new ApiError("invalid_ubl_xml", `xml is too large to accept: the document is ${mib(bytes)} MiB; the limit is ${mib(limits.maxBytes)} MiB.`);
}

/**
 * Runs the checks of contract section 1, steps 5 to 9a, in order: base64, one document, UTF-8
 * XML text, well-formed UBL Invoice (no DOCTYPE, UTF-8 only, XML 1.0, within the limits),
 * recipient, the rules (EN 16931, and Peppol BIS Billing 3.0 when it says so). Throws the
 * `ApiError` of the first that fails. Synchronous: it runs on the calling thread
 * (`readInvoiceAsync` sends large documents to a worker thread instead).
 *
 * @example const { sha256, recipient, fields, warnings } = readInvoice(body.xml)
 */
export function readInvoice(xmlBase64: string, limits: XmlLimits = DEFAULT_XML_LIMITS, root: UblRoot = "Invoice", recipientOptional = false): ReadInvoice {
  return readDocument(decodeDocument(xmlBase64, limits), limits, root, recipientOptional);
}

/** Far past the limit, a document is refused before it is even decoded (memory stays bounded). */
const PRE_DECODE_FACTOR = 4;

/**
 * Step 1: strict base64, then the decoded bytes. A document far past the size limit is refused
 * here without decoding it; the exact limit is checked in its place among the XML checks. With `ownBuffer` the bytes get an ArrayBuffer of their own and of their exact
 * size (not a slice of Node's shared pool), so that a worker can transfer them without a copy.
 */
export function decodeDocument(xmlBase64: string, limits: XmlLimits, ownBuffer = false): Buffer {
  // What encoders write (padded, no whitespace) is decoded first and checked by encoding the bytes
  // again: both native, several times cheaper than the pattern's scan. Anything else is judged by it.
  if ((xmlBase64.length / 4) * 3 <= limits.maxBytes * PRE_DECODE_FACTOR) {
    const bytes = decodeCanonicalBase64(xmlBase64, ownBuffer);
    if (bytes !== null) return bytes;
  }
  const compact = checkBase64(xmlBase64);
  const size = base64DecodedSize(compact);
  if (size > limits.maxBytes * PRE_DECODE_FACTOR) throw tooLarge(size, limits);
  return decodeBase64Into(compact, size, ownBuffer);
}

/**
 * Steps 2 to 8, the checks before the root: one document, UTF-8 XML text, within the size limit, and
 * the one read that builds the model (and finds a second document, a DOCTYPE, a passed limit). Takes
 * the decoded bytes, or XML text already decoded (then only the markup, size and read remain).
 * Submit (readDocument) and validateInvoice both read through here.
 */
export function readXml(input: Buffer | string, limits: XmlLimits): XmlDocument {
  let text: string;
  let size: number;
  if (typeof input === "string") {
    text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
    size = Buffer.byteLength(text, "utf8");
  } else {
    rejectZip(input);
    const decoded = decodeUtf8(input);
    if (decoded === null) {
      // Row 6 comes before row 7: look for a second document (the limits belong to row 8).
      probeForSecondDocument(decodeUtf8Lossy(input), limits);
      throw notUtf8Error();
    }
    text = decoded;
    size = input.length;
  }
  requireMarkupStart(text);
  // Row 8, the size first: nothing is read or built for a document over it.
  if (size > limits.maxBytes) throw tooLarge(size, limits);
  // Decoded bytes: the characters XML forbids are looked for in them (parseXmlUtf8).
  return typeof input === "string" ? parseXml(text, limits) : parseXmlUtf8(text, input, limits);
}

/**
 * Steps 2 to 9a on decoded bytes: one document, UTF-8 XML text, one read that builds the model
 * (and finds a second document, a DOCTYPE, a passed limit), the root, recipient, the fields (their
 * identifiers within MAX_IDENTIFIER_LENGTH), rules,
 * one hash. With `recipientOptional` (the KSeF route) a missing recipient is no error (row 9 is
 * the Peppol route's): `recipient` is then null.
 */
export function readDocument(bytes: Buffer, limits: XmlLimits, root: UblRoot = "Invoice", recipientOptional = false): ReadInvoice {
  return readParsedDocument(readXml(bytes, limits), bytes, root, recipientOptional);
}

/** `readDocument` after its read (`readXml`): the root, recipient, fields, rules and hash of a UBL document. */
export function readParsedDocument(xml: XmlDocument, bytes: Buffer, root: UblRoot = "Invoice", recipientOptional = false): ReadInvoice {
  const invoice = requireSubmitRoot(xml, root);
  const recipient = recipientOptional ? optionalRecipient(invoice) : extractRecipient(invoice);
  const fields = extractFields(invoice);
  requireStorableIdentifiers(fields, recipient);
  // The first 100 findings of each flag are kept (the error lists them; the warnings are stored), and all are counted.
  const report = validateModel(invoice, { maxItems: MAX_REPORTED_ERRORS });
  if (!report.valid) throw rulesError(report.errors, invoice.name === "CreditNote" ? "credit note" : "invoice", report.ruleSets, report);
  // After the rules: a Peppol document's bad date is reported as its rule (PEPPOL-EN16931-F001) says.
  requireStorableDates(fields);
  const sha256 = sha256Hex(bytes);
  return { bytes, sha256, recipient, fields, peppolDocumentType: extractDocumentType(invoice), warnings: report.warnings, ruleSets: report.ruleSets };
}

/** The recipient when the document names one of a Peppol scheme, else null. */
export function optionalRecipient(invoice: Parameters<typeof extractRecipient>[0]): ParticipantId | null {
  try {
    return extractRecipient(invoice);
  } catch (e) {
    if (e instanceof ApiError && e.code === "missing_recipient") return null;
    throw e;
  }
}
