// The documents the benchmark submits: the corpus's base example, and generated large BIS 3 invoices.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CORPUS_DIR } from "../../testdata/index.ts";

/** The repository root (bench/lib/ is two levels down). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export { CORPUS_DIR };

export const BASE_EXAMPLE = join(CORPUS_DIR, "openpeppol-bis3", "examples", "base-example.xml");

export function baseExample(): string {
  return readFileSync(BASE_EXAMPLE, "utf8");
}

/** An XRechnung 3.0 example (KoSIT's test suite, business case 01.01a): CEN + XRechnung 3.0.2 apply to it. */
export const XRECHNUNG_EXAMPLE = join(CORPUS_DIR, "xrechnung-testsuite", "business-cases", "standard", "01.01a-INVOICE_ubl.xml");

export function xrechnungExample(): string {
  return readFileSync(XRECHNUNG_EXAMPLE, "utf8");
}

/** An NLCIUS / SI-UBL 2.0 example (SimplerInvoicing's full test invoice): CEN + NLCIUS-SI-UBL-2.0.3.13 apply to it. */
export const NLCIUS_EXAMPLE = join(CORPUS_DIR, "phive-simplerinvoicing", "SI-UBL-2.0.3.2", "SI-UBL-2.0_ok_full.xml");

export function nlciusExample(): string {
  return readFileSync(NLCIUS_EXAMPLE, "utf8");
}

/** The same document with another invoice number: distinct bytes, so a submission is not a duplicate. */
export function withInvoiceId(xml: string, id: string): string {
  const out = xml.replace(/<cbc:ID>[^<]*<\/cbc:ID>/, `<cbc:ID>${id}</cbc:ID>`);
  if (out === xml) throw new Error("the document has no cbc:ID to change");
  return out;
}

/** One complete Peppol BIS 3 invoice line, and its net amount in cents and VAT rate. Amounts are decimal strings, as in real documents. */
function line(n: number): { xml: string; cents: number; rate: 21 | 9 } {
  const qty = (n % 17) + 1;
  const priceCents = ((n * 37) % 9000) + 100;
  const cents = qty * priceCents;
  const rate = n % 5 === 0 ? 9 : 21;
  const xml = `  <cac:InvoiceLine>
    <cbc:ID>${n}</cbc:ID>
    <cbc:InvoicedQuantity unitCode="C62">${qty}</cbc:InvoicedQuantity>
    <cbc:LineExtensionAmount currencyID="EUR">${money(cents)}</cbc:LineExtensionAmount>
    <cac:Item>
      <cbc:Name>Article ${n} &amp; accessories</cbc:Name>
      <cac:SellersItemIdentification>
        <cbc:ID>SKU-${String(n).padStart(6, "0")}</cbc:ID>
      </cac:SellersItemIdentification>
      <cac:ClassifiedTaxCategory>
        <cbc:ID>S</cbc:ID>
        <cbc:Percent>${rate}</cbc:Percent>
        <cac:TaxScheme>
          <cbc:ID>VAT</cbc:ID>
        </cac:TaxScheme>
      </cac:ClassifiedTaxCategory>
    </cac:Item>
    <cac:Price>
      <cbc:PriceAmount currencyID="EUR">${money(priceCents)}</cbc:PriceAmount>
    </cac:Price>
  </cac:InvoiceLine>
`;
  return { xml, cents, rate };
}

/** Cents as a decimal string with two decimals (integers only: exact). */
function money(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;
}

/**
 * A BIS 3 invoice with `lines` invoice lines that passes the official rules: the base example's
 * header and parties, its own allowances, totals and lines replaced by generated lines (VAT S at 21 %
 * and 9 %) with their VAT breakdown and totals. `id` sets cbc:ID (distinct documents).
 */
export function largeInvoice(lines: number, id = `LARGE-${lines}`): string {
  const base = baseExample();
  const cut = base.indexOf("<cac:PaymentTerms>");
  if (cut === -1) throw new Error("unexpected base example");
  const parts: string[] = [withInvoiceId(base.slice(0, cut), id)];
  const net = { 21: 0, 9: 0 };
  const body: string[] = [];
  for (let n = 1; n <= lines; n++) {
    const l = line(n);
    net[l.rate] += l.cents;
    body.push(l.xml);
  }
  const tax = { 21: Math.round((net[21] * 21) / 100), 9: Math.round((net[9] * 9) / 100) };
  const subtotal = (rate: 21 | 9) =>
    net[rate] === 0 && rate === 9 && lines < 5
      ? ""
      : `      <cac:TaxSubtotal>
        <cbc:TaxableAmount currencyID="EUR">${money(net[rate])}</cbc:TaxableAmount>
        <cbc:TaxAmount currencyID="EUR">${money(tax[rate])}</cbc:TaxAmount>
        <cac:TaxCategory>
          <cbc:ID>S</cbc:ID>
          <cbc:Percent>${rate}</cbc:Percent>
          <cac:TaxScheme>
            <cbc:ID>VAT</cbc:ID>
          </cac:TaxScheme>
        </cac:TaxCategory>
      </cac:TaxSubtotal>
`;
  const totalNet = net[21] + net[9];
  const totalTax = tax[21] + tax[9];
  parts.push(`<cac:TaxTotal>
      <cbc:TaxAmount currencyID="EUR">${money(totalTax)}</cbc:TaxAmount>
${subtotal(21)}${subtotal(9)}    </cac:TaxTotal>
    <cac:LegalMonetaryTotal>
      <cbc:LineExtensionAmount currencyID="EUR">${money(totalNet)}</cbc:LineExtensionAmount>
      <cbc:TaxExclusiveAmount currencyID="EUR">${money(totalNet)}</cbc:TaxExclusiveAmount>
      <cbc:TaxInclusiveAmount currencyID="EUR">${money(totalNet + totalTax)}</cbc:TaxInclusiveAmount>
      <cbc:PayableAmount currencyID="EUR">${money(totalNet + totalTax)}</cbc:PayableAmount>
    </cac:LegalMonetaryTotal>
`);
  parts.push(...body);
  parts.push("</Invoice>\n");
  return parts.join("");
}
