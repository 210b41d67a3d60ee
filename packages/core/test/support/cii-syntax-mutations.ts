// Test support: seeded mutants of the CII test documents (testdata/cii) for the CEN CII syntax and code list rules
// (CII-SR-*, CII-DT-*, BR-CL-*). Each mutant is a valid document with one to three changes: an element or attribute
// EN 16931 does not use inserted where a rule's context is (a sample across every context of the pattern), a
// singular element duplicated or removed, a code swapped for a valid or an invalid one, a date in a wrong format,
// attributes the rules look at, and the cases of the rules written out by hand. The official verdicts of the same
// mutants are in test/fixtures/official-cii-syntax-mutants.jsonl (scripts/cii-syntax-verdicts.ts); the mutants are
// made again from the seed in the test, their sha256 tying them to the verdicts.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { DOMParser, XMLSerializer, type Document, type Element } from "@xmldom/xmldom";
import { ciiPath } from "../../../../testdata/index.js";
import * as CEN from "../../src/validation/codelists/cen.js";
import * as CII from "../../src/validation/rules/cii-codes-lists.js";
import { CII_SYNTAX_RULES } from "../../src/validation/rules/cii-syntax-table.js";
import { seededRandom } from "../../src/testing/random.js";

/** A small seeded generator (mulberry32): `seededRandom` of the core's testing module. */
export const rng = seededRandom;

const NS: Record<string, string> = {
  rsm: "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100",
  ram: "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100",
  udt: "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100",
  qdt: "urn:un:unece:uncefact:data:standard:QualifiedDataType:100",
};

type Rand = () => number;
const pick = <T>(r: Rand, list: readonly T[]): T => list[Math.floor(r() * list.length)]!;

// ---- DOM helpers ----

const elements = (doc: Document): Element[] => Array.from(doc.getElementsByTagName("*") as unknown as ArrayLike<Element>);
const kids = (el: Element): Element[] => Array.from(el.childNodes as unknown as ArrayLike<Element>).filter((n) => n.nodeType === 1);
const qn = (el: Element): string => {
  const prefix = Object.entries(NS).find(([, uri]) => uri === el.namespaceURI)?.[0];
  return prefix ? `${prefix}:${el.localName}` : `{${el.namespaceURI ?? ""}}${el.localName}`;
};
const byQname = (doc: Document, qname: string) => elements(doc).filter((e) => qn(e) === qname);
const childOf = (el: Element, qname: string) => kids(el).find((k) => qn(k) === qname) ?? null;

function make(doc: Document, qname: string, text?: string): Element {
  const [prefix] = qname.split(":");
  const el = doc.createElementNS(NS[prefix!]!, qname);
  if (text !== undefined) el.appendChild(doc.createTextNode(text));
  return el;
}

/** Appends the chain of elements `steps` below `parent` (the last one with `text`), returning the last. */
function addChain(doc: Document, parent: Element, steps: readonly string[], text = "1"): Element {
  let at = parent;
  steps.forEach((s, i) => {
    const el = make(doc, s, i === steps.length - 1 ? text : undefined);
    at.appendChild(el);
    at = el;
  });
  return at;
}

/** The element at `steps` below `parent`, made where missing. */
function ensure(doc: Document, parent: Element, steps: readonly string[]): Element {
  let at = parent;
  for (const s of steps) at = childOf(at, s) ?? (at.appendChild(make(doc, s)) as Element);
  return at;
}

const setText = (el: Element, text: string) => {
  while (el.firstChild) el.removeChild(el.firstChild);
  el.appendChild(el.ownerDocument!.createTextNode(text));
};

// ---- the contexts of the syntax rules, read independently of the production matcher ----

/** The elements that a rule's context names (each alternative), made where an anchored one is missing. */
function contextElements(doc: Document, context: string, r: Rand): Element[] {
  const out: Element[] = [];
  for (const alt of context.split(" | ").map((s) => s.trim())) {
    let m: RegExpExecArray | null;
    if ((m = /^\/rsm:CrossIndustryInvoice((?:\/[\w:]+)*)$/.exec(alt))) {
      const steps = m[1]!.split("/").filter(Boolean);
      // A context per line: pick one of the lines.
      const lines = byQname(doc, "ram:IncludedSupplyChainTradeLineItem");
      if (steps[1] === "ram:IncludedSupplyChainTradeLineItem" && lines.length > 0) out.push(ensure(doc, pick(r, lines), steps.slice(2)));
      else out.push(ensure(doc, doc.documentElement!, steps));
    } else if ((m = /^\/\/([\w:/]+?)(?:\[@(\w+) = '([^']*)'\])?$/.exec(alt))) {
      const steps = m[1]!.split("/");
      const last = steps.pop()!;
      out.push(...byQname(doc, last).filter((e) => {
        let at = e.parentNode as Element | null;
        for (const s of [...steps].reverse()) {
          if (!at || at.nodeType !== 1 || qn(at) !== s) return false;
          at = at.parentNode as Element | null;
        }
        return m![2] ? e.getAttribute(m![2]) === m![3] : true;
      }));
    } else if ((m = /^\/\/(ram:|)\*\[ends-with\(name\(\), '(\w+)'\)(?: and not \(self::(ram:\w+)\))?\]$/.exec(alt))) {
      const [, ns, suffix, except] = m;
      out.push(...elements(doc).filter((e) => (!ns || e.namespaceURI === NS.ram) && e.localName!.endsWith(suffix!) && qn(e) !== except));
    } else throw new Error(`context: ${alt}`);
  }
  return out;
}

// ---- the mutations ----

type Mutation = (doc: Document, r: Rand) => string | null;

const ABSENT = CII_SYNTAX_RULES.flatMap((rule) => rule.asserts
  .filter(([, , test]) => /^\(?\s*not\(([\w:/@]+)\)\s*\)?$/.test(test))
  .map(([id, , test]) => ({ context: rule.context, id, path: /not\(([\w:/@]+)\)/.exec(test)![1]! })));
const COUNTED = CII_SYNTAX_RULES.flatMap((rule) => rule.asserts
  .map(([id, , test]) => [id, /^\(?\s*count\(([\w:]+(?:\/[\w:]+)*)\)\s*(<=|=)\s*1\s*\)?$/.exec(test)] as const)
  .filter(([, m]) => m)
  .map(([id, m]) => ({ context: rule.context, id, path: m![1]! })));

/** The not(path) assertions by context: a context is picked first, so that every context is sampled. */
const ABSENT_BY_CONTEXT = [...new Set(ABSENT.map((a) => a.context))].map((c) => ABSENT.filter((a) => a.context === c));

/** Inserts what one to four not(path) assertions forbid, each at one of its context elements. */
const insertForbidden: Mutation = (doc, r) => {
  const done: string[] = [];
  for (let k = 1 + Math.floor(r() * 4); k > 0; k--) {
    const d = insertAt(doc, r, pick(r, pick(r, ABSENT_BY_CONTEXT)));
    if (d) done.push(d);
  }
  return done.length ? done.join(", ") : null;
};

/** Inserts what one not(path) assertion forbids at one of its context elements. */
function insertAt(doc: Document, r: Rand, a: { context: string; id: string; path: string }): string | null {
  const targets = contextElements(doc, a.context, r);
  if (targets.length === 0) return null;
  const target = pick(r, targets);
  const steps = a.path.split("/");
  const attr = steps[steps.length - 1]!.startsWith("@") ? steps.pop()!.slice(1) : null;
  const el = steps.length === 0 ? target : r() < 0.5 ? ensure(doc, target, steps) : addChain(doc, target, steps);
  if (attr) el.setAttribute(attr, pick(r, ["1", "0088", "x", ""]));
  return `${a.id}: ${a.path} in ${qn(target)}`;
}

/** Repeats, removes or adds what a count(path) rule counts. */
const miscount: Mutation = (doc, r) => {
  const a = pick(r, COUNTED);
  const targets = contextElements(doc, a.context, r);
  if (targets.length === 0) return null;
  const target = pick(r, targets);
  const steps = a.path.split("/");
  const present: Element[] = [];
  const walk = (el: Element, i: number) => kids(el).filter((k) => qn(k) === steps[i]).forEach((k) => (i === steps.length - 1 ? present.push(k) : walk(k, i + 1)));
  walk(target, 0);
  const how = r();
  if (present.length > 0 && how < 0.5) {
    const el = pick(r, present);
    el.parentNode!.insertBefore(el.cloneNode(true), el.nextSibling);
    return `${a.id}: ${a.path} repeated`;
  }
  if (present.length > 0 && how < 0.75) {
    const el = pick(r, present);
    el.parentNode!.removeChild(el);
    return `${a.id}: ${a.path} removed`;
  }
  addChain(doc, target, steps);
  if (r() < 0.5) addChain(doc, target, steps);
  return `${a.id}: ${a.path} added`;
};

/** Duplicates any element of the document. */
const duplicateAny: Mutation = (doc, r) => {
  const all = elements(doc).filter((e) => e !== doc.documentElement);
  const el = pick(r, all);
  el.parentNode!.insertBefore(el.cloneNode(true), el.nextSibling);
  return `duplicate ${qn(el)}`;
};

const INVALID = ["", " ", "XX", "zzz", "s", "S S", "AA1", "0", "999", "VAT"];
const codeValue = (r: Rand, valid: readonly string[], other: readonly string[] = []) => {
  const x = r();
  if (x < 0.35) return pick(r, valid);
  if (x < 0.45) return ` ${pick(r, valid)}\n`;
  if (x < 0.6 && other.length > 0) return pick(r, other);
  if (x < 0.7) return pick(r, valid).toLowerCase();
  return pick(r, INVALID);
};

/** [element qname, valid codes, codes of a neighbouring list, where to add one when the document has none]. */
const CODES: readonly (readonly [string, readonly string[], readonly string[], readonly string[] | null])[] = [
  ["ram:TypeCode", CII.BR_CL_01_CODES, ["30", "58", "916", "VAT", "50"], ["rsm:ExchangedDocument"]],
  ["ram:InvoiceCurrencyCode", CEN.CURRENCY_CODES, ["EURO", "eur"], null],
  ["ram:TaxCurrencyCode", CEN.CURRENCY_CODES, [], ["rsm:SupplyChainTradeTransaction", "ram:ApplicableHeaderTradeSettlement"]],
  ["ram:DueDateTypeCode", CII.BR_CL_06_CODES, CEN.VAT_DATE_CODES, null],
  ["ram:ReferenceTypeCode", CEN.OBJECT_IDENTIFIER_SCHEMES, ["130", "ZZZ"], null],
  ["ram:SubjectCode", CII.BR_CL_08_CODES, CEN.SUBJECT_CODES.filter((c) => !CII.BR_CL_08_CODES.includes(c)), ["rsm:ExchangedDocument", "ram:IncludedNote"]],
  ["ram:CountryID", CII.BR_CL_14_CODES, ["SS", "AN", "XI", "GR", "EL", "UK"], null],
  ["ram:CategoryCode", CEN.VAT_CATEGORY_CODES, ["A", "H", "AA"], null],
  ["ram:CategoryTradeTax/ram:CategoryCode", CEN.VAT_CATEGORY_CODES, ["A", "H"], null],
  ["ram:ReasonCode", [...CEN.ALLOWANCE_REASON_CODES, ...CEN.CHARGE_REASON_CODES], ["1", "ZZZ"], null],
  ["ram:ExemptionReasonCode", CEN.VATEX_CODES, ["vatex-eu-ae", "VATEX-EU-AE ", "VATEX-XX"], null],
];

/** Swaps a code for a valid, a neighbouring or an invalid one. */
const swapCode: Mutation = (doc, r) => {
  const [path, valid, other, where] = pick(r, CODES);
  const qname = path.split("/").pop()!;
  let found = byQname(doc, qname).filter((e) => !path.includes("/") || qn(e.parentNode as Element) === path.split("/")[0]);
  if (found.length === 0) {
    if (!where) return null;
    found = [addChain(doc, ensure(doc, doc.documentElement!, where), [qname])];
  }
  const el = pick(r, found);
  const value = codeValue(r, valid, other);
  setText(el, value);
  return `${qname} = ${JSON.stringify(value)}`;
};

/** [element qname, attribute, valid values, others]. */
const ATTRIBUTES: readonly (readonly [string, string, readonly string[], readonly string[]])[] = [
  ["ram:GlobalID", "schemeID", CEN.ICD_SCHEMES, ["SEPA", "9930", "GLN", "0088 "]],
  ["ram:ID", "schemeID", CEN.ICD_SCHEMES, ["SEPA", "VA", "FC", "9930"]],
  ["ram:URIID", "schemeID", CEN.EAS_CODES, ["0009 ", "EM", "XX", "9999"]],
  ["ram:ClassCode", "listID", CEN.ITEM_CLASSIFICATION_SCHEMES, ["UNSPSC", "STI "]],
  ["ram:BilledQuantity", "unitCode", CEN.UNIT_CODES, ["C62 ", "c62", "PCE", "XPP"]],
  ["ram:BasisQuantity", "unitCode", CEN.UNIT_CODES, ["H87", "XYZ"]],
  ["ram:TaxTotalAmount", "currencyID", CEN.CURRENCY_CODES, ["EURO", " EUR"]],
  ["ram:AttachmentBinaryObject", "mimeCode", CEN.MIME_CODES, ["application/xml", "image/gif", "APPLICATION/PDF", "application/pdf "]],
  ["ram:LineTotalAmount", "currencyID", CEN.CURRENCY_CODES, []],
  ["ram:BilledQuantity", "unitCodeListID", ["1"], []],
  ["ram:ChargeAmount", "currencyCodeListVersionID", ["1"], []],
  ["ram:InvoiceCurrencyCode", "listID", ["ISO4217"], []],
];

/** Sets an attribute the code and data type rules read. */
const setAttribute: Mutation = (doc, r) => {
  const [qname, attr, valid, other] = pick(r, ATTRIBUTES);
  const found = byQname(doc, qname);
  if (found.length === 0) return null;
  const el = pick(r, found);
  const value = r() < 0.4 ? pick(r, valid) : r() < 0.5 && other.length ? pick(r, other) : pick(r, INVALID);
  if (r() < 0.1 && el.hasAttribute(attr)) el.removeAttribute(attr);
  else el.setAttribute(attr, value);
  return `${qname}/@${attr} = ${JSON.stringify(value)}`;
};

const DATES = ["20260131", "2026-01-31", "20261301", "20260230", "20260100", " 20260131\n", "2026013", "202601311", "٢٠٢٦0131", "26.01.2026", ""];
/** Gives a date string a value (format 102) or another format. */
const badDate: Mutation = (doc, r) => {
  const found = byQname(doc, "udt:DateTimeString");
  if (found.length === 0) return null;
  const el = pick(r, found);
  const value = pick(r, DATES);
  setText(el, value);
  if (r() < 0.15) el.setAttribute("format", pick(r, ["610", "616", " 102", ""]));
  return `udt:DateTimeString = ${JSON.stringify(value)} (format ${el.getAttribute("format")})`;
};

const header = (doc: Document, part: string) => ensure(doc, doc.documentElement!, ["rsm:SupplyChainTradeTransaction", part]);
const settlement = (doc: Document) => header(doc, "ram:ApplicableHeaderTradeSettlement");
const agreement = (doc: Document) => header(doc, "ram:ApplicableHeaderTradeAgreement");
const aLine = (doc: Document, r: Rand) => {
  const lines = byQname(doc, "ram:IncludedSupplyChainTradeLineItem");
  return lines.length ? pick(r, lines) : null;
};
const referenced = (doc: Document, parent: Element, name: string, code: string | null, extra: readonly string[]) => {
  const el = addChain(doc, parent, [name], undefined);
  while (el.firstChild) el.removeChild(el.firstChild);
  el.appendChild(make(doc, "ram:IssuerAssignedID", "REF-1"));
  if (code !== null) el.appendChild(make(doc, "ram:TypeCode", code));
  for (const e of extra) el.appendChild(make(doc, e, e === "ram:AttachmentBinaryObject" ? "SGVsbG8=" : "x"));
  if (extra.includes("ram:AttachmentBinaryObject")) (el.getElementsByTagNameNS(NS.ram!, "AttachmentBinaryObject")[0] as Element).setAttribute("mimeCode", "application/pdf");
  return el;
};

/** The cases of the rules written out by hand (and a few of the code rules' contexts). */
const SPECIAL: readonly (readonly [string, Mutation])[] = [
  ["item GlobalID without scheme (CII-SR-046)", (doc, r) => {
    const line = aLine(doc, r);
    if (!line) return null;
    const product = ensure(doc, line, ["ram:SpecifiedTradeProduct"]);
    const g = make(doc, "ram:GlobalID", "4000001123452");
    if (r() < 0.4) g.setAttribute("schemeID", pick(r, ["0160", "9999"]));
    product.insertBefore(g, product.firstChild);
    if (r() < 0.3) product.insertBefore(make(doc, "ram:GlobalID", "1"), g);
    return "product GlobalID";
  }],
  ["origin country (CII-SR-090, BR-CL-15, BR-CL-11)", (doc, r) => {
    const line = aLine(doc, r);
    if (!line) return null;
    const product = ensure(doc, line, ["ram:SpecifiedTradeProduct"]);
    const otc = product.appendChild(make(doc, "ram:OriginTradeCountry")) as Element;
    const n = pick(r, [0, 1, 1, 2]);
    for (let i = 0; i < n; i++) {
      const id = otc.appendChild(make(doc, "ram:ID", pick(r, ["DE", "AN", "SS", "XX", "de"]))) as Element;
      if (r() < 0.3) id.setAttribute("schemeID", pick(r, ["0088", "XX"]));
    }
    return `origin country with ${n} ids`;
  }],
  ["gross price allowance (CII-SR-119, CII-SR-440)", (doc, r) => {
    const line = aLine(doc, r);
    if (!line) return null;
    const gross = ensure(doc, line, ["ram:SpecifiedLineTradeAgreement", "ram:GrossPriceProductTradePrice"]);
    if (!childOf(gross, "ram:ChargeAmount")) gross.appendChild(make(doc, "ram:ChargeAmount", "10.00"));
    const ac = gross.appendChild(make(doc, "ram:AppliedTradeAllowanceCharge")) as Element;
    if (r() < 0.8) addChain(doc, ac, ["ram:ChargeIndicator", "udt:Indicator"], pick(r, ["false", "true", " false ", "0", "1"]));
    if (r() < 0.7) ac.appendChild(make(doc, "ram:ActualAmount", "1.00"));
    if (r() < 0.2) ac.appendChild(make(doc, "ram:ActualAmount", "1.00"));
    return "gross price allowance";
  }],
  ["line object identifiers (CII-SR-474)", (doc, r) => {
    const line = aLine(doc, r);
    if (!line) return null;
    const s = ensure(doc, line, ["ram:SpecifiedLineTradeSettlement"]);
    for (let i = 0; i < pick(r, [1, 2, 2]); i++) referenced(doc, s, "ram:AdditionalReferencedDocument", pick(r, ["130", " 130 ", "130", "916"]), pick(r, [[], ["ram:ReferenceTypeCode"]]));
    return "line additional documents";
  }],
  ["party with ID and GlobalID (CII-SR-449/450/451)", (doc, r) => {
    const [part, party] = pick(r, [["ram:ApplicableHeaderTradeDelivery", "ram:ShipToTradeParty"], ["ram:ApplicableHeaderTradeAgreement", "ram:BuyerTradeParty"], ["ram:ApplicableHeaderTradeSettlement", "ram:PayeeTradeParty"]] as const);
    const p = ensure(doc, header(doc, part), [party]);
    if (!childOf(p, "ram:Name")) p.appendChild(make(doc, "ram:Name", "Party"));
    const what = pick(r, ["both", "id", "global", "global-scheme"]);
    if (what === "both" || what === "id") p.insertBefore(make(doc, "ram:ID", "P1"), p.firstChild);
    if (what !== "id") {
      const g = make(doc, "ram:GlobalID", "4000001000005");
      if (what !== "global") g.setAttribute("schemeID", pick(r, ["0088", "9999", "SEPA"]));
      p.insertBefore(g, p.firstChild);
    }
    return `${party}: ${what}`;
  }],
  ["header referenced documents (CII-SR-457/458/475/476, CII-DT-015..030)", (doc, r) => {
    const parent = r() < 0.7 ? agreement(doc) : pick(r, [header(doc, "ram:ApplicableHeaderTradeDelivery"), settlement(doc)]);
    const name = pick(r, ["ram:AdditionalReferencedDocument", "ram:AdditionalReferencedDocument", "ram:ContractReferencedDocument", "ram:BuyerOrderReferencedDocument", "ram:InvoiceReferencedDocument", "ram:DespatchAdviceReferencedDocument"]);
    const extras = ["ram:URIID", "ram:Name", "ram:AttachmentBinaryObject", "ram:ReferenceTypeCode", "ram:FormattedIssueDateTime", "ram:StatusCode", "ram:Information", "ram:SectionName"];
    const extra = extras.filter(() => r() < 0.25);
    const code = r() < 0.8 ? pick(r, ["50", "130", "916", "916 ", "71", "VAT"]) : null;
    for (let i = 0; i < pick(r, [1, 1, 2]); i++) referenced(doc, parent, name, r() < 0.8 ? code : pick(r, ["50", "130"]), extra);
    return `${name} with ${extra.join(" ") || "no extras"}`;
  }],
  ["contact with person and department (CII-SR-465/466)", (doc, r) => {
    const party = ensure(doc, agreement(doc), [pick(r, ["ram:SellerTradeParty", "ram:BuyerTradeParty"])]);
    const c = party.appendChild(make(doc, "ram:DefinedTradeContact")) as Element;
    if (r() < 0.7) c.appendChild(make(doc, "ram:PersonName", "Ann"));
    if (r() < 0.7) c.appendChild(make(doc, "ram:DepartmentName", "Sales"));
    return "contact";
  }],
  ["VAT point date codes (CII-SR-462, CII-DT-058)", (doc, r) => {
    const taxes = byQname(doc, "ram:ApplicableTradeTax");
    if (taxes.length === 0) return null;
    for (let i = 0; i < pick(r, [1, 2]); i++) pick(r, taxes).appendChild(make(doc, "ram:DueDateTypeCode", pick(r, ["5", "29", "72", " 5", "3"])));
    return "due date type codes";
  }],
  ["credit transfer without account (CII-SR-470)", (doc, r) => {
    const s = settlement(doc);
    const pm = make(doc, "ram:SpecifiedTradeSettlementPaymentMeans");
    pm.appendChild(make(doc, "ram:TypeCode", pick(r, ["30", "58", " 58 ", "31", "59"])));
    if (r() < 0.3) pm.appendChild(make(doc, "ram:Information", pick(r, ["Transfer", "Other"])));
    if (r() < 0.4) addChain(doc, pm, ["ram:PayeePartyCreditorFinancialAccount", pick(r, ["ram:IBANID", "ram:ProprietaryID", "ram:AccountName"])], "DE02120300000000202051");
    s.insertBefore(pm, kids(s).find((k) => qn(k) === "ram:ApplicableTradeTax") ?? null);
    return "payment means";
  }],
  ["payment references (CII-SR-469)", (doc, r) => {
    const s = settlement(doc);
    s.insertBefore(make(doc, "ram:PaymentReference", pick(r, ["REF 1", "REF 2"])), s.firstChild);
    return "payment reference";
  }],
  ["tax with data it should not have (CII-DT-037..067)", (doc, r) => {
    const taxes = elements(doc).filter((e) => e.namespaceURI === NS.ram && e.localName!.endsWith("TradeTax"));
    if (taxes.length === 0) return null;
    const t = r() < 0.3 ? ensure(doc, settlement(doc), ["ram:SpecifiedTradeAllowanceCharge", "ram:CategoryTradeTax"]) : pick(r, taxes);
    const what = pick(r, ["ram:BasisAmount", "ram:TaxPointDate", "ram:ExemptionReason", "ram:ExemptionReasonCode", "ram:TypeCode", "ram:CalculatedRate", "ram:CurrencyCode"]);
    if (what === "ram:TaxPointDate") addChain(doc, t, [what, "udt:DateString"], "20260101").setAttribute("format", "102");
    else t.appendChild(make(doc, what, what === "ram:TypeCode" ? pick(r, ["VAT", "vat", " VAT", "GST"]) : what === "ram:ExemptionReasonCode" ? "VATEX-EU-AE" : "1"));
    return `${qn(t)} + ${what}`;
  }],
  ["allowance or charge reason and indicator (CII-SR-463, BR-CL-19/20)", (doc, r) => {
    const parent = r() < 0.5 ? settlement(doc) : ensure(doc, aLine(doc, r) ?? doc.documentElement!, ["ram:SpecifiedLineTradeSettlement"]);
    const ac = make(doc, "ram:SpecifiedTradeAllowanceCharge");
    if (r() < 0.85) addChain(doc, ac, ["ram:ChargeIndicator", "udt:Indicator"], pick(r, ["false", "true", "0", "1", " true "]));
    ac.appendChild(make(doc, "ram:ActualAmount", "0.00"));
    if (r() < 0.1) ac.appendChild(make(doc, "ram:ActualAmount", "0.00"));
    ac.appendChild(make(doc, "ram:ReasonCode", pick(r, ["95", "FC", "ABL", "41", "ZZZ", " 95"])));
    parent.insertBefore(ac, kids(parent).find((k) => qn(k) === "ram:SpecifiedTradeSettlementHeaderMonetarySummation" || qn(k) === "ram:SpecifiedTradeSettlementLineMonetarySummation") ?? null);
    return "allowance/charge";
  }],
  ["quantity units (CII-DT-033..036, BR-CL-23)", (doc, r) => {
    const qs = elements(doc).filter((e) => e.namespaceURI === NS.ram && e.localName!.endsWith("Quantity"));
    if (qs.length === 0) return null;
    if (r() < 0.5) for (const q of byQname(doc, "ram:BilledQuantity")) q.removeAttribute("unitCode");
    const others = qs.filter((q) => q.localName !== "BilledQuantity");
    const q = others.length && r() < 0.6 ? pick(r, others) : pick(r, qs);
    q.setAttribute(pick(r, ["unitCode", "unitCode", "unitCodeListID", "unitCodeListAgencyName"]), pick(r, ["C62", "H87", "XX"]));
    return `${qn(q)} unit`;
  }],
  ["identifier attributes (CII-DT-001..007, 101..104)", (doc, r) => {
    const ids = elements(doc).filter((e) => e.localName!.endsWith("ID"));
    if (ids.length === 0) return null;
    const el = pick(r, ids);
    const attr = pick(r, ["schemeName", "schemeAgencyName", "schemeDataURI", "schemeURI", "schemeID", "schemeAgencyID", "schemeVersionID"]);
    el.setAttribute(attr, "1");
    return `${qn(el)}/@${attr}`;
  }],
  ["type code attributes (CII-DT-008..012, 045..048)", (doc, r) => {
    const codes = [...byQname(doc, "ram:TypeCode"), ...byQname(doc, "ram:CategoryCode")];
    if (codes.length === 0) return null;
    const el = pick(r, codes);
    const attr = pick(r, ["name", "listURI", "listID", "listAgencyID", "listVersionID"]);
    el.setAttribute(attr, "1");
    return `${qn(el)}/@${attr}`;
  }],
  ["root attributes (CII-DT-013/014)", (doc, r) => {
    doc.documentElement!.setAttribute(pick(r, ["languageID", "languageLocaleID"]), "de");
    return "root attribute";
  }],
  ["payment means codes and texts (CII-SR-467/468, BR-CL-16)", (doc, r) => {
    const s = settlement(doc);
    const pm = make(doc, "ram:SpecifiedTradeSettlementPaymentMeans");
    pm.appendChild(make(doc, "ram:TypeCode", pick(r, ["58", "30", " 30 ", "1", "ZZZ", "99"])));
    if (r() < 0.5) pm.appendChild(make(doc, "ram:Information", pick(r, ["Transfer", " Transfer", "Other"])));
    addChain(doc, pm, ["ram:PayeePartyCreditorFinancialAccount", "ram:IBANID"], "DE02120300000000202051");
    s.insertBefore(pm, kids(s).find((k) => qn(k) === "ram:ApplicableTradeTax") ?? null);
    return "second payment means";
  }],
  ["a unit on a quantity but none on an invoiced quantity (CII-DT-033)", (doc, r) => {
    const line = aLine(doc, r);
    if (!line) return null;
    for (const q of byQname(doc, "ram:BilledQuantity")) q.removeAttribute("unitCode");
    const price = ensure(doc, line, ["ram:SpecifiedLineTradeAgreement", "ram:NetPriceProductTradePrice"]);
    const basis = make(doc, "ram:BasisQuantity", "1");
    basis.setAttribute("unitCode", pick(r, ["C62", "XX"]));
    price.appendChild(basis);
    return "basis quantity unit";
  }],
  ["a preceding invoice's date elsewhere (CII-DT-027)", (doc, r) => {
    const parent = pick(r, [agreement(doc), settlement(doc)]);
    const name = pick(r, ["ram:InvoiceReferencedDocument", "ram:ContractReferencedDocument", "ram:AdditionalReferencedDocument"]);
    referenced(doc, parent, name, name === "ram:AdditionalReferencedDocument" ? "916" : null, []);
    const date = addChain(doc, kids(parent).filter((k) => qn(k) === name).pop()!, ["ram:FormattedIssueDateTime", "qdt:DateTimeString"], "20260101");
    date.setAttribute("format", "102");
    return `${name} with a date`;
  }],
  ["line tax count (CII-SR-454)", (doc, r) => {
    const line = aLine(doc, r);
    const tax = line && byQname(doc, "ram:ApplicableTradeTax").find((t) => (t.parentNode as Element).parentNode === line);
    if (!tax) return null;
    if (r() < 0.5) tax.parentNode!.removeChild(tax);
    else tax.parentNode!.insertBefore(tax.cloneNode(true), tax);
    return "line tax count";
  }],
];

/** Written-out rules broken on purpose, without chance: the mutants of ciiCoverageMutants. */
const firstLineTax = (doc: Document) => byQname(doc, "ram:ApplicableTradeTax").find((t) => qn(t.parentNode as Element) === "ram:SpecifiedLineTradeSettlement") ?? null;
const bothIds = (part: string, party: string): Mutation => (doc) => {
  const p = ensure(doc, header(doc, part), [party]);
  const global = make(doc, "ram:GlobalID", "4000001000005");
  global.setAttribute("schemeID", "0088");
  p.insertBefore(global, p.firstChild);
  p.insertBefore(make(doc, "ram:ID", "P1"), p.firstChild);
  return `${party} with ram:ID and ram:GlobalID`;
};
const twoDocuments = (code: string, extra: readonly string[]): Mutation => (doc) => {
  referenced(doc, agreement(doc), "ram:AdditionalReferencedDocument", code, extra);
  referenced(doc, agreement(doc), "ram:AdditionalReferencedDocument", code, extra);
  return `two additional documents with type code ${code}`;
};
const lineTaxWith = (qname: string): Mutation => (doc) => {
  const t = firstLineTax(doc);
  if (!t) return null;
  if (qname === "ram:TaxPointDate") addChain(doc, t, [qname, "udt:DateString"], "20260101").setAttribute("format", "102");
  else t.appendChild(make(doc, qname, qname === "ram:BasisAmount" ? "100.00" : "5"));
  return `line tax with ${qname}`;
};
const categoryTaxWith = (qname: string): Mutation => (doc) => {
  const ac = ensure(doc, settlement(doc), ["ram:SpecifiedTradeAllowanceCharge"]);
  if (!childOf(ac, "ram:ChargeIndicator")) addChain(doc, ac, ["ram:ChargeIndicator", "udt:Indicator"], "false");
  const t = ensure(doc, ac, ["ram:CategoryTradeTax"]);
  t.appendChild(make(doc, qname, qname === "ram:ExemptionReasonCode" ? "VATEX-EU-AE" : "Exempt"));
  return `allowance tax with ${qname}`;
};
const TARGETED: readonly (readonly [string, Mutation])[] = [
  ["CII-SR-449", bothIds("ram:ApplicableHeaderTradeDelivery", "ram:ShipToTradeParty")],
  ["CII-SR-450", bothIds("ram:ApplicableHeaderTradeAgreement", "ram:BuyerTradeParty")],
  ["CII-SR-451", bothIds("ram:ApplicableHeaderTradeSettlement", "ram:PayeeTradeParty")],
  ["CII-SR-457", twoDocuments("50", [])],
  ["CII-SR-458", twoDocuments("130", [])],
  ["CII-SR-475/476", twoDocuments("916", ["ram:Name", "ram:AttachmentBinaryObject"])],
  ["CII-DT-041", lineTaxWith("ram:BasisAmount")],
  ["CII-DT-054", lineTaxWith("ram:TaxPointDate")],
  ["CII-DT-058", lineTaxWith("ram:DueDateTypeCode")],
  ["CII-DT-052", categoryTaxWith("ram:ExemptionReasonCode")],
  ["CII-DT-098", categoryTaxWith("ram:ExemptionReason")],
];

const KINDS: readonly (readonly [number, string, Mutation])[] = [
  [30, "insert forbidden", insertForbidden],
  [12, "miscount", miscount],
  [5, "duplicate", duplicateAny],
  [14, "code", swapCode],
  [10, "attribute", setAttribute],
  [6, "date", badDate],
  [23, "special", (doc, r) => { const [name, m] = pick(r, SPECIAL); const d = m(doc, r); return d && `${name}: ${d}`; }],
];
const TOTAL = KINDS.reduce((n, [w]) => n + w, 0);

function mutateOnce(doc: Document, r: Rand): string | null {
  let x = r() * TOTAL;
  for (const [w, name, m] of KINDS) {
    if ((x -= w) < 0) {
      const d = m(doc, r);
      return d && `${name}: ${d}`;
    }
  }
  return null;
}

export interface CiiMutant {
  /** "<base file>#<n>". */
  id: string;
  base: string;
  /** What was changed, in order. */
  changes: string[];
  xml: string;
  sha256: string;
}

/** The mutants of `bases` (paths relative to testdata/cii): `perBase` each, from `seed`. Deterministic. */
export function ciiSyntaxMutants(bases: readonly string[], perBase: number, seed: number): CiiMutant[] {
  const out: CiiMutant[] = [];
  bases.forEach((base, b) => {
    const text = readFileSync(ciiPath(base), "utf8").replace(/^\uFEFF/, "");
    for (let n = 0; n < perBase; n++) {
      const r = rng(seed * 1_000_003 + b * 1009 + n);
      const doc = new DOMParser({ onError: () => {} }).parseFromString(text, "text/xml");
      const changes: string[] = [];
      const count = 1 + Math.floor(r() * r() * 3);
      for (let tries = 0; changes.length < count && tries < 10; tries++) {
        const d = mutateOnce(doc, r);
        if (d) changes.push(d);
      }
      const xml = new XMLSerializer().serializeToString(doc);
      out.push({ id: `${base}#${n}`, base, changes, xml, sha256: createHash("sha256").update(xml).digest("hex") });
    }
  });
  return out;
}

/** The seed, the mutants per base document, and the base documents (every CII test document the official rules judge). */
export const CII_SYNTAX_SEED = 16931;
export const CII_SYNTAX_PER_BASE = 14;
export function CII_SYNTAX_CORPUS(): string[] {
  const lines = readFileSync(new URL("../fixtures/official-cii-verdicts.jsonl", import.meta.url), "utf8").split("\n").filter(Boolean);
  return lines.map((l) => JSON.parse(l) as { file: string; error?: string }).filter((v) => !v.error).map((v) => v.file);
}

/**
 * Mutants that break every not(path) assertion at least once: per rule, its assertions six at a time, each inserted at
 * one of its context elements, in the base documents in turn; and the written-out cases chance may miss.
 */
export function ciiCoverageMutants(bases: readonly string[], seed: number): CiiMutant[] {
  const out: CiiMutant[] = [];
  const texts = bases.map((b) => readFileSync(ciiPath(b), "utf8").replace(/^\uFEFF/, ""));
  const jobs: { name: string; apply: (doc: Document, r: Rand) => string | null }[] = [];
  ABSENT_BY_CONTEXT.forEach((group, g) => {
    for (let i = 0; i < group.length; i += 6) {
      const chunk = group.slice(i, i + 6);
      jobs.push({ name: `coverage ${g}.${i / 6}`, apply: (doc, r) => chunk.map((a) => insertAt(doc, r, a)).filter(Boolean).join(", ") || null });
    }
  });
  // count(path) <= 1 and = 1: two more of each.
  for (const a of COUNTED) {
    jobs.push({ name: `coverage ${a.id}`, apply: (doc, r) => {
      const targets = contextElements(doc, a.context, r);
      if (targets.length === 0) return null;
      const target = pick(r, targets);
      addChain(doc, target, a.path.split("/"));
      addChain(doc, target, a.path.split("/"));
      return `${a.id}: ${a.path} added twice`;
    } });
  }
  for (const [name, m] of SPECIAL) for (const k of [1, 2, 3]) jobs.push({ name: `coverage ${name} ${k}`, apply: m });
  for (const [name, m] of TARGETED) jobs.push({ name: `coverage ${name}`, apply: m });
  jobs.forEach((job, j) => {
    // The first base document (in turn) on which the change applies: a floating context may be in some only.
    for (let t = 0; t < bases.length; t++) {
      const b = (j + t) % bases.length;
      const r = rng(seed * 7919 + j);
      const doc = new DOMParser({ onError: () => {} }).parseFromString(texts[b]!, "text/xml");
      const change = job.apply(doc, r);
      if (change === null) continue;
      const xml = new XMLSerializer().serializeToString(doc);
      out.push({ id: `${bases[b]}:${job.name}`, base: bases[b]!, changes: [change], xml, sha256: createHash("sha256").update(xml).digest("hex") });
      break;
    }
  });
  return out;
}

/** The corpus documents as they are (id = file), then their mutants. */
export function ciiSyntaxDocuments(bases: readonly string[], perBase: number, seed: number): CiiMutant[] {
  const originals = bases.map((base) => {
    const xml = readFileSync(ciiPath(base), "utf8").replace(/^\uFEFF/, "");
    return { id: base, base, changes: [], xml, sha256: createHash("sha256").update(xml).digest("hex") };
  });
  return [...originals, ...ciiSyntaxMutants(bases, perBase, seed), ...ciiCoverageMutants(bases, seed)];
}
