// Step 7 of the document pipeline: the fields of the invoice record, read from the document model.
import { dayExists } from "../domain/dates.js";
import { ApiError } from "../domain/errors.js";
import type { ParticipantId, Party, Totals } from "../domain/types.js";
import { child, children, first, type DocumentNode } from "./model.js";
import { text } from "./ubl.js";
import { xmlTrim } from "./xml.js";

export interface InvoiceFields {
  /** `invoice` for a UBL Invoice, `creditNote` for a UBL CreditNote. */
  kind: "invoice" | "creditNote";
  /** BT-25, the number of the invoice this document corrects (`cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID`); null when absent. */
  billingReference: string | null;
  invoiceNumber: string | null;
  issueDate: string | null;
  dueDate: string | null;
  currency: string | null;
  totals: Totals;
  supplier: Party;
  recipient: Party;
}

/** Reads the record fields from the model of an Invoice (or CreditNote). Amounts stay the decimal strings of the XML. */
export function extractFields(invoice: DocumentNode): InvoiceFields {
  const totals = child(invoice, "cac:LegalMonetaryTotal");
  return {
    kind: invoice.name === "CreditNote" ? "creditNote" : "invoice",
    billingReference: text(first(invoice, "cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID")),
    invoiceNumber: text(child(invoice, "cbc:ID")),
    issueDate: text(child(invoice, "cbc:IssueDate")),
    // BT-9: an Invoice's cbc:DueDate; a CreditNote has none and carries it on its payment means (EN 16931 UBL binding).
    dueDate:
      invoice.name === "CreditNote"
        ? text(first(invoice, "cac:PaymentMeans/cbc:PaymentDueDate"))
        : text(child(invoice, "cbc:DueDate")),
    currency: text(child(invoice, "cbc:DocumentCurrencyCode")),
    totals: {
      taxExclusive: text(child(totals, "cbc:TaxExclusiveAmount")),
      taxInclusive: text(child(totals, "cbc:TaxInclusiveAmount")),
      payable: text(child(totals, "cbc:PayableAmount")),
    },
    supplier: party(first(invoice, "cac:AccountingSupplierParty/cac:Party")),
    recipient: party(first(invoice, "cac:AccountingCustomerParty/cac:Party")),
  };
}

function party(el: DocumentNode | null): Party {
  const endpoint = child(el, "cbc:EndpointID");
  const endpointValue = text(endpoint);
  const scheme = xmlTrim(endpoint?.attrs["schemeID"] ?? "");
  return {
    name: text(first(el, "cac:PartyLegalEntity/cbc:RegistrationName")) ?? text(first(el, "cac:PartyName/cbc:Name")),
    endpointId: endpointValue === null ? null : scheme === "" ? endpointValue : `${scheme}:${endpointValue}`,
    vatId: vatId(el),
    country: text(first(el, "cac:PostalAddress/cac:Country/cbc:IdentificationCode")),
  };
}

function vatId(el: DocumentNode | null): string | null {
  for (const scheme of children(el, "cac:PartyTaxScheme")) {
    if (text(first(scheme, "cac:TaxScheme/cbc:ID"))?.toUpperCase() === "VAT") {
      return text(child(scheme, "cbc:CompanyID"));
    }
  }
  return null;
}

/**
 * The longest identifier a submission may carry where it is stored and looked up by (the invoice
 * number, the number of the invoice a credit note corrects, the buyer's electronic address), in
 * characters: as long as KSeF's invoice number (FA(3) P_2), and 1 KiB at most in UTF-8, well within
 * the index entry PostgreSQL allows (about 2.7 KB).
 */
export const MAX_IDENTIFIER_LENGTH = 256;

/** Throws `invalid_ubl_xml` naming the first identifier of the record longer than MAX_IDENTIFIER_LENGTH characters. */
export function requireStorableIdentifiers(fields: InvoiceFields, recipient: ParticipantId | null): void {
  const doc = fields.kind === "creditNote" ? "credit note" : "invoice";
  const checks: Array<[string | null, string]> = [
    [fields.invoiceNumber, `The ${doc} number (BT-1, cbc:ID)`],
    [fields.billingReference, "The number of the invoice it corrects (BT-25, cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID)"],
    [recipient?.value ?? null, "The buyer's electronic address (BT-49, cac:AccountingCustomerParty/cac:Party/cbc:EndpointID)"],
  ];
  for (const [value, what] of checks) {
    if (value === null || value.length <= MAX_IDENTIFIER_LENGTH) continue;
    let n = 0;
    for (const _ of value) n++; // characters, not UTF-16 units
    if (n > MAX_IDENTIFIER_LENGTH) {
      throw new ApiError("invalid_ubl_xml", `${what} has ${n} characters; einvoice stores identifiers of at most ${MAX_IDENTIFIER_LENGTH} characters. Shorten it.`);
    }
  }
}

/**
 * True for an xs:date as the UBL schema types cbc:IssueDate and cbc:DueDate (XML Schema 1.0): a year
 * of four digits or more (not 0000, no leading zero past four digits, an optional minus), a month and
 * a day that exist, and an optional time zone (`Z`, or `+hh:mm` / `-hh:mm` up to 14:00).
 */
export function isXsDate(s: string): boolean {
  const m = /^-?(\d{4,})-(\d{2})-(\d{2})(?:Z|[+-](\d{2}):(\d{2}))?$/.exec(s);
  if (!m) return false;
  const yearText = m[1]!;
  if (/^0+$/.test(yearText) || (yearText.length > 4 && yearText.startsWith("0"))) return false;
  if (!dayExists(Number(yearText), Number(m[2]), Number(m[3]))) return false;
  if (m[4] !== undefined) {
    const hours = Number(m[4]), minutes = Number(m[5]);
    if (hours > 14 || minutes > 59 || (hours === 14 && minutes !== 0)) return false;
  }
  return true;
}

/**
 * Throws `invalid_ubl_xml` naming the issue date (BT-2) or due date (BT-9) of the record that is not an
 * xs:date. The UBL schema requires one; the EN 16931 rules do not look (Peppol's PEPPOL-EN16931-F001
 * does, and runs first), and the record is filtered by its issue date (`issueDateFrom`), so a document
 * dated `2026-13-45` is not stored.
 */
export function requireStorableDates(fields: InvoiceFields): void {
  const due = fields.kind === "creditNote" ? "cac:PaymentMeans/cbc:PaymentDueDate" : "cbc:DueDate";
  const checks: Array<[string | null, string]> = [
    [fields.issueDate, "The issue date (BT-2, cbc:IssueDate)"],
    [fields.dueDate, `The payment due date (BT-9, ${due})`],
  ];
  for (const [value, what] of checks) {
    if (value !== null && !isXsDate(value)) {
      throw new ApiError("invalid_ubl_xml", `${what} is ${JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value)}, which is not a date: the UBL schema requires one such as 2026-01-31 (a day that exists, optionally with a time zone such as Z or +01:00).`);
    }
  }
}
