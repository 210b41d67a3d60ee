// writeCii: InvoiceData as an EN 16931 UN/CEFACT CII D16B CrossIndustryInvoice, every element where the official
// EN 16931 to CII mapping puts it and in the order of the D16B (EN 16931 subset) schema. Pure and linear in the lines:
// the document is an array of strings, joined in pieces of a few hundred lines and once at the end.
import type { AllowanceCharge, InvoiceAddress, InvoiceData, InvoiceLine, LineAllowanceCharge } from "../../../domain/invoice-data.js";
import { computeTotals, lineNet, money, type ComputedLine, type ComputedTotals } from "../../../domain/invoice-totals.js";
import { NS } from "../../model.js";
import { CREDIT_NOTE_TYPE_CODES } from "../../invoice-data/normalise.js";
import type { WriteOptions } from "../types.js";

/** BT-24 when the caller names no other specification: EN 16931 itself. */
export const EN16931_GUIDELINE = "urn:cen.eu:en16931:2017";

export interface CiiWriteOptions extends WriteOptions {
  /** The specification identifier (BT-24); by default `urn:cen.eu:en16931:2017`. */
  guidelineId?: string;
}

/**
 * BT-8 (UNCL 2005 in InvoiceData and UBL) as CII writes it (UNTDID 2475, BR-CL-06): invoice date, delivery date,
 * payment date.
 */
export const TAX_POINT_CODE_2475: Readonly<Record<"3" | "35" | "432", string>> = { "3": "5", "35": "29", "432": "72" };

/** The text of the ProcuringProject's Name, which the schema requires beside BT-11 and EN 16931 does not hold. */
export const PROJECT_NAME = "Project reference";

/**
 * An account identifier (BT-84) that has an IBAN's shape goes to `IBANID`, any other to `ProprietaryID`
 * (CII-SR-470 accepts either; EN 16931 asks for an IBAN with SEPA credit transfer).
 */
const IBAN_SHAPE = /^[A-Z]{2}[0-9]{2}[A-Z0-9]{1,30}$/;

/**
 * What of InvoiceData CII D16B cannot hold. The writer leaves it out; `ciiLosses` names it for a given invoice.
 * - BG-3 after the first: the D16B header has at most one `InvoiceReferencedDocument`.
 * - The payment card's network (`payment.card.network`): UBL's cbc:NetworkID, no business term, no place in CII.
 * - A VAT accounting currency (BT-6) equal to the invoice currency: CII's BR-53 refuses it; BT-110 already is the
 *   VAT total in that currency.
 */
export function ciiLosses(data: InvoiceData): string[] {
  const out: string[] = [];
  const preceding = data.precedingInvoices ?? [];
  if (preceding.length > 1) out.push(`/precedingInvoices/1..${preceding.length - 1}: CII D16B holds one preceding invoice reference (InvoiceReferencedDocument 0..1)`);
  if (data.payment?.card?.network !== undefined) out.push("/payment/card/network: CII has no payment card network");
  if (data.vatAccountingCurrency?.code === data.currency)
    out.push("/vatAccountingCurrency: the same as the invoice currency, which CII refuses as BT-6 (BR-53); BT-110 is the VAT total in it");
  return out;
}

/**
 * The invoice or credit note `data` as UTF-8 XML text of an EN 16931 CII D16B `rsm:CrossIndustryInvoice`.
 * Amounts are the ones the data carries, as written (a document read from UBL keeps its own totals, line amounts and
 * VAT breakdown); those it leaves out are computed as the UBL writer computes them (`computeTotals`). What CII cannot
 * hold is left out (see `ciiLosses`). The data is not validated: give it parsed (InvoiceDataSchema) or read.
 *
 * @example const xml = writeCii(InvoiceDataSchema.parse(body), { guidelineId: "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0" });
 */
export function writeCii(data: InvoiceData, options: CiiWriteOptions = {}): string {
  const kind = options.kind ?? (data.typeCode !== undefined && CREDIT_NOTE_TYPE_CODES.includes(data.typeCode) ? "creditNote" : "invoice");
  // Computed once, and only when the data leaves an amount out (a document read from UBL carries them all).
  let computed: ComputedTotals | undefined;
  const t = (): ComputedTotals => (computed ??= computeTotals(data));
  const o: string[] = [];
  const given = data.totals ?? {};

  o.push(`<?xml version="1.0" encoding="UTF-8"?>\n<rsm:CrossIndustryInvoice xmlns:rsm="${NS.rsm}" xmlns:ram="${NS.ram}" xmlns:udt="${NS.udt}" xmlns:qdt="${NS.qdt}">`);

  // Document context: BT-23, BT-24.
  o.push("<rsm:ExchangedDocumentContext>");
  if (data.profileId !== undefined) o.push("<ram:BusinessProcessSpecifiedDocumentContextParameter>", leaf("ram:ID", data.profileId), "</ram:BusinessProcessSpecifiedDocumentContextParameter>");
  o.push("<ram:GuidelineSpecifiedDocumentContextParameter>", leaf("ram:ID", options.guidelineId ?? EN16931_GUIDELINE), "</ram:GuidelineSpecifiedDocumentContextParameter>");
  o.push("</rsm:ExchangedDocumentContext>");

  // The document: BT-1, BT-3, BT-2, BG-1.
  o.push("<rsm:ExchangedDocument>", leaf("ram:ID", data.number), leaf("ram:TypeCode", data.typeCode ?? (kind === "creditNote" ? "381" : "380")), dateTime("ram:IssueDateTime", data.issueDate));
  for (const note of data.notes ?? []) {
    // BT-21 is written in UBL (and so in InvoiceData) as "#code#" before the note's text; CII has ram:SubjectCode.
    const subject = NOTE_SUBJECT.exec(note);
    if (subject) o.push("<ram:IncludedNote>", leaf("ram:Content", note.slice(subject[0].length)), leaf("ram:SubjectCode", subject[1]!), "</ram:IncludedNote>");
    else o.push("<ram:IncludedNote>", leaf("ram:Content", note), "</ram:IncludedNote>");
  }
  o.push("</rsm:ExchangedDocument>");

  o.push("<rsm:SupplyChainTradeTransaction>");
  // Data without totals (a caller's, not a read document's) needs them all: computed once, before the lines use them.
  if (data.totals === undefined) t();
  // The lines' strings are joined a few hundred lines at a time: one flat string per piece instead of hundreds of
  // thousands of small ones that would outlive the young generation until the end (the collector's work would then
  // grow faster than the lines). The pieces are joined once at the end.
  const pieces: string[] = [];
  data.lines.forEach((line, i) => {
    writeLine(line, i);
    if (o.length >= PIECE) {
      pieces.push(o.join(""));
      o.length = 0;
    }
  });

  // Agreement: BT-10, the seller, the buyer, the tax representative, BT-14, BT-13, BT-12, BG-24/BT-17/BT-18, BT-11.
  o.push("<ram:ApplicableHeaderTradeAgreement>");
  if (data.buyerReference !== undefined) o.push(leaf("ram:BuyerReference", data.buyerReference));
  party("ram:SellerTradeParty", data.seller, true);
  party("ram:BuyerTradeParty", data.buyer, false);
  if (data.taxRepresentative) {
    const tr = data.taxRepresentative;
    o.push("<ram:SellerTaxRepresentativeTradeParty>", leaf("ram:Name", tr.name));
    address(tr.address);
    o.push("<ram:SpecifiedTaxRegistration>", leaf("ram:ID", tr.vatId, { schemeID: "VA" }), "</ram:SpecifiedTaxRegistration>", "</ram:SellerTaxRepresentativeTradeParty>");
  }
  if (data.salesOrderReference !== undefined) o.push(referenced("ram:SellerOrderReferencedDocument", data.salesOrderReference));
  if (data.orderReference !== undefined) o.push(referenced("ram:BuyerOrderReferencedDocument", data.orderReference));
  if (data.contractReference !== undefined) o.push(referenced("ram:ContractReferencedDocument", data.contractReference));
  for (const a of data.attachments ?? []) {
    o.push("<ram:AdditionalReferencedDocument>", leaf("ram:IssuerAssignedID", a.id));
    if (a.url !== undefined) o.push(leaf("ram:URIID", a.url));
    o.push(leaf("ram:TypeCode", "916"));
    if (a.description !== undefined) o.push(leaf("ram:Name", a.description));
    if (a.content !== undefined) o.push(leaf("ram:AttachmentBinaryObject", a.content, { mimeCode: a.mimeCode, filename: a.filename }));
    o.push("</ram:AdditionalReferencedDocument>");
  }
  if (data.tenderReference !== undefined) o.push("<ram:AdditionalReferencedDocument>", leaf("ram:IssuerAssignedID", data.tenderReference), leaf("ram:TypeCode", "50"), "</ram:AdditionalReferencedDocument>");
  if (data.objectId) o.push(objectReference(data.objectId));
  if (data.projectReference !== undefined) o.push("<ram:SpecifiedProcuringProject>", leaf("ram:ID", data.projectReference), leaf("ram:Name", PROJECT_NAME), "</ram:SpecifiedProcuringProject>");
  o.push("</ram:ApplicableHeaderTradeAgreement>");

  // Delivery (required, even empty): BG-13, BT-72, BT-16, BT-15.
  o.push("<ram:ApplicableHeaderTradeDelivery>");
  const d = data.delivery;
  if (d && (d.partyName !== undefined || d.location || d.address)) {
    o.push("<ram:ShipToTradeParty>");
    if (d.location) o.push(identifier(d.location));
    if (d.partyName !== undefined) o.push(leaf("ram:Name", d.partyName));
    if (d.address) address(d.address);
    o.push("</ram:ShipToTradeParty>");
  }
  if (d?.date !== undefined) o.push("<ram:ActualDeliverySupplyChainEvent>", dateTime("ram:OccurrenceDateTime", d.date), "</ram:ActualDeliverySupplyChainEvent>");
  if (data.despatchAdviceReference !== undefined) o.push(referenced("ram:DespatchAdviceReferencedDocument", data.despatchAdviceReference));
  if (data.receivingAdviceReference !== undefined) o.push(referenced("ram:ReceivingAdviceReferencedDocument", data.receivingAdviceReference));
  o.push("</ram:ApplicableHeaderTradeDelivery>");

  // Settlement.
  const pay = data.payment;
  const cur = data.currency;
  o.push("<ram:ApplicableHeaderTradeSettlement>");
  if (pay?.directDebit?.creditorId !== undefined) o.push(leaf("ram:CreditorReferenceID", pay.directDebit.creditorId));
  if (pay?.reference !== undefined) o.push(leaf("ram:PaymentReference", pay.reference));
  // BT-6 only when it differs from BT-5: CII refuses a VAT accounting currency equal to the invoice's (BR-53).
  const acc = data.vatAccountingCurrency?.code === data.currency ? undefined : data.vatAccountingCurrency;
  if (acc) o.push(leaf("ram:TaxCurrencyCode", acc.code));
  o.push(leaf("ram:InvoiceCurrencyCode", cur));
  if (data.payee) {
    const p = data.payee;
    o.push("<ram:PayeeTradeParty>");
    if (p.identifier) o.push(identifier(p.identifier));
    o.push(leaf("ram:Name", p.name));
    if (p.legalId) o.push("<ram:SpecifiedLegalOrganization>", leaf("ram:ID", p.legalId.id, { schemeID: p.legalId.scheme }), "</ram:SpecifiedLegalOrganization>");
    o.push("</ram:PayeeTradeParty>");
  }
  if (pay) {
    // One means per account (at least one), the card and the debited account in the first, as UBL has them.
    const accounts = pay.accounts && pay.accounts.length > 0 ? pay.accounts : [undefined];
    accounts.forEach((acct, i) => {
      o.push("<ram:SpecifiedTradeSettlementPaymentMeans>", leaf("ram:TypeCode", pay.meansCode));
      if (i === 0 && pay.meansText !== undefined) o.push(leaf("ram:Information", pay.meansText));
      if (i === 0 && pay.card) {
        o.push("<ram:ApplicableTradeSettlementFinancialCard>", leaf("ram:ID", pay.card.last4));
        if (pay.card.holder !== undefined) o.push(leaf("ram:CardholderName", pay.card.holder));
        o.push("</ram:ApplicableTradeSettlementFinancialCard>");
      }
      if (i === 0 && pay.directDebit?.debitedAccount !== undefined)
        o.push("<ram:PayerPartyDebtorFinancialAccount>", leaf("ram:IBANID", pay.directDebit.debitedAccount), "</ram:PayerPartyDebtorFinancialAccount>");
      if (acct) {
        // The schema's order: IBANID, AccountName, ProprietaryID.
        const iban = IBAN_SHAPE.test(acct.iban);
        o.push("<ram:PayeePartyCreditorFinancialAccount>");
        if (iban) o.push(leaf("ram:IBANID", acct.iban));
        if (acct.name !== undefined) o.push(leaf("ram:AccountName", acct.name));
        if (!iban) o.push(leaf("ram:ProprietaryID", acct.iban));
        o.push("</ram:PayeePartyCreditorFinancialAccount>");
        if (acct.bic !== undefined) o.push("<ram:PayeeSpecifiedCreditorFinancialInstitution>", leaf("ram:BICID", acct.bic), "</ram:PayeeSpecifiedCreditorFinancialInstitution>");
      }
      o.push("</ram:SpecifiedTradeSettlementPaymentMeans>");
    });
  }

  // VAT breakdown (BG-23), as carried or computed; BT-7 or BT-8 once, on the first (CII-SR-461, CII-SR-462).
  const breakdown =
    given.vatBreakdown ?? t().vat.map((g) => ({ category: g.category, rate: g.rate, taxableAmount: money(g.taxable), taxAmount: money(g.tax) }));
  breakdown.forEach((b, i) => {
    const ex = data.vatExemptions?.[b.category as keyof NonNullable<InvoiceData["vatExemptions"]>];
    o.push("<ram:ApplicableTradeTax>", leaf("ram:CalculatedAmount", b.taxAmount), TYPE_VAT);
    if (ex?.reason !== undefined) o.push(leaf("ram:ExemptionReason", ex.reason));
    o.push(leaf("ram:BasisAmount", b.taxableAmount), leaf("ram:CategoryCode", b.category));
    if (ex?.code !== undefined) o.push(leaf("ram:ExemptionReasonCode", ex.code));
    if (i === 0 && data.taxPointDate !== undefined) o.push(`<ram:TaxPointDate><udt:DateString format="102">${ymd(data.taxPointDate)}</udt:DateString></ram:TaxPointDate>`);
    if (i === 0 && data.period?.descriptionCode !== undefined) o.push(leaf("ram:DueDateTypeCode", TAX_POINT_CODE_2475[data.period.descriptionCode]));
    if (b.rate !== undefined) o.push(leaf("ram:RateApplicablePercent", b.rate));
    o.push("</ram:ApplicableTradeTax>");
  });

  // BG-14.
  if (data.period && (data.period.start !== undefined || data.period.end !== undefined)) period(data.period);

  // Document level allowances (BG-20) and charges (BG-21).
  const docAc = (list: readonly AllowanceCharge[] | undefined, charge: boolean) =>
    (list ?? []).forEach((ac, k) => {
      allowanceCharge(ac, charge, ac.amount ?? money((charge ? t().charges : t().allowances)[k]!), false);
      o.push("<ram:CategoryTradeTax>", TYPE_VAT, leaf("ram:CategoryCode", ac.vat.category));
      if (ac.vat.rate !== undefined) o.push(leaf("ram:RateApplicablePercent", ac.vat.rate));
      o.push("</ram:CategoryTradeTax>", "</ram:SpecifiedTradeAllowanceCharge>");
    });
  docAc(data.allowances, false);
  docAc(data.charges, true);

  // Payment terms: BT-20, BT-9, BT-89.
  const mandate = pay?.directDebit?.mandate;
  if (data.paymentTerms !== undefined || data.dueDate !== undefined || mandate !== undefined) {
    o.push("<ram:SpecifiedTradePaymentTerms>");
    if (data.paymentTerms !== undefined) o.push(leaf("ram:Description", data.paymentTerms));
    if (data.dueDate !== undefined) o.push(dateTime("ram:DueDateDateTime", data.dueDate));
    if (mandate !== undefined) o.push(leaf("ram:DirectDebitMandateID", mandate));
    o.push("</ram:SpecifiedTradePaymentTerms>");
  }

  // Totals (BG-22): BT-106, 108, 107, 109, 110, 111, 114, 112, 113, 115.
  o.push("<ram:SpecifiedTradeSettlementHeaderMonetarySummation>", leaf("ram:LineTotalAmount", given.lineTotal ?? money(t().lineTotal)));
  const chargeTotal = given.chargeTotal ?? (data.charges && data.charges.length > 0 ? money(t().chargeTotal) : undefined);
  const allowanceTotal = given.allowanceTotal ?? (data.allowances && data.allowances.length > 0 ? money(t().allowanceTotal) : undefined);
  if (chargeTotal !== undefined) o.push(leaf("ram:ChargeTotalAmount", chargeTotal));
  if (allowanceTotal !== undefined) o.push(leaf("ram:AllowanceTotalAmount", allowanceTotal));
  o.push(leaf("ram:TaxBasisTotalAmount", given.taxExclusive ?? money(t().taxExclusive)));
  o.push(leaf("ram:TaxTotalAmount", given.vatTotal ?? money(t().vatTotal), { currencyID: cur }));
  if (acc) o.push(leaf("ram:TaxTotalAmount", "vatTotal" in acc ? acc.vatTotal : money(t().vatTotalAccounting!), { currencyID: acc.code }));
  if (data.roundingAmount !== undefined) o.push(leaf("ram:RoundingAmount", data.roundingAmount));
  o.push(leaf("ram:GrandTotalAmount", given.taxInclusive ?? money(t().taxInclusive)));
  if (data.paidAmount !== undefined) o.push(leaf("ram:TotalPrepaidAmount", data.paidAmount));
  o.push(leaf("ram:DuePayableAmount", given.payable ?? money(t().payable)), "</ram:SpecifiedTradeSettlementHeaderMonetarySummation>");

  // BG-3: one in D16B (see ciiLosses).
  const preceding = data.precedingInvoices?.[0];
  if (preceding) {
    o.push("<ram:InvoiceReferencedDocument>", leaf("ram:IssuerAssignedID", preceding.number));
    if (preceding.issueDate !== undefined) o.push(`<ram:FormattedIssueDateTime><qdt:DateTimeString format="102">${ymd(preceding.issueDate)}</qdt:DateTimeString></ram:FormattedIssueDateTime>`);
    o.push("</ram:InvoiceReferencedDocument>");
  }
  if (data.accountingCost !== undefined) o.push(accountingAccount(data.accountingCost));
  o.push("</ram:ApplicableHeaderTradeSettlement>", "</rsm:SupplyChainTradeTransaction>", "</rsm:CrossIndustryInvoice>\n");
  if (pieces.length === 0) return o.join("");
  pieces.push(o.join(""));
  return pieces.join("");

  function writeLine(line: InvoiceLine, i: number): void {
    // This line's computed amounts, when the data leaves one out or has a gross price: from the document's totals when
    // they are computed anyway, else of this line alone (a document read from UBL may hold what only its own
    // totals need, such as a rounding amount "+0.10", which the computation of the whole would refuse).
    let own: ComputedLine | undefined;
    const lt = (): ComputedLine => computed?.lines[i] ?? (own ??= lineNet(line));
    o.push("<ram:IncludedSupplyChainTradeLineItem>", "<ram:AssociatedDocumentLineDocument>", leaf("ram:LineID", line.id));
    if (line.note !== undefined) o.push("<ram:IncludedNote>", leaf("ram:Content", line.note), "</ram:IncludedNote>");
    o.push("</ram:AssociatedDocumentLineDocument>");

    // The item: BT-157, BT-155, BT-156, BT-153, BT-154, BG-32, BT-158, BT-159.
    o.push("<ram:SpecifiedTradeProduct>");
    if (line.standardItemId) o.push(leaf("ram:GlobalID", line.standardItemId.id, { schemeID: line.standardItemId.scheme }));
    if (line.sellerItemId !== undefined) o.push(leaf("ram:SellerAssignedID", line.sellerItemId));
    if (line.buyerItemId !== undefined) o.push(leaf("ram:BuyerAssignedID", line.buyerItemId));
    o.push(leaf("ram:Name", line.name));
    if (line.description !== undefined) o.push(leaf("ram:Description", line.description));
    for (const a of line.attributes ?? []) o.push("<ram:ApplicableProductCharacteristic>", leaf("ram:Description", a.name), leaf("ram:Value", a.value), "</ram:ApplicableProductCharacteristic>");
    for (const c of line.classifications ?? [])
      o.push("<ram:DesignatedProductClassification>", leaf("ram:ClassCode", c.code, { listID: c.listId, listVersionID: c.listVersion }), "</ram:DesignatedProductClassification>");
    if (line.originCountry !== undefined) o.push("<ram:OriginTradeCountry>", leaf("ram:ID", line.originCountry), "</ram:OriginTradeCountry>");
    o.push("</ram:SpecifiedTradeProduct>");

    // Prices: BT-132, BT-148 with BT-147, BT-146, BT-149/150 (on both prices: the gross price is for the same quantity).
    o.push("<ram:SpecifiedLineTradeAgreement>");
    if (line.orderLineReference !== undefined) o.push("<ram:BuyerOrderReferencedDocument>", leaf("ram:LineID", line.orderLineReference), "</ram:BuyerOrderReferencedDocument>");
    const base = line.priceBaseQuantity === undefined ? "" : leaf("ram:BasisQuantity", line.priceBaseQuantity, { unitCode: line.priceBaseUnitCode ?? line.unitCode });
    if (line.grossPrice !== undefined) {
      o.push("<ram:GrossPriceProductTradePrice>", leaf("ram:ChargeAmount", line.grossPrice), base);
      o.push("<ram:AppliedTradeAllowanceCharge><ram:ChargeIndicator><udt:Indicator>false</udt:Indicator></ram:ChargeIndicator>");
      o.push(leaf("ram:ActualAmount", lt().priceDiscount!.toFixed()), "</ram:AppliedTradeAllowanceCharge>", "</ram:GrossPriceProductTradePrice>");
    }
    o.push("<ram:NetPriceProductTradePrice>", leaf("ram:ChargeAmount", line.price), base, "</ram:NetPriceProductTradePrice>", "</ram:SpecifiedLineTradeAgreement>");

    // BT-129, BT-130.
    o.push("<ram:SpecifiedLineTradeDelivery>", leaf("ram:BilledQuantity", line.quantity, { unitCode: line.unitCode }), "</ram:SpecifiedLineTradeDelivery>");

    // Settlement: BG-30, BG-26, BG-27, BG-28, BT-131, BT-128, BT-133.
    o.push("<ram:SpecifiedLineTradeSettlement>", "<ram:ApplicableTradeTax>", TYPE_VAT, leaf("ram:CategoryCode", line.vat.category));
    if (line.vat.rate !== undefined) o.push(leaf("ram:RateApplicablePercent", line.vat.rate));
    o.push("</ram:ApplicableTradeTax>");
    if (line.period) period(line.period);
    (line.allowances ?? []).forEach((ac, k) => allowanceCharge(ac, false, ac.amount ?? money(lt().allowances[k]!), true));
    (line.charges ?? []).forEach((ac, k) => allowanceCharge(ac, true, ac.amount ?? money(lt().charges[k]!), true));
    o.push("<ram:SpecifiedTradeSettlementLineMonetarySummation>", leaf("ram:LineTotalAmount", line.netAmount ?? money(lt().net)), "</ram:SpecifiedTradeSettlementLineMonetarySummation>");
    if (line.objectId) o.push(objectReference(line.objectId));
    if (line.accountingCost !== undefined) o.push(accountingAccount(line.accountingCost));
    o.push("</ram:SpecifiedLineTradeSettlement>", "</ram:IncludedSupplyChainTradeLineItem>");
  }

  function party(element: string, p: InvoiceData["seller"], seller: boolean): void {
    o.push(`<${element}>`);
    // The schema puts every ram:ID before every ram:GlobalID: identifiers without a scheme first, each kind in order.
    const ids = p.identifiers ?? [];
    for (const id of ids) if (id.scheme === undefined) o.push(identifier(id));
    for (const id of ids) if (id.scheme !== undefined) o.push(identifier(id));
    o.push(leaf("ram:Name", p.name));
    if (seller && p.legalInfo !== undefined) o.push(leaf("ram:Description", p.legalInfo));
    if (p.legalId || p.tradingName !== undefined) {
      o.push("<ram:SpecifiedLegalOrganization>");
      if (p.legalId) o.push(leaf("ram:ID", p.legalId.id, { schemeID: p.legalId.scheme }));
      if (p.tradingName !== undefined) o.push(leaf("ram:TradingBusinessName", p.tradingName));
      o.push("</ram:SpecifiedLegalOrganization>");
    }
    const c = p.contact;
    if (c) {
      o.push("<ram:DefinedTradeContact>");
      if (c.name !== undefined) o.push(leaf("ram:PersonName", c.name));
      if (c.phone !== undefined) o.push("<ram:TelephoneUniversalCommunication>", leaf("ram:CompleteNumber", c.phone), "</ram:TelephoneUniversalCommunication>");
      if (c.email !== undefined) o.push("<ram:EmailURIUniversalCommunication>", leaf("ram:URIID", c.email), "</ram:EmailURIUniversalCommunication>");
      o.push("</ram:DefinedTradeContact>");
    }
    address(p.address);
    // A document read without an electronic address has an empty one: nothing to write.
    if (p.endpoint.id !== "" || p.endpoint.scheme !== "") o.push("<ram:URIUniversalCommunication>", leaf("ram:URIID", p.endpoint.id, { schemeID: p.endpoint.scheme }), "</ram:URIUniversalCommunication>");
    if (p.vatId !== undefined) o.push("<ram:SpecifiedTaxRegistration>", leaf("ram:ID", p.vatId, { schemeID: "VA" }), "</ram:SpecifiedTaxRegistration>");
    if (seller && p.taxRegistrationId !== undefined) o.push("<ram:SpecifiedTaxRegistration>", leaf("ram:ID", p.taxRegistrationId, { schemeID: "FC" }), "</ram:SpecifiedTaxRegistration>");
    o.push(`</${element}>`);
  }

  function address(a: InvoiceAddress): void {
    const lines = a.lines ?? [];
    o.push("<ram:PostalTradeAddress>");
    if (a.postalCode !== undefined) o.push(leaf("ram:PostcodeCode", a.postalCode));
    if (lines[0] !== undefined) o.push(leaf("ram:LineOne", lines[0]));
    if (lines[1] !== undefined) o.push(leaf("ram:LineTwo", lines[1]));
    if (lines[2] !== undefined) o.push(leaf("ram:LineThree", lines[2]));
    if (a.city !== undefined) o.push(leaf("ram:CityName", a.city));
    o.push(leaf("ram:CountryID", a.country));
    if (a.subdivision !== undefined) o.push(leaf("ram:CountrySubDivisionName", a.subdivision));
    o.push("</ram:PostalTradeAddress>");
  }

  function period(p: { start?: string | undefined; end?: string | undefined }): void {
    o.push("<ram:BillingSpecifiedPeriod>");
    if (p.start !== undefined) o.push(dateTime("ram:StartDateTime", p.start));
    if (p.end !== undefined) o.push(dateTime("ram:EndDateTime", p.end));
    o.push("</ram:BillingSpecifiedPeriod>");
  }

  /** An allowance or charge up to its reason; a document level one is closed by the caller after its VAT. */
  function allowanceCharge(ac: LineAllowanceCharge, charge: boolean, amount: string, close: boolean): void {
    o.push("<ram:SpecifiedTradeAllowanceCharge>", charge ? INDICATOR_TRUE : INDICATOR_FALSE);
    if (ac.percent !== undefined) o.push(leaf("ram:CalculationPercent", ac.percent));
    if (ac.baseAmount !== undefined) o.push(leaf("ram:BasisAmount", ac.baseAmount));
    o.push(leaf("ram:ActualAmount", amount));
    if (ac.reasonCode !== undefined) o.push(leaf("ram:ReasonCode", ac.reasonCode));
    if (ac.reason !== undefined) o.push(leaf("ram:Reason", ac.reason));
    if (close) o.push("</ram:SpecifiedTradeAllowanceCharge>");
  }
}

/** A note's subject code (BT-21, UNTDID 4451: three letters) as UBL writes it, "#AAI#" before the text. */
const NOTE_SUBJECT = /^#([A-Z]{3})#(?=[\s\S])/;

/** How many strings of lines are joined into one piece (a few hundred lines). */
const PIECE = 16_384;

const TYPE_VAT = "<ram:TypeCode>VAT</ram:TypeCode>";
const INDICATOR_TRUE = "<ram:ChargeIndicator><udt:Indicator>true</udt:Indicator></ram:ChargeIndicator>";
const INDICATOR_FALSE = "<ram:ChargeIndicator><udt:Indicator>false</udt:Indicator></ram:ChargeIndicator>";

/** YYYY-MM-DD as format 102 (CCYYMMDD). */
const ymd = (date: string) => date.replace(/-/g, "");

function dateTime(element: string, date: string): string {
  return `<${element}><udt:DateTimeString format="102">${ymd(date)}</udt:DateTimeString></${element}>`;
}

/** An identifier with a scheme (ISO 6523 ICD) as `ram:GlobalID`, without one as `ram:ID` (BT-29, BT-46, BT-60, BT-71). */
function identifier(id: { id: string; scheme?: string | undefined }): string {
  return id.scheme !== undefined ? leaf("ram:GlobalID", id.id, { schemeID: id.scheme }) : leaf("ram:ID", id.id);
}

function referenced(element: string, id: string): string {
  return `<${element}>${leaf("ram:IssuerAssignedID", id)}</${element}>`;
}

/** BT-18 and BT-128: an additional referenced document of type 130 whose scheme is its ReferenceTypeCode. */
function objectReference(id: { id: string; scheme?: string | undefined }): string {
  const scheme = id.scheme === undefined ? "" : leaf("ram:ReferenceTypeCode", id.scheme);
  return `<ram:AdditionalReferencedDocument>${leaf("ram:IssuerAssignedID", id.id)}<ram:TypeCode>130</ram:TypeCode>${scheme}</ram:AdditionalReferencedDocument>`;
}

function accountingAccount(id: string): string {
  return `<ram:ReceivableSpecifiedTradeAccountingAccount>${leaf("ram:ID", id)}</ram:ReceivableSpecifiedTradeAccountingAccount>`;
}

/** An element with text and the attributes that have a value (an empty one is absent, as the UBL reader gives it). */
function leaf(qname: string, text: string, attrs?: Record<string, string | undefined>): string {
  let open = `<${qname}`;
  if (attrs) for (const k in attrs) if (attrs[k] !== undefined && attrs[k] !== "") open += ` ${k}="${escAttr(attrs[k])}"`;
  return `${open}>${escText(text)}</${qname}>`;
}

// Text: the markup characters, and CR (a literal CR would become LF when read back). Attributes: also the quote and
// the whitespace an attribute value would otherwise normalise to a space.
const ESC: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\r": "&#13;", "\t": "&#9;", "\n": "&#10;" };
const TEXT_SPECIAL = /[&<>\r]/;
const ATTR_SPECIAL = /[&<>"\r\n\t]/;
const escText = (s: string) => (TEXT_SPECIAL.test(s) ? s.replace(/[&<>\r]/g, (c) => ESC[c]!) : s);
const escAttr = (s: string) => (ATTR_SPECIAL.test(s) ? s.replace(/[&<>"\r\n\t]/g, (c) => ESC[c]!) : s);
