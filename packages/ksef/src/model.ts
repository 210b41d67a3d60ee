// The part of the core's document model the FA(3) mapping reads: the core's ModelNode (the fields of
// DocumentNode in @einvoice/core's document/model.ts, as the dispatcher hands them to a network).
// Structural: the core's DocumentNode is assignable to it, and so is any tree built the same way (readUbl
// in read.ts builds one from bytes).
import type { ModelNode } from "@einvoice/core";

export type Fa3Node = ModelNode;

export function childOf(node: Fa3Node | null | undefined, qname: string): Fa3Node | null {
  if (!node) return null;
  for (const c of node.children) if (c.qname === qname) return c;
  return null;
}

export function childrenOf(node: Fa3Node | null | undefined, qname: string): Fa3Node[] {
  return node ? node.children.filter((c) => c.qname === qname) : [];
}

/** The first node at a "/"-separated path of child qnames. */
export function firstAt(node: Fa3Node | null | undefined, path: string): Fa3Node | null {
  let cur: Fa3Node | null = node ?? null;
  for (const step of path.split("/")) {
    cur = childOf(cur, step);
    if (!cur) return null;
  }
  return cur;
}

/** normalize-space of the node's own text (leaf elements in UBL). */
export function text(node: Fa3Node | null | undefined): string {
  return node ? node.text.replace(/[ \t\r\n]+/g, " ").trim() : "";
}
