// A received document, read and judged: what an inbound record keeps of it. What arrives from a network is untrusted:
// the same reader limits as a submission (XML, PDF), a size cap, and nothing it holds may throw past `judgeReceived`
// (a document that is not XML, not an invoice, or broken is judged `unknown` / invalid with one finding saying why).
// One parse: the model built by the read is judged by the rules and gives the record's fields.
import { ApiError } from "../domain/errors.js";
import type { InvoiceData } from "../domain/invoice-data.js";
import type { ReceivedSyntax } from "../domain/types.js";
import { INBOUND_DOCUMENT_MAX_BYTES, INBOUND_ERRORS_MAX } from "../ports/inbound.js";
import { validateModel, type ValidationItem } from "../validation/validate.js";
import { requireKnownSyntax } from "./any.js";
import { extractFields, MAX_IDENTIFIER_LENGTH, type InvoiceFields } from "./fields.js";
import type { DocumentNode } from "./model.js";
import { extractInvoiceXml, isPdf } from "./pdf/index.js";
import { readXml } from "./read.js";
import { syntaxOf } from "./syntaxes/index.js";
import type { InvoiceKind } from "./syntaxes/types.js";
import { DEFAULT_XML_LIMITS, type XmlLimits } from "./xml.js";

/**
 * A syntax a received document may be in besides the core's UBL and CII, such as KSeF's FA(3) (`fa3Syntax` of
 * `@einvoice/ksef`): it recognises its root and reads the document into InvoiceData. The core has no rule sets for it:
 * a document it reads is judged valid (its network checked it against its schema before handing it over).
 */
export interface ReceiveSyntax {
  /** What the record's `syntax` says: `fa3`. */
  readonly id: string;
  recognises(root: DocumentNode): boolean;
  kindOf(root: DocumentNode): InvoiceKind;
  read(root: DocumentNode): InvoiceData;
}

/** The rule id of the one finding of a received document that could not be read (not XML, not an invoice, broken, hostile). */
export const UNREADABLE_RULE = "unreadable";
/** The rule id of the finding of a received document larger than `INBOUND_DOCUMENT_MAX_BYTES` (kept without its bytes). */
export const TOO_LARGE_RULE = "too_large";

/** What a received document was read and judged as. */
export interface JudgedDocument {
  syntax: ReceivedSyntax;
  /** `application/xml`, `application/pdf`, or `application/octet-stream` (neither). */
  mediaType: string;
  /** The record's fields read from the document, as an outbound record's; empty (nulls) when it could not be read. */
  fields: InvoiceFields;
  /** Whether the document passed the rules that apply to it; false when it could not be read. */
  valid: boolean;
  /** The broken fatal rules (at most INBOUND_ERRORS_MAX), or the one finding saying why it could not be read. */
  errors: ValidationItem[];
  warnings: ValidationItem[];
  /** The rule sets applied. */
  ruleSets: string[];
}

const EMPTY_PARTY = { name: null, endpointId: null, vatId: null, country: null } as const;

/** The fields of a document that could not be read: an invoice without a number, dates, totals or parties. */
export function emptyFields(): InvoiceFields {
  return {
    kind: "invoice",
    billingReference: null,
    invoiceNumber: null,
    issueDate: null,
    dueDate: null,
    currency: null,
    totals: { taxExclusive: null, taxInclusive: null, payable: null },
    supplier: { ...EMPTY_PARTY },
    recipient: { ...EMPTY_PARTY },
  };
}

/** The media type of received bytes as told from their content: a PDF, XML text (starts with `<`), or neither. */
export function mediaTypeOf(bytes: Uint8Array): string {
  if (isPdf(bytes)) return "application/pdf";
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (i < bytes.length && i < 1024 && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i++;
  return bytes[i] === 0x3c ? "application/xml" : "application/octet-stream";
}

/** The reader limits for received documents: the caller's, but a document up to the inbound cap is read. */
export function receivedLimits(limits: Partial<XmlLimits> = DEFAULT_XML_LIMITS): XmlLimits {
  const full = { ...DEFAULT_XML_LIMITS, ...limits };
  return full.maxBytes >= INBOUND_DOCUMENT_MAX_BYTES ? full : { ...full, maxBytes: INBOUND_DOCUMENT_MAX_BYTES };
}

/** The errors of JavaScript itself: a reader's bug, whose message says nothing about the document. */
const BUILT_IN_ERRORS = new Set(["Error", "TypeError", "RangeError", "ReferenceError", "SyntaxError", "EvalError", "URIError", "AggregateError"]);

/**
 * What an error says about a document, for its finding: an ApiError's message (it names what is wrong), a reader's own
 * error's message (such as an FA(3) mapping error), else `fallback` alone.
 */
function whatIsWrong(e: unknown, fallback: string): string {
  if (e instanceof ApiError) return e.code === "internal_error" ? `${fallback}.` : e.message;
  if (e instanceof Error && !BUILT_IN_ERRORS.has(e.name) && typeof e.message === "string" && e.message.length > 0) return `${fallback}: ${e.message.slice(0, 500)}`;
  return `${fallback}.`;
}

const finding = (rule: string, message: string, location = "/"): ValidationItem => ({ rule, message: message.length > 1000 ? `${message.slice(0, 997)}...` : message, location });

function unreadable(syntax: ReceivedSyntax, mediaType: string, message: string, rule = UNREADABLE_RULE, fields = emptyFields()): JudgedDocument {
  return { syntax, mediaType, fields, valid: false, errors: [finding(rule, message)], warnings: [], ruleSets: [] };
}

/** Cuts a stored identifier to MAX_IDENTIFIER_LENGTH characters and any other field to 1,000: a received document may hold anything. */
function storable(f: InvoiceFields): InvoiceFields {
  const id = (s: string | null) => (s !== null && s.length > MAX_IDENTIFIER_LENGTH ? s.slice(0, MAX_IDENTIFIER_LENGTH) : s);
  const text = (s: string | null) => (s !== null && s.length > 1000 ? s.slice(0, 1000) : s);
  const party = (p: InvoiceFields["supplier"]) => ({ name: text(p.name), endpointId: id(p.endpointId), vatId: id(p.vatId), country: id(p.country) });
  return {
    kind: f.kind,
    billingReference: id(f.billingReference),
    invoiceNumber: id(f.invoiceNumber),
    issueDate: id(f.issueDate),
    dueDate: id(f.dueDate),
    currency: id(f.currency),
    totals: { taxExclusive: id(f.totals.taxExclusive), taxInclusive: id(f.totals.taxInclusive), payable: id(f.totals.payable) },
    supplier: party(f.supplier),
    recipient: party(f.recipient),
  };
}

/**
 * The record's fields of an invoice read as data (a CII, an FA(3)), in the shape `extractFields` gives for a UBL: the
 * party's name is its legal name (BT-27/BT-44), else its trading name; its endpoint `scheme:id`; totals as written.
 */
export function fieldsOfData(data: Partial<InvoiceData>, kind: InvoiceKind): InvoiceFields {
  const party = (p: Partial<InvoiceData["seller"]> | undefined) => ({
    name: p?.name ?? p?.tradingName ?? null,
    endpointId: p?.endpoint?.id ? (p.endpoint.scheme ? `${p.endpoint.scheme}:${p.endpoint.id}` : p.endpoint.id) : null,
    vatId: p?.vatId ?? null,
    country: p?.address?.country ?? null,
  });
  return {
    kind,
    billingReference: data.precedingInvoices?.[0]?.number ?? null,
    invoiceNumber: data.number ?? null,
    issueDate: data.issueDate ?? null,
    dueDate: data.dueDate ?? null,
    currency: data.currency ?? null,
    totals: { taxExclusive: data.totals?.taxExclusive ?? null, taxInclusive: data.totals?.taxInclusive ?? null, payable: data.totals?.payable ?? null },
    supplier: party(data.seller),
    recipient: party(data.buyer as Partial<InvoiceData["seller"]> | undefined),
  };
}

/** The root of a received document: its XML (a PDF's attached invoice XML) read under the limits. Throws an ApiError saying what is wrong. */
async function rootOf(bytes: Buffer, pdf: boolean, limits: XmlLimits): Promise<DocumentNode> {
  const xml = pdf ? (await extractInvoiceXml(bytes)).xml : bytes;
  return readXml(xml, limits).root;
}

/** The syntax of a root: the core's (UBL, CII), else the first extra one that recognises it, else null. */
function syntaxFor(root: DocumentNode, extra: readonly ReceiveSyntax[]): ReceiveSyntax | null {
  const core = syntaxOf(root);
  if (core) return core;
  for (const s of extra) {
    try {
      if (s.recognises(root)) return s;
    } catch {
      // A syntax that cannot tell does not recognise it.
    }
  }
  return null;
}

/**
 * Reads and judges a received document, never throwing for its content: larger than `INBOUND_DOCUMENT_MAX_BYTES`, not
 * XML or PDF, past a reader limit, not an invoice, or broken, it is judged invalid with one finding saying why (rule
 * `too_large` or `unreadable`). A UBL or CII document is judged by the rule sets that apply to it (as POST /v1/validate
 * does, at most INBOUND_ERRORS_MAX errors kept) and its fields read from the same parse; a Factur-X PDF's attached CII
 * likewise (syntax `pdf`); a document of an extra syntax (`syntaxes`, such as FA(3)) is read into InvoiceData and
 * judged valid when it reads.
 *
 * @example const judged = await judgeReceived(bytes, { syntaxes: [fa3Syntax] }); console.log(judged.syntax, judged.valid)
 */
export async function judgeReceived(content: Uint8Array, options: { limits?: XmlLimits; syntaxes?: readonly ReceiveSyntax[]; mediaType?: string } = {}): Promise<JudgedDocument> {
  const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  const pdf = isPdf(bytes);
  const mediaType = pdf ? "application/pdf" : mediaTypeOf(bytes);
  const unknownSyntax: ReceivedSyntax = pdf ? "pdf" : "unknown";
  if (bytes.length > INBOUND_DOCUMENT_MAX_BYTES) {
    return unreadable(unknownSyntax, mediaType, `The document is ${bytes.length} bytes, more than the ${INBOUND_DOCUMENT_MAX_BYTES} bytes a received document may have: it is kept without its bytes.`, TOO_LARGE_RULE);
  }
  if (mediaType === "application/octet-stream") {
    return unreadable("unknown", mediaType, "The document is neither XML nor a PDF: it could not be read as an invoice.");
  }
  let root: DocumentNode;
  try {
    root = await rootOf(bytes, pdf, receivedLimits(options.limits));
  } catch (e) {
    return unreadable(unknownSyntax, mediaType, whatIsWrong(e, pdf ? "The PDF could not be read" : "The document could not be read as XML"));
  }
  const syntax = syntaxFor(root, options.syntaxes ?? []);
  if (!syntax) {
    let message = "The document is not an invoice einvoice reads.";
    try {
      requireKnownSyntax(root);
    } catch (e) {
      message = whatIsWrong(e, "The document is not an invoice einvoice reads");
    }
    return unreadable(unknownSyntax, mediaType, message);
  }
  const id: ReceivedSyntax = pdf ? "pdf" : syntax.id === "ubl" || syntax.id === "cii" || syntax.id === "fa3" ? syntax.id : "unknown";
  if (pdf && syntax.id !== "cii") {
    return unreadable("pdf", mediaType, `The PDF's attached invoice XML is a ${syntax.id.toUpperCase()} document, not the CII a Factur-X / ZUGFeRD PDF carries.`);
  }
  let kind: InvoiceKind;
  try {
    kind = syntax.kindOf(root);
  } catch (e) {
    return unreadable(id, mediaType, whatIsWrong(e, "The document's kind (invoice or credit note) could not be told"));
  }
  if (syntax.id !== "ubl" && syntax.id !== "cii") {
    try {
      return { syntax: id, mediaType, fields: storable(fieldsOfData(syntax.read(root), kind)), valid: true, errors: [], warnings: [], ruleSets: [] };
    } catch (e) {
      return unreadable(id, mediaType, whatIsWrong(e, `The ${syntax.id.toUpperCase()} document could not be read into an invoice`));
    }
  }
  let fields: InvoiceFields;
  let readError: ValidationItem | null = null;
  try {
    fields = storable(syntax.id === "ubl" ? extractFields(root) : fieldsOfData(syntax.read(root), kind));
  } catch (e) {
    fields = { ...emptyFields(), kind };
    readError = finding(UNREADABLE_RULE, whatIsWrong(e, "The document's fields could not be read"));
  }
  try {
    const report = validateModel(root, { maxItems: INBOUND_ERRORS_MAX });
    const errors = readError ? [readError, ...report.errors].slice(0, INBOUND_ERRORS_MAX) : report.errors;
    return { syntax: id, mediaType, fields, valid: report.valid && !readError, errors, warnings: report.warnings, ruleSets: report.ruleSets };
  } catch (e) {
    return unreadable(id, mediaType, whatIsWrong(e, "The rules could not judge the document"), UNREADABLE_RULE, fields);
  }
}

/**
 * The invoice of a received document as InvoiceData, whatever its syntax (UBL, CII, a Factur-X PDF's CII, an extra
 * syntax such as FA(3)); every value as written. Throws the ApiError `document_unreadable` (422) saying why when it
 * cannot be read.
 *
 * @example const data = await readReceivedData(bytes, { syntaxes: [fa3Syntax] })
 */
export async function readReceivedData(content: Uint8Array, options: { limits?: Partial<XmlLimits>; syntaxes?: readonly ReceiveSyntax[] } = {}): Promise<InvoiceData> {
  const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  const pdf = isPdf(bytes);
  let root: DocumentNode;
  try {
    root = await rootOf(bytes, pdf, receivedLimits(options.limits));
  } catch (e) {
    throw unreadableError(whatIsWrong(e, pdf ? "The PDF could not be read" : "The document could not be read as XML"));
  }
  const syntax = syntaxFor(root, options.syntaxes ?? []);
  if (!syntax) throw unreadableError("The document is not an invoice einvoice reads (neither UBL, CII, a Factur-X PDF nor a syntax this server was given).");
  try {
    return syntax.read(root);
  } catch (e) {
    throw unreadableError(whatIsWrong(e, `The ${syntax.id.toUpperCase()} document could not be read into an invoice`));
  }
}

function unreadableError(why: string): ApiError {
  return new ApiError("document_unreadable", `The received document cannot be given as data: ${why} Ask for it without Accept: application/json for its bytes as received.`);
}
