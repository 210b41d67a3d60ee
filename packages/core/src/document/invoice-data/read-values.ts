// What the readers of every syntax (UBL: read.ts, CII: syntaxes/cii/read.ts) read values with: an element's text as
// InvoiceData holds it, absent staying absent.
import { first, stringValue, xmlTrim, type DocumentNode } from "../model.js";

/** An element's text, tidied as the schema tidies the field (`xmlTrim` unless said), or undefined when absent or empty. */
export function val(n: DocumentNode | null | undefined, tidy: (s: string) => string = xmlTrim): string | undefined {
  if (!n) return undefined;
  const t = tidy(stringValue(n));
  return t === "" ? undefined : t;
}

/** The text of the first element at a relative path (`val`). */
export const at = (n: DocumentNode | null | undefined, path: string): string | undefined => val(first(n, path));

/** An attribute's value trimmed of XML whitespace, or undefined when absent or blank. */
export const attr = (n: DocumentNode | null | undefined, name: string): string | undefined => {
  const v = n?.attrs[name];
  return v === undefined || xmlTrim(v) === "" ? undefined : xmlTrim(v);
};

/**
 * The object without its undefined keys, so that absent stays absent: a new object with the defined keys in their
 * order. (Deleting keys in place turns V8's object into its slow dictionary form for everything that reads it after.)
 */
export function compact<T extends object>(o: T): T {
  const out = {} as Record<string, unknown>;
  for (const k in o) {
    const v = o[k];
    if (v !== undefined) out[k] = v;
  }
  return out as T;
}

/** The list, or undefined when it is empty. */
export const nonEmpty = <T>(a: T[]): T[] | undefined => (a.length === 0 ? undefined : a);

/** An identifier with its scheme (`schemeID`), or undefined when the element is absent or empty. */
export const idOf = (n: DocumentNode | null | undefined): { id: string; scheme?: string } | undefined =>
  n && val(n) !== undefined ? compact({ id: val(n)!, scheme: attr(n, "schemeID") }) : undefined;
