// Test support: a DocumentNode tree built with @xmldom/xmldom, so rule families can be tested before (and
// against) the reader's own builder. Not for production: the reader builds the model in one pass.
import { DOMParser, type Element } from "@xmldom/xmldom";
import { qnameOf, type DocumentNode } from "../../src/document/model.js";

interface MutableNode {
  ns: string;
  name: string;
  qname: string;
  attrs: Record<string, string>;
  text: string;
  children: MutableNode[];
  parent: MutableNode | null;
  index: number;
}

export function xmldomTree(xml: string): DocumentNode {
  const doc = new DOMParser({ onError: () => {} }).parseFromString(xml, "text/xml");
  const build = (el: Element, parent: MutableNode | null): MutableNode => {
    const ns = el.namespaceURI ?? "";
    const node: MutableNode = { ns, name: el.localName!, qname: qnameOf(ns, el.localName!, parent === null), attrs: {}, text: "", children: [], parent, index: 1 };
    for (let i = 0; i < el.attributes.length; i++) {
      const a = el.attributes.item(i)!;
      if (!a.namespaceURI && a.name !== "xmlns") node.attrs[a.name] = a.value;
    }
    const seen = new Map<string, number>();
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 1) {
        const kid = build(c as Element, node);
        const n = (seen.get(kid.qname) ?? 0) + 1;
        seen.set(kid.qname, n);
        kid.index = n;
        node.children.push(kid);
      } else if (c.nodeType === 3 || c.nodeType === 4) node.text += (c as unknown as { data: string }).data;
    }
    return node;
  };
  return build(doc.documentElement!, null);
}
