// The UBL 2.1 syntax (Invoice and CreditNote): its reader and writer are document/invoice-data/ (readInvoiceData's
// invoiceDataOf, buildUbl's buildDocument); its rule sets are validation/rulesets/ with syntax "ubl".
import { NS, type DocumentNode } from "../model.js";
import { invoiceDataOf } from "../invoice-data/read.js";
import { buildDocument } from "../invoice-data/build.js";
import { CREDIT_NOTE_TYPE_CODES } from "../invoice-data/normalise.js";
import type { Syntax } from "./types.js";

export const ubl: Syntax = {
  id: "ubl",
  title: "UBL 2.1",
  recognises: (root) => (root.name === "Invoice" && root.ns === NS.invoice) || (root.name === "CreditNote" && root.ns === NS.creditNote),
  kindOf: (root: DocumentNode) => (root.name === "CreditNote" ? "creditNote" : "invoice"),
  read: (root) => invoiceDataOf(root),
  write: (data, options = {}) => {
    const kind = options.kind ?? (data.typeCode !== undefined && CREDIT_NOTE_TYPE_CODES.includes(data.typeCode) ? "creditNote" : "invoice");
    return buildDocument(data, kind === "creditNote" ? "CreditNote" : "Invoice").xml;
  },
};
