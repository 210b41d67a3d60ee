// Step 5 of the document pipeline: the root must be a UBL Invoice (or, where allowed, a CreditNote).
import { ApiError } from "../domain/errors.js";
import { NS, stringValue, type DocumentNode } from "./model.js";
import type { XmlDocument } from "./xml.js";
import { xmlTrim } from "./xml.js";

export const UBL_INVOICE_NS = NS.invoice;
export const UBL_CREDIT_NOTE_NS = NS.creditNote;
export const CAC = NS.cac;
export const CBC = NS.cbc;

/** The root elements of the UBL documents the reader knows. */
export type UblRoot = "Invoice" | "CreditNote";
/** @deprecated The former name of `UblRoot`, kept so existing code still builds. */
export type UblDocumentType = UblRoot;

/**
 * Returns the root element when it is a UBL Invoice (or one of `accept`), or throws
 * `invalid_ubl_xml` naming the root that was found.
 */
export function requireUblRoot(doc: XmlDocument, accept: readonly UblRoot[] = ["Invoice"]): DocumentNode & { name: UblRoot } {
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
  return root as DocumentNode & { name: UblRoot };
}

/** The submit endpoint of each UBL document type (the message of a document sent to the other one names it). */
export const SUBMIT_ENDPOINT: Record<UblRoot, string> = {
  Invoice: "POST /v1/peppol/invoice",
  CreditNote: "POST /v1/peppol/credit-note",
};

/**
 * The root of a submitted document, which must be `expected`. A UBL document of the other type
 * (an Invoice sent to the credit-note endpoint, a CreditNote to the invoice endpoint) is refused
 * with `invalid_ubl_xml` naming the endpoint that takes it; any other root as `requireUblRoot` does.
 */
export function requireSubmitRoot(doc: XmlDocument, expected: UblRoot): DocumentNode & { name: UblRoot } {
  const root = doc.root;
  const other: UblRoot = expected === "Invoice" ? "CreditNote" : "Invoice";
  if (root.name === other && root.ns === (other === "Invoice" ? UBL_INVOICE_NS : UBL_CREDIT_NOTE_NS)) {
    throw new ApiError(
      "invalid_ubl_xml",
      `xml is a UBL ${other}, but ${SUBMIT_ENDPOINT[expected]} takes a UBL ${expected}; send it to ${SUBMIT_ENDPOINT[other]}.`,
    );
  }
  return requireUblRoot(doc, [expected]);
}

/** Returns the Invoice root element, or throws `invalid_ubl_xml` naming the root that was found. */
export function requireInvoiceRoot(doc: XmlDocument): DocumentNode {
  return requireUblRoot(doc, ["Invoice"]);
}

/** The text of an element trimmed of XML whitespace; null when the element is absent or its text is blank. */
export function text(el: DocumentNode | null): string | null {
  if (!el) return null;
  const t = xmlTrim(stringValue(el));
  return t === "" ? null : t;
}
