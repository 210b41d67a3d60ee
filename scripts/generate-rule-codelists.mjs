// Regenerates packages/core/src/validation/codelists/cen.ts, the code lists of the CEN EN 16931 UBL rules
// (BR-CL-*), from the official Schematron of the CEN validation artefacts (ConnectingEurope/eInvoicing-EN16931):
//
//   node scripts/generate-rule-codelists.mjs --codes ubl/schematron/codelist/EN16931-UBL-codes.sch \
//        --model ubl/schematron/UBL/EN16931-UBL-model.sch --version 1.3.16
//
// --codes: the code list Schematron (every BR-CL-* rule but BR-CL-08); --model: the UBL binding of the model,
// for the two lists written inline there (BR-CL-08, UNTDID 4451 subject codes; BR-CO-09, VAT identifier prefixes).
// The lists are copied in the order the Schematron writes them (two rules test substrings of the joined list, so
// the order matters). A rule of the source that this script does not know stops it: a new release may add one.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DOMParser } from "@xmldom/xmldom";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const TARGET = join(root, "packages", "core", "src", "validation", "codelists", "cen.ts");
const SCH = "http://purl.oclc.org/dsdl/schematron";

// Which constant each list of each rule becomes (rule id, then the n-th quoted list in its test).
const NAMES = {
  "BR-CL-01": ["INVOICE_TYPE_CODES", "CREDIT_NOTE_TYPE_CODES"],
  "BR-CL-03": ["CURRENCY_CODES"],
  "BR-CL-04": ["CURRENCY_CODES"],
  "BR-CL-05": ["CURRENCY_CODES"],
  "BR-CL-06": ["VAT_DATE_CODES"],
  "BR-CL-07": ["OBJECT_IDENTIFIER_SCHEMES"],
  "BR-CL-10": ["ICD_SCHEMES", "SEPA_SCHEME"],
  "BR-CL-11": ["ICD_SCHEMES"],
  "BR-CL-13": ["ITEM_CLASSIFICATION_SCHEMES"],
  "BR-CL-14": ["COUNTRY_CODES"],
  "BR-CL-15": ["COUNTRY_CODES"],
  "BR-CL-16": ["PAYMENT_MEANS_CODES"],
  "BR-CL-17": ["VAT_CATEGORY_CODES"],
  "BR-CL-18": ["VAT_CATEGORY_CODES"],
  "BR-CL-19": ["ALLOWANCE_REASON_CODES"],
  "BR-CL-20": ["CHARGE_REASON_CODES"],
  "BR-CL-21": ["ICD_SCHEMES"],
  "BR-CL-22": ["VATEX_CODES"],
  "BR-CL-23": ["UNIT_CODES"],
  "BR-CL-24": ["MIME_CODES"],
  "BR-CL-25": ["EAS_CODES"],
  "BR-CL-26": ["ICD_SCHEMES"],
  // From the model binding:
  "BR-CL-08": ["SUBJECT_CODES"],
  "BR-CO-09": ["VAT_PREFIXES"],
};

const DOCS = {
  INVOICE_TYPE_CODES: "UNTDID 1001 document types allowed for an Invoice (BR-CL-01).",
  CREDIT_NOTE_TYPE_CODES: "UNTDID 1001 document types allowed for a CreditNote (BR-CL-01).",
  CURRENCY_CODES: "ISO 4217 alpha-3 currency codes (BR-CL-03, BR-CL-04, BR-CL-05).",
  VAT_DATE_CODES: "UNTDID 2005 subset: value added tax point date codes (BR-CL-06).",
  OBJECT_IDENTIFIER_SCHEMES: "UNTDID 1153 reference qualifiers for the invoiced object identifier (BR-CL-07).",
  ICD_SCHEMES: "ISO 6523 ICD identifier schemes (BR-CL-10, BR-CL-11, BR-CL-21, BR-CL-26).",
  SEPA_SCHEME: "The SEPA creditor identifier scheme, allowed for the seller and the payee (BR-CL-10).",
  ITEM_CLASSIFICATION_SCHEMES: "UNTDID 7143 item classification schemes (BR-CL-13).",
  COUNTRY_CODES: "ISO 3166-1 alpha-2 country codes, with 1A (Kosovo) and XI (Northern Ireland) (BR-CL-14, BR-CL-15).",
  PAYMENT_MEANS_CODES: "UNTDID 4461 payment means codes (BR-CL-16).",
  VAT_CATEGORY_CODES: "UNTDID 5305 subset: VAT category codes (BR-CL-17, BR-CL-18).",
  ALLOWANCE_REASON_CODES: "UNTDID 5189 allowance reason codes (BR-CL-19).",
  CHARGE_REASON_CODES: "UNTDID 7161 charge reason codes (BR-CL-20).",
  VATEX_CODES: "CEF VATEX VAT exemption reason codes, upper case (BR-CL-22).",
  UNIT_CODES: "UN/ECE Recommendation 20 and 21 unit codes (BR-CL-23).",
  MIME_CODES: "MIME types allowed for an attached document (BR-CL-24).",
  EAS_CODES: "CEF EAS electronic address schemes (BR-CL-25).",
  SUBJECT_CODES: "UNTDID 4451 text subject qualifiers, for a note's #CODE# prefix (BR-CL-08; tested as a substring of the list joined by spaces).",
  VAT_PREFIXES: "Country prefixes of a VAT identifier: ISO 3166-1 alpha-2 and EL (BR-CO-09; tested as a substring of the list joined by spaces).",
};

function parse(xml) {
  return new DOMParser({ onError: (level, msg) => { if (level !== "warning") throw new Error(msg); } })
    .parseFromString(xml, "application/xml");
}

/** The quoted lists of a test, in order: contains(' A B C ', ...) and the @mimeCode = '...' alternatives. */
function listsOf(test) {
  const lists = [];
  for (const m of test.matchAll(/contains\(\s*'( [^']* )'\s*,/g)) lists.push(m[1].trim().split(" "));
  const mimes = [...test.matchAll(/@mimeCode\s*=\s*'([^']*)'/g)].map((m) => m[1]);
  if (mimes.length) lists.push(mimes);
  return lists;
}

/** Every assertion of a code list Schematron (its asserts) or of a UBL binding (its params), with its test. */
function tests(doc) {
  const out = [];
  for (const a of Array.from(doc.getElementsByTagNameNS(SCH, "assert"))) out.push([a.getAttribute("id"), a.getAttribute("test")]);
  for (const p of Array.from(doc.getElementsByTagNameNS(SCH, "param"))) out.push([p.getAttribute("name"), p.getAttribute("value")]);
  return out;
}

export function render({ codes, model, version, codesName, modelName }) {
  const lists = new Map();
  const put = (id, test) => {
    const names = NAMES[id];
    const found = listsOf(test);
    if (!names) throw new Error(`${id}: a code list rule this script does not know (update NAMES)`);
    if (found.length !== names.length) throw new Error(`${id}: expected ${names.length} list(s), found ${found.length}`);
    names.forEach((name, i) => {
      const prev = lists.get(name);
      if (prev && prev.join(" ") !== found[i].join(" ")) throw new Error(`${id}: ${name} differs from another rule's copy`);
      lists.set(name, found[i]);
    });
  };
  for (const [id, test] of tests(parse(codes))) put(id, test);
  const wanted = new Set(["BR-CL-08", "BR-CO-09"]);
  for (const [id, test] of tests(parse(model))) if (wanted.has(id)) { put(id, test); wanted.delete(id); }
  if (wanted.size) throw new Error(`not found in the model binding: ${[...wanted]}`);
  const sha = (s) => createHash("sha256").update(s).digest("hex");
  const body = [...lists].map(([name, codesOf]) => {
    const lines = [];
    let line = " ";
    for (const c of codesOf) {
      const item = ` ${JSON.stringify(c)},`;
      if (line.length + item.length > 116) { lines.push(line); line = " "; }
      line += item;
    }
    lines.push(line);
    return `/** ${DOCS[name]} */\nexport const ${name}: readonly string[] = [\n${lines.join("\n")}\n];\n`;
  });
  return `// Generated by scripts/generate-rule-codelists.mjs. Do not edit.
// Source: the CEN EN 16931 validation artefacts ${version} for UBL (ConnectingEurope/eInvoicing-EN16931):
//   ${codesName} (sha256 ${sha(codes)})
//   ${modelName} (sha256 ${sha(model)}), for BR-CL-08 and BR-CO-09.
// Each list is as the Schematron writes it, in its order.

export const CEN_CODELISTS_VERSION = ${JSON.stringify(version)};

${body.join("\n")}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (n) => { const i = args.indexOf(n); return i >= 0 ? args[i + 1] : undefined; };
  const codesPath = opt("--codes"), modelPath = opt("--model"), version = opt("--version");
  if (!codesPath || !modelPath || !version) {
    console.error("usage: node scripts/generate-rule-codelists.mjs --codes EN16931-UBL-codes.sch --model EN16931-UBL-model.sch --version 1.3.16");
    process.exit(2);
  }
  const text = render({
    codes: readFileSync(codesPath, "utf8"), model: readFileSync(modelPath, "utf8"), version,
    codesName: `ubl/schematron/codelist/${basename(codesPath)}`, modelName: `ubl/schematron/UBL/${basename(modelPath)}`,
  });
  writeFileSync(TARGET, text);
  console.log(`wrote ${TARGET}`);
}
