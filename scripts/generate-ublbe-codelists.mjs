// Regenerates packages/core/src/validation/codelists/ublbe.ts: the code lists the UBL.BE 1.31 rules (GLOBALUBL.BE)
// check against, read out of the official rules themselves, so that the TypeScript rules agree with them.
//
// The official rules are not in this repository (no licence that allows redistributing them was found; see
// docs/validation-ublbe.md). Fetch GLOBALUBL.BE.xslt (phax/phive-rules,
// phive-rules-ublbe/src/main/resources/external/schematron/ublbe/en16931/v1.31/GLOBALUBL.BE.xslt) and run:
//   node scripts/generate-ublbe-codelists.mjs path/to/GLOBALUBL.BE.xslt
// Only the lists (codes, facts) are written out; no expression of the rules is copied.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DOMParser } from "@xmldom/xmldom";
import { readRules } from "./generate-peppol-codelists.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const TARGET = join(root, "packages", "core", "src", "validation", "codelists", "ublbe.ts");
/** The CEN 1.3.16 rules (in the repository), to find which of UBL.BE's renamed syntax warnings are CEN's own. */
export const CEN_RULES = join(root, "testdata", "rules", "CEN-EN16931-UBL-2026.5.sef.json");
const XSL = "http://www.w3.org/1999/XSL/Transform";

/** The lists the rules declare as variables: name -> [variable, separator, what it is]. */
const VARIABLES = {
  BELM_CODES: ["BELM", /\s+/, "ubl-BE-05: Belgian legal mention codes (cac:Delivery/cac:DeliveryTerms/cbc:ID)"],
  BELM_TEXTS: ["BELMText", /;/, "ubl-BE-06: Belgian legal mention texts (cbc:SpecialTerms), compared as written"],
  BTCC_CODES: ["BTCC", /;/, "ubl-BE-10: Belgian tax category codes (cac:TaxCategory/cbc:Name in the VAT breakdown)"],
  BVERC_CODES: ["BVERC", /;/, "ubl-BE-11: Belgian VAT exemption reason codes"],
  BVERC_TEXTS: ["BVERCText", /;/, "ubl-BE-12: Belgian VAT exemption reason texts"],
  MIME_CODES: ["MIMECODE", /\s+/, "PEPPOL-EN16931-CL001 (as UBL.BE carries it): attachment MIME codes"],
  UNCL5189_ALLOWANCE_REASONS: ["UNCL5189", /\s+/, "PEPPOL-EN16931-CL002 (as UBL.BE carries it): allowance reason codes"],
  UNCL7161_CHARGE_REASONS: ["UNCL7161", /\s+/, "PEPPOL-EN16931-CL003 (as UBL.BE carries it): charge reason codes"],
  UNCL2005_PERIOD_CODES: ["UNCL2005", /\s+/, "PEPPOL-EN16931-CL006 (as UBL.BE carries it): invoice period description codes"],
  ISO4217_CURRENCIES: ["ISO4217", /\s+/, "PEPPOL-EN16931-CL007 (as UBL.BE carries it): currency codes"],
  EAS_SCHEMES: ["eaid", /\s+/, "PEPPOL-EN16931-CL008 (as UBL.BE carries it, a warning): electronic address schemes"],
};

/** The lists written inside an assertion: name -> [rule id, which list of the test (0-based), what it is]. */
const INLINE = {
  INVOICE_TYPE_CODES: ["BR-CL-01", 0, "BR-CL-01 (UBL.BE's copy): invoice type codes"],
  CREDIT_NOTE_TYPE_CODES: ["BR-CL-01", 1, "BR-CL-01 (UBL.BE's copy): credit note type codes"],
  CURRENCY_CODES: ["BR-CL-03", 0, "BR-CL-03, BR-CL-04, BR-CL-05 (UBL.BE's copy): currency codes"],
  OBJECT_IDENTIFIER_SCHEMES: ["BR-CL-07", 0, "BR-CL-07 (UBL.BE's copy): invoiced object identifier schemes"],
  PARTY_ID_SCHEMES: ["BR-CL-10", 0, "BR-CL-10 (UBL.BE's copy): party identifier schemes (ISO 6523 ICD)"],
  LEGAL_ID_SCHEMES: ["BR-CL-11", 0, "BR-CL-11 (UBL.BE's copy): legal registration identifier schemes"],
  ITEM_CLASSIFICATION_SCHEMES: ["BR-CL-13", 0, "BR-CL-13 (UBL.BE's copy): item classification schemes"],
  ORIGIN_COUNTRY_CODES: ["BR-CL-15", 0, "BR-CL-15 (UBL.BE's copy): item origin country codes"],
  PAYMENT_MEANS_CODES: ["BR-CL-16", 0, "BR-CL-16 (UBL.BE's copy): payment means codes"],
  ALLOWANCE_REASON_CODES: ["BR-CL-19", 0, "BR-CL-19 (UBL.BE's copy): allowance reason codes"],
  CHARGE_REASON_CODES: ["BR-CL-20", 0, "BR-CL-20 (UBL.BE's copy): charge reason codes"],
  ITEM_ID_SCHEMES: ["BR-CL-21", 0, "BR-CL-21 (UBL.BE's copy): item standard identifier schemes"],
  ENDPOINT_SCHEMES: ["BR-CL-25", 0, "BR-CL-25 (UBL.BE's copy): electronic address schemes"],
  DELIVERY_LOCATION_SCHEMES: ["BR-CL-26", 0, "BR-CL-26 (UBL.BE's copy): delivery location identifier schemes"],
  P0100_INVOICE_TYPES: ["PEPPOL-EN16931-P0100", 0, "PEPPOL-EN16931-P0100 (as UBL.BE carries it): invoice type codes in profile 01"],
  P0101_CREDIT_NOTE_TYPES: ["PEPPOL-EN16931-P0101", 0, "PEPPOL-EN16931-P0101 (as UBL.BE carries it): credit note type codes in profile 01"],
};

/** The rules' variables (tokenize('...', sep)) and each assertion's test, from the compiled XSLT. */
export function readXslt(text) {
  const doc = new DOMParser({ onError: (level, msg) => { if (level !== "warning") throw new Error(msg); } })
    .parseFromString(text, "application/xml");
  const variables = new Map();
  for (const v of Array.from(doc.getElementsByTagNameNS(XSL, "variable"))) {
    const m = /^\s*tokenize\('([^']*)'/.exec(v.getAttribute("select") ?? "");
    if (m && !variables.has(v.getAttribute("name"))) variables.set(v.getAttribute("name"), m[1]);
  }
  const tests = new Map(), flags = new Map();
  for (const a of Array.from(doc.getElementsByTagNameNS("*", "failed-assert"))) {
    const attrs = Array.from(a.getElementsByTagNameNS(XSL, "attribute"));
    const id = attrs.find((x) => x.getAttribute("name") === "id"), flag = attrs.find((x) => x.getAttribute("name") === "flag");
    if (id && !tests.has(id.textContent.trim())) {
      tests.set(id.textContent.trim(), a.getAttribute("test"));
      flags.set(id.textContent.trim(), flag?.textContent.trim() ?? "fatal");
    }
  }
  return { variables, tests, flags };
}

/** The quoted code lists inside a test: ' A B C ' (space-separated) or tokenize('A B C', '\s'). */
function inlineLists(test) {
  return [...test.matchAll(/'( [^']* )'|tokenize\('([^']*)'/g)].map((m) => (m[1] ?? m[2]).split(/\s+/).filter(Boolean));
}

/** BR-CO-09 tests contains('AD AE ...', prefix): a substring of the text, so the text itself is kept. */
function br_co_09(test) {
  const m = /contains\(\s*'([^']*)'\s*,\s*substring\(cbc:CompanyID/.exec(test);
  if (!m) throw new Error("BR-CO-09 has no list");
  return m[1];
}

/** A list as a TypeScript array literal, wrapped at 120 characters. */
function wrap(codes) {
  const lines = [];
  let line = " ";
  for (const c of codes.map((c) => JSON.stringify(c))) {
    if (line.length + c.length + 2 > 118) { lines.push(line); line = " "; }
    line += ` ${c},`;
  }
  lines.push(line);
  return `[\n${lines.join("\n")}\n]`;
}

/**
 * UBL.BE's lower-case syntax warnings (ubl-CR-N, ubl-DT-N) whose assertion is word for word CEN 1.3.16's UBL-CR-N /
 * UBL-DT-N (whitespace aside): they fire exactly where CEN's do. Ids only.
 */
function carriedSyntax(tests, flags, cenTests) {
  const squash = (t) => (t ?? "").replace(/\s+/g, "");
  const ids = [];
  for (const [id, test] of tests) {
    if (!/^ubl-(CR|DT)-/.test(id) || flags.get(id) !== "warning") continue;
    const cenId = "UBL" + id.slice(3);
    if (cenTests.has(cenId) && squash(cenTests.get(cenId)) === squash(test)) ids.push(cenId);
  }
  return ids.sort();
}

export function render(xsltText, cenSefText) {
  const { variables, tests, flags } = readXslt(xsltText);
  const sha = createHash("sha256").update(xsltText).digest("hex");
  const out = [`// Generated by scripts/generate-ublbe-codelists.mjs. Do not edit.
// Source: the UBL.BE 1.31 rules GLOBALUBL.BE.xslt (sha256 ${sha}), as published by UBL.BE and
// carried by phax/phive-rules (phive-rules-ublbe, en16931/v1.31). Only the code lists are taken (facts: lists of codes
// from UN/CEFACT, ISO and UBL.BE's own Belgian lists); the rules themselves are written in rules/ublbe*.ts.
// Each list is as the rules write it, in their order (UBL.BE's copy of the CEN and Peppol lists is older than 1.3.16).
`];
  const written = new Map(); // a list the rules repeat (the ICD list of four rules, say) is written once
  for (const [name, [variable, sep, doc]] of Object.entries(VARIABLES)) {
    const v = variables.get(variable);
    if (v === undefined) throw new Error(`the rules have no list $${variable}`);
    const codes = v.split(sep).filter((c) => c !== "");
    out.push(`/** ${doc}; the rules' $${variable} (${codes.length}). */`);
    out.push(`export const ${name}: readonly string[] = ${wrap(codes)};\n`);
    if (!written.has(JSON.stringify(codes))) written.set(JSON.stringify(codes), name);
  }
  for (const [name, [rule, index, doc]] of Object.entries(INLINE)) {
    const lists = inlineLists(tests.get(rule) ?? "");
    const codes = lists[index];
    if (!codes) throw new Error(`the rules' ${rule} has no list ${index}`);
    const key = JSON.stringify(codes);
    out.push(`/** ${doc} (${codes.length}${written.has(key) ? `, the same list as ${written.get(key)}` : ""}). */`);
    out.push(`export const ${name}: readonly string[] = ${written.get(key) ?? wrap(codes)};\n`);
    if (!written.has(key)) written.set(key, name);
  }
  const carried = carriedSyntax(tests, flags, readRules(JSON.parse(cenSefText)).tests);
  out.push(`/** The CEN syntax warnings UBL.BE repeats word for word under a lower-case id (UBL-CR-005 as ubl-CR-005), by CEN id (${carried.length}). */`);
  out.push(`export const SYNTAX_WARNINGS_CARRIED: readonly string[] = ${wrap(carried)};\n`);
  out.push(`/** BR-CO-09 (UBL.BE's copy): the text the VAT identifier's first two characters must be found in (a substring test). */`);
  out.push(`export const VAT_PREFIX_TEXT = ${JSON.stringify(br_co_09(tests.get("BR-CO-09") ?? ""))};\n`);
  return out.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const src = process.argv[2];
  if (!src) {
    console.error("usage: node scripts/generate-ublbe-codelists.mjs path/to/GLOBALUBL.BE.xslt");
    process.exit(2);
  }
  writeFileSync(TARGET, render(readFileSync(src, "utf8"), readFileSync(CEN_RULES, "utf8")));
  console.log(`wrote ${TARGET}`);
}
