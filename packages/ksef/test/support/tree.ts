// Test support: the core's document model (UblNode shape) built with @xmldom/xmldom, as
// packages/core/test/support/xmldom-tree.ts does, plus the UBL prefixes the model uses.
import { DOMParser, type Element } from "@xmldom/xmldom";
import type { Fa3Node } from "../../src/model.js";

const NS: Record<string, string> = {
  "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2": "cbc",
  "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2": "cac",
  "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2": "ext",
};
const ROOT_NS = new Set(["urn:oasis:names:specification:ubl:schema:xsd:Invoice-2", "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"]);

interface Node {
  ns: string;
  name: string;
  qname: string;
  attrs: Record<string, string>;
  text: string;
  children: Node[];
  parent: Node | null;
  index: number;
}

export function ublTree(xml: string): Fa3Node {
  const doc = new DOMParser({ onError: () => {} }).parseFromString(xml, "text/xml");
  const build = (el: Element, parent: Node | null): Node => {
    const ns = el.namespaceURI ?? "";
    const local = el.localName!;
    const prefix = NS[ns];
    const qname = prefix ? `${prefix}:${local}` : parent === null && ROOT_NS.has(ns) ? local : ns ? `{${ns}}${local}` : local;
    const node: Node = { ns, name: local, qname, attrs: {}, text: "", children: [], parent, index: 1 };
    for (let i = 0; i < el.attributes.length; i++) {
      const a = el.attributes.item(i)!;
      if (!a.namespaceURI && a.name !== "xmlns") node.attrs[a.name] = a.value;
    }
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 1) node.children.push(build(c as Element, node));
      else if (c.nodeType === 3 || c.nodeType === 4) node.text += (c as unknown as { data: string }).data;
    }
    return node;
  };
  return build(doc.documentElement!, null);
}

/** The text of every element with this local name in an FA(3) document, in order. */
export function fa3Values(xml: string, local: string): string[] {
  const doc = new DOMParser({ onError: () => {} }).parseFromString(xml, "text/xml");
  const out: string[] = [];
  const all = doc.getElementsByTagNameNS("http://crd.gov.pl/wzor/2025/06/25/13775/", local);
  for (let i = 0; i < all.length; i++) out.push(all.item(i)!.textContent ?? "");
  return out;
}
