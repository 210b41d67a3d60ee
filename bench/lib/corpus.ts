// The documents the benchmark submits: the corpus's base example, and generated large BIS 3 invoices.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (bench/lib/ is two levels down). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** `../shared/corpus` relative to the repository root. */
export const CORPUS_DIR = join(REPO_ROOT, "..", "shared", "corpus");

export const BASE_EXAMPLE = join(CORPUS_DIR, "openpeppol-bis3", "examples", "base-example.xml");

export function baseExample(): string {
  return readFileSync(BASE_EXAMPLE, "utf8");
}

/** The same document with another invoice number: distinct bytes, so a submission is not a duplicate. */
export function withInvoiceId(xml: string, id: string): string {
  const out = xml.replace(/<cbc:ID>[^<]*<\/cbc:ID>/, `<cbc:ID>${id}</cbc:ID>`);
  if (out === xml) throw new Error("the document has no cbc:ID to change");
  return out;
}

/** One complete Peppol BIS 3 invoice line. Amounts are decimal strings, as in real documents. */
function line(n: number): string {
  const qty = (n % 17) + 1;
  const price = ((n * 37) % 9000) / 100 + 1;
  const amount = (qty * price).toFixed(2);
  const rate = n % 5 === 0 ? "9.00" : "21.00";
  const cat = n % 5 === 0 ? "AA" : "S";
  return `  <cac:InvoiceLine>
    <cbc:ID>${n}</cbc:ID>
    <cbc:InvoicedQuantity unitCode="C62">${qty}</cbc:InvoicedQuantity>
    <cbc:LineExtensionAmount currencyID="EUR">${amount}</cbc:LineExtensionAmount>
    <cac:Item>
      <cbc:Name>Article ${n} &amp; accessories</cbc:Name>
      <cac:SellersItemIdentification>
        <cbc:ID>SKU-${String(n).padStart(6, "0")}</cbc:ID>
      </cac:SellersItemIdentification>
      <cac:ClassifiedTaxCategory>
        <cbc:ID>${cat}</cbc:ID>
        <cbc:Percent>${rate}</cbc:Percent>
        <cac:TaxScheme>
          <cbc:ID>VAT</cbc:ID>
        </cac:TaxScheme>
      </cac:ClassifiedTaxCategory>
    </cac:Item>
    <cac:Price>
      <cbc:PriceAmount currencyID="EUR">${price.toFixed(2)}</cbc:PriceAmount>
    </cac:Price>
  </cac:InvoiceLine>
`;
}

/**
 * A BIS 3 invoice with `lines` invoice lines: the base example's header, parties and totals,
 * its own lines replaced by generated ones. `id` sets cbc:ID (distinct documents).
 */
export function largeInvoice(lines: number, id = `LARGE-${lines}`): string {
  const base = baseExample();
  const first = base.indexOf("<cac:InvoiceLine>");
  const end = base.lastIndexOf("</Invoice>");
  if (first === -1 || end === -1) throw new Error("unexpected base example");
  const parts: string[] = [withInvoiceId(base.slice(0, first), id)];
  for (let n = 1; n <= lines; n++) parts.push(line(n));
  parts.push(base.slice(end));
  return parts.join("");
}
