// Test support: the `//qname` index a model carries (model.ts, BY_QNAME) against a walk of the model.
import { expect } from "vitest";
import { BY_QNAME, type QnameIndex, type UblNode } from "../../src/document/model.js";

/** The index the reader or the builder filed on `root`, if any. */
export function qnameIndexOf(root: UblNode): QnameIndex | undefined {
  return root.memo?.get(BY_QNAME) as QnameIndex | undefined;
}

/** Every element by qname, by a walk in document order: what the index must hold. */
export function walkedByQname(root: UblNode): Map<string, UblNode[]> {
  const out = new Map<string, UblNode[]>();
  const visit = (n: UblNode) => {
    out.set(n.qname, [...(out.get(n.qname) ?? []), n]);
    n.children.forEach(visit);
  };
  visit(root);
  return out;
}

/** Asserts that `root` carries an index holding the walk's very nodes (identity, not likeness), in order, and nothing for an absent qname. */
export function expectIndexMatchesWalk(root: UblNode, label = ""): void {
  const index = qnameIndexOf(root);
  expect(index, label).toBeDefined();
  for (const [qname, nodes] of walkedByQname(root)) {
    expect(index!.get(qname)?.map((n) => nodes.indexOf(n)), `${label} ${qname}`).toEqual(nodes.map((_, i) => i));
  }
  expect(index!.get("cac:NoSuchElement")).toBeUndefined();
}
