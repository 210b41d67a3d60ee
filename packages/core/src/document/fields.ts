// Step 7 of the document pipeline: the fields of the invoice record.
import type { Party, Totals } from "../domain/types.js";
import { CAC, CBC, child, children, path, text } from "./ubl.js";
import type { XmlElement, XmlKeep } from "./xml.js";

const PARTY: XmlKeep = {
  EndpointID: [CBC, "text"],
  PartyLegalEntity: [CAC, { RegistrationName: [CBC, "text"] }],
  PartyName: [CAC, { Name: [CBC, "text"] }],
  PostalAddress: [CAC, { Country: [CAC, { IdentificationCode: [CBC, "text"] }] }],
  PartyTaxScheme: [CAC, { CompanyID: [CBC, "text"], TaxScheme: [CAC, { ID: [CBC, "text"] }] }],
};

/**
 * The elements below /Invoice that `extractFields` and `extractRecipient` read, and only those: the
 * parse keeps nothing else (no invoice lines, no DOM of the whole document).
 */
export const INVOICE_KEEP: XmlKeep = {
  CustomizationID: [CBC, "text"],
  ProfileID: [CBC, "text"],
  ID: [CBC, "text"],
  IssueDate: [CBC, "text"],
  DueDate: [CBC, "text"],
  DocumentCurrencyCode: [CBC, "text"],
  LegalMonetaryTotal: [CAC, { TaxExclusiveAmount: [CBC, "text"], TaxInclusiveAmount: [CBC, "text"], PayableAmount: [CBC, "text"] }],
  AccountingSupplierParty: [CAC, { Party: [CAC, PARTY] }],
  AccountingCustomerParty: [CAC, { Party: [CAC, PARTY] }],
};

export interface InvoiceFields {
  invoiceNumber: string | null;
  issueDate: string | null;
  dueDate: string | null;
  currency: string | null;
  totals: Totals;
  supplier: Party;
  recipient: Party;
}

/** Reads the record fields from an Invoice root element. Amounts stay the decimal strings of the XML. */
export function extractFields(invoice: XmlElement): InvoiceFields {
  const totals = child(invoice, CAC, "LegalMonetaryTotal");
  return {
    invoiceNumber: text(child(invoice, CBC, "ID")),
    issueDate: text(child(invoice, CBC, "IssueDate")),
    dueDate: text(child(invoice, CBC, "DueDate")),
    currency: text(child(invoice, CBC, "DocumentCurrencyCode")),
    totals: {
      taxExclusive: text(child(totals, CBC, "TaxExclusiveAmount")),
      taxInclusive: text(child(totals, CBC, "TaxInclusiveAmount")),
      payable: text(child(totals, CBC, "PayableAmount")),
    },
    supplier: party(path(invoice, [CAC, "AccountingSupplierParty"], [CAC, "Party"])),
    recipient: party(path(invoice, [CAC, "AccountingCustomerParty"], [CAC, "Party"])),
  };
}

function party(el: XmlElement | null): Party {
  const endpoint = child(el, CBC, "EndpointID");
  const endpointValue = text(endpoint);
  const scheme = endpoint?.getAttribute("schemeID")?.trim() ?? "";
  return {
    name: text(path(el, [CAC, "PartyLegalEntity"], [CBC, "RegistrationName"])) ?? text(path(el, [CAC, "PartyName"], [CBC, "Name"])),
    endpointId: endpointValue === null ? null : scheme === "" ? endpointValue : `${scheme}:${endpointValue}`,
    vatId: vatId(el),
    country: text(path(el, [CAC, "PostalAddress"], [CAC, "Country"], [CBC, "IdentificationCode"])),
  };
}

function vatId(el: XmlElement | null): string | null {
  for (const scheme of children(el, CAC, "PartyTaxScheme")) {
    if (text(path(scheme, [CAC, "TaxScheme"], [CBC, "ID"]))?.toUpperCase() === "VAT") {
      return text(child(scheme, CBC, "CompanyID"));
    }
  }
  return null;
}
