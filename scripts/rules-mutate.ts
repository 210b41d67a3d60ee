// Developer tool: differential test of the rule families against the official rules on mutated corpus documents.
//   tsx --conditions=source scripts/rules-mutate.ts [--prefix BR-] [--count 300] [--seed 1] [--oracle PATH] [--out DIR] [--fatal-only]
//     [--customization ID-PREFIX]   (only documents whose CustomizationID starts with it, e.g. a national CIUS)
// Each round takes a complete corpus Invoice/CreditNote, applies 1-3 random mutations (amounts changed, elements
// removed, emptied or duplicated, codes and schemes swapped, VAT categories changed, ...), and compares the rule ids
// (fatal and warning, filtered by --prefix) our families report with the official ones (oracle: test/support/official.ts over testdata/rules, or
// --oracle PATH/official.mjs; --dump writes every mutant to --out). A document the official rules cannot judge (their dynamic errors) is skipped. Disagreements are
// written to --out (default /tmp/rules-mutate) with the mutations applied. --fatal-only compares the fatal rule ids only
// (--customization urn:cen.eu:en16931:2017#conformant#urn:UBL.BE --fatal-only --oracle PATH/national.mjs: the UBL.BE
// documents against a locally compiled GLOBALUBL.BE).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DOMParser, XMLSerializer, type Document, type Element } from "@xmldom/xmldom";
import { officialOracle } from "../packages/core/test/support/official.js";
import { CORPUS_DIR } from "../testdata/index.js";
import { xmldomTree } from "../packages/core/test/support/xmldom-tree.js";
import { runRules } from "../packages/core/src/validation/engine.js";
import { familiesOf, levelsOf, ruleSetsApplying } from "../packages/core/src/validation/rulesets/select.js";
import { first, norm } from "../packages/core/src/document/model.js";

const args = process.argv.slice(2);
const opt = (n: string) => { const i = args.indexOf(n); return i >= 0 ? args[i + 1] : undefined; };
const prefix = opt("--prefix") ?? "BR-";
const count = Number(opt("--count") ?? 300);
let seed = Number(opt("--seed") ?? 1);
const repo = resolve(import.meta.dirname, "..");
const corpus = CORPUS_DIR;
const out = opt("--out") ?? "/tmp/rules-mutate";
const officialValidate = await officialOracle(opt("--oracle"));

// Small seeded PRNG (mulberry32), so a run can be repeated.
function rnd(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;

const CBC = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2";
const CAC = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2";

function elements(doc: Document): Element[] {
  const outEls: Element[] = [];
  const walk = (e: Element) => { outEls.push(e); for (let c = e.firstChild; c; c = c.nextSibling) if (c.nodeType === 1) walk(c as Element); };
  walk(doc.documentElement!);
  return outEls;
}
const leaves = (doc: Document) => elements(doc).filter((e) => !Array.from(e.childNodes).some((c) => c.nodeType === 1));
const named = (doc: Document, local: string) => elements(doc).filter((e) => e.localName === local);
const setText = (e: Element, v: string) => { while (e.firstChild) e.removeChild(e.firstChild); e.appendChild(e.ownerDocument!.createTextNode(v)); };
const path = (e: Element) => { const p: string[] = []; for (let n: Element | null = e; n && n.nodeType === 1; n = n.parentNode as Element | null) p.unshift(n.localName!); return p.join("/"); };

const AMOUNT_VARIANTS = (v: string): string[] => {
  const n = Number(v);
  const r = (x: number) => (Math.round(x * 100) / 100).toFixed(2);
  return [r(n + 0.01), r(n - 0.01), r(n + 1), r(n - 1), r(n + 0.5), r(n * 2), "0", "0.00", r(-n), `${v}0`, `${v}1`, ` ${v} `, `${Math.trunc(n)}.005`, `${r(n)}`, `${r(n + 0.99)}`, `${r(n - 0.995)}`];
};

type Mutation = (doc: Document) => string | null;
const mutations: Mutation[] = [
  // A decimal changed.
  (doc) => {
    const els = elements(doc).filter((e) => /Amount$|^Percent$|Quantity$/.test(e.localName!) && !Array.from(e.childNodes).some((c) => c.nodeType === 1));
    if (!els.length) return null;
    const e = pick(els), v = pick(AMOUNT_VARIANTS((e.textContent ?? "0").trim()));
    setText(e, v);
    return `${path(e)} = '${v}'`;
  },
  // An element removed.
  (doc) => {
    const els = elements(doc).filter((e) => e !== doc.documentElement);
    const e = pick(els);
    e.parentNode!.removeChild(e);
    return `removed ${path(e)}`;
  },
  // A leaf emptied.
  (doc) => {
    const e = pick(leaves(doc));
    const v = pick(["", " ", "\n"]);
    setText(e, v);
    return `${path(e)} emptied`;
  },
  // A structure duplicated beside itself.
  (doc) => {
    const els = elements(doc).filter((e) => ["InvoiceLine", "CreditNoteLine", "AllowanceCharge", "TaxSubtotal", "TaxTotal", "PartyTaxScheme", "InvoicePeriod", "PaymentMeans", "AdditionalDocumentReference", "ClassifiedTaxCategory", "PartyIdentification"].includes(e.localName!));
    if (!els.length) return null;
    const e = pick(els);
    e.parentNode!.insertBefore(e.cloneNode(true), e.nextSibling);
    return `duplicated ${path(e)}`;
  },
  // A VAT category changed.
  (doc) => {
    const els = elements(doc).filter((e) => e.localName === "ID" && (e.parentNode as Element).localName?.endsWith("TaxCategory"));
    if (!els.length) return null;
    const e = pick(els), v = pick(["S", "Z", "E", "AE", "K", "G", "O", "L", "M", "B", " S ", "s", "X", "AA"]);
    setText(e, v);
    return `${path(e)} = '${v}'`;
  },
  // Every VAT category of one code changed to another (keeps lines and breakdown consistent).
  (doc) => {
    const els = elements(doc).filter((e) => e.localName === "ID" && (e.parentNode as Element).localName?.endsWith("TaxCategory"));
    if (!els.length) return null;
    const from = (pick(els).textContent ?? "").trim(), to = pick(["S", "Z", "E", "AE", "K", "G", "O", "L", "M"]);
    for (const e of els) if ((e.textContent ?? "").trim() === from) setText(e, to);
    return `all VAT categories ${from} -> ${to}`;
  },
  // A VAT breakdown amount moved to near a tolerance bound (BR-S-08/09, BR-CO-17: strict, within 1).
  (doc) => {
    const els = elements(doc).filter((e) => (e.localName === "TaxableAmount" || e.localName === "TaxAmount") && (e.parentNode as Element).localName === "TaxSubtotal");
    if (!els.length) return null;
    const e = pick(els), v = Number((e.textContent ?? "0").trim()), d = pick([1, -1, 0.99, -0.99, 1.01, -1.01, 0.5, -0.5, 0.01]);
    const t = (Math.round((v + d) * 100) / 100).toFixed(2);
    setText(e, t);
    return `${path(e)} = '${t}' (was ${v})`;
  },
  // A charge indicator flipped.
  (doc) => {
    const els = named(doc, "ChargeIndicator");
    if (!els.length) return null;
    const e = pick(els), v = pick(["true", "false", "1", "0", " true "]);
    setText(e, v);
    return `${path(e)} = '${v}'`;
  },
  // A code value changed.
  (doc) => {
    const pools: Record<string, string[]> = {
      IdentificationCode: ["DE", "IT", "NO", "de", "XX", "EL", " FR ", "1A", "XI"],
      DocumentCurrencyCode: ["EUR", "NOK", "eur", "XXX", "EURO"],
      TaxCurrencyCode: ["EUR", "NOK", "SEK", "ABC"],
      InvoiceTypeCode: ["380", "381", "383", "999", " 380 "],
      CreditNoteTypeCode: ["381", "380", "396", "1"],
      PaymentMeansCode: ["30", "58", "31", "49", "ZZZ", "99", " 30"],
      TaxExemptionReasonCode: ["VATEX-EU-O", "vatex-eu-ic", "VATEX-EU-AE", "VATEX-XX", "VATEX-EU-79-C"],
      AllowanceChargeReasonCode: ["95", "100", "ABL", "FC", "XX", "41"],
      DescriptionCode: ["3", "35", "432", "5"],
      CompanyID: ["DE123456789", "EL123", "XX1", "  NO999", "123"],
      Note: ["#AAI#note", "#XYZ#bad", "#AB#x", "plain", "#A A#x"],
      DocumentTypeCode: ["130", "50", "916", "380"],
      ActualDeliveryDate: ["2024-01-01", "", "1"],
      StartDate: ["2024-01-01", "2024-12-31", "2025-01-01"],
      EndDate: ["2024-01-01", "2024-06-30", "2023-12-31"],
      PrimaryAccountNumberID: ["1234", "123456789012", "123456****1234"],
      TaxPointDate: ["2024-01-01"],
    };
    const els = elements(doc).filter((e) => pools[e.localName!]);
    if (!els.length) return null;
    const e = pick(els), v = pick(pools[e.localName!]!);
    setText(e, v);
    return `${path(e)} = '${v}'`;
  },
  // An attribute changed or removed.
  (doc) => {
    const pools: Record<string, string[]> = {
      currencyID: ["EUR", "NOK", "eur", "XXX", "", "USD"],
      schemeID: ["0088", "0192", "9930", "SEPA", "XX", "", "EM", "AAA", "0007"],
      unitCode: ["C62", "EA", "XYZ", "h87", " C62 "],
      listID: ["STI", "MP", "XX", "TST"],
      mimeCode: ["application/pdf", "image/gif", "text/csv", "application/PDF"],
    };
    const els = elements(doc).filter((e) => Object.keys(pools).some((a) => e.hasAttribute(a)));
    if (!els.length) return null;
    const e = pick(els);
    const a = pick(Object.keys(pools).filter((k) => e.hasAttribute(k)));
    if (rnd() < 0.25) { e.removeAttribute(a); return `${path(e)}/@${a} removed`; }
    const v = pick(pools[a]!);
    e.setAttribute(a, v);
    return `${path(e)}/@${a} = '${v}'`;
  },
  // An optional element added where rules look for it.
  (doc) => {
    const root = doc.documentElement!;
    const add = (parent: Element, ns: string, q: string, text: string) => {
      const e = doc.createElementNS(ns, q);
      if (text) e.appendChild(doc.createTextNode(text));
      parent.appendChild(e);
      return e;
    };
    const choice = pick(["exemption", "prepaid", "rounding", "taxpoint", "period", "payee", "allowanceTotal", "chargeTotal"]);
    const lmt = named(doc, "LegalMonetaryTotal")[0];
    const subtotalCats = named(doc, "TaxCategory").filter((c) => (c.parentNode as Element).localName === "TaxSubtotal");
    switch (choice) {
      case "exemption": if (!subtotalCats.length) return null; add(pick(subtotalCats), CBC, "cbc:TaxExemptionReason", "Exempt"); break;
      case "prepaid": if (!lmt) return null; lmt.insertBefore(Object.assign(doc.createElementNS(CBC, "cbc:PrepaidAmount"), {}), named(doc, "PayableAmount")[0] ?? null).appendChild(doc.createTextNode(pick(["10.00", "0"]))); (lmt.lastChild as Element); break;
      case "rounding": if (!lmt) return null; lmt.insertBefore(doc.createElementNS(CBC, "cbc:PayableRoundingAmount"), named(doc, "PayableAmount")[0] ?? null).appendChild(doc.createTextNode(pick(["0.01", "-0.01", "0.50"]))); break;
      case "taxpoint": add(root, CBC, "cbc:TaxPointDate", "2024-01-01"); break;
      case "period": { const p = add(root, CAC, "cac:InvoicePeriod", ""); if (rnd() < 0.5) add(p, CBC, "cbc:DescriptionCode", "35"); else add(p, CBC, "cbc:StartDate", "2024-01-01"); break; }
      case "payee": { const p = add(root, CAC, "cac:PayeeParty", ""); const n = add(p, CAC, "cac:PartyName", ""); add(n, CBC, "cbc:Name", pick(["Payee Ltd", norm(null)])); break; }
      case "allowanceTotal": if (!lmt) return null; lmt.insertBefore(doc.createElementNS(CBC, "cbc:AllowanceTotalAmount"), named(doc, "TaxExclusiveAmount")[0] ?? null).appendChild(doc.createTextNode("0.00")); break;
      case "chargeTotal": if (!lmt) return null; lmt.insertBefore(doc.createElementNS(CBC, "cbc:ChargeTotalAmount"), named(doc, "TaxExclusiveAmount")[0] ?? null).appendChild(doc.createTextNode("0.00")); break;
    }
    return `added ${choice}`;
  },
];

// An Invoice rewritten as a CreditNote (root, lines, quantities, type code), to exercise the CreditNote
// alternations of the rules on every corpus invoice.
const creditNoteShare = Number(opt("--credit-notes") ?? 0.3);
function toCreditNote(doc: Document): void {
  const CN = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2";
  const rename = (e: Element, ns: string, qname: string): Element => {
    const n = doc.createElementNS(ns, qname);
    for (let i = 0; i < e.attributes.length; i++) { const a = e.attributes.item(i)!; if (a.name !== "xmlns") n.setAttributeNS(a.namespaceURI, a.name, a.value); }
    while (e.firstChild) n.appendChild(e.firstChild);
    e.parentNode!.replaceChild(n, e);
    return n;
  };
  for (const e of elements(doc)) {
    if (e.localName === "InvoiceLine" && e.namespaceURI === CAC) rename(e, CAC, "cac:CreditNoteLine");
    else if (e.localName === "InvoicedQuantity") rename(e, CBC, "cbc:CreditedQuantity");
    else if (e.localName === "InvoiceTypeCode") { const n = rename(e, CBC, "cbc:CreditNoteTypeCode"); setText(n, "381"); }
  }
  const old = doc.documentElement!;
  const root = doc.createElementNS(CN, "CreditNote");
  for (let i = 0; i < old.attributes.length; i++) { const a = old.attributes.item(i)!; if (a.name !== "xmlns") root.setAttributeNS(a.namespaceURI, a.name, a.value); }
  while (old.firstChild) root.appendChild(old.firstChild);
  doc.replaceChild(root, old);
}

const files = readFileSync(join(repo, "packages/core/test/fixtures/official-verdicts.jsonl"), "utf8").split("\n").filter(Boolean)
  .map((l) => JSON.parse(l) as { file: string; error?: string; customizationId?: string | null }).filter((v) => !v.error)
  .filter((v) => !opt("--customization") || (v.customizationId ?? "").startsWith(opt("--customization")!))
  .map((v) => join(corpus, v.file.includes("/corpus/") ? v.file.slice(v.file.indexOf("/corpus/") + 8) : v.file));
const fatalOnly = args.includes("--fatal-only");

mkdirSync(out, { recursive: true });
const want = (r: string) => r.startsWith(prefix);
let judged = 0, same = 0, skipped = 0;
const missBy = new Map<string, number>(), extraBy = new Map<string, number>();
for (let i = 0; i < count; i++) {
  const file = pick(files);
  const doc = new DOMParser({ onError: () => {} }).parseFromString(readFileSync(file, "utf8"), "text/xml");
  const applied: string[] = [];
  if (doc.documentElement!.localName === "Invoice" && rnd() < creditNoteShare) { toCreditNote(doc); applied.push("as a CreditNote"); }
  const n = 1 + Math.floor(rnd() * 3);
  for (let k = 0; k < n; k++) { const m = pick(mutations)(doc); if (m) applied.push(m); }
  const xml = new XMLSerializer().serializeToString(doc);
  if (args.includes("--dump")) writeFileSync(join(out, `all-${String(i).padStart(4, "0")}.xml`), xml);
  let theirs: { fatal: string[]; warning: string[] };
  try { theirs = officialValidate(xml); } catch { skipped++; continue; }
  judged++;
  const root = xmldomTree(xml);
  const cid = norm(first(root, "cbc:CustomizationID")) || null;
  const sets = ruleSetsApplying(cid);
  // A rule a set's validator configuration levels to "information" (XRechnung's KoSIT levels) is not reported.
  const levels = levelsOf(sets, { rootElement: root.name === "CreditNote" ? "CreditNote" : "Invoice", customizationId: cid });
  const ours = new Set(runRules(root, familiesOf(sets)).filter((f) => levels?.[f.rule] !== "information" && (!fatalOnly || f.flag === "fatal")).map((f) => f.rule).filter(want));
  const official = new Set([...theirs.fatal, ...(fatalOnly ? [] : theirs.warning)].filter(want));
  const missing = [...official].filter((r) => !ours.has(r)), extra = [...ours].filter((r) => !official.has(r));
  if (!missing.length && !extra.length) { same++; continue; }
  for (const r of missing) missBy.set(r, (missBy.get(r) ?? 0) + 1);
  for (const r of extra) extraBy.set(r, (extraBy.get(r) ?? 0) + 1);
  const name = `${String(i).padStart(4, "0")}.xml`;
  writeFileSync(join(out, name), `<!-- ${file.replace(corpus + "/", "")}\n     ${applied.join("\n     ")}\n     missing [${missing}] extra [${extra}] -->\n${xml}`);
  console.log(`${name} ${file.replace(corpus + "/", "")}: missing [${missing}] extra [${extra}] after ${applied.join("; ")}`);
}
console.log(`mutants: ${same}/${judged} agree on '${prefix}' rule ids (${skipped} without an official verdict)`);
console.log(`  missed: ${[...missBy].map(([r, k]) => `${r}×${k}`).join(" ") || "none"}`);
console.log(`  extra: ${[...extraBy].map(([r, k]) => `${r}×${k}`).join(" ") || "none"}`);
