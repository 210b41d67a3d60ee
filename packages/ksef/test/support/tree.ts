// Test support: the UBL model the FA(3) mapping reads, from XML text (the package's own reader), and
// the values of an FA(3) document read back with @xmldom/xmldom.
import { DOMParser } from "@xmldom/xmldom";
import type { Fa3Node } from "../../src/model.js";
import { readUbl } from "../../src/read.js";

export function ublTree(xml: string): Fa3Node {
  return readUbl(Buffer.from(xml, "utf8"));
}

/** The text of every element with this local name in an FA(3) document, in order. */
export function fa3Values(xml: string, local: string): string[] {
  const doc = new DOMParser({ onError: () => {} }).parseFromString(xml, "text/xml");
  const out: string[] = [];
  const all = doc.getElementsByTagNameNS("http://crd.gov.pl/wzor/2025/06/25/13775/", local);
  for (let i = 0; i < all.length; i++) out.push(all.item(i)!.textContent ?? "");
  return out;
}
