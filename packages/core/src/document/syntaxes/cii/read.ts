// invoiceDataOfCii: a UN/CEFACT CII D16B CrossIndustryInvoice (EN 16931 CII, XRechnung CII, Factur-X / ZUGFeRD 2.x of
// any profile: what is there is read) to InvoiceData, by the EN 16931-3-3 syntax binding, with the UBL reader's rules
// (document/invoice-data/read.ts): values as written (amounts and totals never recomputed), text tidied with xmlTrim,
// payment terms with termsText, absent stays absent, nothing validated (the rule sets judge the document).
import { termsText, type InvoiceData, type InvoiceLine, type VatCategory } from "../../../domain/invoice-data.js";
import { child, children, first, select, stringValue, xmlTrim, type DocumentNode } from "../../model.js";
import { specificationOf } from "../../invoice-data/build.js";
import { at, attr, compact, idOf, nonEmpty, val } from "../../invoice-data/read-values.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type Exemptions = NonNullable<Mutable<InvoiceData["vatExemptions"]>>;

/** The object, or undefined when compact left it without a field (an element with nothing EN 16931 reads in it). */
function someOf<T extends object>(o: T): T | undefined {
  const c = compact(o);
  return Object.keys(c).length === 0 ? undefined : c;
}

/**
 * A CII date: the date element (`ram:IssueDateTime`, `ram:TaxPointDate`, ...) holds one `udt:DateTimeString`,
 * `qdt:DateTimeString` or `udt:DateString`. Format 102 (CCYYMMDD) becomes YYYY-MM-DD; any other format, or a 102
 * value that is not eight digits, stays as written (the rules report it; the reader does not guess).
 */
export function ciiDate(n: DocumentNode | null | undefined): string | undefined {
  if (!n) return undefined;
  const s = child(n, "udt:DateTimeString") ?? child(n, "qdt:DateTimeString") ?? child(n, "udt:DateString") ?? child(n, "qdt:DateString");
  const text = val(s);
  if (text === undefined) return undefined;
  if (attr(s, "format") === "102" && /^\d{8}$/.test(text)) return `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}`;
  return text;
}

/**
 * BT-8 is written with UNCL 2005 in UBL and InvoiceData (3 invoice date, 35 delivery date, 432 payment date) and with
 * UNCL 2475 in CII (5, 29, 72: EN 16931-3-3). Another code stays as written.
 */
const VAT_POINT_CODES: ReadonlyMap<string, "3" | "35" | "432"> = new Map([
  ["5", "3"],
  ["29", "35"],
  ["72", "432"],
]);

/** Invoice note subject code (BT-21) as UBL writes it: `#code#` before the note's text, as the UBL reader keeps it. */
function noteOf(n: DocumentNode): string | undefined {
  const content = children(n, "ram:Content")
    .map((c) => val(c))
    .filter((s): s is string => s !== undefined)
    .join("\n");
  if (content === "") return undefined;
  const subject = at(n, "ram:SubjectCode");
  return subject === undefined ? content : `#${subject}#${content}`;
}

/**
 * BT-20: the payment terms' descriptions. EN 16931 CII has one (CII-SR-452, CII-SR-453); Factur-X EXTENDED may have
 * several terms, each with a description: they are kept, one a line, in document order (InvoiceData's paymentTerms is
 * "one term a line"). Each is tidied as the schema tidies the field: one closing line break stays (DE-R-018's syntax).
 */
function paymentTermsOf(terms: DocumentNode[]): string | undefined {
  const texts = terms.flatMap((t) => children(t, "ram:Description")).map((d) => val(d, termsText)).filter((s): s is string => s !== undefined);
  if (texts.length === 0) return undefined;
  return texts.map((s, i) => (i < texts.length - 1 && s.endsWith("\n") ? s.slice(0, -1) : s)).join("\n");
}

/** The first of `nodes` whose `ram:TypeCode` is `code`. */
const byTypeCode = (nodes: DocumentNode[], code: string) => nodes.find((d) => at(d, "ram:TypeCode") === code);

/**
 * InvoiceData from the model of a CII CrossIndustryInvoice (the root `rsm:CrossIndustryInvoice`). Every value is
 * read as written; a missing element gives an absent field (or "" for a field the schema requires), never an
 * exception. BT-24 (the specification identifier) has no field in InvoiceData yet and is not read.
 *
 * @example const data = invoiceDataOfCii(parseXml(xml).root); console.log(data.totals?.payable)
 */
export function invoiceDataOfCii(root: DocumentNode): InvoiceData {
  const context = child(root, "rsm:ExchangedDocumentContext");
  const doc = child(root, "rsm:ExchangedDocument");
  const tx = child(root, "rsm:SupplyChainTradeTransaction");
  const agreement = child(tx, "ram:ApplicableHeaderTradeAgreement");
  const delivery = child(tx, "ram:ApplicableHeaderTradeDelivery");
  const settlement = child(tx, "ram:ApplicableHeaderTradeSettlement");
  const sums = child(settlement, "ram:SpecifiedTradeSettlementHeaderMonetarySummation");

  const currency = at(settlement, "ram:InvoiceCurrencyCode") ?? "";
  const taxCurrency = at(settlement, "ram:TaxCurrencyCode");
  const taxTotals = children(sums, "ram:TaxTotalAmount");
  // BT-110 is the TaxTotalAmount in the invoice currency; one without currencyID counts as that only when it is the
  // only one and there is no VAT accounting currency (BT-6) it could be in.
  const vatTotalNode =
    taxTotals.find((t) => attr(t, "currencyID") === currency) ??
    (taxTotals.length === 1 && taxCurrency === undefined && attr(taxTotals[0], "currencyID") === undefined ? taxTotals[0] : undefined);
  const accountingTotalNode = taxCurrency !== undefined ? taxTotals.find((t) => t !== vatTotalNode && attr(t, "currencyID") === taxCurrency) : undefined;

  const adrs = children(agreement, "ram:AdditionalReferencedDocument");
  const objectRef = byTypeCode(adrs, "130");
  const tenderRef = byTypeCode(adrs, "50");
  const terms = children(settlement, "ram:SpecifiedTradePaymentTerms");
  const firstTerm = (path: string) => terms.map((t) => first(t, path)).find((n) => n !== null) ?? null;

  const taxes = children(settlement, "ram:ApplicableTradeTax");
  const exemptions: Exemptions = {};
  const breakdown = taxes.map((t) => {
    const category = (at(t, "ram:CategoryCode") ?? "") as VatCategory;
    const reason = at(t, "ram:ExemptionReason");
    const code = at(t, "ram:ExemptionReasonCode");
    if ((reason !== undefined || code !== undefined) && ["E", "AE", "K", "G", "O"].includes(category) && !(category in exemptions))
      (exemptions as Record<string, unknown>)[category] = compact({ reason, code });
    return compact({
      category,
      rate: at(t, "ram:RateApplicablePercent"),
      taxableAmount: at(t, "ram:BasisAmount") ?? "",
      taxAmount: at(t, "ram:CalculatedAmount") ?? "",
    });
  });
  const taxPointDate = taxes.map((t) => ciiDate(child(t, "ram:TaxPointDate"))).find((d) => d !== undefined);
  const dueDateTypeCode = taxes.map((t) => at(t, "ram:DueDateTypeCode")).find((c) => c !== undefined);

  const periodNode = child(settlement, "ram:BillingSpecifiedPeriod");
  const period = someOf({
    start: ciiDate(child(periodNode, "ram:StartDateTime")),
    end: ciiDate(child(periodNode, "ram:EndDateTime")),
    descriptionCode: dueDateTypeCode === undefined ? undefined : (VAT_POINT_CODES.get(dueDateTypeCode) ?? (dueDateTypeCode as "3")),
  });

  const payment = (() => {
    const means = children(settlement, "ram:SpecifiedTradeSettlementPaymentMeans");
    if (means.length === 0) return undefined;
    const firstWith = (path: string) => means.map((m) => first(m, path)).find((n) => n !== null) ?? null;
    const accounts = means.flatMap((m) => {
      const bic = at(m, "ram:PayeeSpecifiedCreditorFinancialInstitution/ram:BICID");
      return children(m, "ram:PayeePartyCreditorFinancialAccount")
        .map((a) => ({ a, iban: at(a, "ram:IBANID") ?? at(a, "ram:ProprietaryID") }))
        .filter((x) => x.iban !== undefined)
        .map(({ a, iban }) => compact({ iban: iban!, name: at(a, "ram:AccountName"), bic }));
    });
    const card = firstWith("ram:ApplicableTradeSettlementFinancialCard");
    const directDebit = someOf({
      mandate: val(firstTerm("ram:DirectDebitMandateID")),
      creditorId: at(settlement, "ram:CreditorReferenceID"),
      debitedAccount: val(firstWith("ram:PayerPartyDebtorFinancialAccount/ram:IBANID")),
    });
    return compact({
      meansCode: at(means[0], "ram:TypeCode") ?? "",
      meansText: val(firstWith("ram:Information")),
      reference: at(settlement, "ram:PaymentReference"),
      accounts: nonEmpty(accounts),
      card: card ? compact({ last4: at(card, "ram:ID") ?? "", holder: at(card, "ram:CardholderName") }) : undefined,
      directDebit,
    });
  })();

  const accountingCurrency = taxCurrency !== undefined ? { code: taxCurrency, vatTotal: val(accountingTotalNode) ?? "0" } : undefined;
  const shipTo = child(delivery, "ram:ShipToTradeParty");
  const payeeNode = child(settlement, "ram:PayeeTradeParty");
  const taxRep = child(agreement, "ram:SellerTaxRepresentativeTradeParty");
  const docAc = (charge: boolean) =>
    allowancesCharges(settlement, charge).map((n) => compact({ ...allowanceCharge(n), vat: vat(child(n, "ram:CategoryTradeTax")) }));

  const data = compact({
    number: at(doc, "ram:ID") ?? "",
    issueDate: ciiDate(child(doc, "ram:IssueDateTime")) ?? "",
    typeCode: at(doc, "ram:TypeCode"),
    currency,
    profileId: at(context, "ram:BusinessProcessSpecifiedDocumentContextParameter/ram:ID"),
    // BT-24 as the specification InvoiceData names, as the UBL reader reads it (absent for a guideline id it has no name for).
    specification: specificationOf(at(context, "ram:GuidelineSpecifiedDocumentContextParameter/ram:ID")),
    vatAccountingCurrency: accountingCurrency,
    taxPointDate,
    dueDate: ciiDate(firstTerm("ram:DueDateDateTime")),
    buyerReference: at(agreement, "ram:BuyerReference"),
    projectReference: at(agreement, "ram:SpecifiedProcuringProject/ram:ID"),
    contractReference: at(agreement, "ram:ContractReferencedDocument/ram:IssuerAssignedID"),
    orderReference: at(agreement, "ram:BuyerOrderReferencedDocument/ram:IssuerAssignedID"),
    salesOrderReference: at(agreement, "ram:SellerOrderReferencedDocument/ram:IssuerAssignedID"),
    receivingAdviceReference: at(delivery, "ram:ReceivingAdviceReferencedDocument/ram:IssuerAssignedID"),
    despatchAdviceReference: at(delivery, "ram:DespatchAdviceReferencedDocument/ram:IssuerAssignedID"),
    tenderReference: at(tenderRef, "ram:IssuerAssignedID"),
    objectId: objectRef ? referenceId(objectRef) : undefined,
    accountingCost: at(settlement, "ram:ReceivableSpecifiedTradeAccountingAccount/ram:ID"),
    paymentTerms: paymentTermsOf(terms),
    notes: nonEmpty(children(doc, "ram:IncludedNote").map(noteOf).filter((s): s is string => s !== undefined)),
    period,
    precedingInvoices: nonEmpty(
      children(settlement, "ram:InvoiceReferencedDocument").map((r) =>
        compact({ number: at(r, "ram:IssuerAssignedID") ?? "", issueDate: ciiDate(child(r, "ram:FormattedIssueDateTime")) }),
      ),
    ),
    seller: party(child(agreement, "ram:SellerTradeParty"), true),
    buyer: party(child(agreement, "ram:BuyerTradeParty"), false),
    payee: payeeNode
      ? compact({
          name: at(payeeNode, "ram:Name") ?? "",
          identifier: partyIds(payeeNode)[0],
          legalId: idOf(first(payeeNode, "ram:SpecifiedLegalOrganization/ram:ID")),
        })
      : undefined,
    taxRepresentative: taxRep
      ? { name: at(taxRep, "ram:Name") ?? "", vatId: vatIdOf(taxRep) ?? "", address: address(child(taxRep, "ram:PostalTradeAddress")) }
      : undefined,
    delivery: someOf({
      partyName: at(shipTo, "ram:Name"),
      location: partyIds(shipTo)[0],
      date: ciiDate(first(delivery, "ram:ActualDeliverySupplyChainEvent/ram:OccurrenceDateTime")),
      address: child(shipTo, "ram:PostalTradeAddress") ? address(child(shipTo, "ram:PostalTradeAddress")) : undefined,
    }),
    payment,
    allowances: nonEmpty(docAc(false)),
    charges: nonEmpty(docAc(true)),
    lines: children(tx, "ram:IncludedSupplyChainTradeLineItem").map(line),
    vatExemptions: Object.keys(exemptions).length > 0 ? exemptions : undefined,
    paidAmount: at(sums, "ram:TotalPrepaidAmount"),
    roundingAmount: at(sums, "ram:RoundingAmount"),
    attachments: nonEmpty(
      adrs
        .filter((a) => at(a, "ram:TypeCode") === "916")
        .map((a) => {
          const bin = child(a, "ram:AttachmentBinaryObject");
          return compact({
            id: at(a, "ram:IssuerAssignedID") ?? "",
            description: at(a, "ram:Name"),
            url: at(a, "ram:URIID"),
            filename: attr(bin, "filename"),
            mimeCode: attr(bin, "mimeCode") as NonNullable<InvoiceData["attachments"]>[number]["mimeCode"],
            content: bin ? stringValue(bin).replace(/[ \t\r\n]+/g, "") || undefined : undefined,
          });
        }),
    ),
    totals: compact({
      lineTotal: at(sums, "ram:LineTotalAmount"),
      allowanceTotal: at(sums, "ram:AllowanceTotalAmount"),
      chargeTotal: at(sums, "ram:ChargeTotalAmount"),
      taxExclusive: at(sums, "ram:TaxBasisTotalAmount"),
      vatTotal: val(vatTotalNode),
      taxInclusive: at(sums, "ram:GrandTotalAmount"),
      payable: at(sums, "ram:DuePayableAmount"),
      vatBreakdown: nonEmpty(breakdown),
    }),
  });
  return data as InvoiceData;
}

/** The allowances (false) or charges (true) of a settlement (`ram:ChargeIndicator/udt:Indicator`, "true" or "1"). */
function allowancesCharges(settlement: DocumentNode | null, charge: boolean): DocumentNode[] {
  return children(settlement, "ram:SpecifiedTradeAllowanceCharge").filter((n) => {
    const v = at(n, "ram:ChargeIndicator/udt:Indicator");
    return (v === "true" || v === "1") === charge;
  });
}

function allowanceCharge(n: DocumentNode) {
  return compact({
    amount: at(n, "ram:ActualAmount"),
    percent: at(n, "ram:CalculationPercent"),
    baseAmount: at(n, "ram:BasisAmount"),
    reason: at(n, "ram:Reason"),
    reasonCode: at(n, "ram:ReasonCode"),
  });
}

function vat(tax: DocumentNode | null): { category: VatCategory; rate?: string } {
  return compact({ category: (at(tax, "ram:CategoryCode") ?? "") as VatCategory, rate: at(tax, "ram:RateApplicablePercent") });
}

/** BT-18, BT-128: a referenced document's IssuerAssignedID with its ReferenceTypeCode (BT-18-1, BT-128-1) as scheme. */
function referenceId(d: DocumentNode) {
  const id = at(d, "ram:IssuerAssignedID");
  return id === undefined ? undefined : compact({ id, scheme: at(d, "ram:ReferenceTypeCode") });
}

/** A party's identifiers (BT-29, BT-46, BT-60, BT-71): every `ram:ID` (no scheme), then every `ram:GlobalID` (with its schemeID). */
function partyIds(p: DocumentNode | null) {
  return [...children(p, "ram:ID"), ...children(p, "ram:GlobalID")].map(idOf).filter((x) => x !== undefined);
}

const taxRegistration = (p: DocumentNode | null, scheme: string) =>
  val(children(p, "ram:SpecifiedTaxRegistration").map((r) => child(r, "ram:ID")).find((id) => id !== null && attr(id, "schemeID") === scheme));
const vatIdOf = (p: DocumentNode | null) => taxRegistration(p, "VA");

function party(p: DocumentNode | null, seller: boolean): InvoiceData["seller"] {
  const legal = child(p, "ram:SpecifiedLegalOrganization");
  const contact = child(p, "ram:DefinedTradeContact");
  const endpoint = first(p, "ram:URIUniversalCommunication/ram:URIID");
  return compact({
    name: at(p, "ram:Name") ?? "",
    tradingName: at(legal, "ram:TradingBusinessName"),
    identifiers: nonEmpty(partyIds(p)),
    vatId: vatIdOf(p),
    taxRegistrationId: seller ? taxRegistration(p, "FC") : undefined,
    legalId: idOf(child(legal, "ram:ID")),
    legalInfo: seller ? at(p, "ram:Description") : undefined,
    endpoint: { scheme: attr(endpoint, "schemeID") ?? "", id: val(endpoint) ?? "" },
    address: address(child(p, "ram:PostalTradeAddress")),
    contact: contact
      ? someOf({
          name: at(contact, "ram:PersonName") ?? at(contact, "ram:DepartmentName"),
          phone: at(contact, "ram:TelephoneUniversalCommunication/ram:CompleteNumber"),
          email: at(contact, "ram:EmailURIUniversalCommunication/ram:URIID"),
        })
      : undefined,
  });
}

function address(a: DocumentNode | null): InvoiceData["seller"]["address"] {
  const lines = [at(a, "ram:LineOne"), at(a, "ram:LineTwo"), at(a, "ram:LineThree")].filter((l): l is string => l !== undefined);
  return compact({
    lines: nonEmpty(lines),
    city: at(a, "ram:CityName"),
    postalCode: at(a, "ram:PostcodeCode"),
    subdivision: at(a, "ram:CountrySubDivisionName"),
    country: at(a, "ram:CountryID") ?? "",
  });
}

function line(l: DocumentNode): InvoiceLine {
  const lineDoc = child(l, "ram:AssociatedDocumentLineDocument");
  const product = child(l, "ram:SpecifiedTradeProduct");
  const agreement = child(l, "ram:SpecifiedLineTradeAgreement");
  const settlement = child(l, "ram:SpecifiedLineTradeSettlement");
  const qty = first(l, "ram:SpecifiedLineTradeDelivery/ram:BilledQuantity");
  const net = child(agreement, "ram:NetPriceProductTradePrice");
  const gross = child(agreement, "ram:GrossPriceProductTradePrice");
  // BT-149/150: the net price's basis quantity; the gross price's when the net price has none (they must agree).
  const base = child(net, "ram:BasisQuantity") ?? child(gross, "ram:BasisQuantity");
  const unitCode = attr(qty, "unitCode") ?? "";
  const baseUnit = attr(base, "unitCode");
  const objectRef = byTypeCode(children(settlement, "ram:AdditionalReferencedDocument"), "130");
  const periodNode = child(settlement, "ram:BillingSpecifiedPeriod");
  const std = child(product, "ram:GlobalID");
  return compact({
    id: at(lineDoc, "ram:LineID") ?? "",
    note: (() => {
      const n = child(lineDoc, "ram:IncludedNote");
      return n ? noteOf(n) : undefined;
    })(),
    objectId: objectRef ? referenceId(objectRef) : undefined,
    quantity: val(qty) ?? "",
    unitCode,
    netAmount: at(settlement, "ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount"),
    orderLineReference: at(agreement, "ram:BuyerOrderReferencedDocument/ram:LineID"),
    accountingCost: at(settlement, "ram:ReceivableSpecifiedTradeAccountingAccount/ram:ID"),
    period: periodNode ? someOf({ start: ciiDate(child(periodNode, "ram:StartDateTime")), end: ciiDate(child(periodNode, "ram:EndDateTime")) }) : undefined,
    allowances: nonEmpty(allowancesCharges(settlement, false).map(allowanceCharge)),
    charges: nonEmpty(allowancesCharges(settlement, true).map(allowanceCharge)),
    price: at(net, "ram:ChargeAmount") ?? "",
    grossPrice: at(gross, "ram:ChargeAmount"),
    priceBaseQuantity: val(base),
    priceBaseUnitCode: baseUnit !== undefined && baseUnit !== unitCode ? baseUnit : undefined,
    vat: vat(child(settlement, "ram:ApplicableTradeTax")),
    name: at(product, "ram:Name") ?? "",
    description: at(product, "ram:Description"),
    sellerItemId: at(product, "ram:SellerAssignedID"),
    buyerItemId: at(product, "ram:BuyerAssignedID"),
    standardItemId: std && val(std) !== undefined ? { scheme: attr(std, "schemeID") ?? "", id: val(std)! } : undefined,
    classifications: nonEmpty(
      select(product, "ram:DesignatedProductClassification/ram:ClassCode").map((c) =>
        compact({ code: val(c) ?? "", listId: attr(c, "listID") ?? "", listVersion: attr(c, "listVersionID") }),
      ),
    ),
    originCountry: at(product, "ram:OriginTradeCountry/ram:ID"),
    attributes: nonEmpty(
      children(product, "ram:ApplicableProductCharacteristic").map((p) => ({ name: at(p, "ram:Description") ?? "", value: at(p, "ram:Value") ?? "" })),
    ),
  }) as InvoiceLine;
}
