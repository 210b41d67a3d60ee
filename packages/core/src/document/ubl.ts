// Step 5 of the document pipeline: the root must be a UBL Invoice; small helpers to walk the kept elements.
import { ApiError } from "../domain/errors.js";
import type { XmlDocument, XmlElement } from "./xml.js";

export const UBL_INVOICE_NS = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2";
export const CAC = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2";
export const CBC = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2";

/** Returns the Invoice root element, or throws `invalid_ubl_xml` naming the root that was found. */
export function requireInvoiceRoot(doc: XmlDocument): XmlElement {
  const root = doc.documentElement;
  if (root.localName !== "Invoice" || root.namespaceURI !== UBL_INVOICE_NS) {
    const ns = root.namespaceURI ? ` in namespace ${root.namespaceURI}` : " in no namespace";
    throw new ApiError(
      "invalid_ubl_xml",
      `xml is not a UBL Invoice: the root element is ${root.localName}${ns}; expected Invoice in namespace ${UBL_INVOICE_NS}.`,
    );
  }
  return root;
}

/** The first kept child element of `el` with this namespace and local name. */
export function child(el: XmlElement | null, ns: string, localName: string): XmlElement | null {
  if (!el) return null;
  for (const e of el.children) if (e.localName === localName && e.namespaceURI === ns) return e;
  return null;
}

/** Every kept child element of `el` with this namespace and local name. */
export function children(el: XmlElement | null, ns: string, localName: string): XmlElement[] {
  return el ? el.children.filter((e) => e.localName === localName && e.namespaceURI === ns) : [];
}

/** Follows a path of `[ns, localName]` steps from `el`, first match at each step. */
export function path(el: XmlElement | null, ...steps: Array<readonly [string, string]>): XmlElement | null {
  let cur = el;
  for (const [ns, name] of steps) {
    cur = child(cur, ns, name);
    if (!cur) return null;
  }
  return cur;
}

/** The trimmed text of an element kept with its text; null when the element is absent or its text is blank. */
export function text(el: XmlElement | null): string | null {
  if (!el) return null;
  const t = el.text.trim();
  return t === "" ? null : t;
}
