// Rule family: the CEN EN 16931 UBL syntax rules (validation artefacts 1.3.16): UBL-CR-*, UBL-SR-*,
// UBL-DT-*, as the pattern "UBL-syntax" of EN16931-UBL-validation-preprocessed.sch states them.
//
// Schematron semantics kept exactly:
// - a rule's context is every element that matches it, anywhere in the document, unless it is
//   anchored at the root (`/ubl:Invoice | /cn:CreditNote`: the root in the Invoice-2 or CreditNote-2
//   namespace); no element matches two rules of this pattern, so every rule applies where it matches;
// - an assertion on the root fails (and is reported) once per document, at the first element that
//   breaks it; an assertion on another context fails once per context element;
// - comparisons are XPath's: `a = 'x'` is true when any `a` has exactly that string value (no
//   trimming), `a != b` when any pair differs (so never when either side is empty), counts count.
//
// Cost: one walk over the document. Each element costs an attribute loop, two suffix tests and one
// map lookup of its qname (which gives its place in the path tree, the hand-written rule it is the
// context of and its `//` rules). The hundreds of path rules (cen-syntax-table.ts) are compiled at
// load into a tree of steps that the walk follows from the root, so no path is split or searched per
// document, and a 10,000-line invoice costs 10,000 times a line (about 17 µs for a 9 KiB invoice).
import { NS, child, children, normalizeSpace, stringValue, type RuleContext, type RuleFamily, type DocumentNode } from "../../document/model.js";
import { ANYWHERE_ABSENT, ATTRIBUTE_ABSENT, DOCUMENT_ABSENT, DOCUMENT_AT_MOST_ONCE, LINE_ABSENT } from "./cen-syntax-table.js";

type Flag = "fatal" | "warning";

/** A root-context rule compiled from the tables: its slot in the per-document state. */
interface PathRule {
  readonly slot: number;
  readonly rule: string;
  /** The attribute the rule is about, or null for the element itself. */
  readonly attr: string | null;
}

interface CountRule {
  /** Its index in the per-document counters. */
  readonly slot: number;
  readonly rule: string;
  readonly path: string;
  readonly what: string;
}

/** One step of the compiled path tree: where the walk goes next and what is checked at this element. */
interface Step {
  /** The steps below, by the id of their qname (Known.id). */
  readonly next: (Step | undefined)[];
  readonly absent: PathRule[];
  readonly counted: CountRule[];
  /** For a child of the root that the rules after the walk read: its index in SyntaxRun.top, else -1. */
  top: number;
}

/** A `//a/b/c` rule, looked up by its last step: the qnames its ancestors must have, nearest first. */
interface AnywhereRule extends PathRule {
  readonly up: readonly string[];
}

/**
 * What the walk knows of a qname: an id for the step tree, the hand-written rule the element is the
 * context of (C), its `//` rules. One map lookup per element finds all three.
 */
interface Known {
  readonly id: number;
  context: number;
  readonly anywhere: AnywhereRule[];
}

// ---- compiled once, at load ----

const KNOWN = new Map<string, Known>();
function known(text: string): Known {
  let k = KNOWN.get(text);
  if (!k) KNOWN.set(text, (k = { id: KNOWN.size, context: -1, anywhere: [] }));
  return k;
}

let slots = 0;
const newStep = (): Step => ({ next: [], absent: [], counted: [], top: -1 });

/** The step at the end of `steps` below `from`, created as needed. */
function stepAt(from: Step, steps: readonly string[]): Step {
  let current = from;
  for (const step of steps) {
    const id = known(step).id;
    let nextStep = current.next[id];
    if (!nextStep) current.next[id] = nextStep = newStep();
    current = nextStep;
  }
  return current;
}

function splitAttr(path: string): { steps: string[]; attr: string | null } {
  const steps = path.split("/");
  const last = steps[steps.length - 1]!;
  if (last.startsWith("@")) return { steps: steps.slice(0, -1), attr: last.slice(1) };
  return { steps, attr: null };
}

const DOCUMENT = newStep();
const LINE = newStep();
for (const [rule, path] of DOCUMENT_ABSENT) {
  const { steps, attr } = splitAttr(path);
  if (steps[0] === "cac:InvoiceLine" || steps[0] === "cac:CreditNoteLine") throw new Error(`${rule}: line paths belong in LINE_ABSENT`);
  stepAt(DOCUMENT, steps).absent.push({ slot: slots++, rule, attr });
}
for (const [rule, path] of LINE_ABSENT) {
  const { steps, attr } = splitAttr(path);
  stepAt(LINE, steps).absent.push({ slot: slots++, rule, attr });
}
// `(cac:InvoiceLine|cac:CreditNoteLine)/...`: both line kinds share the same subtree.
DOCUMENT.next[known("cac:InvoiceLine").id] = LINE;
DOCUMENT.next[known("cac:CreditNoteLine").id] = LINE;
const COUNTED: CountRule[] = [];
for (const [rule, path, what] of DOCUMENT_AT_MOST_ONCE) {
  const counted = { slot: COUNTED.length, rule, path, what };
  stepAt(DOCUMENT, path.split("/")).counted.push(counted);
  COUNTED.push(counted);
}

const ANYWHERE = new Map<string, AnywhereRule[]>();
for (const [rule, path] of ANYWHERE_ABSENT) {
  const { steps, attr } = splitAttr(path);
  const last = steps[steps.length - 1]!;
  const list = ANYWHERE.get(last) ?? [];
  list.push({ slot: slots++, rule, attr, up: steps.slice(0, -1).reverse() });
  ANYWHERE.set(last, list);
}

const ATTRIBUTES = new Map<string, PathRule>();
for (const [rule, attr] of ATTRIBUTE_ABSENT) ATTRIBUTES.set(attr, { slot: slots++, rule, attr });

// The root-context rules written out below, with their own slots.
const DT_18 = slots++;
const CR_665 = slots++;
const CR_666 = slots++;
const CR_673 = slots++;
const SLOTS = slots;

// The elements that are the context of a hand-written rule.
const C = {
  None: -1, Address: 0, Party: 1, AdditionalDocument: 2, Delivery: 3, AllowanceCharge: 4, PartyTaxScheme: 5, Line: 6,
  Payee: 7, PaymentMeans: 8, BillingReference: 9, TaxRepresentative: 10, TaxSubtotal: 11, PaymentId: 12,
  PaymentMeansCode: 13, Id: 14,
} as const;
const CONTEXTS: readonly (readonly [string, number])[] = [
  ["cac:PostalAddress", C.Address],
  ["cac:Address", C.Address],
  ["cac:Party", C.Party],
  ["cac:AdditionalDocumentReference", C.AdditionalDocument],
  ["cac:Delivery", C.Delivery],
  ["cac:AllowanceCharge", C.AllowanceCharge],
  ["cac:PartyTaxScheme", C.PartyTaxScheme],
  ["cac:InvoiceLine", C.Line],
  ["cac:CreditNoteLine", C.Line],
  ["cac:PayeeParty", C.Payee],
  ["cac:PaymentMeans", C.PaymentMeans],
  ["cac:BillingReference", C.BillingReference],
  ["cac:TaxRepresentativeParty", C.TaxRepresentative],
  ["cac:TaxSubtotal", C.TaxSubtotal],
  ["cbc:PaymentID", C.PaymentId],
  ["cbc:PaymentMeansCode", C.PaymentMeansCode],
  ["cbc:ID", C.Id],
];

for (const [str, num] of CONTEXTS) known(str).context = num;
for (const [qname, list] of ANYWHERE) known(qname).anywhere.push(...list);

// The children of the root that the rules after the walk read, collected by the walk.
const TOP = ["cbc:UBLVersionID", "cac:PaymentMeans", "cac:AdditionalDocumentReference", "cac:AccountingSupplierParty", "cac:AccountingCustomerParty"] as const;
TOP.forEach((qname, i) => (stepAt(DOCUMENT, [qname]).top = i));
const [T_VERSION, T_PAYMENT_MEANS, T_ADDITIONAL_DOCUMENT, T_SUPPLIER, T_CUSTOMER] = [0, 1, 2, 3, 4] as const;

// ---- helpers ----

function docWord(ctx: RuleContext): string {
  return ctx.rootElement === "CreditNote" ? "credit note" : "invoice";
}

/** The qnames from below the root down to the node, such as `cac:Delivery/cac:DeliveryLocation/cbc:ID`. */
function pathOf(node: DocumentNode): string {
  const parts: string[] = [];
  for (let element: DocumentNode | null = node; element && element.parent; element = element.parent) parts.push(element.qname);
  return parts.reverse().join("/") || node.qname;
}

function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? text.slice(0, 77) + "..." : text);
}

/** How a message names a line: by its identifier, else by its place. */
function lineName(node: DocumentNode): string {
  const id = stringValue(child(node, "cbc:ID")).trim();
  return id ? `Line ${quote(id)}` : `The line ${pathOf(node)}`;
}

/** count(a/b/...) from a node, child steps only. */
function countAt(node: DocumentNode, steps: readonly string[], i = 0): number {
  const text = steps[i]!;
  let value = 0;
  const last = i === steps.length - 1;
  for (const element of node.children) if (element.qname === text) value += last ? 1 : countAt(element, steps, i + 1);
  return value;
}

/** The string values at a path (child steps only). */
function valuesAt(node: DocumentNode, steps: readonly string[], out: string[] = [], i = 0): string[] {
  const text = steps[i]!;
  const last = i === steps.length - 1;
  for (const element of node.children) if (element.qname === text) last ? out.push(stringValue(element)) : valuesAt(element, steps, out, i + 1);
  return out;
}

/** XPath string-length() of s from index `from`: code points, not UTF-16 units. */
function codePoints(text: string, from: number): number {
  let value = 0;
  for (let i = from; i < text.length; i++, value++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const nextCode = text.charCodeAt(i + 1);
      if (nextCode >= 0xdc00 && nextCode <= 0xdfff) i++;
    }
  }
  return value;
}

/** `upper-case(@schemeID)`: "" when absent. */
function upperScheme(node: DocumentNode): string {
  return (node.attrs.schemeID ?? "").toUpperCase();
}

/** The xs:boolean values of the cbc:ChargeIndicator children (XPath `cbc:ChargeIndicator = false()`). */
function chargeIndicators(ac: DocumentNode): { isFalse: boolean; isTrue: boolean } {
  let isFalse = false, isTrue = false;
  for (const node of ac.children) {
    if (node.qname !== "cbc:ChargeIndicator") continue;
    const text = normalizeSpace(stringValue(node));
    if (text === "false" || text === "0") isFalse = true;
    else if (text === "true" || text === "1") isTrue = true;
  }
  return { isFalse, isTrue };
}

/** `role/cac:Party/cac:PartyTaxScheme[cac:TaxScheme/upper-case(cbc:ID) = 'VAT' (or, without `vat`, != 'VAT')]/cbc:CompanyID` of each role. */
function taxIds(roles: readonly DocumentNode[], vat: boolean): DocumentNode[] {
  const out: DocumentNode[] = [];
  for (const role of roles) for (const party of children(role, "cac:Party")) for (const pts of children(party, "cac:PartyTaxScheme")) {
    const ids = taxSchemeIds(pts);
    if (vat ? ids.includes("VAT") : ids.some((text) => text !== "VAT")) out.push(...children(pts, "cbc:CompanyID"));
  }
  return out;
}

/** `cac:TaxScheme/upper-case(cbc:ID)` of a PartyTaxScheme: one value per TaxScheme. */
function taxSchemeIds(pts: DocumentNode): string[] {
  const out: string[] = [];
  for (const ts of pts.children) if (ts.qname === "cac:TaxScheme") out.push(stringValue(child(ts, "cbc:ID")).toUpperCase());
  return out;
}

const P_DELIVERY_NAME = ["cac:DeliveryParty", "cac:PartyName", "cbc:Name"] as const;
const P_ORDER_LINE_ID = ["cac:OrderLineReference", "cbc:LineID"] as const;
const P_PRICE_DISCOUNT = ["cac:Price", "cac:AllowanceCharge", "cbc:Amount"] as const;
const P_ITEM_TAX = ["cac:Item", "cac:ClassifiedTaxCategory"] as const;
const P_ITEM_DESCRIPTION = ["cac:Item", "cbc:Description"] as const;
const P_PARTY_NAME = ["cac:PartyName", "cbc:Name"] as const;
const P_LEGAL_ID = ["cac:PartyLegalEntity", "cbc:CompanyID"] as const;
const P_MANDATE_ID = ["cac:PaymentMandate", "cbc:ID"] as const;
const P_TAX_COMPANY_ID = ["cac:PartyTaxScheme", "cbc:CompanyID"] as const;
const P_EXEMPTION_REASON = ["cac:TaxCategory", "cbc:TaxExemptionReason"] as const;
const P_SELLER_NAME = ["cac:AccountingSupplierParty", "cac:Party", "cac:PartyLegalEntity", "cbc:RegistrationName"] as const;

// ---- one document ----

class SyntaxRun {
  /** Which root-context rules have been reported (allocated at the first report). */
  private fired: Uint8Array | null = null;
  // A plain array: a typed array of this length is allocated outside V8's heap, at a cost per document.
  private readonly counts: number[] = new Array<number>(COUNTED.length).fill(0);
  private readonly second: (DocumentNode | undefined)[] = [];
  private readonly top: DocumentNode[][] = [[], [], [], [], []];
  /** The root is /ubl:Invoice or /cn:CreditNote, so the root-context rules apply. */
  private readonly ubl: boolean;
  private readonly doc: string;
  private paymentId: { first: DocumentNode; other: DocumentNode | null } | null = null;
  private paymentMeansCode: { first: DocumentNode; other: DocumentNode | null } | null = null;
  private sepa: DocumentNode[] = [];
  private sellerNames: string[] | null = null;

  constructor(private readonly ctx: RuleContext) {
    const rootNode = ctx.root;
    this.ubl = (rootNode.ns === NS.invoice && rootNode.name === "Invoice") || (rootNode.ns === NS.creditNote && rootNode.name === "CreditNote");
    this.doc = docWord(ctx);
  }

  run(): void {
    const root = this.ctx.root;
    this.walk(root, KNOWN.get(root.qname), this.ubl ? DOCUMENT : null, false);
    if (this.ubl) this.afterWalk(root);
  }

  private report(rule: string, flag: Flag, message: string, node: DocumentNode): void {
    this.ctx.report(rule, flag, message, node);
  }

  /** Reports a root-context rule once per document. */
  private once(slot: number, rule: string, flag: Flag, message: () => string, node: DocumentNode): void {
    const fired = (this.fired ??= new Uint8Array(SLOTS));
    if (fired[slot]) return;
    fired[slot] = 1;
    this.report(rule, flag, message(), node);
  }

  private unused(pathRule: PathRule, node: DocumentNode): void {
    if (pathRule.attr === null) {
      this.once(pathRule.slot, pathRule.rule, "warning", () => `The ${this.doc} contains ${pathOf(node)}, which EN 16931 does not use; the recipient may ignore it.`, node);
    } else {
      const text = node.attrs[pathRule.attr];
      if (text !== undefined) this.unusedAttr(pathRule, node, pathRule.attr, text);
    }
  }

  private unusedAttr(pathRule: PathRule, node: DocumentNode, attr: string, value: string): void {
    this.once(pathRule.slot, pathRule.rule, "warning", () => `The ${this.doc} gives ${pathOf(node)} a ${attr} attribute (${quote(value)}), which EN 16931 does not use; the recipient may ignore it.`, node);
  }

  /** `el`: what is known of the node's qname (KNOWN.get, looked up by the caller); `step`: where it is in the path tree. */
  private walk(node: DocumentNode, el: Known | undefined, step: Step | null, underPriceCharge: boolean): void {
    if (this.ubl) {
      // UBL-DT-08..28, UBL-CR-663: `not(//@attr)`; UBL-DT-18: @name only on cbc:PaymentMeansCode.
      const attrs = node.attrs;
      for (const k in attrs) {
        const rule = ATTRIBUTES.get(k);
        if (rule !== undefined) this.unusedAttr(rule, node, k, attrs[k]!);
        else if (k === "name" && node.qname !== "cbc:PaymentMeansCode") {
          this.once(DT_18, "UBL-DT-18", "warning", () => `The ${this.doc} gives ${pathOf(node)} a name attribute (${quote(attrs[k]!)}); EN 16931 uses that attribute only on cbc:PaymentMeansCode, so the recipient may ignore it.`, node);
        }
      }
    }

    const name = node.name;
    if (name.endsWith("Amount")) {
      if (!underPriceCharge && !name.endsWith("PriceAmount")) this.amountDecimals(node);
    } else if (name.endsWith("BinaryObject")) {
      this.binaryObject(node);
    }

    if (el !== undefined) {
      if (this.ubl) {
        const anywhere = el.anywhere;
        for (let i = 0; i < anywhere.length; i++) if (this.ancestorsAre(node, anywhere[i]!.up)) this.unused(anywhere[i]!, node);
      }
      switch (el.context) {
        case C.Address: this.address(node); break;
        case C.Party: if (node.parent?.qname === "cac:AccountingSupplierParty") this.supplierParty(node); break;
        case C.AdditionalDocument: this.additionalDocument(node); break;
        case C.Delivery: this.delivery(node); break;
        case C.AllowanceCharge: this.allowanceCharge(node); break;
        case C.PartyTaxScheme: this.partyTaxScheme(node); break;
        case C.Line: this.line(node); break;
        case C.Payee: this.payee(node); break;
        case C.PaymentMeans: this.paymentMeans(node); break;
        case C.BillingReference: this.billingReference(node); break;
        case C.TaxRepresentative: this.taxRepresentative(node); break;
        case C.TaxSubtotal: this.taxSubtotal(node); break;
        case C.PaymentId: if (this.ubl) this.paymentId = this.distinct(this.paymentId, node); break;
        case C.PaymentMeansCode: if (this.ubl) this.paymentMeansCode = this.distinct(this.paymentMeansCode, node); break;
        case C.Id: if (this.ubl && node.parent?.qname === "cac:PartyIdentification" && upperScheme(node) === "SEPA") this.sepa.push(node); break;
      }
    }

    if (step !== null) {
      // Index loops: in this recursion V8 does not always drop for-of's iterator objects.
      const absent = step.absent, counted = step.counted;
      for (let i = 0; i < absent.length; i++) this.unused(absent[i]!, node);
      for (let i = 0; i < counted.length; i++) if (++this.counts[counted[i]!.slot]! === 2) this.second[counted[i]!.slot] = node;
      if (step.top >= 0) this.top[step.top]!.push(node);
    }

    const kids = node.children;
    if (kids.length === 0) return;
    // DT-01's context excludes amounts with an ancestor cac:Price that has a cac:AllowanceCharge child.
    const under = underPriceCharge || (node.qname === "cac:Price" && child(node, "cac:AllowanceCharge") !== null);
    for (let i = 0; i < kids.length; i++) {
      const node = kids[i]!;
      const k = KNOWN.get(node.qname);
      this.walk(node, k, step === null || k === undefined ? null : (step.next[k.id] ?? null), under);
    }
  }

  private ancestorsAre(node: DocumentNode, up: readonly string[]): boolean {
    let element = node.parent;
    for (const text of up) {
      if (element === null || element.qname !== text) return false;
      element = element.parent;
    }
    return true;
  }

  /** `count(//x[not(preceding::x/. = .)]) <= 1`: every x has the same string value. */
  private distinct(seen: { first: DocumentNode; other: DocumentNode | null } | null, node: DocumentNode): { first: DocumentNode; other: DocumentNode | null } {
    if (seen === null) return { first: node, other: null };
    if (seen.other === null && stringValue(seen.first) !== stringValue(node)) seen.other = node;
    return seen;
  }

  // UBL-DT-01: string-length(substring-after(., '.')) <= 2
  private amountDecimals(node: DocumentNode): void {
    const text = stringValue(node);
    const dot = text.indexOf(".");
    if (dot < 0 || text.length - dot - 1 <= 2) return;
    const value = codePoints(text, dot + 1);
    if (value <= 2) return;
    const tail = text.slice(dot + 1);
    const what = /^[0-9]*$/.test(tail) ? `${value} decimals` : `${value} characters after the decimal point`;
    this.report("UBL-DT-01", "fatal", `The amount ${node.qname} is ${quote(text)}, with ${what}; EN 16931 amounts have at most two decimals.`, node);
  }

  // UBL-DT-06, UBL-DT-07
  private binaryObject(node: DocumentNode): void {
    if (node.attrs.mimeCode === undefined) {
      this.report("UBL-DT-06", "fatal", `The attached file ${pathOf(node)} has no mimeCode attribute; EN 16931 requires the file's MIME type (such as application/pdf).`, node);
    }
    if (node.attrs.filename === undefined) {
      this.report("UBL-DT-07", "fatal", `The attached file ${pathOf(node)} has no filename attribute; EN 16931 requires the file's name.`, node);
    }
  }

  // UBL-SR-51: not(cac:AddressLine) or count(cac:AddressLine) = 1
  private address(node: DocumentNode): void {
    const count = children(node, "cac:AddressLine").length;
    if (count > 1) this.report("UBL-SR-51", "fatal", `The address ${pathOf(node)} has ${count} cac:AddressLine elements; EN 16931 allows one (the third address line).`, node);
  }

  // UBL-SR-42: count(cac:PartyTaxScheme) <= 2 in cac:AccountingSupplierParty/cac:Party
  private supplierParty(node: DocumentNode): void {
    const count = children(node, "cac:PartyTaxScheme").length;
    if (count > 2) this.report("UBL-SR-42", "fatal", `The seller has ${count} tax registrations (cac:PartyTaxScheme); EN 16931 allows two at most: the VAT identifier and one other tax registration.`, node);
  }

  // UBL-SR-33, UBL-SR-43 (context cac:AdditionalDocumentReference); UBL-CR-665, 666, 673 (root context, `//`)
  private additionalDocument(node: DocumentNode): void {
    let n130 = false, n50 = false, codes = 0, other = false, descriptions = 0, attachment = false, idScheme: DocumentNode | null = null;
    for (const element of node.children) {
      switch (element.qname) {
        case "cbc:DocumentTypeCode": {
          codes++;
          const text = stringValue(element);
          if (text === "130") n130 = true;
          else other = true;
          if (text === "50") n50 = true;
          break;
        }
        case "cbc:DocumentDescription": descriptions++; break;
        case "cac:Attachment": attachment = true; break;
        case "cbc:ID": if (idScheme === null && element.attrs.schemeID !== undefined) idScheme = element; break;
      }
    }
    if (descriptions > 1) {
      this.report("UBL-SR-33", "fatal", `The supporting document ${pathOf(node)} has ${descriptions} descriptions (cbc:DocumentDescription); EN 16931 allows one.`, node);
    }
    const creditNote = this.ctx.root.name === "CreditNote";
    if (!(n130 || (creditNote && n50) || (idScheme === null && codes === 0))) {
      const code = stringValue(child(node, "cbc:DocumentTypeCode"));
      this.report("UBL-SR-43", "fatal", codes > 0
        ? `The document reference ${pathOf(node)} has document type code ${quote(code)}; a document reference may carry a type code only for an invoiced object identifier (code 130${creditNote ? ", or 50 in a credit note" : ""}).`
        : `The document reference ${pathOf(node)} gives its identifier a schemeID without a document type code; a scheme is allowed only for an invoiced object identifier (document type code 130${creditNote ? ", or 50 in a credit note" : ""}).`, node);
    }
    if (!this.ubl) return;
    if ((other || codes === 0) && idScheme !== null) {
      const id = idScheme;
      this.once(CR_665, "UBL-CR-665", "warning", () => `The ${this.doc} gives the document reference ${pathOf(id)} a schemeID (${quote(id.attrs.schemeID!)}) although it is not an invoiced object identifier (document type code 130); the recipient may ignore it.`, id);
    }
    if (n130 && attachment) {
      this.once(CR_666, "UBL-CR-666", "fatal", () => `The ${this.doc}'s invoiced object identifier (${pathOf(node)} with document type code 130) carries an attachment; an attachment belongs in a separate supporting document reference.`, node);
    }
    if (n130 && descriptions > 0) {
      this.once(CR_673, "UBL-CR-673", "fatal", () => `The ${this.doc}'s invoiced object identifier (${pathOf(node)} with document type code 130) carries a cbc:DocumentDescription; a description belongs to a supporting document reference.`, node);
    }
  }

  // UBL-SR-25
  private delivery(node: DocumentNode): void {
    const nodeValue = countAt(node, P_DELIVERY_NAME);
    if (nodeValue > 1) this.report("UBL-SR-25", "fatal", `The delivery ${pathOf(node)} gives the deliver-to party ${nodeValue} names (cac:DeliveryParty/cac:PartyName/cbc:Name); EN 16931 allows one.`, node);
  }

  // UBL-SR-30 (context cac:AllowanceCharge[cbc:ChargeIndicator = false()]), UBL-SR-31 (= true())
  private allowanceCharge(node: DocumentNode): void {
    const { isFalse, isTrue } = chargeIndicators(node);
    if (!isFalse && !isTrue) return;
    const count = children(node, "cbc:AllowanceChargeReason").length;
    if (count <= 1) return;
    if (isFalse) this.report("UBL-SR-30", "fatal", `The allowance ${pathOf(node)} has ${count} reasons (cbc:AllowanceChargeReason); EN 16931 allows one.`, node);
    else this.report("UBL-SR-31", "fatal", `The charge ${pathOf(node)} has ${count} reasons (cbc:AllowanceChargeReason); EN 16931 allows one.`, node);
  }

  // UBL-SR-53: exists(cac:TaxScheme/cbc:ID) and exists(cbc:CompanyID)
  private partyTaxScheme(node: DocumentNode): void {
    let schemeId = false, companyId = false;
    for (const element of node.children) {
      if (element.qname === "cbc:CompanyID") companyId = true;
      else if (element.qname === "cac:TaxScheme" && child(element, "cbc:ID") !== null) schemeId = true;
    }
    if (schemeId && companyId) return;
    this.report("UBL-SR-53", "fatal", schemeId
      ? `The tax registration ${pathOf(node)} names a tax scheme but no identifier (cbc:CompanyID); give the VAT or tax registration identifier.`
      : `The tax registration ${pathOf(node)} has no tax scheme identifier (cac:TaxScheme/cbc:ID); give the scheme, such as VAT, with the identifier.`, node);
  }

  // UBL-SR-34, 35, 36, 37, 48, 50, 52 (context cac:InvoiceLine | cac:CreditNoteLine)
  private line(node: DocumentNode): void {
    let notes = 0, periods = 0, docRefs = 0;
    for (const element of node.children) {
      if (element.qname === "cbc:Note") notes++;
      else if (element.qname === "cac:InvoicePeriod") periods++;
      else if (element.qname === "cac:DocumentReference") docRefs++;
    }
    if (notes > 1) this.report("UBL-SR-34", "fatal", `${lineName(node)} has ${notes} notes (cbc:Note); EN 16931 allows one per line.`, node);
    const orderLines = countAt(node, P_ORDER_LINE_ID);
    if (orderLines > 1) this.report("UBL-SR-35", "fatal", `${lineName(node)} refers to ${orderLines} purchase order lines (cac:OrderLineReference/cbc:LineID); EN 16931 allows one.`, node);
    if (periods > 1) this.report("UBL-SR-36", "fatal", `${lineName(node)} has ${periods} invoicing periods (cac:InvoicePeriod); EN 16931 allows one per line.`, node);
    const discounts = countAt(node, P_PRICE_DISCOUNT);
    if (discounts > 1) this.report("UBL-SR-37", "fatal", `${lineName(node)} has ${discounts} price discounts (cac:Price/cac:AllowanceCharge/cbc:Amount); EN 16931 allows one.`, node);
    const taxes = countAt(node, P_ITEM_TAX);
    if (taxes !== 1) this.report("UBL-SR-48", "fatal", taxes === 0
      ? `${lineName(node)} has no VAT category for its item (cac:Item/cac:ClassifiedTaxCategory); every line needs exactly one.`
      : `${lineName(node)} has ${taxes} VAT categories for its item (cac:Item/cac:ClassifiedTaxCategory); every line needs exactly one.`, node);
    const descriptions = countAt(node, P_ITEM_DESCRIPTION);
    if (descriptions > 1) this.report("UBL-SR-50", "fatal", `${lineName(node)} has ${descriptions} item descriptions (cac:Item/cbc:Description); EN 16931 allows one.`, node);
    if (docRefs > 1) this.report("UBL-SR-52", "fatal", `${lineName(node)} has ${docRefs} document references (cac:DocumentReference); EN 16931 allows one per line.`, node);
  }

  // UBL-SR-19, 20, 21: count(...) <= 1 and ((cac:PartyName/cbc:Name) != (../cac:AccountingSupplierParty/.../cbc:RegistrationName))
  private payee(node: DocumentNode): void {
    const names = valuesAt(node, P_PARTY_NAME);
    const parent = node.parent;
    let seller: string[];
    if (parent === this.ctx.root) seller = this.sellerNames ??= valuesAt(parent, P_SELLER_NAME);
    else seller = parent ? valuesAt(parent, P_SELLER_NAME) : [];
    const differs = names.some((name) => seller.some((text) => name !== text));
    const why = names.length === 0
      ? "the payee has no name (cac:PartyName/cbc:Name) to tell it apart from the seller"
      : seller.length === 0
        ? "the seller has no name (cac:PartyLegalEntity/cbc:RegistrationName) to tell the payee apart from"
        : `the payee has the seller's name (${quote(names[0]!)}); give a payee only when someone other than the seller is paid`;
    const ids = children(node, "cac:PartyIdentification").reduce((value, pi) => value + children(pi, "cbc:ID").filter((id) => upperScheme(id) !== "SEPA").length, 0);
    const checks: [string, number, string][] = [
      ["UBL-SR-19", names.length, "names (cac:PartyName/cbc:Name)"],
      ["UBL-SR-20", ids, "identifiers (cac:PartyIdentification/cbc:ID other than the SEPA creditor identifier)"],
      ["UBL-SR-21", countAt(node, P_LEGAL_ID), "legal registration identifiers (cac:PartyLegalEntity/cbc:CompanyID)"],
    ];
    for (const [rule, count, what] of checks) {
      if (count > 1) this.report(rule, "fatal", `The payee (${pathOf(node)}) has ${count} ${what}; EN 16931 allows one.`, node);
      else if (!differs) this.report(rule, "fatal", `The payee (${pathOf(node)}) is not told apart from the seller: ${why}.`, node);
    }
  }

  // UBL-SR-26, 27, 28 (context cac:PaymentMeans)
  private paymentMeans(node: DocumentNode): void {
    let ids = 0, codes = 0;
    for (const element of node.children) {
      if (element.qname === "cbc:PaymentID") ids++;
      else if (element.qname === "cbc:PaymentMeansCode") codes++;
    }
    if (ids > 1) this.report("UBL-SR-26", "fatal", `The payment means ${pathOf(node)} has ${ids} payment references (cbc:PaymentID); EN 16931 allows one.`, node);
    if (codes > 1) this.report("UBL-SR-27", "fatal", `The payment means ${pathOf(node)} has ${codes} payment means codes (cbc:PaymentMeansCode); EN 16931 allows one.`, node);
    const mandates = countAt(node, P_MANDATE_ID);
    if (mandates > 1) this.report("UBL-SR-28", "fatal", `The payment means ${pathOf(node)} has ${mandates} mandate references (cac:PaymentMandate/cbc:ID); EN 16931 allows one.`, node);
  }

  // UBL-SR-06, 07 (context cac:BillingReference)
  private billingReference(node: DocumentNode): void {
    const refs = children(node, "cac:InvoiceDocumentReference");
    if (refs.length > 1) this.report("UBL-SR-06", "fatal", `The billing reference ${pathOf(node)} has ${refs.length} preceding invoice references (cac:InvoiceDocumentReference); give each preceding invoice its own cac:BillingReference.`, node);
    if (!refs.some((invoiceDocumentReference) => child(invoiceDocumentReference, "cbc:ID") !== null)) {
      this.report("UBL-SR-07", "fatal", refs.length === 0
        ? `The billing reference ${pathOf(node)} has no preceding invoice reference (cac:InvoiceDocumentReference/cbc:ID); give the number of the preceding invoice.`
        : `The preceding invoice reference in ${pathOf(node)} has no invoice number (cac:InvoiceDocumentReference/cbc:ID).`, node);
    }
  }

  // UBL-SR-22, 23 (context cac:TaxRepresentativeParty)
  private taxRepresentative(node: DocumentNode): void {
    const names = countAt(node, P_PARTY_NAME);
    if (names > 1) this.report("UBL-SR-22", "fatal", `The seller's tax representative has ${names} names (cac:PartyName/cbc:Name); EN 16931 allows one.`, node);
    const vat = countAt(node, P_TAX_COMPANY_ID);
    if (vat > 1) this.report("UBL-SR-23", "fatal", `The seller's tax representative has ${vat} VAT identifiers (cac:PartyTaxScheme/cbc:CompanyID); EN 16931 allows one.`, node);
  }

  // UBL-SR-32 (context cac:TaxSubtotal)
  private taxSubtotal(node: DocumentNode): void {
    const nodeValue = countAt(node, P_EXEMPTION_REASON);
    if (nodeValue > 1) this.report("UBL-SR-32", "fatal", `The VAT breakdown ${pathOf(node)} has ${nodeValue} exemption reasons (cac:TaxCategory/cbc:TaxExemptionReason); EN 16931 allows one.`, node);
  }

  /** The root-context rules that need the whole document (counts, distinct values, predicates). */
  private afterWalk(root: DocumentNode): void {
    const doc = this.doc;
    for (const countRule of COUNTED) {
      const value = this.counts[countRule.slot]!;
      if (value > 1) this.report(countRule.rule, "fatal", `The ${doc} gives the ${countRule.what} ${value} times (${countRule.path}); EN 16931 allows it once.`, this.second[countRule.slot]!);
    }

    const top = this.top;

    // UBL-CR-002: not(cbc:UBLVersionID) or cbc:UBLVersionID = '2.1'
    const versions = top[T_VERSION]!;
    if (versions.length > 0 && !versions.some((version) => stringValue(version) === "2.1")) {
      this.report("UBL-CR-002", "warning", `The ${doc} declares UBL version ${quote(stringValue(versions[0]))} (cbc:UBLVersionID); EN 16931 uses UBL 2.1, so give 2.1 or leave the version out.`, versions[0]!);
    }

    // UBL-CR-412: not(cac:PaymentMeans/cbc:PaymentDueDate) or ../cn:CreditNote
    if (root.name === "Invoice") {
      for (const pm of top[T_PAYMENT_MEANS]!) {
        const due = child(pm, "cbc:PaymentDueDate");
        if (due) {
          this.report("UBL-CR-412", "warning", `The invoice contains cac:PaymentMeans/cbc:PaymentDueDate, which EN 16931 does not use in an invoice (the due date is cbc:DueDate); the recipient may ignore it.`, due);
          break;
        }
      }
    }

    // UBL-SR-04: count(cac:AdditionalDocumentReference[cbc:DocumentTypeCode='130']/cbc:ID) <= 1
    let objects = 0;
    let secondObject: DocumentNode | null = null;
    for (const adr of top[T_ADDITIONAL_DOCUMENT]!) {
      if (!children(adr, "cbc:DocumentTypeCode").some((documentTypeCode) => stringValue(documentTypeCode) === "130")) continue;
      for (const id of children(adr, "cbc:ID")) if (++objects === 2) secondObject = id;
    }
    if (objects > 1) this.report("UBL-SR-04", "fatal", `The ${doc} gives ${objects} invoiced object identifiers (cac:AdditionalDocumentReference with document type code 130); EN 16931 allows one.`, secondObject!);

    // UBL-SR-12, 13 (seller), 18 (buyer): count(.../cac:PartyTaxScheme[cac:TaxScheme/upper-case(cbc:ID) = / != 'VAT']/cbc:CompanyID) <= 1
    const sellerVat = taxIds(top[T_SUPPLIER]!, true);
    if (sellerVat.length > 1) this.report("UBL-SR-12", "fatal", `The ${doc} gives the seller ${sellerVat.length} VAT identifiers (cac:PartyTaxScheme/cbc:CompanyID with tax scheme VAT); EN 16931 allows one.`, sellerVat[1]!);
    const sellerTax = taxIds(top[T_SUPPLIER]!, false);
    if (sellerTax.length > 1) this.report("UBL-SR-13", "fatal", `The ${doc} gives the seller ${sellerTax.length} tax registration identifiers other than VAT (cac:PartyTaxScheme/cbc:CompanyID); EN 16931 allows one.`, sellerTax[1]!);
    const buyerVat = taxIds(top[T_CUSTOMER]!, true);
    if (buyerVat.length > 1) this.report("UBL-SR-18", "fatal", `The ${doc} gives the buyer ${buyerVat.length} VAT identifiers (cac:PartyTaxScheme/cbc:CompanyID with tax scheme VAT); EN 16931 allows one.`, buyerVat[1]!);

    // UBL-SR-46: count(cac:PaymentMeans/cbc:PaymentMeansCode/@name) <= 1
    const named: DocumentNode[] = [];
    for (const pm of top[T_PAYMENT_MEANS]!) for (const paymentMeansCode of children(pm, "cbc:PaymentMeansCode")) if (paymentMeansCode.attrs.name !== undefined) named.push(paymentMeansCode);
    if (named.length > 1) this.report("UBL-SR-46", "fatal", `The ${doc} gives the payment means text (the name attribute of cbc:PaymentMeansCode) ${named.length} times; EN 16931 allows it once.`, named[1]!);

    // UBL-SR-29: count(//cac:PartyIdentification/cbc:ID[upper-case(@schemeID) = 'SEPA']) <= 1
    if (this.sepa.length > 1) this.report("UBL-SR-29", "fatal", `The ${doc} gives ${this.sepa.length} bank assigned creditor identifiers (cac:PartyIdentification/cbc:ID with schemeID SEPA); EN 16931 allows one.`, this.sepa[1]!);

    // UBL-SR-44, 47: one distinct value
    const pid = this.paymentId;
    if (pid?.other) this.report("UBL-SR-44", "fatal", `The ${doc} gives different payment references (cbc:PaymentID): ${quote(stringValue(pid.first))} and ${quote(stringValue(pid.other))}; EN 16931 allows one remittance information, which several payment means may repeat.`, pid.other);
    const pmc = this.paymentMeansCode;
    if (pmc?.other) this.report("UBL-SR-47", "fatal", `The ${doc} gives different payment means codes (cbc:PaymentMeansCode): ${quote(stringValue(pmc.first))} and ${quote(stringValue(pmc.other))}; when several payment means are given they must have the same code.`, pmc.other);
  }
}

export const cenSyntaxRules: RuleFamily = (ctx) => {
  new SyntaxRun(ctx).run();
};
