// Shared reading helpers of the CEN rule families (cen-business, cen-vat, cen-codes): the XPath idioms the
// official Schematron repeats (UBL rules 1.3.16), written once so each rule reads like its assertion.
import { dec, HALF, lit, ONE, ZERO, type Decimal } from "../decimal.js";
import { BY_QNAME, NS, child, children, memoOn, norm, normalizeSpace, stringValue, type QnameIndex, type DocumentNode } from "../../document/model.js";

// Every element of the document by qname, in document order: `//cac:X` without a walk per rule. A read
// document comes with it (the reader files its elements as it reads them); a built model gets it here.
const NONE: readonly DocumentNode[] = Object.freeze([]);

function indexByQname(root: DocumentNode): QnameIndex {
  const index = new Map<string, DocumentNode[]>();
  const stack: DocumentNode[] = [root];
  while (stack.length) {
    const node = stack.pop()!;
    const list = index.get(node.qname);
    if (list) list.push(node);
    else index.set(node.qname, [node]);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return index;
}

/** Every element named `qname` in the document of `root` (XPath `//qname`), in document order. */
export function all(root: DocumentNode, qname: string): readonly DocumentNode[] {
  return memoOn<QnameIndex>(root, BY_QNAME, indexByQname).get(qname) ?? NONE;
}

/** The Schematron contexts `/ubl:Invoice` and `/cn:CreditNote`: the root in its UBL namespace. */
export function isUblRoot(node: DocumentNode): boolean {
  return node.parent === null && ((node.ns === NS.invoice && node.name === "Invoice") || (node.ns === NS.creditNote && node.name === "CreditNote"));
}

/** True when the node's parent (then grandparent, ...) have these qnames: `hasParents(n, "cac:Party", "cac:AccountingCustomerParty")`. */
export function hasParents(node: DocumentNode, ...qnames: string[]): boolean {
  let element = node.parent;
  for (const text of qnames) {
    if (!element || element.qname !== text) return false;
    element = element.parent;
  }
  return true;
}

/** True when some ancestor has this qname (XPath `ancestor::qname`). */
export function hasAncestor(node: DocumentNode, qname: string): boolean {
  for (let element = node.parent; element; element = element.parent) if (element.qname === qname) return true;
  return false;
}

/** Is a line: cac:InvoiceLine or cac:CreditNoteLine (the Schematron's alternation for credit notes). */
export const isLine = (node: DocumentNode | null): boolean => node !== null && (node.qname === "cac:InvoiceLine" || node.qname === "cac:CreditNoteLine");

/** Every cac:InvoiceLine and cac:CreditNoteLine of the document, in document order (`//(cac:InvoiceLine|cac:CreditNoteLine)`). */
export function allLines(root: DocumentNode): DocumentNode[] {
  const inv = all(root, "cac:InvoiceLine"), cn = all(root, "cac:CreditNoteLine");
  return cn.length === 0 ? [...inv] : inv.length === 0 ? [...cn] : [...inv, ...cn];
}

/**
 * `cbc:ChargeIndicator = true()` / `= false()`: the indicator's value cast to xs:boolean ("true"/"1",
 * "false"/"0", XML whitespace collapsed), or null when absent or not a boolean (neither predicate holds).
 */
export function chargeIndicator(ac: DocumentNode): boolean | null {
  for (const ci of children(ac, "cbc:ChargeIndicator")) {
    const text = norm(ci);
    if (text === "true" || text === "1") return true;
    if (text === "false" || text === "0") return false;
  }
  return null;
}

/** `cac:TaxScheme/normalize-space(upper-case(cbc:ID)) = 'VAT'`. */
export function isVat(category: DocumentNode): boolean {
  for (const ts of category.children) {
    if (ts.qname !== "cac:TaxScheme") continue;
    const id = child(ts, "cbc:ID");
    // The usual "VAT" as written needs no upper-casing or normalising.
    if (id !== null && (id.text === "VAT" ? id.children.length === 0 : normalizeSpace(stringValue(id).toUpperCase()) === "VAT")) return true;
  }
  return false;
}

/** `normalize-space(cbc:ID)` of a tax category: its VAT category code. */
export const categoryCode = (category: DocumentNode): string => norm(child(category, "cbc:ID"));

/** `xs:decimal(node)`: the decimal value of an element, or null when absent or not a decimal. */
export function decOf(node: DocumentNode | null | undefined): Decimal | null {
  if (!node) return null;
  // Read once per element (the VAT sums read the same amounts and rates for each breakdown), kept on it.
  let amount = node.numeric as Decimal | null | undefined;
  if (amount === undefined) node.numeric = amount = dec(stringValue(node));
  return amount;
}

/** `xs:decimal(path)` on the first element at a child path. */
export function decAt(node: DocumentNode | null | undefined, qname: string): Decimal | null {
  return decOf(child(node, qname));
}

/** Two decimals equal (XPath `=`: false when either is missing). */
export function eq(amount: Decimal | null, value: Decimal | null): boolean {
  return amount !== null && value !== null && amount.eq(value);
}

/** `string-length(substring-after(path, '.'))`: the characters after the first '.' of the text as written. */
export function fractionDigits(node: DocumentNode | null | undefined): number {
  if (!node) return 0;
  const text = stringValue(node);
  const i = text.indexOf(".");
  return i < 0 ? 0 : codepoints(text.slice(i + 1));
}

/** XPath string-length: characters, not UTF-16 units. */
export function codepoints(text: string): number {
  let value = 0;
  for (const _ of text) value++;
  return value;
}

/** The first `count` characters of a text (code points, not UTF-16 units), as `[...text].slice(0, count).join("")` without an array. */
export function codePointPrefix(text: string, count: number): string {
  let end = 0;
  for (let k = 0; k < count && end < text.length; k++) {
    const c = text.charCodeAt(end);
    // A high surrogate followed by a low one is one character; a lone surrogate is one of its own, as the string iterator has it.
    end += c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(end + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return text.slice(0, end);
}

/** XPath round(x) for xs:decimal: to the nearest integer, halves towards positive infinity. */
export function round0(amount: Decimal): Decimal {
  const value = amount.plus(HALF);
  const decimal = value.round(0, 0); // towards zero
  return value.gte(ZERO) || decimal.eq(value) ? decimal : decimal.minus(ONE);
}

/** A decimal for a message: its plain value ("120.5", never exponent notation), "missing" when absent. */
export function show(amount: Decimal | null | undefined): string {
  return amount == null ? "missing" : amount.toFixed();
}

/** The text of an element for a message, quoted: "'ABC'" or "missing" / "empty". */
export function quote(node: DocumentNode | null | undefined): string {
  if (!node) return "missing";
  const text = norm(node);
  return text === "" ? "empty" : `'${text}'`;
}

/** The tax categories of an element (`cac:TaxCategory` children) whose scheme is VAT. */
export const vatCategories = (node: DocumentNode): DocumentNode[] => children(node, "cac:TaxCategory").filter(isVat);

/** An amount for a message, with at least 2 decimals ("120.00", "0.005"), "missing" when absent. */
export function money(amount: Decimal | null | undefined): string {
  if (amount == null) return "missing";
  const decimals = Math.max(0, amount.c.length - amount.e - 1);
  return amount.toFixed(Math.max(2, decimals));
}

/**
 * `xs:decimal(cbc:TaxableAmount - 1)` and `+ 1` as BR-S-08, BR-AF-08 and BR-AG-08 write them: arithmetic on an
 * untyped element is xs:double arithmetic, and the result is cast back to xs:decimal (by its shortest decimal
 * form, as the official engine does). So 0.7 - 1 is -0.30000000000000004, not -0.3, and a breakdown of 0.70
 * against lines of -0.30 passes where exact decimals would not. This reproduces the official tolerance bound; it
 * is only compared with, never stored or shown as an amount.
 */
export function xpathDoubleShift(amount: Decimal, delta: 1 | -1): Decimal {
  return lit(String(Number(amount.toFixed()) + delta));
}
