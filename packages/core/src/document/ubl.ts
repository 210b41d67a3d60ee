// Step 5 of the document pipeline: the root must be a UBL Invoice (or, where allowed, a CreditNote).
import { ApiError } from "../domain/errors.js";
import { NS, stringValue, type UblNode } from "../validation/model.js";
import type { XmlDocument } from "./xml.js";
import { xmlTrim } from "./xml.js";

export const UBL_INVOICE_NS = NS.invoice;
export const UBL_CREDIT_NOTE_NS = NS.creditNote;
export const CAC = NS.cac;
export const CBC = NS.cbc;

/** The UBL document types the reader knows. */
export type UblDocumentType = "Invoice" | "CreditNote";

/**
 * Returns the root element when it is a UBL Invoice (or one of `accept`), or throws
 * `invalid_ubl_xml` naming the root that was found.
 */
export function requireUblRoot(doc: XmlDocument, accept: readonly UblDocumentType[] = ["Invoice"]): UblNode & { name: UblDocumentType } {
  const root = doc.root;
  const ok =
    (root.name === "Invoice" && root.ns === UBL_INVOICE_NS && accept.includes("Invoice")) ||
    (root.name === "CreditNote" && root.ns === UBL_CREDIT_NOTE_NS && accept.includes("CreditNote"));
  if (!ok) {
    const ns = root.ns ? ` in namespace ${root.ns}` : " in no namespace";
    const expected = accept
      .map((t) => `${t} in namespace ${t === "Invoice" ? UBL_INVOICE_NS : UBL_CREDIT_NOTE_NS}`)
      .join(" or ");
    throw new ApiError("invalid_ubl_xml", `xml is not a UBL ${accept.join(" or ")}: the root element is ${root.name}${ns}; expected ${expected}.`);
  }
  return root as UblNode & { name: UblDocumentType };
}

/** Returns the Invoice root element, or throws `invalid_ubl_xml` naming the root that was found. */
export function requireInvoiceRoot(doc: XmlDocument): UblNode {
  return requireUblRoot(doc, ["Invoice"]);
}

/** The text of an element trimmed of XML whitespace; null when the element is absent or its text is blank. */
export function text(el: UblNode | null): string | null {
  if (!el) return null;
  const t = xmlTrim(stringValue(el));
  return t === "" ? null : t;
}
