// The document model the validation rules read: a compact tree of the whole XML document (UBL, CII, any
// syntax), built in one pass by the reader (xml.ts), values kept as their XML text (never floats).
//
// Contract shared by the builder, the readers of document/ and the rule families (validation/rules/*.ts), which import
// nothing else of document/. Rules navigate with the helpers below, using fixed prefixes: UBL's "cbc:", "cac:", "ext:"
// (a UBL root is written without one: "Invoice", "CreditNote") and CII's "rsm:", "ram:", "udt:", "qdt:" (the root too:
// "rsm:CrossIndustryInvoice"); any other namespace is written "{uri}local".

import type { ModelNode } from "../domain/xml-node.js";

export const NS = {
  cbc: "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
  cac: "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
  ext: "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2",
  invoice: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
  creditNote: "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2",
  /** UN/CEFACT Cross Industry Invoice D16B (EN 16931 CII, XRechnung CII, Factur-X / ZUGFeRD 2.x). */
  rsm: "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100",
  ram: "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100",
  udt: "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100",
  qdt: "urn:un:unece:uncefact:data:standard:QualifiedDataType:100",
} as const;

/** One element of the document: the fields a network reads (ModelNode, domain/xml-node.ts), and what the rules add. */
export interface DocumentNode extends ModelNode {
  /** Child elements, in document order. */
  readonly children: readonly DocumentNode[];
  /** The parent element; null for the root. */
  readonly parent: DocumentNode | null;
  /** 1-based position among the parent's children with the same qname (for locations). */
  readonly index: number;
  /** Values the helpers computed from this element, kept on it (see `memoOn`); undefined until one is. */
  memo?: Map<symbol, unknown> | undefined;
  /**
   * The element's value as a number, once the rules have read it as one (their decimal, or null when the
   * text is none); undefined before. One slot on the node: the rules read tens of thousands of amounts in a
   * large invoice, and a map of them costs more than the arithmetic.
   */
  numeric?: unknown;
}

/** @deprecated The former name of `DocumentNode` (the model is any syntax's, not UBL's only), kept so existing code still builds. */
export type UblNode = DocumentNode;

/**
 * A value computed once from `node` and kept on the node itself, under `key`: it lives exactly as long as
 * the document. (A WeakMap keyed by nodes is the obvious cache, but V8's young-generation collector treats
 * a long-lived WeakMap's keys as reachable: every document validated then survives its first collections,
 * is promoted to the old generation and costs a full collection. Over 20,000 documents read and checked:
 * 22 mark-compacts and scavenges of 50 ms instead of one and 2 ms, docs/performance.md.)
 */
export function memoOn<T>(node: DocumentNode, key: symbol, make: (node: DocumentNode) => T): T {
  let memo = node.memo;
  if (memo === undefined) node.memo = memo = new Map();
  else if (memo.has(key)) return memo.get(key) as T;
  const value = make(node);
  memo.set(key, value);
  return value;
}

/** Every element of a document by qname, in document order (XPath `//qname`). */
export interface QnameIndex {
  get(qname: string): readonly DocumentNode[] | undefined;
}

/**
 * The memo key (see `memoOn`) under which a document's root keeps its QnameIndex. The reader (xml.ts)
 * files it as it reads; for a model built otherwise, the rules make it with one walk.
 */
export const BY_QNAME = Symbol("elements by qname");

/** The root element of the document `node` is in. */
export function rootOf(node: DocumentNode): DocumentNode {
  let n = node;
  while (n.parent !== null) n = n.parent;
  return n;
}

/** The prefixes rules may use in qnames. */
export function qnameOf(ns: string, local: string, isRoot: boolean): string {
  if (ns === NS.cbc) return `cbc:${local}`;
  if (ns === NS.cac) return `cac:${local}`;
  if (ns === NS.ext) return `ext:${local}`;
  if (ns === NS.ram) return `ram:${local}`;
  if (ns === NS.udt) return `udt:${local}`;
  if (ns === NS.rsm) return `rsm:${local}`;
  if (ns === NS.qdt) return `qdt:${local}`;
  if (isRoot && (ns === NS.invoice || ns === NS.creditNote)) return local;
  return ns === "" ? local : `{${ns}}${local}`;
}

/** The first child with this qname, or null. */
export function child(node: DocumentNode | null | undefined, qname: string): DocumentNode | null {
  if (!node) return null;
  if (node.children.length >= INDEX_FROM) return named(node, qname)[0] ?? null;
  const kids = node.children;
  for (let i = 0; i < kids.length; i++) if (kids[i]!.qname === qname) return kids[i]!;
  return null;
}

/** Every child with this qname. */
export function children(node: DocumentNode | null | undefined, qname: string): DocumentNode[] {
  if (!node) return [];
  if (node.children.length >= INDEX_FROM) return named(node, qname).slice();
  const out: DocumentNode[] = [];
  const kids = node.children;
  for (let i = 0; i < kids.length; i++) if (kids[i]!.qname === qname) out.push(kids[i]!);
  return out;
}

// A node with many children (the root of a document with many lines) gets its children grouped by qname
// once, so that a rule asking the root for one element per line does not scan every line each time: the
// cost of the rules stays linear in the document.
const INDEX_FROM = 16;
const CHILD_INDEX = Symbol("children by qname");
const NONE: readonly DocumentNode[] = Object.freeze([]);

function indexChildren(node: DocumentNode): Map<string, DocumentNode[]> {
  const index = new Map<string, DocumentNode[]>();
  for (const c of node.children) {
    const list = index.get(c.qname);
    if (list) list.push(c);
    else index.set(c.qname, [c]);
  }
  return index;
}

/** The children of `node` with this qname, read-only (shared by every caller). */
function named(node: DocumentNode, qname: string): readonly DocumentNode[] {
  return memoOn(node, CHILD_INDEX, indexChildren).get(qname) ?? NONE;
}

/**
 * Every node at a relative path of qnames separated by "/" (like the XPath `a/b/c` with child steps
 * only), in document order. `"@name"` as the last step is not supported: read `attrs`.
 */
export function select(node: DocumentNode | null | undefined, path: string): DocumentNode[] {
  if (!node) return [];
  let steps = pathSteps.get(path);
  if (!steps) pathSteps.set(path, (steps = path.split("/")));
  if (steps.length === 1) return children(node, path);
  const out: DocumentNode[] = [];
  collect(node, steps, 0, out);
  return out;
}

// Depth first: with child steps only, that is document order, and no list is made per step. The helpers
// here loop by index: V8 does not always optimise for-of's iterator away in these recursions.
function collect(node: DocumentNode, steps: readonly string[], i: number, out: DocumentNode[]): void {
  const step = steps[i]!;
  const last = i === steps.length - 1;
  const candidates = node.children.length >= INDEX_FROM ? named(node, step) : node.children;
  for (let k = 0; k < candidates.length; k++) {
    const c = candidates[k]!;
    if (c.qname !== step) continue;
    if (last) out.push(c);
    else collect(c, steps, i + 1, out);
  }
}

// The steps of each path rules use, split once (rules use a few hundred distinct paths).
const pathSteps = new Map<string, string[]>();

/** The first node at a relative path, or null. */
export function first(node: DocumentNode | null | undefined, path: string): DocumentNode | null {
  if (!node) return null;
  let steps = pathSteps.get(path);
  if (!steps) pathSteps.set(path, (steps = path.split("/")));
  return firstAt(node, steps, 0);
}

// Depth first in document order: the first match without collecting the others.
function firstAt(node: DocumentNode, steps: readonly string[], i: number): DocumentNode | null {
  const step = steps[i]!;
  const candidates = node.children.length >= INDEX_FROM ? named(node, step) : node.children;
  for (let k = 0; k < candidates.length; k++) {
    const c = candidates[k]!;
    if (c.qname !== step) continue;
    if (i === steps.length - 1) return c;
    const found = firstAt(c, steps, i + 1);
    if (found) return found;
  }
  return null;
}

/** Every descendant (not the node itself) with this qname, in document order. */
export function descendants(node: DocumentNode | null | undefined, qname: string): DocumentNode[] {
  const out: DocumentNode[] = [];
  const walk = (n: DocumentNode): void => {
    for (const c of n.children) {
      if (c.qname === qname) out.push(c);
      walk(c);
    }
  };
  if (node) walk(node);
  return out;
}

/** XPath string(): the concatenated text of the node and all its descendants. */
export function stringValue(node: DocumentNode | null | undefined): string {
  if (!node) return "";
  if (node.children.length === 0) return node.text;
  let s = node.text;
  const kids = node.children;
  for (let i = 0; i < kids.length; i++) s += stringValue(kids[i]);
  return s;
}

/** XPath normalize-space(string(node)): XML whitespace (space, tab, CR, LF) collapsed and trimmed. */
export function norm(node: DocumentNode | null | undefined): string {
  return normalizeSpace(stringValue(node));
}

/**
 * True when a text has nothing but XML whitespace (space, tab, CR, LF), or nothing: XPath's
 * `not(normalize-space(.))` for a text, without a regular expression (most texts stop at their first character).
 */
export function isBlankText(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (!isXmlSpace(s.charCodeAt(i))) return false;
  return true;
}

/** XML whitespace: space, tab, CR, LF (a UTF-16 unit; NaN, past a text's end, is none). */
export function isXmlSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 10;
}

/** XML whitespace trimmed from both ends (space, tab, CR, LF; not JavaScript's wider `trim()`); the text itself when there is none. */
export function xmlTrim(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isXmlSpace(s.charCodeAt(a))) a++;
  while (b > a && isXmlSpace(s.charCodeAt(b - 1))) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

/** XPath normalize-space() on a string: only the four XML whitespace characters count. */
export function normalizeSpace(s: string): string {
  // Fast path: most values have no tab, CR, LF, leading, trailing or double space and come back as they are.
  let clean = s.length === 0 || (s.charCodeAt(0) !== 32 && s.charCodeAt(s.length - 1) !== 32);
  for (let i = 0; clean && i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 9 || c === 10 || c === 13 || (c === 32 && s.charCodeAt(i + 1) === 32)) clean = false;
  }
  return clean ? s : s.replace(/[ \t\r\n]+/g, " ").replace(/^ | $/g, "");
}

/** The normalised text at a relative path (first match), or "" when absent: normalize-space(path). */
export function textAt(node: DocumentNode | null | undefined, path: string): string {
  return norm(first(node, path));
}

/**
 * Where to report that something at `path` (relative to `node`) is missing: the deepest element of the
 * path that exists (the parent the missing element belongs in), or `node` itself when the first step is
 * missing. `/Invoice/cac:AccountingCustomerParty[1]/cac:Party[1]` for a missing buyer's legal entity.
 */
export function deepestOf(node: DocumentNode, path: string): DocumentNode {
  let at = node;
  for (const step of path.split("/")) {
    const next = child(at, step);
    if (next === null) break;
    at = next;
  }
  return at;
}

/** True when the path exists (XPath `exists(path)` / `boolean(path)`). */
export function exists(node: DocumentNode | null | undefined, path: string): boolean {
  return first(node, path) !== null;
}

/** The location of a node in the form `/Invoice/cac:InvoiceLine[3]/cbc:LineExtensionAmount`. */
export function locationOf(node: DocumentNode | null | undefined): string {
  if (!node) return "/";
  const parts: string[] = [];
  for (let n: DocumentNode | null = node; n; n = n.parent) {
    parts.push(n.parent === null ? n.qname : `${n.qname}[${n.index}]`);
  }
  return "/" + parts.reverse().join("/");
}

/** The root element's name the rules know a document by: a UBL Invoice or CreditNote, a CII CrossIndustryInvoice. */
export function rootElementOf(root: DocumentNode): "Invoice" | "CreditNote" | "CrossIndustryInvoice" {
  if (root.qname === "rsm:CrossIndustryInvoice") return "CrossIndustryInvoice";
  return root.name === "CreditNote" ? "CreditNote" : "Invoice";
}

/** What a rule reports. */
export interface Finding {
  /** The official rule id, such as "BR-CO-10" or "PEPPOL-EN16931-R001". */
  rule: string;
  flag: "fatal" | "warning";
  /** What is wrong, for a bookkeeper, naming the values involved. */
  message: string;
  /** Where (see locationOf). */
  location: string;
}

/** What a rule family gets. */
export interface RuleContext {
  /** The root element (UBL Invoice or CreditNote, CII CrossIndustryInvoice). */
  readonly root: DocumentNode;
  readonly rootElement: "Invoice" | "CreditNote" | "CrossIndustryInvoice";
  /** Report a broken assertion at `node` (the Schematron context node). */
  report(rule: string, flag: "fatal" | "warning", message: string, node: DocumentNode | null): void;
  /**
   * `report` with the flag "fatal", as a function of its own (made once per document, so that the
   * families pass it around instead of each making a closure over `report`).
   */
  readonly fatal: (rule: string, message: string, node: DocumentNode | null) => void;
}

/** A rule family: checks every assertion it holds and reports what is broken. */
export type RuleFamily = (ctx: RuleContext) => void;
