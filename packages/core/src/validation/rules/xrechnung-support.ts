// What the XRechnung rule families share: the CustomizationIDs, the Schematron's way of searching its code lists,
// its regular expressions in JavaScript form, and the IBAN check of BR-DE-19/20 done exactly.
import { CVD_VERSION, XR_VERSION } from "../codelists/xrechnung.js";
import { NS, type DocumentNode } from "../../document/model.js";

/** $XR-CIUS-ID: XRechnung 3.0 (the CIUS). */
export const XR_CIUS_ID = `urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_${XR_VERSION}`;
/** $XR-EXTENSION-ID: the XRechnung extension. */
export const XR_EXTENSION_ID = `${XR_CIUS_ID}#conformant#urn:xeinkauf.de:kosit:extension:xrechnung_${XR_VERSION}`;
/** $XR-CVD-ID: XRechnung for the Clean Vehicles Directive. */
export const XR_CVD_ID = `${XR_CIUS_ID}#compliant#urn:xeinkauf.de:kosit:xrechnung:cvd_${CVD_VERSION}`;

/**
 * The Schematron's code list test: `not(contains(normalize-space(code), ' ')) and contains($LIST, concat(' ',
 * normalize-space(code), ' '))`, on the list string exactly as the rules hold it (see codelists/xrechnung.ts).
 */
export function inCodeList(list: string, code: string): boolean {
  return !code.includes(" ") && list.includes(` ${code} `);
}

/**
 * An XPath regular expression as a JavaScript RegExp: in XPath `\s` is only space, tab, CR and LF (JavaScript's
 * also takes other Unicode spaces), and `^`/`$` anchor the whole string (JavaScript's too, without the m flag).
 */
export function xpathRegex(source: string): RegExp {
  let out = "";
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const text = source[i]!;
    if (text === "\\" && i + 1 < source.length) {
      const value = source[++i]!;
      out += value === "s" ? (inClass ? " \\t\\n\\r" : "[ \\t\\n\\r]") : `\\${value}`;
      continue;
    }
    if (text === "[") inClass = true;
    else if (text === "]") inClass = false;
    out += text;
  }
  return new RegExp(out);
}

/** The root's cbc:CustomizationID's own text equals `id` (the rules' `cbc:CustomizationID[text() = id]`, untrimmed). */
export function customizationTextIs(root: DocumentNode, id: string): boolean {
  return root.children.some((node) => node.ns === NS.cbc && node.name === "CustomizationID" && node.text === id);
}

/**
 * BR-DE-19 / BR-DE-20: the account identifier without whitespace looks like an IBAN (two capital letters, two
 * digits, up to 30 letters or digits) and its check digits are right (ISO 13616: move the first four characters to
 * the end, letters become 10..35, the number mod 97 is 1). Computed exactly; the official rules hold the number in
 * an xs:integer / xs:decimal, which SaxonJS keeps as a double for integers, so they can misjudge long IBANs.
 */
export function ibanValid(compact: string): boolean {
  if (!/^[A-Z]{2}[0-9]{2}[a-zA-Z0-9]{0,30}$/.test(compact)) return false;
  const moved = compact.slice(4) + compact.slice(0, 2).toUpperCase() + compact.slice(2, 4);
  // As the rules: a code point above 64 (a letter, lower case too) is cp - 55, anything else cp - 48.
  let digits = "";
  for (const ch of moved) {
    const cp = ch.codePointAt(0)!;
    digits += String(cp > 64 ? cp - 55 : cp - 48);
  }
  return BigInt(digits) % 97n === 1n;
}

/** `normalize-space(replace(x, '([ \n\r\t\s])', ''))`: the text with every XML whitespace character removed. */
export function withoutWhitespace(text: string): string {
  return text.replace(/[ \t\n\r]+/g, "");
}

/** The last item of XPath tokenize(text, '#.+#') (BR-DE-18): the text after the last '#...#' (greedy within a line). */
export function lastToken(text: string): string {
  const re = /#[^\n\r]+#/g;
  let end = -1;
  for (let match = re.exec(text); match; match = re.exec(text)) end = match.index + match[0].length;
  return end < 0 ? text : text.slice(end);
}
