// Test support: the `//qname` index a model carries (model.ts, BY_QNAME) against a walk of the model.
import { expect } from "vitest";
import { BY_QNAME, type QnameIndex, type DocumentNode } from "../../src/document/model.js";

/** The index the reader or the builder filed on `root`, if any. */
export function qnameIndexOf(root: DocumentNode): QnameIndex | undefined {
  return root.memo?.get(BY_QNAME) as QnameIndex | undefined;
}

/** Every element by qname, by a walk in document order: what the index must hold. */
export function walkedByQname(root: DocumentNode): Map<string, DocumentNode[]> {
  const out = new Map<string, DocumentNode[]>();
  const visit = (n: DocumentNode) => {
    out.set(n.qname, [...(out.get(n.qname) ?? []), n]);
    n.children.forEach(visit);
  };
  visit(root);
  return out;
}

/** Asserts that `root` carries an index holding the walk's very nodes (identity, not likeness), in order, and nothing for an absent qname. */
export function expectIndexMatchesWalk(root: DocumentNode, label = ""): void {
  const index = qnameIndexOf(root);
  expect(index, label).toBeDefined();
  for (const [qname, nodes] of walkedByQname(root)) {
    expect(index!.get(qname)?.map((n) => nodes.indexOf(n)), `${label} ${qname}`).toEqual(nodes.map((_, i) => i));
  }
  expect(index!.get("cac:NoSuchElement")).toBeUndefined();
}
