// Hostile document shapes for the cost tests of the validation rules (issue 26): each grows with n so
// that a test can check that the rules' cost grows linearly with the document.
import { invoiceXml } from "./ubl.js";

const TAX_CATEGORY = (rate: string) => `<cbc:ID>S</cbc:ID><cbc:Percent>${rate}</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme>`;

/** The valid invoice with its VAT breakdown's taxable amount and rate written with `digits` digits each. */
export function longDecimalsXml(digits: number): string {
  const long = "123456789".repeat(Math.ceil(digits / 9)).slice(0, digits);
  return invoiceXml()
    .replace(/<cbc:TaxableAmount currencyID="EUR">[^<]*</, `<cbc:TaxableAmount currencyID="EUR">${long}.00<`)
    .replace(/(<cac:TaxCategory><cbc:ID>S<\/cbc:ID><cbc:Percent>)21</, `$1${long}<`);
}

/** n lines, each at its own standard rate, and n VAT breakdowns, one per rate (n × n for a per-breakdown scan). */
export function breakdownsXml(n: number): string {
  let subtotals = "", lines = "";
  for (let i = 1; i <= n; i++) {
    const rate = `${(i / 100).toFixed(2)}`;
    subtotals += `<cac:TaxSubtotal><cbc:TaxableAmount currencyID="EUR">100.00</cbc:TaxableAmount><cac:TaxCategory>${TAX_CATEGORY(rate)}</cac:TaxCategory></cac:TaxSubtotal>\n`;
    lines += `<cac:InvoiceLine><cbc:LineExtensionAmount currencyID="EUR">100.00</cbc:LineExtensionAmount><cac:Item><cac:ClassifiedTaxCategory>${TAX_CATEGORY(rate)}</cac:ClassifiedTaxCategory></cac:Item></cac:InvoiceLine>\n`;
  }
  return invoiceXml()
    .replace(/<cac:TaxSubtotal>[\s\S]*<\/cac:TaxSubtotal>/, subtotals)
    .replace(/<cac:InvoiceLine>[\s\S]*<\/cac:InvoiceLine>/, lines);
}

/** n lines, each with an invoicing period, under a document invoicing period (Peppol R110/R111 per line). */
export function linePeriodsXml(n: number): string {
  const period = "<cac:InvoicePeriod><cbc:StartDate>2026-01-01</cbc:StartDate><cbc:EndDate>2026-01-31</cbc:EndDate></cac:InvoicePeriod>";
  let lines = "";
  // Lines of 0.00 that break no rule of their own: the cost measured is that of the rules, not of the findings.
  for (let i = 1; i <= n; i++) {
    lines += `<cac:InvoiceLine><cbc:ID>${i}</cbc:ID><cbc:InvoicedQuantity unitCode="C62">1</cbc:InvoicedQuantity><cbc:LineExtensionAmount currencyID="EUR">0.00</cbc:LineExtensionAmount>${period}<cac:Item><cbc:Name>x</cbc:Name><cac:ClassifiedTaxCategory>${TAX_CATEGORY("21")}</cac:ClassifiedTaxCategory></cac:Item><cac:Price><cbc:PriceAmount currencyID="EUR">0.00</cbc:PriceAmount></cac:Price></cac:InvoiceLine>\n`;
  }
  return invoiceXml()
    .replace("<cbc:DocumentCurrencyCode>", `${period}<cbc:DocumentCurrencyCode>`)
    .replace(/<cac:InvoiceLine>[\s\S]*<\/cac:InvoiceLine>/, lines);
}
