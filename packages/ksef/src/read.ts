// The UBL bytes the dispatcher hands a network, read into the FA(3) mapping's model (the shape of the
// core's UblNode) with @xmldom/xmldom. The core has already checked the document at submission.
import { DOMParser, type Element } from "@xmldom/xmldom";
import type { Fa3Node } from "./model.js";

const PREFIX: Record<string, string> = {
  "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2": "cbc",
  "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2": "cac",
  "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2": "ext",
};
const ROOTS = new Set(["urn:oasis:names:specification:ubl:schema:xsd:Invoice-2", "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"]);

interface Node {
  ns: string;
  name: string;
  qname: string;
  attrs: Record<string, string>;
  text: string;
  children: Node[];
}

/** The model of a UBL document; throws when the bytes are not well-formed XML. */
export function readUbl(bytes: Uint8Array): Fa3Node {
  const errors: string[] = [];
  const doc = new DOMParser({ onError: (level, msg) => void (level !== "warning" && errors.push(msg)) }).parseFromString(Buffer.from(bytes).toString("utf8"), "text/xml");
  if (errors.length > 0 || !doc.documentElement) throw new Error(`the document is not well-formed XML: ${errors[0] ?? "no root element"}`);
  const build = (el: Element, isRoot: boolean): Node => {
    const ns = el.namespaceURI ?? "";
    const name = el.localName!;
    const p = PREFIX[ns];
    const node: Node = { ns, name, qname: p ? `${p}:${name}` : isRoot && ROOTS.has(ns) ? name : ns ? `{${ns}}${name}` : name, attrs: {}, text: "", children: [] };
    for (let i = 0; i < el.attributes.length; i++) {
      const a = el.attributes.item(i)!;
      if (!a.namespaceURI && a.name !== "xmlns") node.attrs[a.name] = a.value;
    }
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 1) node.children.push(build(c as Element, false));
      else if (c.nodeType === 3 || c.nodeType === 4) node.text += (c as unknown as { data: string }).data;
    }
    return node;
  };
  return build(doc.documentElement, true);
}
