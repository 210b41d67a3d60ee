// A fast single pass over the XML text, before the DOM parse: document count, DOCTYPE, declared
// encoding, and the size limits that keep a hostile document from costing much.
import { ApiError } from "../domain/errors.js";

export interface XmlLimits {
  /** Largest decoded document, in bytes. */
  maxBytes: number;
  /** Deepest element nesting. */
  maxDepth: number;
  /** Most elements in one document. */
  maxElements: number;
  /** Most attributes (namespace declarations included) on one element. */
  maxAttributes: number;
}

/**
 * The limits applied when none are given: far above any real invoice (a 10,000-line Peppol BIS
 * invoice has about 450,000 elements and nests 8 deep), far below what hurts.
 */
export const DEFAULT_XML_LIMITS: XmlLimits = Object.freeze({
  maxBytes: 8 * 1024 * 1024,
  maxDepth: 256,
  maxElements: 1_000_000,
  maxAttributes: 256,
});

export interface ScanResult {
  /** True when the text holds a second XML declaration or a second top-level element. */
  multipleDocuments: boolean;
  /** The `encoding` of the XML declaration, when there is one. */
  encoding: string | null;
  hasDoctype: boolean;
  /** The first limit the text passes, described for a person; null within every limit. */
  limitExceeded: string | null;
}

/** The `invalid_ubl_xml` error of a limit the scan found passed. */
export function limitError(what: string): ApiError {
  return new ApiError("invalid_ubl_xml", `xml is too large to accept: ${what}.`);
}

/**
 * Scans the markup of `text` once. It does not judge well-formedness (the parser does); on markup
 * it cannot follow it stops and reports what it saw so far. It never throws: a limit passed is
 * reported in `limitExceeded` (its check comes after those for a second document and for XML text),
 * and the scan goes on to the end for a second document.
 */
export function scanXml(text: string, limits: XmlLimits = DEFAULT_XML_LIMITS): ScanResult {
  const n = text.length;
  let depth = 0;
  let elements = 0;
  let rootSeen = false;
  let encoding: string | null = null;
  let hasDoctype = false;
  let declarations = 0;
  const firstMarkup = text.indexOf("<");
  let i = firstMarkup;
  let limitExceeded: string | null = null;
  const multiple = (): ScanResult => ({ multipleDocuments: true, encoding, hasDoctype, limitExceeded });

  while (i !== -1 && i < n - 1) {
    const c = text.charCodeAt(i + 1);
    if (c === 63 /* ? */) {
      const end = text.indexOf("?>", i + 2);
      if (end === -1) break;
      let j = i + 2;
      while (j < end && !isSpace(text.charCodeAt(j))) j++;
      if (text.slice(i + 2, j).toLowerCase() === "xml") {
        declarations++;
        if (declarations > 1) return multiple();
        if (i === firstMarkup) {
          const m = /\bencoding\s*=\s*(["'])([^"']*)\1/.exec(text.slice(j, end));
          encoding = m ? m[2]! : null;
        } // a lone declaration elsewhere is not well-formed: the parser says so

      }
      i = text.indexOf("<", end + 2);
      continue;
    }
    if (c === 33 /* ! */) {
      if (text.startsWith("!--", i + 1)) {
        const end = text.indexOf("-->", i + 4);
        if (end === -1) break;
        i = text.indexOf("<", end + 3);
        continue;
      }
      if (text.startsWith("![CDATA[", i + 1)) {
        const end = text.indexOf("]]>", i + 9);
        if (end === -1) break;
        i = text.indexOf("<", end + 3);
        continue;
      }
      if (text.startsWith("!DOCTYPE", i + 1)) {
        hasDoctype = true;
        const gt = text.indexOf(">", i);
        const bracket = text.indexOf("[", i);
        const end = bracket !== -1 && bracket < gt ? text.indexOf(">", text.indexOf("]", bracket)) : gt;
        if (end === -1) break;
        i = text.indexOf("<", end + 1);
        continue;
      }
      break; // unknown markup: the parser will say what is wrong
    }
    if (c === 47 /* / */) {
      depth--;
      if (depth < 0) break;
      const gt = text.indexOf(">", i);
      if (gt === -1) break;
      i = text.indexOf("<", gt + 1);
      continue;
    }
    // A start tag, if a name follows; anything else is not markup the scan can follow.
    if (!isNameStart(c)) break;
    if (depth === 0 && rootSeen) return multiple();
    rootSeen = true;
    if (++elements > limits.maxElements && limitExceeded === null) limitExceeded = `more than ${limits.maxElements} elements`;
    let j = i + 1;
    let quote = 0;
    let attributes = 0;
    for (; j < n; j++) {
      const ch = text.charCodeAt(j);
      if (quote !== 0) {
        if (ch === quote) quote = 0;
      } else if (ch === 34 || ch === 39) {
        quote = ch;
        attributes++;
      } else if (ch === 62 /* > */) {
        break;
      }
    }
    if (attributes > limits.maxAttributes && limitExceeded === null) limitExceeded = `an element has more than ${limits.maxAttributes} attributes`;
    if (j >= n) break;
    if (text.charCodeAt(j - 1) !== 47 /* / */) {
      depth++;
      if (depth > limits.maxDepth && limitExceeded === null) limitExceeded = `elements nest deeper than ${limits.maxDepth} levels`;
    }
    i = text.indexOf("<", j + 1);
  }
  return { multipleDocuments: false, encoding, hasDoctype, limitExceeded };
}

function isNameStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 58 || c >= 0x80;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}
