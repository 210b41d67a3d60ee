// Invoices as data: parse an InvoiceData, build its Peppol BIS 3 UBL, check it with our rules and report
// broken rules against the JSON field that caused them; read any UBL invoice back as InvoiceData.
import { sha256Hex } from "../../domain/sha256.js";
import { ApiError, badRequest } from "../../domain/errors.js";
import { validateModel, type ValidationReport } from "../../validation/validate.js";
import { RULE_SETS } from "../../validation/rulesets/index.js";
import type { DocumentNode } from "../model.js";
import { buildDocument, type BuiltKind } from "./build.js";
import { CREDIT_NOTE_TYPE_CODES } from "./normalise.js";
import { pointerResolver } from "./paths.js";
import { dataIssueMessage, dataIssueMessages, InvoiceDataSchema, type InvoiceData, type InvoiceDataInput } from "../../domain/invoice-data.js";

export { InvoiceDataSchema, VAT_CATEGORIES, SPECIFICATIONS, type Specification, type InvoiceData, type InvoiceDataInput, type VatCategory, type InvoiceLine } from "../../domain/invoice-data.js";
export { computeTotals, round2, type ComputedTotals } from "../../domain/invoice-totals.js";
export { readInvoiceData, invoiceDataOf } from "./read.js";
export { normaliseInvoiceData, CREDIT_NOTE_TYPE_CODES } from "./normalise.js";
export { PEPPOL_BIS3_CUSTOMIZATION, PEPPOL_BIS3_PROFILE, XRECHNUNG_3_CUSTOMIZATION, EN16931_CUSTOMIZATION, SPECIFICATION_CUSTOMIZATION } from "./build.js";

/**
 * Checks an InvoiceData against its schema; throws a 400 `bad_request` whose messages start with the
 * JSON pointer of each bad field (`/invoice/lines/2/vat/rate: is required for category S`), `prefix`
 * being where the data sits in the request body.
 */
export function parseInvoiceData(input: unknown, prefix = ""): InvoiceData {
  const result = InvoiceDataSchema.safeParse(input, { error: dataIssueMessage });
  if (result.success) return result.data;
  throw badRequest(dataIssueMessages(result.error.issues, prefix));
}

/** Which UBL document an InvoiceData becomes: a CreditNote for a credit note type code (381, 396, ...), else an Invoice. */
export function rootElementOfData(data: Pick<InvoiceData, "typeCode">): BuiltKind {
  return data.typeCode !== undefined && CREDIT_NOTE_TYPE_CODES.includes(data.typeCode) ? "CreditNote" : "Invoice";
}
/** @deprecated The former name of `rootElementOfData`, kept so existing callers still build. */
export const documentTypeOfData = rootElementOfData;

export interface BuildOptions {
  /** The root element, Invoice or CreditNote; by default from `typeCode` (a credit note code gives a CreditNote). */
  rootElement?: BuiltKind;
  /** @deprecated The former name of `rootElement`, still read when `rootElement` is not given. */
  documentType?: BuiltKind;
}

const rootElementFor = (parsed: InvoiceData, options: BuildOptions): BuiltKind => options.rootElement ?? options.documentType ?? rootElementOfData(parsed);

/**
 * The UBL 2.1 document (XML text, UTF-8) of an invoice given as data: Peppol BIS Billing 3.0, or XRechnung 3.0 or
 * plain EN 16931 as its `specification` says. The
 * service computes every line net amount, total and the VAT breakdown. Throws a 400 `bad_request`
 * for data the schema refuses (each message names the JSON pointer). It does not run the rules: use
 * `buildInvoice` for the document and its report.
 *
 * @example const xml = buildUbl(JSON.parse(readFileSync("examples/invoice.json", "utf8")))
 */
export function buildUbl(data: InvoiceDataInput | unknown, options: BuildOptions = {}): string {
  const parsed = parseInvoiceData(data);
  return buildDocument(parsed, rootElementFor(parsed, options)).xml;
}

/** One broken rule of a built document, with the JSON pointer of the field that caused it. */
export interface DataValidationItem {
  rule: string;
  message: string;
  location: string;
  /** JSON pointer into the InvoiceData, such as `/lines/2/vat/rate` ("" for the whole invoice). */
  path: string;
}

/** What `buildInvoice` returns. */
export interface BuiltInvoice {
  /** The document's root element: Invoice or CreditNote. */
  rootElement: BuiltKind;
  /** @deprecated The same as `rootElement`, under its former name. */
  documentType: BuiltKind;
  /** The XML (for a large document, decoded from `bytes` when first read). */
  readonly xml: string;
  bytes: Buffer;
  sha256: string;
  data: InvoiceData;
  /** The model of the document (the rules' tree), for the pipeline after it. */
  root: DocumentNode;
  /** Our rules on the built document; every item carries `path`. */
  report: Omit<ValidationReport, "errors" | "warnings"> & { errors: DataValidationItem[]; warnings: DataValidationItem[] };
}

/**
 * Parses, builds and checks an invoice given as data: the document, and the report of our rules
 * (EN 16931, and Peppol BIS Billing 3.0 or XRechnung 3.0.2 as `specification` says) whose items name the
 * JSON field behind each broken rule.
 * `prefix` is where the data sits in a request body (for the 400 messages only; `path` is relative
 * to the data). A document that breaks fatal rules is returned with `report.valid` false.
 *
 * @example const { xml, report } = buildInvoice(data); if (!report.valid) console.log(report.errors.map((e) => e.path))
 */
export function buildInvoice(data: unknown, options: BuildOptions & { prefix?: string } = {}): BuiltInvoice {
  const parsed = parseInvoiceData(data, options.prefix ?? "");
  return buildParsedInvoice(parsed, rootElementFor(parsed, options));
}

/** `buildInvoice` on data already parsed with `InvoiceDataSchema` (a request body's). */
export function buildParsedInvoice(parsed: InvoiceData, kind: BuiltKind, maxItems?: number): BuiltInvoice {
  const built = buildDocument(parsed, kind);
  const report = validateModel(built.root, maxItems === undefined ? {} : { maxItems });
  const resolve = pointerResolver(built);
  const withPath = (i: { rule: string; message: string; location: string }): DataValidationItem => ({ ...i, path: resolve(i.rule, i.location) });
  const bytes = built.bytes;
  return {
    rootElement: kind,
    documentType: kind,
    get xml() {
      return built.xml;
    },
    bytes,
    sha256: sha256Hex(bytes),
    data: parsed,
    root: built.root,
    report: { ...report, errors: report.errors.map(withPath), warnings: report.warnings.map(withPath) },
  };
}

/** The 422 `invalid_ubl_xml` of a built document that breaks fatal rules: items with `rule`, `message`, `location` and `path`. */
export function dataRulesError(built: BuiltInvoice): ApiError {
  const errors = built.report.errors;
  const ids = [...new Set(errors.map((e) => e.rule))];
  const paths = [...new Set(errors.map((e) => e.path || "/"))];
  const doc = built.rootElement === "CreditNote" ? "credit note" : "invoice";
  // The rule sets that ran: EN 16931 / Peppol BIS Billing 3.0 by default, EN 16931 / XRechnung 3.0.2 for specification xrechnung, ...
  const titles = built.report.ruleSets.map((id) => RULE_SETS.find((s) => s.id === id)?.title ?? id).join(" / ");
  return new ApiError(
    "invalid_ubl_xml",
    `The ${doc} built from your data breaks ${errors.length} fatal rule${errors.length === 1 ? "" : "s"} of ${titles} (${ids.slice(0, 5).join(", ")}${ids.length > 5 ? ", ..." : ""}) at ${paths.slice(0, 5).join(", ")}${paths.length > 5 ? ", ..." : ""}. See errors for each rule, its message and the field (path).`,
    { errors: errors.slice(0, 100) },
  );
}
