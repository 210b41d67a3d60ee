// The document pipeline for a `document` in any syntax einvoice reads, told apart by content: a UBL document goes the
// way `xml` goes (read.ts); a CII document is judged by the CII rule sets on its own tree, read into InvoiceData,
// written as Peppol BIS Billing 3.0 UBL with every value as written and judged again by the UBL rules (what is sent
// on Peppol is UBL); a Factur-X / ZUGFeRD PDF is opened (pdf/) and its attached XML read as a CII.
import { ApiError } from "../domain/errors.js";
import type { InvoiceData } from "../domain/invoice-data.js";
import { sha256Hex } from "../domain/sha256.js";
import type { RuleError } from "../domain/errors.js";
import type { ParticipantId } from "../domain/types.js";
import { validateModel, type ValidationItem, type ValidationReport } from "../validation/validate.js";
import { extractDocumentType } from "./doctype.js";
import { extractFields, requireStorableDates, requireStorableIdentifiers } from "./fields.js";
import { buildDocument } from "./invoice-data/build.js";
import { pointerResolver } from "./invoice-data/paths.js";
import type { DocumentNode } from "./model.js";
import { extractInvoiceXml, isPdf, type ExtractedInvoice } from "./pdf/index.js";
import { optionalRecipient, readParsedDocument, readXml, type ReadInvoice } from "./read.js";
import { extractRecipient } from "./recipient.js";
import { MAX_REPORTED_ERRORS, rulesError } from "./rules-error.js";
import { ciiPathOf } from "./syntaxes/cii/paths.js";
import { syntaxOf, type Syntax } from "./syntaxes/index.js";
import { cii } from "./syntaxes/cii/index.js";
import { SUBMIT_ENDPOINT, type UblRoot } from "./ubl.js";
import { DEFAULT_XML_LIMITS, type XmlLimits } from "./xml.js";

/** ZUGFeRD 1.0's root namespace: a CII of an older UN/CEFACT version (D14A-like), not EN 16931. */
export const ZUGFERD_1_NS = "urn:ferd:CrossIndustryDocument:invoice:1p0";

const NOUN: Record<UblRoot, "invoice" | "credit note"> = { Invoice: "invoice", CreditNote: "credit note" };

/**
 * The syntax of a parsed document's root, or the `unsupported_document` error that names what it is and what to send
 * instead (ZUGFeRD 1.0 by name).
 */
export function requireKnownSyntax(root: DocumentNode): Syntax {
  const syntax = syntaxOf(root);
  if (syntax) return syntax;
  if (root.ns === ZUGFERD_1_NS) {
    throw new ApiError(
      "unsupported_document",
      `document is a ZUGFeRD 1.0 invoice (root CrossIndustryDocument in namespace ${ZUGFERD_1_NS}), which einvoice does not read: ZUGFeRD 1.0 predates EN 16931 and is no longer a valid e-invoice in Germany. Send the invoice as ZUGFeRD 2.x / Factur-X (profile EN 16931 or EXTENDED), XRechnung, or EN 16931 UBL.`,
    );
  }
  const ns = root.ns ? ` in namespace ${root.ns}` : " in no namespace";
  throw new ApiError(
    "unsupported_document",
    `document is neither a UBL Invoice or CreditNote nor a UN/CEFACT CII CrossIndustryInvoice: its root element is ${root.name}${ns}. Send a UBL 2.1 document, a CII D16B document (EN 16931, XRechnung, Factur-X / ZUGFeRD 2.x XML) or a Factur-X PDF.`,
  );
}

/**
 * Reads and checks an XML `document` of any syntax for the submit endpoint of `root`: UBL exactly as `xml` is read
 * (`readDocument`); CII judged by the CII rule sets (a broken fatal rule is a 422 `invalid_ubl_xml` at the CII's own
 * locations), then converted to Peppol BIS Billing 3.0 UBL with every value as written and judged by the UBL rules
 * (a broken fatal rule is a 422 whose errors carry `path`, the InvoiceData field, and `source`, its place in the CII).
 * The result's `bytes` are the UBL sent; `original` keeps the CII as received. Synchronous; a PDF goes through
 * `readAnyDocumentAsync`.
 */
export function readAnyDocument(bytes: Buffer, limits: XmlLimits, root: UblRoot = "Invoice", recipientOptional = false): ReadInvoice {
  if (isPdf(bytes)) throw new ApiError("unsupported_document", "document is a PDF: read it with readAnyDocumentAsync (a PDF is opened off the calling thread).");
  const xml = readXml(bytes, limits);
  const syntax = requireKnownSyntax(xml.root);
  if (syntax.id === "ubl") return readParsedDocument(xml, bytes, root, recipientOptional);
  return readCiiDocument(xml.root, { bytes, syntax: "cii", mediaType: "application/xml" }, root, recipientOptional);
}

/** `readAnyDocument`, and a Factur-X / ZUGFeRD PDF too: its attached invoice XML is taken out (pdf/) and read as a CII. */
export async function readAnyDocumentAsync(bytes: Buffer, limits: XmlLimits, root: UblRoot = "Invoice", recipientOptional = false): Promise<ReadInvoice> {
  if (!isPdf(bytes)) return readAnyDocument(bytes, limits, root, recipientOptional);
  const extracted = await extractInvoiceXml(bytes);
  const xml = readXml(extracted.xml, limits);
  const syntax = requireKnownSyntax(xml.root);
  if (syntax.id !== "cii") throw pdfNotCii(extracted, xml.root);
  return readCiiDocument(xml.root, { bytes, syntax: "pdf", mediaType: "application/pdf" }, root, recipientOptional);
}

function pdfNotCii(extracted: ExtractedInvoice, root: DocumentNode): ApiError {
  return new ApiError(
    "unsupported_document",
    `The PDF's attachment ${JSON.stringify(extracted.attachmentName)} is a UBL ${root.name}, not the CII a Factur-X / ZUGFeRD PDF carries; send the UBL itself as xml or document.`,
  );
}

/**
 * Any XML document einvoice reads (UBL or CII: bytes, or XML text) read into InvoiceData, every value as written, with
 * its syntax and kind. Throws `invalid_ubl_xml` for a document that is not well-formed and `unsupported_document` for
 * another root. It does not run the rules (`validateAnyDocument` does).
 *
 * @example const { syntax, invoice } = readDocumentData(readFileSync("xrechnung-cii.xml"))
 */
export function readDocumentData(document: Uint8Array | string, limits: XmlLimits = DEFAULT_XML_LIMITS): { syntax: Syntax["id"]; kind: "invoice" | "creditNote"; invoice: InvoiceData } {
  const input = typeof document === "string" ? document : Buffer.isBuffer(document) ? document : Buffer.from(document.buffer, document.byteOffset, document.byteLength);
  const root = readXml(input, limits).root;
  const syntax = requireKnownSyntax(root);
  return { syntax: syntax.id, kind: syntax.kindOf(root), invoice: syntax.read(root) };
}

/** The kind a CII's type code says against the endpoint's: an invoice sent to the credit-note endpoint, or the reverse, is refused. */
function requireCiiKind(ciiRoot: DocumentNode, root: UblRoot): void {
  const kind = cii.kindOf(ciiRoot);
  const expected = root === "CreditNote" ? "creditNote" : "invoice";
  if (kind === expected) return;
  const other: UblRoot = root === "CreditNote" ? "Invoice" : "CreditNote";
  throw new ApiError(
    "invalid_ubl_xml",
    `document is a CII ${NOUN[other]} (its type code, BT-3, says so), but ${SUBMIT_ENDPOINT[root]} takes a ${NOUN[root]}; send it to ${SUBMIT_ENDPOINT[other]}.`,
  );
}

/** A CII read into InvoiceData; a failure of the reader on a document the rules passed is a 422, never a 500. */
function readCiiData(ciiRoot: DocumentNode): InvoiceData {
  try {
    return cii.read(ciiRoot);
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw new ApiError("invalid_ubl_xml", "The CII document passed the EN 16931 CII rules but could not be read into an invoice; send it as UBL, or tell us the document (its structure is unusual).");
  }
}

/** Peppol rules broken by a field the CII left out, reported on its party or the document: that field. */
const MISSING_FIELD: Readonly<Record<string, string>> = {
  "PEPPOL-EN16931-R010": "/buyer/endpoint",
  "PEPPOL-EN16931-R020": "/seller/endpoint",
  "PEPPOL-EN16931-R003": "/buyerReference",
};

/** What a CII becomes as Peppol BIS UBL: the built document, its report (items with path and source), and the data. */
export interface ConvertedCii {
  data: InvoiceData;
  bytes: Buffer;
  root: DocumentNode;
  report: ValidationReport;
  errors: RuleError[];
  warnings: RuleError[];
}

/**
 * A CII's InvoiceData written as Peppol BIS Billing 3.0 UBL (`root`: Invoice or CreditNote), every amount as the CII
 * wrote it, and judged by the UBL rules: each item names the InvoiceData field (`path`) and its place in the CII (`source`).
 */
export function convertCiiToUbl(data: InvoiceData, root: UblRoot, maxItems = MAX_REPORTED_ERRORS): ConvertedCii {
  let built: ReturnType<typeof buildDocument>;
  try {
    // Peppol carries Peppol BIS Billing 3.0 UBL, whatever specification the CII named (an XRechnung CII is sent on
    // Peppol as Peppol BIS; its XRechnung rules were checked on the CII).
    built = buildDocument({ ...data, specification: "peppol" }, root, { asWritten: true });
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw new ApiError("invalid_ubl_xml", "The CII document could not be converted to UBL: a value it holds cannot be written there (a decimal that is no number, a line without its VAT category). Correct the CII, or send the invoice as UBL.");
  }
  const report = validateModel(built.root, { maxItems });
  const resolve = pointerResolver(built);
  const withSource = (i: ValidationItem): RuleError => {
    const path = MISSING_FIELD[i.rule] ?? resolve(i.rule, i.location);
    return { ...i, path, source: ciiPathOf(path) };
  };
  return { data, bytes: built.bytes, root: built.root, report, errors: report.errors.map(withSource), warnings: report.warnings.map(withSource) };
}

function readCiiDocument(ciiRoot: DocumentNode, original: NonNullable<ReadInvoice["original"]>, root: UblRoot, recipientOptional: boolean): ReadInvoice {
  requireCiiKind(ciiRoot, root);
  const ciiReport = validateModel(ciiRoot, { maxItems: MAX_REPORTED_ERRORS });
  if (!ciiReport.valid) throw rulesError(ciiReport.errors, NOUN[root], ciiReport.ruleSets, ciiReport);
  const converted = convertCiiToUbl(readCiiData(ciiRoot), root);
  if (!converted.report.valid) throw convertedRulesError(converted, root);
  const recipient: ParticipantId | null = recipientOptional ? optionalRecipient(converted.root) : extractRecipient(converted.root);
  const fields = extractFields(converted.root);
  requireStorableIdentifiers(fields, recipient);
  requireStorableDates(fields);
  return {
    bytes: converted.bytes,
    // The record's hash and the duplicate rule are the document's as the client sent it.
    sha256: sha256Hex(original.bytes),
    recipient,
    fields,
    peppolDocumentType: extractDocumentType(converted.root),
    warnings: [...ciiReport.warnings, ...converted.warnings].slice(0, MAX_REPORTED_ERRORS),
    ruleSets: [...ciiReport.ruleSets, ...converted.report.ruleSets],
    original,
  };
}

/** The 422 of a CII whose Peppol BIS UBL breaks fatal rules: the rules, the InvoiceData fields and their CII places. */
function convertedRulesError(converted: ConvertedCii, root: UblRoot): ApiError {
  const base = rulesError(converted.errors, NOUN[root], converted.report.ruleSets, converted.report);
  const sources = [...new Set(converted.errors.map((e) => e.source!))].slice(0, 3);
  return new ApiError(
    "invalid_ubl_xml",
    `The CII ${NOUN[root]} passes the EN 16931 CII rules, but converted to Peppol BIS Billing 3.0 UBL (what Peppol carries) it breaks: ${base.message.replace(/^The (invoice|credit note) breaks /, "")} Correct the CII at ${sources.join(", ")}${converted.errors.length > 3 ? ", ..." : ""} (each error's source).`,
    { errors: converted.errors.slice(0, MAX_REPORTED_ERRORS) },
  );
}
