// Step 5 of the document pipeline: the root must be a UBL Invoice; small helpers to walk its DOM.
import { ApiError } from "../errors.js";
import type { XmlDocument, XmlElement } from "./xml.js";

export const UBL_INVOICE_NS = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2";
export const CAC = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2";
export const CBC = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2";

/** Returns the Invoice root element, or throws `invalid_ubl_xml` naming the root that was found. */
export function requireInvoiceRoot(doc: XmlDocument): XmlElement {
  const root = doc.documentElement;
  if (!root) throw new ApiError("invalid_ubl_xml", "xml is not a UBL Invoice: the document has no root element.");
  if (root.localName !== "Invoice" || root.namespaceURI !== UBL_INVOICE_NS) {
    const ns = root.namespaceURI ? ` in namespace ${root.namespaceURI}` : " in no namespace";
    throw new ApiError(
      "invalid_ubl_xml",
      `xml is not a UBL Invoice: the root element is ${root.localName}${ns}; expected Invoice in namespace ${UBL_INVOICE_NS}.`,
    );
  }
  return root;
}

/** The first child element of `el` with this namespace and local name (a direct DOM walk: no XPath, no `//`). */
export function child(el: XmlElement | null, ns: string, localName: string): XmlElement | null {
  if (!el) return null;
  for (let n = el.firstChild; n !== null; n = n.nextSibling) {
    if (n.nodeType === 1) {
      const e = n as XmlElement;
      if (e.localName === localName && e.namespaceURI === ns) return e;
    }
  }
  return null;
}

/** Every child element of `el` with this namespace and local name. */
export function children(el: XmlElement | null, ns: string, localName: string): XmlElement[] {
  const out: XmlElement[] = [];
  if (!el) return out;
  for (let n = el.firstChild; n !== null; n = n.nextSibling) {
    if (n.nodeType === 1) {
      const e = n as XmlElement;
      if (e.localName === localName && e.namespaceURI === ns) out.push(e);
    }
  }
  return out;
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

/** The trimmed text of an element; null when the element is absent or its text is blank. */
export function text(el: XmlElement | null): string | null {
  if (!el) return null;
  const t = (el.textContent ?? "").trim();
  return t === "" ? null : t;
}
