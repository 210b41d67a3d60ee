// Developer tool: a mutation differential of the Peppol BIS rules (PEPPOL-*, national rules) against the
// official rules under SaxonJS. Takes the corpus's Peppol BIS documents, mutates them (countries, identifier
// schemes and values, codes, dates, amounts, removed/emptied/duplicated elements), and compares the Peppol
// rule ids we report with the official ones on each mutant.
//   tsx --conditions=source scripts/peppol-mutations.ts [--n 2000] [--seed 1] [--oracle PATH/official.mjs] [--keep DIR] [--country XX] [--graft]
// The oracle is test/support/official.ts (testdata/rules) unless --oracle or ORACLE names another official.mjs. Test-time only.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DOMParser, XMLSerializer, type Document, type Element } from "@xmldom/xmldom";
import { officialOracle } from "../packages/core/test/support/official.js";
import { CORPUS_DIR } from "../testdata/index.js";
import { xmldomTree } from "../packages/core/test/support/xmldom-tree.js";
import { runRules } from "../packages/core/src/validation/engine.js";
import { peppol } from "../packages/core/src/validation/rulesets/peppol.js";
import { familiesOf } from "../packages/core/src/validation/rulesets/select.js";

const PEPPOL_BIS3 = peppol.customizationIds[0]!;
import { first, norm } from "../packages/core/src/document/model.js";

const args = process.argv.slice(2);
const opt = (n: string) => { const i = args.indexOf(n); return i >= 0 ? args[i + 1] : undefined; };
const repo = resolve(import.meta.dirname, "..");
const corpus = CORPUS_DIR;
const total = Number(opt("--n") ?? 1000);
let seed = Number(opt("--seed") ?? 1);
const keep = opt("--keep");
if (keep && !existsSync(keep)) mkdirSync(keep, { recursive: true });

// The whole official verdict (CEN and Peppol): a mutant on which either rule set stops with a dynamic error
// (a repeated singular element, say) has no official verdict and is skipped.
const officialValidate = await officialOracle(opt("--oracle") ?? process.env.ORACLE);
const isPeppolRule = (id: string) => !id.startsWith("BR-") && !id.startsWith("UBL-");
function official(xml: string): Set<string> | null {
  try {
    const v = officialValidate(xml);
    return new Set([...v.fatal, ...v.warning].filter(isPeppolRule));
  } catch {
    return null;
  }
}
function ours(xml: string): Set<string> {
  const root = xmldomTree(xml);
  if (!peppol.appliesTo(norm(first(root, "cbc:CustomizationID")) || null)) return new Set();
  return new Set(runRules(root, familiesOf([peppol])).map((f) => f.rule));
}

const rand = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x7fffffff; };
const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)]!;

const verdicts = readFileSync(join(repo, "packages/core/test/fixtures/official-verdicts.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
// --graft: every corpus document (XRechnung, UBL.BE, NLCIUS, ... too) with its CustomizationID made Peppol BIS,
// unmutated: real documents from many countries through the Peppol and national rules.
const graft = args.includes("--graft");
const toPeppol = (xml: string) => xml.replace(/<cbc:CustomizationID>[^<]*<\/cbc:CustomizationID>/, `<cbc:CustomizationID>${PEPPOL_BIS3}</cbc:CustomizationID>`);
const bases = graft
  ? verdicts.filter((v) => !v.error).map((v) => toPeppol(readFileSync(join(corpus, v.file), "utf8")))
  : verdicts.filter((v) => v.ruleSets?.includes("PEPPOL-EN16931-UBL-2026.5")).map((v) => readFileSync(join(corpus, v.file), "utf8"));

const CBC = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2";
const all = (d: Document | Element, local: string) => Array.from(d.getElementsByTagNameNS("*", local)) as Element[];
const leaves = (d: Document) => (Array.from(d.getElementsByTagNameNS("*", "*")) as Element[]).filter((e) => !Array.from(e.childNodes).some((c) => c.nodeType === 1));
const setText = (e: Element, t: string) => { while (e.firstChild) e.removeChild(e.firstChild); e.appendChild(e.ownerDocument!.createTextNode(t)); };

const COUNTRIES = ["DE", "DK", "NO", "SE", "IT", "GR", "EL", "IS", "NL", "BE", "FR", " DK", "se"];
const SCHEMES = ["0088", "0192", "0184", "0096", "0198", "0208", "0201", "0210", "9907", "0211", "0007", "0151", "0106", "0190", "9944", "0217", "9933", "0196", "SEPA", "0193", "9906"];
const VALUES = ["5790000436101", "5790000436102", "974760673", "974760674", "DK12345678", "12345678", "1234567890", "DK1234567", "0403019261", "0403019262", "ABC123", "AB12", "RSSMRA85T10A562S", "12345678901", "IT12345678903", "IT01234567897", "5567321707", "5567321708", "51824753556", "51824753557", "12345678901234567890", "NL123456789B12", "123456789012", "094259216", "094259217", " 5790000436101", "0000000000", "unreachable", "", "SE556732170701", "NO974760673MVA", "EL094259216", "Foretaksregisteret", "Godkänd för F-skatt"];
const CODES: Record<string, readonly string[]> = {
  PaymentMeansCode: ["1", "9", "10", "30", "31", "42", "48", "49", "50", "54", "55", "56", "57", "58", "59", "93", "97", "ZZZ"],
  InvoiceTypeCode: ["380", "381", "326", "384", "389", "71", "999", " 380", "875"],
  CreditNoteTypeCode: ["381", "396", "380", "384", "83"],
  ChargeIndicator: ["true", "false", " false", "TRUE", "0"],
  AllowanceChargeReasonCode: ["95", "41", "ZZZ", "AA", "ABC", "100", " 95"],
  TaxExemptionReasonCode: ["VATEX-EU-G", "VATEX-EU-O", "VATEX-EU-IC", "VATEX-EU-AE", "vatex-eu-d", "VATEX-EU-F", "VATEX-EU-I", "VATEX-EU-J"],
  ID: ["S", "Z", "E", "AE", "K", "G", "O", "L", "M", "VAT", "TAX", "094259216|13/11/2017|1|1.1|A|B", "094259216|13-11-2017|0|2.4||B", "801399030|13/11/2017|x|9.9|A|B|C"],
  ProfileID: ["urn:fdc:peppol.eu:2017:poacc:billing:01:1.0", "urn:peppol:bis:billing_with_response", "urn:fdc:peppol.eu:2017:poacc:billing:02:1.0", "urn:peppol:france:billing:regulated"],
  DocumentDescription: ["##M.AR.K##", "##INVOICE|URL##", "EINDAGI"],
  DescriptionCode: ["3", "35", "432", "1"],
  Percent: ["25", "12", "6", "19", "0", "25.00"],
  PaymentID: ["01#12345678", "04#1234567890123456", "71#123456789012345", "75#12", "xyz"],
  Note: ["#SKONTO#TAGE=14#PROZENT=2.00#\n", "#SKONTO#TAGE=14#PROZENT=2#\n", "#SKONTO#TAGE=14#PROZENT=2.00#", "Net 30"],
  IssueDate: ["2024-01-31", "2024-1-31", "31.01.2024", "2024-02-30", "2024-01-31Z"],
  DueDate: ["2024-02-28", "2024-13-01", " 2024-02-28"],
  StartDate: ["2017-01-01", "2030-01-01", "2017-1-1"],
  EndDate: ["2017-12-31", "2010-01-01"],
};
const AMOUNTS = ["100.00", "-5.00", "0", "abc", "1e2", "10.004", "99.99"];
const CURRENCIES = ["EUR", "NOK", "SEK", "XXX", "ABC", "eur"];

const forced = opt("--country");

function mutate(xml: string): string {
  const doc = new DOMParser({ onError: () => {} }).parseFromString(xml, "text/xml");
  if (forced) {
    // Both parties in one country (--country XX), their VAT numbers with its prefix: the national rules apply.
    for (const p of [...all(doc, "AccountingSupplierParty"), ...all(doc, "AccountingCustomerParty")]) {
      for (const cc of all(p, "IdentificationCode")) setText(cc, forced);
      for (const pts of all(p, "PartyTaxScheme")) for (const id of all(pts, "CompanyID")) if (rand() < 0.8) setText(id, (forced === "GR" ? "EL" : forced) + (id.textContent ?? "").slice(2));
    }
  }
  const steps = 1 + Math.floor(rand() * 3);
  for (let s = 0; s < steps; s++) {
    const kind = Math.floor(rand() * 9);
    if (kind === 0) {
      const c = pick(COUNTRIES);
      const role = pick(["AccountingSupplierParty", "AccountingCustomerParty", "TaxRepresentativeParty", "both", "both"]);
      const parties = role === "both" ? [...all(doc, "AccountingSupplierParty"), ...all(doc, "AccountingCustomerParty")] : all(doc, role);
      for (const p of parties) {
        for (const cc of all(p, "IdentificationCode")) setText(cc, c);
        if (rand() < 0.6) for (const pts of all(p, "PartyTaxScheme")) for (const id of all(pts, "CompanyID")) setText(id, c.trim().toUpperCase() + (id.textContent ?? "").slice(2));
      }
    } else if (kind === 1) {
      const ids = [...all(doc, "EndpointID"), ...all(doc, "CompanyID"), ...all(doc, "ID").filter((e) => (e.parentNode as Element)?.localName === "PartyIdentification")];
      if (!ids.length) continue;
      const e = pick(ids);
      if (rand() < 0.8) e.setAttribute("schemeID", pick(SCHEMES));
      if (rand() < 0.8) setText(e, pick(VALUES));
    } else if (kind === 2) {
      const names = Object.keys(CODES);
      const name = pick(names);
      const els = all(doc, name).filter((e) => e.namespaceURI === CBC);
      if (els.length) setText(pick(els), pick(CODES[name]!));
    } else if (kind === 3) {
      const els = leaves(doc).filter((e) => e.getAttribute("currencyID"));
      if (!els.length) continue;
      const e = pick(els);
      if (rand() < 0.5) setText(e, pick(AMOUNTS)); else e.setAttribute("currencyID", pick(CURRENCIES));
    } else if (kind === 4) {
      const els = Array.from(doc.documentElement!.getElementsByTagNameNS("*", "*")) as Element[];
      const e = pick(els);
      e.parentNode?.removeChild(e);
    } else if (kind === 5) {
      const e = pick(leaves(doc));
      setText(e, rand() < 0.5 ? "" : " ");
    } else if (kind === 6) {
      const els = Array.from(doc.documentElement!.childNodes).filter((c) => c.nodeType === 1) as Element[];
      const e = pick(els);
      e.parentNode!.insertBefore(e.cloneNode(true), e);
    } else if (kind === 7) {
      // Add a structure the rules look at.
      const root = doc.documentElement!;
      const frag = pick([
        `<cac:AllowanceCharge xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="${CBC}"><cbc:ChargeIndicator>${pick(["true", "false"])}</cbc:ChargeIndicator><cbc:AllowanceChargeReasonCode>${pick(["ZZZ", "95", "AA"])}</cbc:AllowanceChargeReasonCode><cbc:AllowanceChargeReason>${pick(["1234", "A#B", "#x", "Fee"])}</cbc:AllowanceChargeReason>${rand() < 0.5 ? "<cbc:MultiplierFactorNumeric>10</cbc:MultiplierFactorNumeric>" : ""}<cbc:Amount currencyID="EUR">${pick(["10.00", "10.03", "9"])}</cbc:Amount>${rand() < 0.5 ? '<cbc:BaseAmount currencyID="EUR">100.00</cbc:BaseAmount>' : ""}<cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>25</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:AllowanceCharge>`,
        `<cac:PaymentMeans xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="${CBC}"><cbc:PaymentMeansCode>${pick(CODES.PaymentMeansCode!)}</cbc:PaymentMeansCode><cbc:PaymentID>${pick(CODES.PaymentID!)}</cbc:PaymentID><cac:PayeeFinancialAccount><cbc:ID>${pick(["DE89370400440532013000", "DE89370400440532013001", "1234567", "123456789012", "12345678"])}</cbc:ID><cac:FinancialInstitutionBranch><cbc:ID>${pick(["SE:BANKGIRO", "SE:PLUSGIRO", "1234"])}</cbc:ID></cac:FinancialInstitutionBranch></cac:PayeeFinancialAccount>${rand() < 0.4 ? '<cac:PaymentMandate><cbc:ID>M1</cbc:ID><cac:PayerFinancialAccount><cbc:ID>DE89370400440532013000</cbc:ID></cac:PayerFinancialAccount></cac:PaymentMandate>' : ""}</cac:PaymentMeans>`,
        `<cac:AdditionalDocumentReference xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="${CBC}"><cbc:ID>${pick(["2024-02-28", "123", "0", "x"])}</cbc:ID>${rand() < 0.5 ? "<cbc:DocumentTypeCode>50</cbc:DocumentTypeCode>" : ""}<cbc:DocumentDescription>${pick(CODES.DocumentDescription!)}</cbc:DocumentDescription><cac:Attachment><cbc:EmbeddedDocumentBinaryObject mimeCode="${pick(["application/pdf", "text/xml"])}" filename="${pick(["a.pdf", "b.pdf"])}">QUJD</cbc:EmbeddedDocumentBinaryObject></cac:Attachment></cac:AdditionalDocumentReference>`,
        `<cbc:Note xmlns:cbc="${CBC}">${pick(["x", "#SKONTO#TAGE=14#PROZENT=2.00#\n"])}</cbc:Note>`,
        `<cbc:TaxCurrencyCode xmlns:cbc="${CBC}">${pick(["EUR", "NOK", "SEK"])}</cbc:TaxCurrencyCode>`,
      ]);
      const el = new DOMParser().parseFromString(frag, "text/xml").documentElement!;
      const anchor = pick(Array.from(root.childNodes).filter((c) => c.nodeType === 1));
      root.insertBefore(doc.importNode(el, true), anchor);
    } else {
      const e = pick(leaves(doc));
      setText(e, pick(VALUES));
    }
  }
  return new XMLSerializer().serializeToString(doc);
}

let compared = 0, agree = 0, skipped = 0;
const seen = new Map<string, number>();
const bad = new Map<string, { missing: number; extra: number; example: string }>();
for (let i = 0; i < (graft ? bases.length : total); i++) {
  const xml = graft ? bases[i]! : mutate(pick(bases));
  const theirs = official(xml);
  if (!theirs) { skipped++; continue; }
  let mine: Set<string>;
  try { mine = ours(xml); } catch (e) { console.log(`we threw: ${e}`); continue; }
  compared++;
  for (const r of theirs) seen.set(r, (seen.get(r) ?? 0) + 1);
  const missing = [...theirs].filter((r) => !mine.has(r)), extra = [...mine].filter((r) => !theirs.has(r));
  if (!missing.length && !extra.length) { agree++; continue; }
  const file = keep ? join(keep, `m${i}.xml`) : "";
  if (keep) writeFileSync(file, xml);
  for (const r of missing) { const b = bad.get(r) ?? { missing: 0, extra: 0, example: file }; b.missing++; bad.set(r, b); }
  for (const r of extra) { const b = bad.get(r) ?? { missing: 0, extra: 0, example: file }; b.extra++; bad.set(r, b); }
}
for (const [r, b] of [...bad].sort()) console.log(`${r}: missed ${b.missing}, extra ${b.extra} (e.g. ${b.example})`);
console.log(`official rule ids seen: ${[...seen].sort().map(([r, n]) => `${r}×${n}`).join(" ")}`);
console.log(`mutants: ${agree}/${compared} with the official Peppol rule ids (${skipped} without an official verdict)`);
