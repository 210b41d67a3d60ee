// Where each InvoiceData field is in a CII D16B document (the EN 16931 CII binding): the JSON pointer of a field, as the
// UBL builder names the field behind each element, turned into the XPath of the CII element it was read from. A rule
// the converted UBL breaks is then reported at the CII field the sender must correct.

const ROOT = "/rsm:CrossIndustryInvoice";
const DOC = `${ROOT}/rsm:ExchangedDocument`;
const CONTEXT = `${ROOT}/rsm:ExchangedDocumentContext`;
const TX = `${ROOT}/rsm:SupplyChainTradeTransaction`;
const AGREEMENT = `${TX}/ram:ApplicableHeaderTradeAgreement`;
const DELIVERY = `${TX}/ram:ApplicableHeaderTradeDelivery`;
const SETTLEMENT = `${TX}/ram:ApplicableHeaderTradeSettlement`;
const SUMMATION = `${SETTLEMENT}/ram:SpecifiedTradeSettlementHeaderMonetarySummation`;
const MEANS = `${SETTLEMENT}/ram:SpecifiedTradeSettlementPaymentMeans`;
const TERMS = `${SETTLEMENT}/ram:SpecifiedTradePaymentTerms`;

/** A field's place: its own path, and the places of its fields (`*` stands for an array index, `n` 1-based). */
interface Place {
  at: string | ((n: number) => string);
  fields?: Record<string, Place>;
}

const leaf = (at: string): Place => ({ at });
const dateTime = (at: string): Place => leaf(`${at}/udt:DateTimeString`);

const address: Record<string, Place> = {
  lines: { at: "", fields: { "0": leaf("ram:LineOne"), "1": leaf("ram:LineTwo"), "2": leaf("ram:LineThree") } },
  city: leaf("ram:CityName"),
  postalCode: leaf("ram:PostcodeCode"),
  subdivision: leaf("ram:CountrySubDivisionName"),
  country: leaf("ram:CountryID"),
};

const party = (at: string): Place => ({
  at,
  fields: {
    name: leaf("ram:Name"),
    tradingName: leaf("ram:SpecifiedLegalOrganization/ram:TradingBusinessName"),
    identifiers: { at: (n) => `ram:ID[${n}]` },
    vatId: leaf("ram:SpecifiedTaxRegistration/ram:ID[@schemeID='VA']"),
    taxRegistrationId: leaf("ram:SpecifiedTaxRegistration/ram:ID[@schemeID='FC']"),
    legalId: leaf("ram:SpecifiedLegalOrganization/ram:ID"),
    legalInfo: leaf("ram:Description"),
    endpoint: leaf("ram:URIUniversalCommunication/ram:URIID"),
    address: { at: "ram:PostalTradeAddress", fields: address },
    contact: {
      at: "ram:DefinedTradeContact",
      fields: {
        name: leaf("ram:PersonName"),
        phone: leaf("ram:TelephoneUniversalCommunication/ram:CompleteNumber"),
        email: leaf("ram:EmailURIUniversalCommunication/ram:URIID"),
      },
    },
  },
});

const allowanceCharge = (container: string, charge: boolean): Place => ({
  at: (n) => `${container}/ram:SpecifiedTradeAllowanceCharge[ram:ChargeIndicator/udt:Indicator='${charge}'][${n}]`,
  fields: {
    amount: leaf("ram:ActualAmount"),
    percent: leaf("ram:CalculationPercent"),
    baseAmount: leaf("ram:BasisAmount"),
    reason: leaf("ram:Reason"),
    reasonCode: leaf("ram:ReasonCode"),
    vat: { at: "ram:CategoryTradeTax", fields: { category: leaf("ram:CategoryCode"), rate: leaf("ram:RateApplicablePercent") } },
  },
});

const LINE_SETTLEMENT = "ram:SpecifiedLineTradeSettlement";
const PRODUCT = "ram:SpecifiedTradeProduct";
const NET_PRICE = "ram:SpecifiedLineTradeAgreement/ram:NetPriceProductTradePrice";

const line: Place = {
  at: (n) => `${TX}/ram:IncludedSupplyChainTradeLineItem[${n}]`,
  fields: {
    id: leaf("ram:AssociatedDocumentLineDocument/ram:LineID"),
    note: leaf("ram:AssociatedDocumentLineDocument/ram:IncludedNote/ram:Content"),
    objectId: leaf(`${LINE_SETTLEMENT}/ram:AdditionalReferencedDocument/ram:IssuerAssignedID`),
    quantity: leaf("ram:SpecifiedLineTradeDelivery/ram:BilledQuantity"),
    unitCode: leaf("ram:SpecifiedLineTradeDelivery/ram:BilledQuantity/@unitCode"),
    netAmount: leaf(`${LINE_SETTLEMENT}/ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount`),
    orderLineReference: leaf("ram:SpecifiedLineTradeAgreement/ram:BuyerOrderReferencedDocument/ram:LineID"),
    accountingCost: leaf(`${LINE_SETTLEMENT}/ram:ReceivableSpecifiedTradeAccountingAccount/ram:ID`),
    period: { at: `${LINE_SETTLEMENT}/ram:BillingSpecifiedPeriod`, fields: { start: dateTime("ram:StartDateTime"), end: dateTime("ram:EndDateTime") } },
    allowances: allowanceCharge(LINE_SETTLEMENT, false),
    charges: allowanceCharge(LINE_SETTLEMENT, true),
    price: leaf(`${NET_PRICE}/ram:ChargeAmount`),
    grossPrice: leaf("ram:SpecifiedLineTradeAgreement/ram:GrossPriceProductTradePrice/ram:ChargeAmount"),
    priceBaseQuantity: leaf(`${NET_PRICE}/ram:BasisQuantity`),
    priceBaseUnitCode: leaf(`${NET_PRICE}/ram:BasisQuantity/@unitCode`),
    vat: { at: `${LINE_SETTLEMENT}/ram:ApplicableTradeTax`, fields: { category: leaf("ram:CategoryCode"), rate: leaf("ram:RateApplicablePercent") } },
    name: leaf(`${PRODUCT}/ram:Name`),
    description: leaf(`${PRODUCT}/ram:Description`),
    sellerItemId: leaf(`${PRODUCT}/ram:SellerAssignedID`),
    buyerItemId: leaf(`${PRODUCT}/ram:BuyerAssignedID`),
    standardItemId: leaf(`${PRODUCT}/ram:GlobalID`),
    classifications: { at: (n) => `${PRODUCT}/ram:DesignatedProductClassification[${n}]/ram:ClassCode` },
    originCountry: leaf(`${PRODUCT}/ram:OriginTradeCountry/ram:ID`),
    attributes: { at: (n) => `${PRODUCT}/ram:ApplicableProductCharacteristic[${n}]`, fields: { name: leaf("ram:Description"), value: leaf("ram:Value") } },
  },
};

const exemption = (category: string): Place => ({
  at: `${SETTLEMENT}/ram:ApplicableTradeTax[ram:CategoryCode='${category}']`,
  fields: { reason: leaf("ram:ExemptionReason"), code: leaf("ram:ExemptionReasonCode") },
});

const INVOICE: Place = {
  at: ROOT,
  fields: {
    number: leaf(`${DOC}/ram:ID`),
    issueDate: dateTime(`${DOC}/ram:IssueDateTime`),
    typeCode: leaf(`${DOC}/ram:TypeCode`),
    notes: { at: (n) => `${DOC}/ram:IncludedNote[${n}]/ram:Content` },
    profileId: leaf(`${CONTEXT}/ram:BusinessProcessSpecifiedDocumentContextParameter/ram:ID`),
    specification: leaf(`${CONTEXT}/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID`),
    currency: leaf(`${SETTLEMENT}/ram:InvoiceCurrencyCode`),
    vatAccountingCurrency: { at: `${SETTLEMENT}/ram:TaxCurrencyCode`, fields: { vatTotal: leaf(`${SUMMATION}/ram:TaxTotalAmount[2]`) } },
    taxPointDate: leaf(`${SETTLEMENT}/ram:ApplicableTradeTax/ram:TaxPointDate/udt:DateString`),
    dueDate: dateTime(`${TERMS}/ram:DueDateDateTime`),
    buyerReference: leaf(`${AGREEMENT}/ram:BuyerReference`),
    projectReference: leaf(`${AGREEMENT}/ram:SpecifiedProcuringProject/ram:ID`),
    contractReference: leaf(`${AGREEMENT}/ram:ContractReferencedDocument/ram:IssuerAssignedID`),
    orderReference: leaf(`${AGREEMENT}/ram:BuyerOrderReferencedDocument/ram:IssuerAssignedID`),
    salesOrderReference: leaf(`${AGREEMENT}/ram:SellerOrderReferencedDocument/ram:IssuerAssignedID`),
    receivingAdviceReference: leaf(`${DELIVERY}/ram:ReceivingAdviceReferencedDocument/ram:IssuerAssignedID`),
    despatchAdviceReference: leaf(`${DELIVERY}/ram:DespatchAdviceReferencedDocument/ram:IssuerAssignedID`),
    tenderReference: leaf(`${AGREEMENT}/ram:AdditionalReferencedDocument[ram:TypeCode='50']/ram:IssuerAssignedID`),
    objectId: leaf(`${AGREEMENT}/ram:AdditionalReferencedDocument[ram:TypeCode='130']/ram:IssuerAssignedID`),
    accountingCost: leaf(`${SETTLEMENT}/ram:ReceivableSpecifiedTradeAccountingAccount/ram:ID`),
    paymentTerms: leaf(`${TERMS}/ram:Description`),
    period: {
      at: `${SETTLEMENT}/ram:BillingSpecifiedPeriod`,
      fields: { start: dateTime("ram:StartDateTime"), end: dateTime("ram:EndDateTime"), descriptionCode: leaf(`${SETTLEMENT}/ram:ApplicableTradeTax/ram:DueDateTypeCode`) },
    },
    precedingInvoices: {
      at: (n) => `${SETTLEMENT}/ram:InvoiceReferencedDocument[${n}]`,
      fields: { number: leaf("ram:IssuerAssignedID"), issueDate: leaf("ram:FormattedIssueDateTime/qdt:DateTimeString") },
    },
    seller: party(`${AGREEMENT}/ram:SellerTradeParty`),
    buyer: party(`${AGREEMENT}/ram:BuyerTradeParty`),
    payee: party(`${SETTLEMENT}/ram:PayeeTradeParty`),
    taxRepresentative: party(`${AGREEMENT}/ram:SellerTaxRepresentativeTradeParty`),
    delivery: {
      at: `${DELIVERY}/ram:ShipToTradeParty`,
      fields: {
        partyName: leaf("ram:Name"),
        location: leaf("ram:ID"),
        date: dateTime(`${DELIVERY}/ram:ActualDeliverySupplyChainEvent/ram:OccurrenceDateTime`),
        address: { at: "ram:PostalTradeAddress", fields: address },
      },
    },
    payment: {
      at: MEANS,
      fields: {
        meansCode: leaf("ram:TypeCode"),
        meansText: leaf("ram:Information"),
        reference: leaf(`${SETTLEMENT}/ram:PaymentReference`),
        accounts: {
          at: (n) => `${MEANS}/ram:PayeePartyCreditorFinancialAccount[${n}]`,
          fields: { iban: leaf("ram:IBANID"), name: leaf("ram:AccountName"), bic: leaf(`${MEANS}/ram:PayeeSpecifiedCreditorFinancialInstitution/ram:BICID`) },
        },
        card: { at: "ram:ApplicableTradeSettlementFinancialCard", fields: { last4: leaf("ram:ID"), holder: leaf("ram:CardholderName") } },
        directDebit: {
          at: MEANS,
          fields: {
            mandate: leaf(`${TERMS}/ram:DirectDebitMandateID`),
            creditorId: leaf(`${SETTLEMENT}/ram:CreditorReferenceID`),
            debitedAccount: leaf("ram:PayerPartyDebtorFinancialAccount/ram:IBANID"),
          },
        },
      },
    },
    allowances: allowanceCharge(SETTLEMENT, false),
    charges: allowanceCharge(SETTLEMENT, true),
    lines: line,
    vatExemptions: { at: SETTLEMENT, fields: Object.fromEntries(["E", "AE", "K", "G", "O"].map((c) => [c, exemption(c)])) },
    paidAmount: leaf(`${SUMMATION}/ram:TotalPrepaidAmount`),
    roundingAmount: leaf(`${SUMMATION}/ram:RoundingAmount`),
    attachments: {
      at: (n) => `${AGREEMENT}/ram:AdditionalReferencedDocument[ram:TypeCode='916'][${n}]`,
      fields: {
        id: leaf("ram:IssuerAssignedID"),
        description: leaf("ram:Name"),
        url: leaf("ram:URIID"),
        filename: leaf("ram:AttachmentBinaryObject/@filename"),
        mimeCode: leaf("ram:AttachmentBinaryObject/@mimeCode"),
        content: leaf("ram:AttachmentBinaryObject"),
      },
    },
    totals: {
      at: SUMMATION,
      fields: {
        lineTotal: leaf("ram:LineTotalAmount"),
        allowanceTotal: leaf("ram:AllowanceTotalAmount"),
        chargeTotal: leaf("ram:ChargeTotalAmount"),
        taxExclusive: leaf("ram:TaxBasisTotalAmount"),
        vatTotal: leaf("ram:TaxTotalAmount"),
        taxInclusive: leaf("ram:GrandTotalAmount"),
        payable: leaf("ram:DuePayableAmount"),
        vatBreakdown: {
          at: (n) => `${SETTLEMENT}/ram:ApplicableTradeTax[${n}]`,
          fields: { category: leaf("ram:CategoryCode"), rate: leaf("ram:RateApplicablePercent"), taxableAmount: leaf("ram:BasisAmount"), taxAmount: leaf("ram:CalculatedAmount") },
        },
      },
    },
  },
};

/** Joins a child step to its parent's path: an absolute step (from the root) stands alone. */
const join = (parent: string, step: string): string => (step === "" ? parent : step.startsWith("/") ? step : `${parent}/${step}`);

/**
 * The XPath, in a CII D16B document, of the InvoiceData field at `pointer` (`/lines/2/vat/rate` →
 * `…/ram:IncludedSupplyChainTradeLineItem[3]/ram:SpecifiedLineTradeSettlement/ram:ApplicableTradeTax/ram:RateApplicablePercent`).
 * A pointer deeper than the table knows gives its deepest known field's place; "" the root.
 *
 * @example ciiPathOf("/buyerReference") // "/rsm:CrossIndustryInvoice/…/ram:ApplicableHeaderTradeAgreement/ram:BuyerReference"
 */
export function ciiPathOf(pointer: string): string {
  let place: Place = INVOICE;
  let path = ROOT;
  const steps = pointer === "" ? [] : pointer.slice(1).split("/");
  for (let i = 0; i < steps.length; i++) {
    const next: Place | undefined = place.fields?.[steps[i]!];
    if (next === undefined) break;
    if (typeof next.at === "function") {
      const index = Number(steps[i + 1]);
      if (!Number.isInteger(index) || index < 0) {
        path = join(path, next.at(1).replace(/\[1\](?!.*\[1\])/, ""));
        break;
      }
      path = join(path, next.at(index + 1));
      i++;
    } else {
      path = join(path, next.at);
    }
    place = next;
  }
  return path;
}
