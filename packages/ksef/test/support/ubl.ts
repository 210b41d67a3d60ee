// Test support: generated EN 16931 UBL invoices with their totals computed (decimal arithmetic), so
// the FA(3) read-back can be compared with the UBL totals.
import Big from "big.js";

export interface Cat {
  id: string;
  percent: string;
  exemptionCode?: string;
  exemptionReason?: string;
}

export interface GenLine {
  name: string;
  quantity: string;
  unitCode?: string;
  price: string;
  baseQuantity?: string;
  cat: Cat;
}

export interface GenAllowanceCharge {
  charge: boolean;
  amount: string;
  reason: string;
  cat: Cat;
}

export interface GenInvoice {
  id?: string;
  typeCode?: string;
  currency?: string;
  /** A TaxExchangeRate to PLN. */
  exchangeRate?: string;
  sellerVat?: string | null;
  sellerCountry?: string;
  buyerVat?: string | null;
  buyerCountry?: string;
  lines: GenLine[];
  allowancesCharges?: GenAllowanceCharge[];
  paymentMeansCode?: string;
  iban?: string;
  /** BT-22 notes. */
  notes?: string[];
  /** BT-8, the VAT point date code (cac:InvoicePeriod/cbc:DescriptionCode). */
  taxPointCode?: string;
  /** BG-10: the payee's name and its identifier (BT-60) with a scheme. */
  payee?: { name: string; id?: string; scheme?: string };
  /** BG-11: the seller's tax representative. */
  taxRepresentative?: { name: string; vat: string; country: string };
}

export interface GenTotals {
  lineExtension: string;
  taxExclusive: string;
  tax: string;
  taxInclusive: string;
}

const key = (c: Cat): string => `${c.id}|${c.percent}|${c.exemptionCode ?? ""}|${c.exemptionReason ?? ""}`;

function catXml(tag: string, c: Cat): string {
  return `<cac:${tag}><cbc:ID>${c.id}</cbc:ID><cbc:Percent>${c.percent}</cbc:Percent>${c.exemptionCode ? `<cbc:TaxExemptionReasonCode>${c.exemptionCode}</cbc:TaxExemptionReasonCode>` : ""}${c.exemptionReason ? `<cbc:TaxExemptionReason>${c.exemptionReason}</cbc:TaxExemptionReason>` : ""}<cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:${tag}>`;
}

function party(vat: string | null, country: string, name: string, street: string): string {
  return `<cac:Party><cbc:EndpointID schemeID="9930">${vat ?? "X1"}</cbc:EndpointID><cac:PostalAddress><cbc:StreetName>${street}</cbc:StreetName><cbc:CityName>Warszawa</cbc:CityName><cbc:PostalZone>00-001</cbc:PostalZone><cac:Country><cbc:IdentificationCode>${country}</cbc:IdentificationCode></cac:Country></cac:PostalAddress>${vat ? `<cac:PartyTaxScheme><cbc:CompanyID>${vat}</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>` : ""}<cac:PartyLegalEntity><cbc:RegistrationName>${name}</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party>`;
}

function payeeXml(p: GenInvoice["payee"]): string {
  if (!p) return "";
  return `<cac:PayeeParty>${p.id ? `<cac:PartyIdentification><cbc:ID${p.scheme ? ` schemeID="${p.scheme}"` : ""}>${p.id}</cbc:ID></cac:PartyIdentification>` : ""}<cac:PartyName><cbc:Name>${p.name}</cbc:Name></cac:PartyName></cac:PayeeParty>`;
}

/** A UBL Invoice and its totals. The VAT per category is rounded half up to 2 decimals. */
export function ublInvoice(g: GenInvoice): { xml: string; totals: GenTotals } {
  const cur = g.currency ?? "PLN";
  const groups = new Map<string, { cat: Cat; base: Big }>();
  const add = (c: Cat, amount: Big): void => {
    const k = key(c);
    const e = groups.get(k) ?? { cat: c, base: new Big(0) };
    e.base = e.base.plus(amount);
    groups.set(k, e);
  };
  let lineTotal = new Big(0);
  const lines = g.lines
    .map((l, i) => {
      const net = new Big(l.quantity).times(l.price).div(l.baseQuantity ?? "1").round(2, Big.roundHalfUp);
      lineTotal = lineTotal.plus(net);
      add(l.cat, net);
      return `<cac:InvoiceLine><cbc:ID>${i + 1}</cbc:ID><cbc:InvoicedQuantity unitCode="${l.unitCode ?? "C62"}">${l.quantity}</cbc:InvoicedQuantity><cbc:LineExtensionAmount currencyID="${cur}">${net.toFixed(2)}</cbc:LineExtensionAmount><cac:Item><cbc:Name>${l.name}</cbc:Name>${catXml("ClassifiedTaxCategory", { id: l.cat.id, percent: l.cat.percent })}</cac:Item><cac:Price><cbc:PriceAmount currencyID="${cur}">${l.price}</cbc:PriceAmount>${l.baseQuantity ? `<cbc:BaseQuantity unitCode="${l.unitCode ?? "C62"}">${l.baseQuantity}</cbc:BaseQuantity>` : ""}</cac:Price></cac:InvoiceLine>`;
    })
    .join("");
  let allowances = new Big(0);
  let charges = new Big(0);
  const acs = (g.allowancesCharges ?? [])
    .map((ac) => {
      if (ac.charge) charges = charges.plus(ac.amount);
      else allowances = allowances.plus(ac.amount);
      add(ac.cat, ac.charge ? new Big(ac.amount) : new Big(ac.amount).times(-1));
      return `<cac:AllowanceCharge><cbc:ChargeIndicator>${ac.charge}</cbc:ChargeIndicator><cbc:AllowanceChargeReason>${ac.reason}</cbc:AllowanceChargeReason><cbc:Amount currencyID="${cur}">${ac.amount}</cbc:Amount>${catXml("TaxCategory", { id: ac.cat.id, percent: ac.cat.percent })}</cac:AllowanceCharge>`;
    })
    .join("");
  let tax = new Big(0);
  const subtotals = [...groups.values()]
    .map(({ cat, base }) => {
      const t = base.times(cat.percent).div(100).round(2, Big.roundHalfUp);
      tax = tax.plus(t);
      return `<cac:TaxSubtotal><cbc:TaxableAmount currencyID="${cur}">${base.toFixed(2)}</cbc:TaxableAmount><cbc:TaxAmount currencyID="${cur}">${t.toFixed(2)}</cbc:TaxAmount>${catXml("TaxCategory", cat)}</cac:TaxSubtotal>`;
    })
    .join("");
  const taxExclusive = lineTotal.minus(allowances).plus(charges);
  const taxInclusive = taxExclusive.plus(tax);
  const sellerVat = g.sellerVat === undefined ? "PL5260250995" : g.sellerVat;
  const buyerVat = g.buyerVat === undefined ? "PL5213017228" : g.buyerVat;
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"><cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0</cbc:CustomizationID><cbc:ProfileID>urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</cbc:ProfileID><cbc:ID>${g.id ?? "FV/2026/11/001"}</cbc:ID><cbc:IssueDate>2026-11-20</cbc:IssueDate><cbc:DueDate>2026-12-04</cbc:DueDate><cbc:InvoiceTypeCode>${g.typeCode ?? "380"}</cbc:InvoiceTypeCode>${(g.notes ?? []).map((n) => `<cbc:Note>${n}</cbc:Note>`).join("")}<cbc:DocumentCurrencyCode>${cur}</cbc:DocumentCurrencyCode>${g.taxPointCode ? `<cac:InvoicePeriod><cbc:DescriptionCode>${g.taxPointCode}</cbc:DescriptionCode></cac:InvoicePeriod>` : ""}<cac:AccountingSupplierParty>${party(sellerVat, g.sellerCountry ?? "PL", "Dostawca Sp. z o.o.", "ul. Prosta 1")}</cac:AccountingSupplierParty><cac:AccountingCustomerParty>${party(buyerVat, g.buyerCountry ?? "PL", "Nabywca S.A. &amp; Co", "ul. Krzywa 2")}</cac:AccountingCustomerParty>${payeeXml(g.payee)}${g.taxRepresentative ? `<cac:TaxRepresentativeParty><cac:PartyName><cbc:Name>${g.taxRepresentative.name}</cbc:Name></cac:PartyName><cac:PostalAddress><cbc:StreetName>ul. Boczna 3</cbc:StreetName><cbc:CityName>Kraków</cbc:CityName><cac:Country><cbc:IdentificationCode>${g.taxRepresentative.country}</cbc:IdentificationCode></cac:Country></cac:PostalAddress><cac:PartyTaxScheme><cbc:CompanyID>${g.taxRepresentative.vat}</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme></cac:TaxRepresentativeParty>` : ""}<cac:Delivery><cbc:ActualDeliveryDate>2026-11-19</cbc:ActualDeliveryDate></cac:Delivery><cac:PaymentMeans><cbc:PaymentMeansCode>${g.paymentMeansCode ?? "30"}</cbc:PaymentMeansCode><cac:PayeeFinancialAccount><cbc:ID>${g.iban ?? "PL61109010140000071219812874"}</cbc:ID><cac:FinancialInstitutionBranch><cbc:ID>WBKPPLPP</cbc:ID></cac:FinancialInstitutionBranch></cac:PayeeFinancialAccount></cac:PaymentMeans>${g.exchangeRate ? `<cac:TaxExchangeRate><cbc:SourceCurrencyCode>${cur}</cbc:SourceCurrencyCode><cbc:TargetCurrencyCode>PLN</cbc:TargetCurrencyCode><cbc:CalculationRate>${g.exchangeRate}</cbc:CalculationRate></cac:TaxExchangeRate>` : ""}${acs}<cac:TaxTotal><cbc:TaxAmount currencyID="${cur}">${tax.toFixed(2)}</cbc:TaxAmount>${subtotals}</cac:TaxTotal><cac:LegalMonetaryTotal><cbc:LineExtensionAmount currencyID="${cur}">${lineTotal.toFixed(2)}</cbc:LineExtensionAmount><cbc:TaxExclusiveAmount currencyID="${cur}">${taxExclusive.toFixed(2)}</cbc:TaxExclusiveAmount><cbc:TaxInclusiveAmount currencyID="${cur}">${taxInclusive.toFixed(2)}</cbc:TaxInclusiveAmount>${allowances.gt(0) ? `<cbc:AllowanceTotalAmount currencyID="${cur}">${allowances.toFixed(2)}</cbc:AllowanceTotalAmount>` : ""}${charges.gt(0) ? `<cbc:ChargeTotalAmount currencyID="${cur}">${charges.toFixed(2)}</cbc:ChargeTotalAmount>` : ""}<cbc:PayableAmount currencyID="${cur}">${taxInclusive.toFixed(2)}</cbc:PayableAmount></cac:LegalMonetaryTotal>${lines}</Invoice>`;
  return { xml, totals: { lineExtension: lineTotal.toFixed(2), taxExclusive: taxExclusive.toFixed(2), tax: tax.toFixed(2), taxInclusive: taxInclusive.toFixed(2) } };
}

/** A UBL CreditNote (type 381) of the same content, correcting the invoices of `corrects` (BG-3). */
export function ublCreditNote(g: GenInvoice & { corrects: { number: string; issueDate?: string }[] }): { xml: string; totals: GenTotals } {
  const { xml, totals } = ublInvoice(g);
  const refs = g.corrects.map((c) => `<cac:BillingReference><cac:InvoiceDocumentReference><cbc:ID>${c.number}</cbc:ID>${c.issueDate ? `<cbc:IssueDate>${c.issueDate}</cbc:IssueDate>` : ""}</cac:InvoiceDocumentReference></cac:BillingReference>`).join("");
  const credit = xml
    .replace(/<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/, '<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"')
    .replace(/<\/Invoice>$/, "</CreditNote>")
    .replace(/<cbc:DueDate>[^<]*<\/cbc:DueDate>/, "")
    .replace(/<cbc:InvoiceTypeCode>[^<]*<\/cbc:InvoiceTypeCode>/, "<cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>")
    .replace(/<cac:AccountingSupplierParty>/, `${refs}<cac:AccountingSupplierParty>`)
    .replace(/InvoiceLine>/g, "CreditNoteLine>")
    .replace(/InvoicedQuantity/g, "CreditedQuantity");
  return { xml: credit, totals };
}
