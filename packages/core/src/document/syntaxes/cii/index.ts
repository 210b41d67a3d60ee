// The UN/CEFACT Cross Industry Invoice D16B syntax (EN 16931 CII, XRechnung CII, Factur-X / ZUGFeRD 2.x XML):
// read.ts reads it into InvoiceData, write.ts writes InvoiceData as EN 16931 CII; its rule sets are
// validation/rulesets/ with syntax "cii".
import { NS, first, stringValue, xmlTrim, type DocumentNode } from "../../model.js";
import { CREDIT_NOTE_TYPE_CODES } from "../../invoice-data/normalise.js";
import type { Syntax } from "../types.js";
import { invoiceDataOfCii } from "./read.js";
import { writeCii } from "./write.js";

export { invoiceDataOfCii, ciiDate } from "./read.js";
export { writeCii, ciiLosses, type CiiWriteOptions } from "./write.js";

/** The CII root element's qualified name as the model writes it. */
export const CII_ROOT = "rsm:CrossIndustryInvoice";

export const cii: Syntax = {
  id: "cii",
  title: "UN/CEFACT CII D16B",
  recognises: (root: DocumentNode) => root.name === "CrossIndustryInvoice" && root.ns === NS.rsm,
  // CII has one root for both: a credit note is a document whose type code (BT-3) is a credit note's.
  kindOf: (root: DocumentNode) =>
    CREDIT_NOTE_TYPE_CODES.includes(xmlTrim(stringValue(first(root, "rsm:ExchangedDocument/ram:TypeCode")))) ? "creditNote" : "invoice",
  read: (root) => invoiceDataOfCii(root),
  write: (data, options) => writeCii(data, options),
};
