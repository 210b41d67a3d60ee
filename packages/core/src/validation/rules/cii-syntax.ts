// Rule family: CII-SR-* and CII-DT-* of the CEN EN 16931 CII rules 1.3.16 (pattern EN16931-CII-Syntax of
// cii/schematron/preprocessed/EN16931-CII-validation-preprocessed.sch), on the CII tree (prefixes rsm:, ram:, udt:,
// qdt:; document/model.ts). The rules are data (cii-syntax-table.ts, generated from the official file); this module
// compiles them once, at load, and checks them in one walk over the document.
//
// Schematron semantics kept exactly:
// - an element is checked by the first rule of the pattern whose context matches it, and by no other: the
//   specific identifiers of CII-DT-001..007 never get CII-DT-101..104, and /rsm:CrossIndustryInvoice/
//   rsm:ExchangedDocument/ram:TypeCode is taken by the earlier //ram:TypeCode, so CII-DT-010..012 never fire;
// - contexts: `/rsm:CrossIndustryInvoice/a/b` anchored at the root, `//a/b` anywhere, `//ram:*[ends-with(name(), 'X')]`
//   any ram: element whose name ends so (`//*[...]`: in any namespace), unions of these;
// - an assertion fails (and is reported) once per context element it fails on;
// - `a = 'x'` is true when any `a` has exactly that string value (no trimming); `normalize-space(a)` reads the first
//   `a` (the official rules stop with a dynamic error when there are several; we do not);
// - `udt:Indicator = false()` casts the text to xs:boolean ("false", "0", XML whitespace collapsed).
//
// Cost: one walk. Each element costs one map lookup of its qname (its rule candidates, cached per qname) and a step
// in the tree of anchored contexts; a context element walks its own children along its rule's paths (a tree of
// steps, at most five deep), so no element is visited more than a few times and a 10,000-line invoice costs
// 10,000 times a line. The rules over the whole document (CII-SR-462, 467, 468, 469, CII-DT-033) read the
// per-document qname index (cen-common.ts `all`), once.
import { NS, child, children, normalizeSpace, stringValue, type DocumentNode, type RuleContext, type RuleFamily } from "../../document/model.js";
import { all } from "./cen-common.js";
import { CII_SYNTAX_RULES } from "./cii-syntax-table.js";

type Flag = "fatal" | "warning";

// ---- the mechanical assertions: not(path), count(path) <= 1, count(path) = 1, (path) ----

type Kind = "absent" | "max1" | "exactly1" | "present";

interface Mechanical {
  readonly id: string;
  readonly flag: Flag;
  readonly kind: Kind;
  /** The path as written (for messages). */
  readonly path: string;
  /** Its index in the counters of one context element. */
  readonly slot: number;
  /** The attribute the path ends with, or null. */
  readonly attr: string | null;
}

/** One step of a rule's relative paths: what to count at an element reached so, and the steps below. */
interface PathStep {
  readonly next: Map<string, PathStep>;
  /** Mechanical assertions whose path ends at this element (counted per element). */
  readonly ends: Mechanical[];
  /** Mechanical assertions whose path ends with an attribute of this element. */
  readonly attrs: Mechanical[];
}

const newPathStep = (): PathStep => ({ next: new Map(), ends: [], attrs: [] });

/** A custom assertion: true when it holds on the context element. */
type Holds = (node: DocumentNode, run: SyntaxRun) => boolean;

interface Custom {
  readonly id: string;
  readonly flag: Flag;
  readonly holds: Holds;
  readonly message: (node: DocumentNode, run: SyntaxRun) => string;
}

interface Rule {
  readonly index: number;
  readonly context: string;
  readonly paths: PathStep;
  readonly mechanical: Mechanical[];
  /** The mechanical assertions that can fail with nothing counted (count = 1, present): checked on every context element. */
  readonly always: Mechanical[];
  readonly custom: Custom[];
  /**
   * Scratch counters of one context element, by slot (a rule's check never nests in another's): all 0 between
   * checks but for the slots in `touched`, which the next check sets back to 0.
   */
  readonly counts: number[];
  /** The slots counted at least once in the current check (the only ones a not() or count() <= 1 can fail on). */
  readonly touched: number[];
  /** The first element counted in each slot (read only where its count is not 0, so never cleared). */
  readonly found: (DocumentNode | undefined)[];
}

// ---- the assertions written out, by id, each with the test it was written from ----

const ANY_ID = (party: string) => `(not(ram:${party}/ram:ID) and ram:${party}/ram:GlobalID) or (ram:${party}/ram:ID and not(ram:${party}/ram:GlobalID)) or (not(ram:${party}/ram:ID) and not(ram:${party}/ram:GlobalID))`;

/** [test as written in the table, holds, message]. */
const CUSTOM: Record<string, readonly [string, Holds, (node: DocumentNode, run: SyntaxRun) => string]> = {
  "CII-SR-046": ["not(ram:GlobalID) or (ram:GlobalID/@schemeID)",
    (n) => { const ids = children(n, "ram:GlobalID"); return ids.length === 0 || ids.some((g) => g.attrs.schemeID !== undefined); },
    (n) => `The item's standard identifier (${pathOf(n)}/ram:GlobalID) has no scheme (schemeID); give the scheme of the identifier.`],
  "CII-SR-090": ["not (ram:OriginTradeCountry) or (count(ram:OriginTradeCountry/ram:ID) =1)",
    (n) => child(n, "ram:OriginTradeCountry") === null || countPath(n, ["ram:OriginTradeCountry", "ram:ID"]) === 1,
    (n) => `The item's country of origin (${pathOf(n)}/ram:OriginTradeCountry) has ${countPath(n, ["ram:OriginTradeCountry", "ram:ID"])} country codes (ram:ID); EN 16931 requires exactly one.`],
  "CII-SR-119": ["(ram:GrossPriceProductTradePrice/ram:AppliedTradeAllowanceCharge/ram:ChargeIndicator[udt:Indicator=false()] and ram:GrossPriceProductTradePrice/ram:AppliedTradeAllowanceCharge/ram:ActualAmount) or (not (ram:GrossPriceProductTradePrice/ram:AppliedTradeAllowanceCharge/ram:ChargeIndicator) and not (ram:GrossPriceProductTradePrice/ram:AppliedTradeAllowanceCharge/ram:ActualAmount))",
    (n) => {
      const acs = select(n, ["ram:GrossPriceProductTradePrice", "ram:AppliedTradeAllowanceCharge"]);
      const indicators = acs.flatMap((ac) => children(ac, "ram:ChargeIndicator"));
      const amounts = acs.some((ac) => child(ac, "ram:ActualAmount") !== null);
      const isFalse = indicators.some((ci) => children(ci, "udt:Indicator").some((i) => xsBoolean(i) === false));
      return (isFalse && amounts) || (indicators.length === 0 && !amounts);
    },
    (n) => `The gross price of the line (${pathOf(n)}/ram:GrossPriceProductTradePrice) gives a price discount that is not an allowance (ram:ChargeIndicator false) with an amount (ram:ActualAmount); the price discount must be both.`],
  "CII-SR-474": ["count(ram:AdditionalReferencedDocument[normalize-space(ram:TypeCode) = '130']) <= 1",
    (n) => children(n, "ram:AdditionalReferencedDocument").filter((d) => firstNorm(d, "ram:TypeCode") === "130").length <= 1,
    (n) => `The line (${pathOf(n)}) gives ${children(n, "ram:AdditionalReferencedDocument").filter((d) => firstNorm(d, "ram:TypeCode") === "130").length} invoiced object identifiers (ram:AdditionalReferencedDocument with type code 130); EN 16931 allows one per line.`],
  "CII-SR-449": [ANY_ID("ShipToTradeParty"), (n) => oneKindOfId(n, "ram:ShipToTradeParty"),
    (n) => `The deliver-to party (${pathOf(n)}/ram:ShipToTradeParty) has both an identifier (ram:ID) and a global identifier (ram:GlobalID); give one of them.`],
  "CII-SR-450": [ANY_ID("BuyerTradeParty"), (n) => oneKindOfId(n, "ram:BuyerTradeParty"),
    (n) => `The buyer (${pathOf(n)}/ram:BuyerTradeParty) has both an identifier (ram:ID) and a global identifier (ram:GlobalID); give one of them.`],
  "CII-SR-451": [ANY_ID("PayeeTradeParty"), (n) => oneKindOfId(n, "ram:PayeeTradeParty"),
    (n) => `The payee (${pathOf(n)}/ram:PayeeTradeParty) has both an identifier (ram:ID) and a global identifier (ram:GlobalID); give one of them.`],
  "CII-SR-457": ["( count(ram:AdditionalReferencedDocument[ram:TypeCode='50']) <= 1)",
    (n) => typedDocuments(n, "50") <= 1,
    (n) => `The document gives ${typedDocuments(n, "50")} tender or lot references (ram:AdditionalReferencedDocument with type code 50); EN 16931 allows one.`],
  "CII-SR-458": ["( count(ram:AdditionalReferencedDocument[ram:TypeCode='130']) <= 1)",
    (n) => typedDocuments(n, "130") <= 1,
    (n) => `The document gives ${typedDocuments(n, "130")} invoiced object identifiers (ram:AdditionalReferencedDocument with type code 130); EN 16931 allows one.`],
  "CII-SR-465": ["not(ram:SellerTradeParty/ram:DefinedTradeContact/ram:PersonName and ram:SellerTradeParty/ram:DefinedTradeContact/ram:DepartmentName)",
    (n) => !contactNamesBoth(n, "ram:SellerTradeParty"),
    (n) => `The seller's contact (${pathOf(n)}/ram:SellerTradeParty/ram:DefinedTradeContact) gives both a person (ram:PersonName) and a department (ram:DepartmentName); EN 16931 has one contact point (BT-41).`],
  "CII-SR-466": ["not(ram:BuyerTradeParty/ram:DefinedTradeContact/ram:PersonName and ram:BuyerTradeParty/ram:DefinedTradeContact/ram:DepartmentName)",
    (n) => !contactNamesBoth(n, "ram:BuyerTradeParty"),
    (n) => `The buyer's contact (${pathOf(n)}/ram:BuyerTradeParty/ram:DefinedTradeContact) gives both a person (ram:PersonName) and a department (ram:DepartmentName); EN 16931 has one contact point (BT-56).`],
  "CII-SR-475": ["count(ram:AdditionalReferencedDocument[normalize-space(ram:TypeCode) = '916']/ram:Name) <= 1",
    (n) => attachmentParts(n, "ram:Name") <= 1,
    (n) => `The supporting documents (ram:AdditionalReferencedDocument with type code 916) give ${attachmentParts(n, "ram:Name")} descriptions (ram:Name) in all; EN 16931 allows one.`],
  "CII-SR-476": ["count(ram:AdditionalReferencedDocument[normalize-space(ram:TypeCode) = '916']/ram:AttachmentBinaryObject) <= 1",
    (n) => attachmentParts(n, "ram:AttachmentBinaryObject") <= 1,
    (n) => `The supporting documents (ram:AdditionalReferencedDocument with type code 916) carry ${attachmentParts(n, "ram:AttachmentBinaryObject")} attachments (ram:AttachmentBinaryObject) in all; EN 16931 allows one.`],
  "CII-SR-462": ["count(//ram:ApplicableTradeTax/ram:DueDateTypeCode) = 0 or count(distinct-values(//ram:ApplicableTradeTax/ram:DueDateTypeCode)) = 1",
    (_n, run) => run.dueDateCodes().length <= 1,
    (_n, run) => `The VAT breakdowns give different VAT point date codes (ram:DueDateTypeCode): ${run.dueDateCodes().slice(0, 4).map(quote).join(", ")}; EN 16931 has one for the whole document.`],
  "CII-SR-470": ["count(ram:SpecifiedTradeSettlementPaymentMeans[(normalize-space(ram:TypeCode) = '30' or normalize-space(ram:TypeCode) = '58') and not(ram:PayeePartyCreditorFinancialAccount/ram:IBANID or ram:PayeePartyCreditorFinancialAccount/ram:ProprietaryID)]) = 0",
    (n) => !children(n, "ram:SpecifiedTradeSettlementPaymentMeans").some(transferWithoutAccount),
    (n) => `A credit transfer (payment means code 30 or 58) in ${pathOf(n)} has no account (ram:PayeePartyCreditorFinancialAccount/ram:IBANID or ram:ProprietaryID); give the account to pay to.`],
  "CII-SR-467": ["count(//ram:SpecifiedTradeSettlementPaymentMeans/ram:TypeCode[normalize-space(.) != normalize-space((//ram:SpecifiedTradeSettlementPaymentMeans/ram:TypeCode)[1])]) = 0",
    (_n, run) => run.differing("ram:TypeCode") === null,
    (_n, run) => `The payment means give different codes (ram:TypeCode): ${quote(normalizeSpace(stringValue(run.firstOf("ram:TypeCode"))))} and ${quote(normalizeSpace(stringValue(run.differing("ram:TypeCode"))))}; when several payment means are given they must have the same code (BT-81).`],
  "CII-SR-468": ["count(//ram:SpecifiedTradeSettlementPaymentMeans/ram:Information[normalize-space(.) != normalize-space((//ram:SpecifiedTradeSettlementPaymentMeans/ram:Information)[1])]) = 0",
    (_n, run) => run.differing("ram:Information") === null,
    (_n, run) => `The payment means give different texts (ram:Information): ${quote(normalizeSpace(stringValue(run.firstOf("ram:Information"))))} and ${quote(normalizeSpace(stringValue(run.differing("ram:Information"))))}; EN 16931 has one payment means text (BT-82).`],
  "CII-SR-469": ["count(//ram:ApplicableHeaderTradeSettlement/ram:PaymentReference) <= 1",
    (_n, run) => run.paymentReferences() <= 1,
    (_n, run) => `The document gives ${run.paymentReferences()} payment references (ram:ApplicableHeaderTradeSettlement/ram:PaymentReference); EN 16931 allows one (BT-83).`],
  "CII-DT-015": ["not(ram:URIID) or (self::ram:AdditionalReferencedDocument and ram:TypeCode='916')",
    (n) => child(n, "ram:URIID") === null || (isAdditional(n) && hasCode(n, "916")),
    (n) => `The document reference ${pathOf(n)} gives an external location (ram:URIID); only a supporting document (ram:AdditionalReferencedDocument with type code 916) may.`],
  "CII-DT-018": ["not(ram:TypeCode) or (self::ram:AdditionalReferencedDocument) and (ram:TypeCode='50' or ram:TypeCode='130' or ram:TypeCode='916')",
    (n) => child(n, "ram:TypeCode") === null || (isAdditional(n) && (hasCode(n, "50") || hasCode(n, "130") || hasCode(n, "916"))),
    (n) => isAdditional(n)
      ? `The document reference ${pathOf(n)} has type code ${quote(stringValue(child(n, "ram:TypeCode")))}; an additional document reference has type code 50, 130 or 916.`
      : `The document reference ${pathOf(n)} has a type code (ram:TypeCode), which EN 16931 does not allow there.`],
  "CII-DT-021": ["not(ram:Name) or (self::ram:AdditionalReferencedDocument and ram:TypeCode='916')",
    (n) => child(n, "ram:Name") === null || (isAdditional(n) && hasCode(n, "916")),
    (n) => `The document reference ${pathOf(n)} has a description (ram:Name); only a supporting document (type code 916) may.`],
  "CII-DT-022": ["not(ram:AttachmentBinaryObject) or (self::ram:AdditionalReferencedDocument and ram:TypeCode='916')",
    (n) => child(n, "ram:AttachmentBinaryObject") === null || (isAdditional(n) && hasCode(n, "916")),
    (n) => `The document reference ${pathOf(n)} carries an attachment (ram:AttachmentBinaryObject); only a supporting document (type code 916) may.`],
  "CII-DT-024": ["not(ram:ReferenceTypeCode) or (self::ram:AdditionalReferencedDocument and ram:TypeCode='130')",
    (n) => child(n, "ram:ReferenceTypeCode") === null || (isAdditional(n) && hasCode(n, "130")),
    (n) => `The document reference ${pathOf(n)} has a reference type code (ram:ReferenceTypeCode); only an invoiced object identifier (type code 130) may.`],
  "CII-DT-027": ["not(ram:FormattedIssueDateTime) or self::ram:InvoiceReferencedDocument",
    (n) => child(n, "ram:FormattedIssueDateTime") === null || n.qname === "ram:InvoiceReferencedDocument",
    (n) => `The document reference ${pathOf(n)} has an issue date (ram:FormattedIssueDateTime); only a preceding invoice reference (ram:InvoiceReferencedDocument) may.`],
  "CII-DT-033": ["not(@unitCode) or (/rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction/ram:IncludedSupplyChainTradeLineItem/ram:SpecifiedLineTradeDelivery/ram:BilledQuantity/@unitCode)",
    (n, run) => n.attrs.unitCode === undefined || run.billedUnitCode(),
    (n) => `The quantity ${pathOf(n)} has a unit (unitCode ${quote(n.attrs.unitCode ?? "")}) but no invoiced quantity of a line has one.`],
  "CII-DT-037": ["not(ram:TypeCode) or (ram:TypeCode = 'VAT')",
    (n) => child(n, "ram:TypeCode") === null || hasCode(n, "VAT"),
    (n) => `The tax ${pathOf(n)} has type code ${quote(stringValue(child(n, "ram:TypeCode")))}; EN 16931 knows only VAT.`],
  "CII-DT-041": ["not(ram:BasisAmount) or (ancestor::ram:ApplicableHeaderTradeSettlement)",
    (n, run) => child(n, "ram:BasisAmount") === null || run.underHeaderSettlement,
    (n) => `The tax ${pathOf(n)} has a basis amount (ram:BasisAmount), which EN 16931 uses only in the document's VAT breakdown; the recipient may ignore it.`],
  "CII-DT-052": ["not(ram:ExemptionReasonCode) or self::ram:ApplicableTradeTax",
    (n) => child(n, "ram:ExemptionReasonCode") === null || n.qname === "ram:ApplicableTradeTax",
    (n) => `The tax ${pathOf(n)} has an exemption reason code (ram:ExemptionReasonCode), which EN 16931 uses only in ram:ApplicableTradeTax; the recipient may ignore it.`],
  "CII-DT-098": ["not(ram:ExemptionReason) or self::ram:ApplicableTradeTax",
    (n) => child(n, "ram:ExemptionReason") === null || n.qname === "ram:ApplicableTradeTax",
    (n) => `The tax ${pathOf(n)} has an exemption reason (ram:ExemptionReason), which EN 16931 uses only in ram:ApplicableTradeTax; the recipient may ignore it.`],
  "CII-DT-054": ["not(ram:TaxPointDate) or (ancestor::ram:ApplicableHeaderTradeSettlement)",
    (n, run) => child(n, "ram:TaxPointDate") === null || run.underHeaderSettlement,
    (n) => `The tax ${pathOf(n)} has a VAT point date (ram:TaxPointDate), which EN 16931 uses only in the document's VAT breakdown; the recipient may ignore it.`],
  "CII-DT-058": ["not(ram:DueDateTypeCode) or (ancestor::ram:ApplicableHeaderTradeSettlement)",
    (n, run) => child(n, "ram:DueDateTypeCode") === null || run.underHeaderSettlement,
    (n) => `The tax ${pathOf(n)} has a VAT point date code (ram:DueDateTypeCode), which EN 16931 uses only in the document's VAT breakdown; the recipient may ignore it.`],
  "CII-DT-097": ["matches(.,'^\\s*(\\d{4})(1[0-2]|0[1-9]){1}(3[01]|[12][0-9]|0[1-9]){1}\\s*$')",
    (n) => DATE_102.test(stringValue(n)),
    (n) => `The date ${pathOf(n)} is ${quote(stringValue(n))}, but format 102 is YYYYMMDD (such as 20260131).`],
};

// XPath regular expressions: \s is the four XML whitespace characters, \d any Unicode decimal digit.
const DATE_102 = /^[ \t\r\n]*(\p{Nd}{4})(1[0-2]|0[1-9])(3[01]|[12][0-9]|0[1-9])[ \t\r\n]*$/u;

// ---- compiled once, at load ----

const squeeze = (test: string) => test.replace(/\s+/g, "");

/** Strips parentheses around the whole test: "(count(a) <= 1)" is "count(a) <= 1". */
function unwrap(test: string): string {
  while (test.startsWith("(") && test.endsWith(")")) {
    let depth = 0, wraps = true;
    for (let i = 0; i < test.length - 1; i++) {
      if (test[i] === "(") depth++;
      else if (test[i] === ")") depth--;
      if (depth === 0) { wraps = false; break; }
    }
    if (!wraps) break;
    test = test.slice(1, -1);
  }
  return test;
}

const PATH = "([A-Za-z]+:[A-Za-z]+(?:/[A-Za-z]+:[A-Za-z]+)*(?:/@[A-Za-z]+)?|@[A-Za-z]+)";
const SHAPES: readonly (readonly [RegExp, Kind])[] = [
  [new RegExp(`^not\\(${PATH}\\)$`), "absent"],
  [new RegExp(`^count\\(${PATH}\\)<=1$`), "max1"],
  [new RegExp(`^count\\(${PATH}\\)=1$`), "exactly1"],
  [new RegExp(`^${PATH}$`), "present"],
];

function compileRule(index: number, context: string, asserts: readonly (readonly [string, Flag, string])[]): Rule {
  const rule: Rule = { index, context, paths: newPathStep(), mechanical: [], always: [], custom: [], counts: [], touched: [], found: [] };
  for (const [id, flag, test] of asserts) {
    const custom = CUSTOM[id];
    if (custom) {
      if (squeeze(custom[0]) !== squeeze(test)) throw new Error(`${id}: the official test changed: ${test}`);
      rule.custom.push({ id, flag, holds: custom[1], message: custom[2] });
      continue;
    }
    const bare = unwrap(squeeze(test));
    const shape = SHAPES.map(([re, kind]) => [re.exec(bare), kind] as const).find(([m]) => m);
    if (!shape) throw new Error(`${id}: a test neither compiled nor written out: ${test}`);
    const path = shape[0]![1]!;
    const steps = path.split("/");
    const attr = steps[steps.length - 1]!.startsWith("@") ? steps.pop()!.slice(1) : null;
    const m: Mechanical = { id, flag, kind: shape[1], path, slot: rule.mechanical.length, attr };
    if (attr !== null && m.kind !== "absent") throw new Error(`${id}: only not(@attr) is compiled: ${test}`);
    rule.mechanical.push(m);
    if (m.kind === "exactly1" || m.kind === "present") rule.always.push(m);
    rule.counts.push(0);
    let step = rule.paths;
    for (const s of steps) {
      let next = step.next.get(s);
      if (!next) step.next.set(s, (next = newPathStep()));
      step = next;
    }
    (attr === null ? step.ends : step.attrs).push(m);
  }
  return rule;
}

const RULES = CII_SYNTAX_RULES.map((r, i) => compileRule(i, r.context, r.asserts));

/** The tree of contexts anchored at the root: `/rsm:CrossIndustryInvoice/a/b`. */
interface Anchor {
  readonly next: Map<string, Anchor>;
  rule: Rule | null;
}
const newAnchor = (): Anchor => ({ next: new Map(), rule: null });
const ROOT_ANCHOR = newAnchor();

/** A context that is not anchored: tried on every element of its qname (or name suffix). */
interface Floating {
  readonly rule: Rule;
  /** `//a/b/c`: the qnames the element's ancestors must have, nearest first. */
  readonly up: readonly string[];
  /** `[@name = 'value']` on the element. */
  readonly attrIs: readonly [string, string] | null;
  /** For `[ends-with(name(), s)]`: the suffix, the namespace (null: any) and the qname excluded. */
  readonly suffix: { readonly text: string; readonly ns: string | null; readonly except: string | null } | null;
  /** The qname of the element, for `//a/b` (null for a suffix). */
  readonly qname: string | null;
}
const FLOATING: Floating[] = [];

const STEP = "[A-Za-z]+:[A-Za-z0-9]+";
for (const rule of RULES) {
  for (const alternative of rule.context.split(" | ").map((s) => s.trim())) {
    let m: RegExpExecArray | null;
    if ((m = new RegExp(`^/rsm:CrossIndustryInvoice((?:/${STEP})*)$`).exec(alternative))) {
      let at = ROOT_ANCHOR;
      for (const s of m[1]!.split("/").filter(Boolean)) {
        let next = at.next.get(s);
        if (!next) at.next.set(s, (next = newAnchor()));
        at = next;
      }
      at.rule ??= rule;
    } else if ((m = new RegExp(`^//(${STEP}(?:/${STEP})*)(?:\\[@(\\w+) = '([^']*)'\\])?$`).exec(alternative))) {
      const steps = m[1]!.split("/");
      FLOATING.push({ rule, qname: steps.pop()!, up: steps.reverse(), attrIs: m[2] ? [m[2], m[3]!] : null, suffix: null });
    } else if ((m = /^\/\/(ram:|)\*\[ends-with\(name\(\), '(\w+)'\)(?: and not \(self::(ram:\w+)\))?\]$/.exec(alternative))) {
      FLOATING.push({ rule, qname: null, up: [], attrIs: null, suffix: { text: m[2]!, ns: m[1] ? NS.ram : null, except: m[3] ?? null } });
    } else {
      throw new Error(`context not compiled: ${alternative}`);
    }
  }
}

/** The floating contexts an element of this qname may match, in the pattern's order; filled per qname on first sight. */
const CANDIDATES = new Map<string, readonly Floating[]>();
function candidates(node: DocumentNode): readonly Floating[] {
  let list = CANDIDATES.get(node.qname);
  if (list === undefined) {
    list = FLOATING.filter((f) => f.qname !== null
      ? f.qname === node.qname
      : (f.suffix!.ns === null || f.suffix!.ns === node.ns) && node.name.endsWith(f.suffix!.text) && node.qname !== f.suffix!.except);
    // The qnames of one document are few; a hostile one with many distinct names must not grow this without bound.
    if (CANDIDATES.size < 4096) CANDIDATES.set(node.qname, list);
  }
  return list;
}

function matches(f: Floating, node: DocumentNode): boolean {
  let at = node.parent;
  for (const q of f.up) {
    if (at === null || at.qname !== q) return false;
    at = at.parent;
  }
  return f.attrIs === null || node.attrs[f.attrIs[0]] === f.attrIs[1];
}

// ---- helpers of the written-out assertions ----

/** The qnames from below the root down to the node, such as `rsm:ExchangedDocument/ram:IncludedNote`. */
function pathOf(node: DocumentNode): string {
  const parts: string[] = [];
  for (let at: DocumentNode | null = node; at && at.parent; at = at.parent) parts.push(at.qname);
  return parts.reverse().join("/") || node.qname;
}

function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? text.slice(0, 77) + "..." : text);
}

function select(node: DocumentNode, steps: readonly string[], i = 0, out: DocumentNode[] = []): DocumentNode[] {
  for (const c of node.children) {
    if (c.qname !== steps[i]) continue;
    if (i === steps.length - 1) out.push(c);
    else select(c, steps, i + 1, out);
  }
  return out;
}

const countPath = (node: DocumentNode, steps: readonly string[]) => select(node, steps).length;

/** `normalize-space(qname)`: the first such child's text, normalised ("" when none). */
const firstNorm = (node: DocumentNode, qname: string) => normalizeSpace(stringValue(child(node, qname)));

/** `ram:TypeCode = 'x'`: some ram:TypeCode child is exactly x. */
const hasCode = (node: DocumentNode, code: string) => node.children.some((c) => c.qname === "ram:TypeCode" && stringValue(c) === code);

const isAdditional = (node: DocumentNode) => node.qname === "ram:AdditionalReferencedDocument";

/** The text cast to xs:boolean: true, false, or null when it is not a boolean. */
function xsBoolean(node: DocumentNode): boolean | null {
  const text = normalizeSpace(stringValue(node));
  return text === "true" || text === "1" ? true : text === "false" || text === "0" ? false : null;
}

/** Not both `party/ram:ID` and `party/ram:GlobalID` (over every such party). */
function oneKindOfId(node: DocumentNode, party: string): boolean {
  const parties = children(node, party);
  return !(parties.some((p) => child(p, "ram:ID") !== null) && parties.some((p) => child(p, "ram:GlobalID") !== null));
}

/** `count(ram:AdditionalReferencedDocument[ram:TypeCode = code])`. */
const typedDocuments = (node: DocumentNode, code: string) => children(node, "ram:AdditionalReferencedDocument").filter((d) => hasCode(d, code)).length;

/** `party/ram:DefinedTradeContact/ram:PersonName and party/ram:DefinedTradeContact/ram:DepartmentName`. */
function contactNamesBoth(node: DocumentNode, party: string): boolean {
  const contacts = select(node, [party, "ram:DefinedTradeContact"]);
  return contacts.some((c) => child(c, "ram:PersonName") !== null) && contacts.some((c) => child(c, "ram:DepartmentName") !== null);
}

/** `count(ram:AdditionalReferencedDocument[normalize-space(ram:TypeCode) = '916']/part)`. */
const attachmentParts = (node: DocumentNode, part: string) =>
  children(node, "ram:AdditionalReferencedDocument").filter((d) => firstNorm(d, "ram:TypeCode") === "916").reduce((n, d) => n + children(d, part).length, 0);

/** A payment means with code 30 or 58 and no account (IBAN or proprietary identifier). */
function transferWithoutAccount(pm: DocumentNode): boolean {
  const code = firstNorm(pm, "ram:TypeCode");
  if (code !== "30" && code !== "58") return false;
  return !children(pm, "ram:PayeePartyCreditorFinancialAccount").some((a) => child(a, "ram:IBANID") !== null || child(a, "ram:ProprietaryID") !== null);
}


/** Adds one to a counter, returning the count before; a slot counted for the first time is noted in `touched`. */
function bump(counts: number[], touched: number[], slot: number): number {
  const n = counts[slot]!;
  counts[slot] = n + 1;
  if (n === 0) touched.push(slot);
  return n;
}

/** Whether a mechanical assertion fails with this count. */
const failsWith = (m: Mechanical, n: number): boolean =>
  m.kind === "absent" ? n > 0 : m.kind === "max1" ? n > 1 : m.kind === "exactly1" ? n !== 1 : n === 0;

const bySlot = (a: Mechanical, b: Mechanical) => a.slot - b.slot;

// ---- one document ----

class SyntaxRun {
  /** While walking: the element has an ancestor ram:ApplicableHeaderTradeSettlement. */
  underHeaderSettlement = false;
  private dueDates: string[] | undefined;
  private billed: boolean | undefined;
  private readonly values = new Map<string, { first: DocumentNode | null; other: DocumentNode | null }>();

  constructor(private readonly ctx: RuleContext) {}

  run(): void {
    const root = this.ctx.root;
    this.walk(root, root.qname === "rsm:CrossIndustryInvoice" ? ROOT_ANCHOR : null);
  }

  private walk(node: DocumentNode, anchor: Anchor | null): void {
    let rule = anchor?.rule ?? null;
    for (const f of candidates(node)) {
      if (rule !== null && f.rule.index >= rule.index) break;
      if (matches(f, node)) { rule = f.rule; break; }
    }
    if (rule !== null) this.check(rule, node);
    const header = node.qname === "ram:ApplicableHeaderTradeSettlement";
    const was = this.underHeaderSettlement;
    if (header) this.underHeaderSettlement = true;
    const kids = node.children;
    for (let i = 0; i < kids.length; i++) {
      const c = kids[i]!;
      this.walk(c, anchor?.next.get(c.qname) ?? null);
    }
    this.underHeaderSettlement = was;
  }

  private check(rule: Rule, node: DocumentNode): void {
    if (rule.mechanical.length > 0) {
      const counts = rule.counts, touched = rule.touched, found = rule.found;
      // The counters of the last check back to 0 (set back here, not after, so a check that threw leaves none behind).
      for (let i = 0; i < touched.length; i++) counts[touched[i]!] = 0;
      touched.length = 0;
      for (const m of rule.paths.attrs) if (node.attrs[m.attr!] !== undefined && bump(counts, touched, m.slot) === 0) found[m.slot] = node;
      this.count(node, rule.paths, counts, touched, found);
      // Only what was counted (and the assertions that want something counted) can fail: not every assertion of the rule
      // is looked at. They are reported in the rule's order.
      let failing: Mechanical[] | null = null;
      for (const m of rule.always) if (failsWith(m, counts[m.slot]!)) (failing ??= []).push(m);
      for (let i = 0; i < touched.length; i++) {
        const m = rule.mechanical[touched[i]!]!;
        if ((m.kind === "absent" || m.kind === "max1") && failsWith(m, counts[m.slot]!)) (failing ??= []).push(m);
      }
      if (failing !== null) {
        if (failing.length > 1) failing.sort(bySlot);
        for (const m of failing) this.ctx.report(m.id, m.flag, this.mechanicalMessage(m, node, counts[m.slot]!, found[m.slot]), node);
      }
    }
    for (const c of rule.custom) if (!c.holds(node, this)) this.ctx.report(c.id, c.flag, c.message(node, this), node);
  }

  /** Counts the elements (and attributes) at the rule's paths below `node`, keeping the first of each. */
  private count(node: DocumentNode, step: PathStep, counts: number[], touched: number[], found: (DocumentNode | undefined)[]): void {
    const kids = node.children;
    for (let i = 0; i < kids.length; i++) {
      const c = kids[i]!;
      const next = step.next.get(c.qname);
      if (next === undefined) continue;
      for (const m of next.ends) if (bump(counts, touched, m.slot) === 0) found[m.slot] = c;
      for (const m of next.attrs) if (c.attrs[m.attr!] !== undefined && bump(counts, touched, m.slot) === 0) found[m.slot] = c;
      if (next.next.size > 0) this.count(c, next, counts, touched, found);
    }
  }

  private mechanicalMessage(m: Mechanical, node: DocumentNode, n: number, first: DocumentNode | undefined): string {
    const where = pathOf(node);
    switch (m.kind) {
      case "absent": {
        const at = first ? pathOf(first) : where;
        const what = m.attr === null ? `contains ${at}` : `gives ${at} a ${m.attr} attribute (${quote(first?.attrs[m.attr] ?? "")})`;
        return m.flag === "warning"
          ? `The document ${what}, which EN 16931 does not use; the recipient may ignore it.`
          : `The document ${what}, which EN 16931 does not allow.`;
      }
      case "max1":
        return `${where} has ${n} ${m.path}; EN 16931 allows ${m.flag === "warning" ? "one (the recipient may ignore the others)" : "at most one"}.`;
      case "exactly1":
        return `${where} has ${n === 0 ? "no" : n} ${m.path}; EN 16931 requires exactly one.`;
      case "present":
        return `${where} has no ${m.path}; EN 16931 requires it.`;
    }
  }

  /** The distinct values of //ram:ApplicableTradeTax/ram:DueDateTypeCode, in document order. */
  dueDateCodes(): string[] {
    if (this.dueDates === undefined) {
      const seen = new Set<string>();
      for (const d of all(this.ctx.root, "ram:DueDateTypeCode")) if (d.parent?.qname === "ram:ApplicableTradeTax") seen.add(stringValue(d));
      this.dueDates = [...seen];
    }
    return this.dueDates;
  }

  /** Some /rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction/ram:IncludedSupplyChainTradeLineItem/ram:SpecifiedLineTradeDelivery/ram:BilledQuantity has a unitCode. */
  billedUnitCode(): boolean {
    if (this.billed === undefined) {
      const root = this.ctx.root;
      this.billed = root.qname === "rsm:CrossIndustryInvoice" && all(root, "ram:BilledQuantity").some((q) => {
        const delivery = q.parent, line = delivery?.parent, transaction = line?.parent;
        return q.attrs.unitCode !== undefined && delivery?.qname === "ram:SpecifiedLineTradeDelivery" && line?.qname === "ram:IncludedSupplyChainTradeLineItem" &&
          transaction?.qname === "rsm:SupplyChainTradeTransaction" && transaction.parent === root;
      });
    }
    return this.billed;
  }

  /** `//ram:SpecifiedTradeSettlementPaymentMeans/qname`: the first, and the first whose normalised text differs from it. */
  private valuesOf(qname: string): { first: DocumentNode | null; other: DocumentNode | null } {
    let v = this.values.get(qname);
    if (v === undefined) {
      v = { first: null, other: null };
      let firstText = "";
      for (const node of all(this.ctx.root, qname)) {
        if (node.parent?.qname !== "ram:SpecifiedTradeSettlementPaymentMeans") continue;
        const text = normalizeSpace(stringValue(node));
        if (v.first === null) { v.first = node; firstText = text; } else if (text !== firstText) { v.other = node; break; }
      }
      this.values.set(qname, v);
    }
    return v;
  }

  firstOf(qname: string): DocumentNode | null {
    return this.valuesOf(qname).first;
  }

  differing(qname: string): DocumentNode | null {
    return this.valuesOf(qname).other;
  }

  /** `count(//ram:ApplicableHeaderTradeSettlement/ram:PaymentReference)`. */
  paymentReferences(): number {
    let n = 0;
    for (const r of all(this.ctx.root, "ram:PaymentReference")) if (r.parent?.qname === "ram:ApplicableHeaderTradeSettlement") n++;
    return n;
  }
}

/** The ids of every assertion this family checks (all of the pattern's), for tests and documentation. */
export const CII_SYNTAX_RULE_IDS: readonly string[] = RULES.flatMap((r) => [...r.mechanical.map((m) => m.id), ...r.custom.map((c) => c.id)]);

export const ciiSyntaxRules: RuleFamily = (ctx) => {
  new SyntaxRun(ctx).run();
};
