// buildUbl: InvoiceData to a Peppol BIS Billing 3.0 UBL 2.1 Invoice or CreditNote, elements in the order
// the UBL schema demands. Pure: it builds the document model the rules read (the same DocumentNode tree the
// reader builds) and serialises it, and remembers which JSON field produced each element.
import { BY_QNAME, NS, qnameOf, type DocumentNode } from "../model.js";
import type { AllowanceCharge, InvoiceAddress, InvoiceData, InvoiceLine, LineAllowanceCharge, Specification, VatCategory } from "../../domain/invoice-data.js";
import Big from "big.js";
import { computeTotals, money, totalsAsWritten, type ComputedTotals } from "../../domain/invoice-totals.js";

export const PEPPOL_BIS3_CUSTOMIZATION = "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0";
export const PEPPOL_BIS3_PROFILE = "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0";
/** XRechnung 3.0 (the CIUS) for UBL: KoSIT's examples carry the Peppol business process (BT-23) as ProfileID, the default here too. */
export const XRECHNUNG_3_CUSTOMIZATION = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0";
/** Plain EN 16931. */
export const EN16931_CUSTOMIZATION = "urn:cen.eu:en16931:2017";

/** The CustomizationID (BT-24) each `specification` of InvoiceData writes. */
export const SPECIFICATION_CUSTOMIZATION: Readonly<Record<Specification, string>> = {
  peppol: PEPPOL_BIS3_CUSTOMIZATION,
  xrechnung: XRECHNUNG_3_CUSTOMIZATION,
  en16931: EN16931_CUSTOMIZATION,
};

/** The `specification` a CustomizationID is written for, or undefined for one InvoiceData has no name for. */
export function specificationOf(customizationId: string | undefined): Specification | undefined {
  for (const [spec, id] of Object.entries(SPECIFICATION_CUSTOMIZATION)) if (id === customizationId) return spec as Specification;
  return undefined;
}

export type BuiltKind = "Invoice" | "CreditNote";

/** An element of the built document: a DocumentNode the rules read directly, without parsing the bytes again. */
class Node implements DocumentNode {
  attrs: Record<string, string> = NO_ATTRS;
  text = "";
  /** Shared and empty until the first child: most elements are leaves, and an array each is garbage. */
  children: Node[] = NO_KIDS;
  index = 1;
  memo: Map<symbol, unknown> | undefined = undefined;
  numeric: unknown = undefined;
  /** The JSON pointer of the field that produced this element, when one did (descendants inherit it). */
  pointer: string | undefined = undefined;
  /** How many children of each qname so far (for `index`), once a parent has many. */
  counts: Map<string, number> | undefined = undefined;
  constructor(
    readonly ns: string,
    readonly name: string,
    readonly qname: string,
    readonly parent: Node | null,
  ) {}
}

/**
 * From this many lines, each written line's elements get arrays of exactly their children. An array
 * grown by push has 17 slots from its second element: in a large document that is a third of the
 * model's memory, and the collector copies all of it while the model is built (docs/performance.md).
 */
const EXACT_CHILDREN_FROM = 64;

function exactChildren(n: Node): void {
  const kids = n.children;
  if (kids.length === 0) return;
  if (kids.length > 1) n.children = kids.slice();
  for (let i = 0; i < kids.length; i++) exactChildren(kids[i]!);
}

const NO_ATTRS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const NO_KIDS: Node[] = Object.freeze([]) as unknown as Node[];

/** What `buildDocument` gives: the bytes, the model, and the JSON pointer of the field behind each element. */
export interface BuiltDocument {
  kind: BuiltKind;
  /** The XML (for a document written in pieces, decoded from `bytes` when first read). */
  readonly xml: string;
  /** Its UTF-8 bytes (what is sent and hashed). */
  bytes: Buffer;
  /** The model of the built document (what parseXml would give for `xml`). */
  root: DocumentNode;
  /** The JSON pointer (into the InvoiceData) of the field that produced an element (undefined: its parent's). */
  pointerOf(node: DocumentNode): string | undefined;
  totals: ComputedTotals;
}

/** The namespace, local name and qname of each qname the writer uses, made once (not two strings per element). */
const NAMES = new Map<string, readonly [ns: string, local: string, qname: string]>();
function namesOf(qname: string): readonly [string, string, string] {
  let names = NAMES.get(qname);
  if (names === undefined) {
    const colon = qname.indexOf(":");
    const ns = colon === 3 ? (qname.startsWith("cbc") ? NS.cbc : NS.cac) : "";
    const local = colon === 3 ? qname.slice(4) : qname;
    NAMES.set(qname, (names = [ns, local, qnameOf(ns, local, false)]));
  }
  return names;
}

/**
 * The elements of the document being built, by qname, in document order: the rules' `//qname` index
 * (model.ts, BY_QNAME), filed as the elements are added instead of made by a walk after. It holds
 * only while every element is added in document order (to the last element added or one of its
 * ancestors); the writer does so, and if it ever did not, the index is dropped and the rules walk.
 * One build at a time: buildDocument is synchronous.
 */
interface Filing {
  byQname: Map<string, Node[]>;
  last: Node;
  inOrder: boolean;
}
let filing: Filing | null = null;

function file(n: Node): void {
  const f = filing;
  if (f === null || !f.inOrder) return;
  let a: Node | null = f.last;
  while (a !== null && a !== n.parent) a = a.parent;
  if (a === null) {
    f.inOrder = false;
    return;
  }
  f.last = n;
  const list = f.byQname.get(n.qname);
  if (list === undefined) f.byQname.set(n.qname, [n]);
  else list.push(n);
}

/** Attributes given as one shared object whose values are all set: kept as they are (read-only to everyone). */
const SHARED_ATTRS = new WeakSet<object>();

function add(parent: Node, qname: string, value?: string, attrs?: Record<string, string | undefined>): Node {
  const [ns, local, q] = namesOf(qname);
  const n = new Node(ns, local, q, parent);
  // The position among same-named siblings: a scan for the few children of most elements, counts
  // for a parent with many (the root's lines), so that building stays linear in the lines.
  const siblings = parent.children === NO_KIDS ? (parent.children = []) : parent.children;
  if (siblings.length < 16) {
    let index = 1;
    for (const c of siblings) if (c.qname === n.qname) index++;
    n.index = index;
  } else {
    if (!parent.counts) {
      parent.counts = new Map<string, number>();
      for (const c of siblings) parent.counts.set(c.qname, c.index);
    }
    n.index = (parent.counts.get(n.qname) ?? 0) + 1;
  }
  if (parent.counts) parent.counts.set(n.qname, n.index);
  if (value !== undefined) n.text = value;
  if (attrs !== undefined && SHARED_ATTRS.has(attrs)) n.attrs = attrs as Record<string, string>;
  else if (attrs) {
    for (const k in attrs) {
      const v = attrs[k];
      if (v === undefined) continue;
      if (n.attrs === NO_ATTRS) n.attrs = {};
      n.attrs[k] = v;
    }
  }
  siblings.push(n);
  file(n);
  return n;
}

/**
 * Builds the Peppol BIS Billing 3.0 UBL document for an InvoiceData (already parsed with
 * `InvoiceDataSchema`, which also refuses given totals that differ from ours), with its model and
 * field map. Does not run the rules: `buildInvoice` does.
 */
export function buildDocument(data: InvoiceData, kind: BuiltKind = "Invoice", options: BuildDocumentOptions = {}): BuiltDocument {
  const isCredit = kind === "CreditNote";
  const root = new Node(isCredit ? NS.creditNote : NS.invoice, kind, kind, null);
  filing = { byQname: new Map([[root.qname, [root]]]), last: root, inOrder: true };
  try {
    const built = writeDocument(data, kind, root, options);
    if (filing.inOrder) (root.memo ??= new Map()).set(BY_QNAME, filing.byQname);
    return built;
  } finally {
    filing = null;
  }
}

/** How `buildDocument` writes. */
export interface BuildDocumentOptions {
  /**
   * Write the amounts the data carries as they are (`totalsAsWritten`), ours only where it carries none: for a
   * document read from another syntax (a CII converted to UBL), whose values must all be kept. Such data was not
   * parsed with the schema: a party without an electronic address gets no EndpointID (the rules then say so).
   */
  asWritten?: boolean;
}

function writeDocument(data: InvoiceData, kind: BuiltKind, root: Node, options: BuildDocumentOptions): BuiltDocument {
  const t = options.asWritten ? totalsAsWritten(data) : computeTotals(data);
  // Kept on the node itself: a WeakMap of every element costs the garbage collector more than the build.
  const ptr = <T extends Node>(n: T, p: string): T => ((n.pointer = p), n);
  const isCredit = kind === "CreditNote";
  root.pointer = "";
  const cur = data.currency;
  // One attribute object for every amount of the document (frozen: nothing may change it).
  const currencyAttrs = Object.freeze({ currencyID: cur });
  SHARED_ATTRS.add(currencyAttrs);
  const amt = (parent: Node, qname: string, value: string, p?: string) => {
    const n = add(parent, qname, value, currencyAttrs);
    if (p !== undefined) ptr(n, p);
    return n;
  };

  ptr(add(root, "cbc:CustomizationID", SPECIFICATION_CUSTOMIZATION[data.specification ?? "peppol"]), "/specification");
  ptr(add(root, "cbc:ProfileID", data.profileId ?? PEPPOL_BIS3_PROFILE), "/profileId");
  ptr(add(root, "cbc:ID", data.number), "/number");
  ptr(add(root, "cbc:IssueDate", data.issueDate), "/issueDate");
  if (!isCredit && data.dueDate !== undefined) ptr(add(root, "cbc:DueDate", data.dueDate), "/dueDate");
  if (isCredit && data.taxPointDate !== undefined) ptr(add(root, "cbc:TaxPointDate", data.taxPointDate), "/taxPointDate");
  ptr(add(root, isCredit ? "cbc:CreditNoteTypeCode" : "cbc:InvoiceTypeCode", data.typeCode ?? (isCredit ? "381" : "380")), "/typeCode");
  for (const [i, note] of writtenNotes(data).entries()) ptr(add(root, "cbc:Note", note), `/notes/${i}`);
  if (!isCredit && data.taxPointDate !== undefined) ptr(add(root, "cbc:TaxPointDate", data.taxPointDate), "/taxPointDate");
  ptr(add(root, "cbc:DocumentCurrencyCode", cur), "/currency");
  if (data.vatAccountingCurrency) ptr(add(root, "cbc:TaxCurrencyCode", data.vatAccountingCurrency.code), "/vatAccountingCurrency/code");
  if (data.accountingCost !== undefined) ptr(add(root, "cbc:AccountingCost", data.accountingCost), "/accountingCost");
  if (data.buyerReference !== undefined) ptr(add(root, "cbc:BuyerReference", data.buyerReference), "/buyerReference");
  if (data.period) {
    const p = ptr(add(root, "cac:InvoicePeriod"), "/period");
    if (data.period.start !== undefined) ptr(add(p, "cbc:StartDate", data.period.start), "/period/start");
    if (data.period.end !== undefined) ptr(add(p, "cbc:EndDate", data.period.end), "/period/end");
    if (data.period.descriptionCode !== undefined) ptr(add(p, "cbc:DescriptionCode", data.period.descriptionCode), "/period/descriptionCode");
  }
  if (data.orderReference !== undefined || data.salesOrderReference !== undefined) {
    const o = ptr(add(root, "cac:OrderReference"), "/orderReference");
    // UBL requires the order ID; a sales order reference alone is written with the Peppol placeholder "NA".
    add(o, "cbc:ID", data.orderReference ?? "NA");
    if (data.salesOrderReference !== undefined) ptr(add(o, "cbc:SalesOrderID", data.salesOrderReference), "/salesOrderReference");
  }
  (data.precedingInvoices ?? []).forEach((pi, i) => {
    const r = ptr(add(add(root, "cac:BillingReference"), "cac:InvoiceDocumentReference"), `/precedingInvoices/${i}`);
    ptr(add(r, "cbc:ID", pi.number), `/precedingInvoices/${i}/number`);
    if (pi.issueDate !== undefined) ptr(add(r, "cbc:IssueDate", pi.issueDate), `/precedingInvoices/${i}/issueDate`);
  });
  if (data.despatchAdviceReference !== undefined) ptr(add(add(root, "cac:DespatchDocumentReference"), "cbc:ID", data.despatchAdviceReference), "/despatchAdviceReference");
  if (data.receivingAdviceReference !== undefined) ptr(add(add(root, "cac:ReceiptDocumentReference"), "cbc:ID", data.receivingAdviceReference), "/receivingAdviceReference");
  const originator = () => {
    if (data.tenderReference !== undefined) ptr(add(add(root, "cac:OriginatorDocumentReference"), "cbc:ID", data.tenderReference), "/tenderReference");
  };
  if (!isCredit) originator();
  if (data.contractReference !== undefined) ptr(add(add(root, "cac:ContractDocumentReference"), "cbc:ID", data.contractReference), "/contractReference");
  if (data.objectId) {
    const r = ptr(add(root, "cac:AdditionalDocumentReference"), "/objectId");
    add(r, "cbc:ID", data.objectId.id, { schemeID: data.objectId.scheme });
    add(r, "cbc:DocumentTypeCode", "130");
  }
  // A CreditNote has no ProjectReference: Peppol puts BT-11 in an AdditionalDocumentReference with type 50.
  if (isCredit && data.projectReference !== undefined) {
    const r = ptr(add(root, "cac:AdditionalDocumentReference"), "/projectReference");
    add(r, "cbc:ID", data.projectReference);
    add(r, "cbc:DocumentTypeCode", "50");
  }
  (data.attachments ?? []).forEach((a, i) => {
    const p = `/attachments/${i}`;
    const r = ptr(add(root, "cac:AdditionalDocumentReference"), p);
    ptr(add(r, "cbc:ID", a.id), `${p}/id`);
    if (a.description !== undefined) ptr(add(r, "cbc:DocumentDescription", a.description), `${p}/description`);
    if (a.content !== undefined || a.url !== undefined) {
      const at = add(r, "cac:Attachment");
      if (a.content !== undefined) ptr(add(at, "cbc:EmbeddedDocumentBinaryObject", a.content, { mimeCode: a.mimeCode, filename: a.filename }), `${p}/content`);
      else ptr(add(add(at, "cac:ExternalReference"), "cbc:URI", a.url), `${p}/url`);
    }
  });
  if (isCredit) originator();
  if (!isCredit && data.projectReference !== undefined) ptr(add(add(root, "cac:ProjectReference"), "cbc:ID", data.projectReference), "/projectReference");

  // Parties.
  const sepaOnPayee = data.payment?.directDebit?.creditorId !== undefined && data.payee !== undefined;
  const sepaOnSeller = data.payment?.directDebit?.creditorId !== undefined && data.payee === undefined;
  party(ptr(add(root, "cac:AccountingSupplierParty"), "/seller"), data.seller, "/seller", sepaOnSeller ? data.payment!.directDebit!.creditorId! : undefined);
  party(ptr(add(root, "cac:AccountingCustomerParty"), "/buyer"), data.buyer, "/buyer", undefined);
  if (data.payee) {
    const p = ptr(add(root, "cac:PayeeParty"), "/payee");
    if (data.payee.identifier) ptr(add(add(p, "cac:PartyIdentification"), "cbc:ID", data.payee.identifier.id, { schemeID: data.payee.identifier.scheme }), "/payee/identifier");
    if (sepaOnPayee) ptr(add(add(p, "cac:PartyIdentification"), "cbc:ID", data.payment!.directDebit!.creditorId!, { schemeID: "SEPA" }), "/payment/directDebit/creditorId");
    ptr(add(add(p, "cac:PartyName"), "cbc:Name", data.payee.name), "/payee/name");
    if (data.payee.legalId) ptr(add(add(p, "cac:PartyLegalEntity"), "cbc:CompanyID", data.payee.legalId.id, { schemeID: data.payee.legalId.scheme }), "/payee/legalId");
  }
  if (data.taxRepresentative) {
    const tr = data.taxRepresentative;
    const p = ptr(add(root, "cac:TaxRepresentativeParty"), "/taxRepresentative");
    ptr(add(add(p, "cac:PartyName"), "cbc:Name", tr.name), "/taxRepresentative/name");
    address(ptr(add(p, "cac:PostalAddress"), "/taxRepresentative/address"), tr.address, "/taxRepresentative/address");
    const ts = ptr(add(p, "cac:PartyTaxScheme"), "/taxRepresentative/vatId");
    add(ts, "cbc:CompanyID", tr.vatId);
    add(add(ts, "cac:TaxScheme"), "cbc:ID", "VAT");
  }
  if (data.delivery) {
    const d = data.delivery;
    const n = ptr(add(root, "cac:Delivery"), "/delivery");
    if (d.date !== undefined) ptr(add(n, "cbc:ActualDeliveryDate", d.date), "/delivery/date");
    if (d.location || d.address) {
      const loc = add(n, "cac:DeliveryLocation");
      if (d.location) ptr(add(loc, "cbc:ID", d.location.id, { schemeID: d.location.scheme }), "/delivery/location");
      if (d.address) address(ptr(add(loc, "cac:Address"), "/delivery/address"), d.address, "/delivery/address");
    }
    if (d.partyName !== undefined) ptr(add(add(add(n, "cac:DeliveryParty"), "cac:PartyName"), "cbc:Name", d.partyName), "/delivery/partyName");
  }

  // Payment means: one per account (at least one); the once-only parts in the first.
  const pay = data.payment;
  if (pay || (isCredit && data.dueDate !== undefined)) {
    const accounts = pay?.accounts && pay.accounts.length > 0 ? pay.accounts : [undefined];
    accounts.forEach((acct, i) => {
      const m = ptr(add(root, "cac:PaymentMeans"), "/payment");
      // A credit note with a due date and no payment means: "1" (instrument not defined) carries BT-9.
      // The means text (BT-82) and a credit note's due date (BT-9) occur once in a document (UBL-SR-45, -46).
      ptr(add(m, "cbc:PaymentMeansCode", pay?.meansCode ?? "1", { name: i === 0 ? pay?.meansText : undefined }), pay ? "/payment/meansCode" : "/dueDate");
      if (i === 0 && isCredit && data.dueDate !== undefined) ptr(add(m, "cbc:PaymentDueDate", data.dueDate), "/dueDate");
      if (i === 0 && pay?.reference !== undefined) ptr(add(m, "cbc:PaymentID", pay.reference), "/payment/reference");
      if (i === 0 && pay?.card) {
        const c = ptr(add(m, "cac:CardAccount"), "/payment/card");
        ptr(add(c, "cbc:PrimaryAccountNumberID", pay.card.last4), "/payment/card/last4");
        add(c, "cbc:NetworkID", pay.card.network ?? "NA");
        if (pay.card.holder !== undefined) ptr(add(c, "cbc:HolderName", pay.card.holder), "/payment/card/holder");
      }
      if (acct) {
        const p = `/payment/accounts/${i}`;
        const a = ptr(add(m, "cac:PayeeFinancialAccount"), p);
        ptr(add(a, "cbc:ID", acct.iban), `${p}/iban`);
        if (acct.name !== undefined) ptr(add(a, "cbc:Name", acct.name), `${p}/name`);
        if (acct.bic !== undefined) ptr(add(add(a, "cac:FinancialInstitutionBranch"), "cbc:ID", acct.bic), `${p}/bic`);
      }
      const dd = pay?.directDebit;
      if (i === 0 && dd && (dd.mandate !== undefined || dd.debitedAccount !== undefined)) {
        const md = ptr(add(m, "cac:PaymentMandate"), "/payment/directDebit");
        if (dd.mandate !== undefined) ptr(add(md, "cbc:ID", dd.mandate), "/payment/directDebit/mandate");
        if (dd.debitedAccount !== undefined) ptr(add(add(md, "cac:PayerFinancialAccount"), "cbc:ID", dd.debitedAccount), "/payment/directDebit/debitedAccount");
      }
    });
  }
  if (data.paymentTerms !== undefined) ptr(add(add(root, "cac:PaymentTerms"), "cbc:Note", data.paymentTerms), "/paymentTerms");

  // Document level allowances and charges.
  const docAc = (list: readonly AllowanceCharge[] | undefined, charge: boolean, amounts: ComputedTotals["allowances"]) =>
    (list ?? []).forEach((ac, i) => {
      const p = `/${charge ? "charges" : "allowances"}/${i}`;
      const n = ptr(add(root, "cac:AllowanceCharge"), p);
      allowanceCharge(n, ac, charge, money(amounts[i]!), p);
      const tc = ptr(add(n, "cac:TaxCategory"), `${p}/vat`);
      ptr(add(tc, "cbc:ID", ac.vat.category), `${p}/vat/category`);
      if (ac.vat.rate !== undefined) ptr(add(tc, "cbc:Percent", ac.vat.rate), `${p}/vat/rate`);
      add(add(tc, "cac:TaxScheme"), "cbc:ID", "VAT");
    });
  docAc(data.allowances, false, t.allowances);
  docAc(data.charges, true, t.charges);

  // VAT totals: the breakdown in the invoice currency, then the total in the VAT accounting currency.
  const tt = ptr(add(root, "cac:TaxTotal"), "/lines");
  amt(tt, "cbc:TaxAmount", money(t.vatTotal));
  for (const g of t.vat) {
    const where = exemptPointer(data, g.category, g.firstLine);
    const st = ptr(add(tt, "cac:TaxSubtotal"), where);
    amt(st, "cbc:TaxableAmount", money(g.taxable));
    amt(st, "cbc:TaxAmount", money(g.tax));
    const tc = add(st, "cac:TaxCategory");
    add(tc, "cbc:ID", g.category);
    if (g.rate !== undefined) add(tc, "cbc:Percent", g.rate);
    const ex = data.vatExemptions?.[g.category as keyof NonNullable<InvoiceData["vatExemptions"]>];
    if (ex?.code !== undefined) ptr(add(tc, "cbc:TaxExemptionReasonCode", ex.code), `/vatExemptions/${g.category}/code`);
    if (ex?.reason !== undefined) ptr(add(tc, "cbc:TaxExemptionReason", ex.reason), `/vatExemptions/${g.category}/reason`);
    add(add(tc, "cac:TaxScheme"), "cbc:ID", "VAT");
  }
  if (data.vatAccountingCurrency) {
    const acc = ptr(add(root, "cac:TaxTotal"), "/vatAccountingCurrency");
    add(acc, "cbc:TaxAmount", money(t.vatTotalAccounting!), { currencyID: data.vatAccountingCurrency.code });
  }

  const lmt = ptr(add(root, "cac:LegalMonetaryTotal"), "/lines");
  amt(lmt, "cbc:LineExtensionAmount", money(t.lineTotal));
  amt(lmt, "cbc:TaxExclusiveAmount", money(t.taxExclusive));
  amt(lmt, "cbc:TaxInclusiveAmount", money(t.taxInclusive));
  if (data.allowances && data.allowances.length > 0) amt(lmt, "cbc:AllowanceTotalAmount", money(t.allowanceTotal), "/allowances");
  if (data.charges && data.charges.length > 0) amt(lmt, "cbc:ChargeTotalAmount", money(t.chargeTotal), "/charges");
  if (t.paid !== null) amt(lmt, "cbc:PrepaidAmount", money(t.paid), "/paidAmount");
  if (t.rounding !== null) amt(lmt, "cbc:PayableRoundingAmount", money(t.rounding), "/roundingAmount");
  amt(lmt, "cbc:PayableAmount", money(t.payable));

  const exact = data.lines.length >= EXACT_CHILDREN_FROM;
  data.lines.forEach((line, i) => {
    writeLine(root, line, i, t, isCredit, cur, ptr);
    if (exact) exactChildren(root.children[root.children.length - 1]!);
  });

  const { text, bytes } = serialise(root);
  let xml = text;
  return {
    kind,
    // The submit path sends and hashes the bytes and never reads the text: a large document's is made only when asked for.
    get xml() {
      return (xml ??= bytes.toString("utf8"));
    },
    bytes,
    root,
    pointerOf: (n) => (n as Node).pointer,
    totals: t,
  };

  function party(wrapper: Node, p: InvoiceData["seller"], at: string, sepa: string | undefined): void {
    const n = add(wrapper, "cac:Party");
    // Always there in data parsed with the schema; absent (or read as "") only in data read from another syntax
    // (options.asWritten), whose party then has no EndpointID, as the sender wrote it (the Peppol rules say it is missing).
    if ((p.endpoint as InvoiceData["seller"]["endpoint"] | undefined) && !(options.asWritten && p.endpoint.id === "")) ptr(add(n, "cbc:EndpointID", p.endpoint.id, { schemeID: p.endpoint.scheme }), `${at}/endpoint`);
    (p.identifiers ?? []).forEach((id, i) => ptr(add(add(n, "cac:PartyIdentification"), "cbc:ID", id.id, { schemeID: id.scheme }), `${at}/identifiers/${i}`));
    if (sepa !== undefined) ptr(add(add(n, "cac:PartyIdentification"), "cbc:ID", sepa, { schemeID: "SEPA" }), "/payment/directDebit/creditorId");
    if (p.tradingName !== undefined) ptr(add(add(n, "cac:PartyName"), "cbc:Name", p.tradingName), `${at}/tradingName`);
    if (p.address as InvoiceAddress | undefined) address(ptr(add(n, "cac:PostalAddress"), `${at}/address`), p.address, `${at}/address`);
    if (p.vatId !== undefined) {
      const ts = ptr(add(n, "cac:PartyTaxScheme"), `${at}/vatId`);
      add(ts, "cbc:CompanyID", p.vatId);
      add(add(ts, "cac:TaxScheme"), "cbc:ID", "VAT");
    }
    if (p.taxRegistrationId !== undefined) {
      const ts = ptr(add(n, "cac:PartyTaxScheme"), `${at}/taxRegistrationId`);
      add(ts, "cbc:CompanyID", p.taxRegistrationId);
      add(add(ts, "cac:TaxScheme"), "cbc:ID", "TAX");
    }
    const le = ptr(add(n, "cac:PartyLegalEntity"), at);
    ptr(add(le, "cbc:RegistrationName", p.name), `${at}/name`);
    if (p.legalId) ptr(add(le, "cbc:CompanyID", p.legalId.id, { schemeID: p.legalId.scheme }), `${at}/legalId`);
    if (p.legalInfo !== undefined) ptr(add(le, "cbc:CompanyLegalForm", p.legalInfo), `${at}/legalInfo`);
    if (p.contact) {
      const c = ptr(add(n, "cac:Contact"), `${at}/contact`);
      if (p.contact.name !== undefined) ptr(add(c, "cbc:Name", p.contact.name), `${at}/contact/name`);
      if (p.contact.phone !== undefined) ptr(add(c, "cbc:Telephone", p.contact.phone), `${at}/contact/phone`);
      if (p.contact.email !== undefined) ptr(add(c, "cbc:ElectronicMail", p.contact.email), `${at}/contact/email`);
    }
  }

  function address(n: Node, a: InvoiceAddress, at: string): void {
    const lines = a.lines ?? [];
    if (lines[0] !== undefined) ptr(add(n, "cbc:StreetName", lines[0]), `${at}/lines/0`);
    if (lines[1] !== undefined) ptr(add(n, "cbc:AdditionalStreetName", lines[1]), `${at}/lines/1`);
    if (a.city !== undefined) ptr(add(n, "cbc:CityName", a.city), `${at}/city`);
    if (a.postalCode !== undefined) ptr(add(n, "cbc:PostalZone", a.postalCode), `${at}/postalCode`);
    if (a.subdivision !== undefined) ptr(add(n, "cbc:CountrySubentity", a.subdivision), `${at}/subdivision`);
    if (lines[2] !== undefined) ptr(add(add(n, "cac:AddressLine"), "cbc:Line", lines[2]), `${at}/lines/2`);
    if (a.country as string | undefined) ptr(add(add(n, "cac:Country"), "cbc:IdentificationCode", a.country), `${at}/country`);
  }

  function allowanceCharge(n: Node, ac: LineAllowanceCharge, charge: boolean, amount: string, p: string): void {
    add(n, "cbc:ChargeIndicator", charge ? "true" : "false");
    if (ac.reasonCode !== undefined) ptr(add(n, "cbc:AllowanceChargeReasonCode", ac.reasonCode), `${p}/reasonCode`);
    if (ac.reason !== undefined) ptr(add(n, "cbc:AllowanceChargeReason", ac.reason), `${p}/reason`);
    if (ac.percent !== undefined) ptr(add(n, "cbc:MultiplierFactorNumeric", ac.percent), `${p}/percent`);
    amt(n, "cbc:Amount", amount, ac.amount !== undefined ? `${p}/amount` : p);
    if (ac.baseAmount !== undefined) amt(n, "cbc:BaseAmount", money(new Big(ac.baseAmount)), `${p}/baseAmount`);
  }

  function writeLine(parent: Node, line: InvoiceLine, i: number, totals: ComputedTotals, credit: boolean, currency: string, bind: typeof ptr): void {
    const p = `/lines/${i}`;
    const c = totals.lines[i]!;
    const n = bind(add(parent, credit ? "cac:CreditNoteLine" : "cac:InvoiceLine"), p);
    bind(add(n, "cbc:ID", line.id), `${p}/id`);
    if (line.note !== undefined) bind(add(n, "cbc:Note", line.note), `${p}/note`);
    bind(add(n, credit ? "cbc:CreditedQuantity" : "cbc:InvoicedQuantity", line.quantity, { unitCode: line.unitCode }), `${p}/quantity`);
    add(n, "cbc:LineExtensionAmount", money(c.net), { currencyID: currency });
    if (line.accountingCost !== undefined) bind(add(n, "cbc:AccountingCost", line.accountingCost), `${p}/accountingCost`);
    if (line.period) {
      const pe = bind(add(n, "cac:InvoicePeriod"), `${p}/period`);
      if (line.period.start !== undefined) bind(add(pe, "cbc:StartDate", line.period.start), `${p}/period/start`);
      if (line.period.end !== undefined) bind(add(pe, "cbc:EndDate", line.period.end), `${p}/period/end`);
    }
    if (line.orderLineReference !== undefined) bind(add(add(n, "cac:OrderLineReference"), "cbc:LineID", line.orderLineReference), `${p}/orderLineReference`);
    if (line.objectId) {
      const r = bind(add(n, "cac:DocumentReference"), `${p}/objectId`);
      add(r, "cbc:ID", line.objectId.id, { schemeID: line.objectId.scheme });
      add(r, "cbc:DocumentTypeCode", "130");
    }
    (line.allowances ?? []).forEach((ac, k) => allowanceCharge(bind(add(n, "cac:AllowanceCharge"), `${p}/allowances/${k}`), ac, false, money(c.allowances[k]!), `${p}/allowances/${k}`));
    (line.charges ?? []).forEach((ac, k) => allowanceCharge(bind(add(n, "cac:AllowanceCharge"), `${p}/charges/${k}`), ac, true, money(c.charges[k]!), `${p}/charges/${k}`));
    const item = bind(add(n, "cac:Item"), p);
    if (line.description !== undefined) bind(add(item, "cbc:Description", line.description), `${p}/description`);
    bind(add(item, "cbc:Name", line.name), `${p}/name`);
    if (line.buyerItemId !== undefined) bind(add(add(item, "cac:BuyersItemIdentification"), "cbc:ID", line.buyerItemId), `${p}/buyerItemId`);
    if (line.sellerItemId !== undefined) bind(add(add(item, "cac:SellersItemIdentification"), "cbc:ID", line.sellerItemId), `${p}/sellerItemId`);
    if (line.standardItemId) bind(add(add(item, "cac:StandardItemIdentification"), "cbc:ID", line.standardItemId.id, { schemeID: line.standardItemId.scheme }), `${p}/standardItemId`);
    if (line.originCountry !== undefined) bind(add(add(item, "cac:OriginCountry"), "cbc:IdentificationCode", line.originCountry), `${p}/originCountry`);
    (line.classifications ?? []).forEach((cl, k) =>
      bind(add(add(item, "cac:CommodityClassification"), "cbc:ItemClassificationCode", cl.code, { listID: cl.listId, listVersionID: cl.listVersion }), `${p}/classifications/${k}`),
    );
    const tc = bind(add(item, "cac:ClassifiedTaxCategory"), `${p}/vat`);
    bind(add(tc, "cbc:ID", line.vat.category), `${p}/vat/category`);
    if (line.vat.rate !== undefined) bind(add(tc, "cbc:Percent", line.vat.rate), `${p}/vat/rate`);
    add(add(tc, "cac:TaxScheme"), "cbc:ID", "VAT");
    (line.attributes ?? []).forEach((a, k) => {
      const ap = bind(add(item, "cac:AdditionalItemProperty"), `${p}/attributes/${k}`);
      bind(add(ap, "cbc:Name", a.name), `${p}/attributes/${k}/name`);
      bind(add(ap, "cbc:Value", a.value), `${p}/attributes/${k}/value`);
    });
    const price = bind(add(n, "cac:Price"), `${p}/price`);
    add(price, "cbc:PriceAmount", line.price, { currencyID: currency });
    if (line.priceBaseQuantity !== undefined)
      bind(add(price, "cbc:BaseQuantity", line.priceBaseQuantity, { unitCode: line.priceBaseUnitCode ?? line.unitCode }), `${p}/priceBaseQuantity`);
    if (line.grossPrice !== undefined) {
      const ac = bind(add(price, "cac:AllowanceCharge"), `${p}/grossPrice`);
      add(ac, "cbc:ChargeIndicator", "false");
      add(ac, "cbc:Amount", c.priceDiscount!.toFixed(), { currencyID: currency });
      add(ac, "cbc:BaseAmount", line.grossPrice, { currencyID: currency });
    }
  }
}

/** Notes as Peppol allows them: several only when seller and buyer are both in Germany, else joined into one. */
export function writtenNotes(data: InvoiceData): string[] {
  const notes = data.notes ?? [];
  // One note is Peppol's rule (PEPPOL-EN16931-R002, but for a German seller and buyer); EN 16931 and XRechnung allow several.
  if (notes.length <= 1 || (data.specification ?? "peppol") !== "peppol" || (data.seller.address.country === "DE" && data.buyer.address.country === "DE")) return notes;
  return [notes.join("\n")];
}

/** Where a VAT breakdown's problems come from: its exemption reason, or the first line with that category. */
function exemptPointer(data: InvoiceData, category: VatCategory, firstLine: number | null): string {
  if (["E", "AE", "K", "G", "O"].includes(category)) return `/vatExemptions/${category}`;
  return firstLine === null ? "/lines" : `/lines/${firstLine}/vat`;
}

// ---------- serialising ----------

const ESC: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\r": "&#13;", "\t": "&#9;", "\n": "&#10;" };
const escText = (s: string) => (/[&<>\r]/.test(s) ? s.replace(/[&<>\r]/g, (c) => ESC[c]!) : s);
const escAttr = (s: string) => (/[&<>"\r\n\t]/.test(s) ? s.replace(/[&<>"\r\n\t]/g, (c) => ESC[c]!) : s);

function serialise(root: Node): { text: string | null; bytes: Buffer } {
  let out = `<?xml version="1.0" encoding="UTF-8"?>\n<${root.name} xmlns="${root.ns}" xmlns:cac="${NS.cac}" xmlns:cbc="${NS.cbc}">`;
  // A large document is written in pieces of about 64 KiB, each encoded as it is done: the rope of one piece
  // dies young, where that of a whole 10,000-line document would live (and be copied) until the end. The
  // pieces joined are the document's bytes (not encoded a second time); its text is decoded from them if read.
  const pieces: Buffer[] = [];
  for (const c of root.children) {
    out = write(c, out);
    if (out.length > PIECE) {
      pieces.push(Buffer.from(out, "utf8"));
      out = "";
    }
  }
  out += `</${root.name}>\n`;
  if (pieces.length === 0) return { text: out, bytes: Buffer.from(out, "utf8") };
  pieces.push(Buffer.from(out, "utf8"));
  return { text: null, bytes: Buffer.concat(pieces) };
}
const PIECE = 64 * 1024;

// Compact: no whitespace between elements, so the bytes read back to exactly this model. One string
// grown with += (V8 keeps it as a rope and flattens it once), no array of parts.
function write(n: Node, out: string): string {
  const tags = tagsOf(n.qname);
  out += tags[0];
  if (n.attrs !== NO_ATTRS) for (const k in n.attrs) out += ` ${k}="${escAttr(n.attrs[k]!)}"`;
  out += ">";
  if (n.children.length === 0) return out + escText(n.text) + tags[1];
  for (const c of n.children) out = write(c, out);
  return out + tags[1];
}

/** The opening (without its ">") and closing tag of a qname, made once. */
const TAGS = new Map<string, [string, string]>();
function tagsOf(qname: string): [string, string] {
  let t = TAGS.get(qname);
  if (!t) TAGS.set(qname, (t = [`<${qname}`, `</${qname}>`]));
  return t;
}
