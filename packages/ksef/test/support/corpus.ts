// Test support: the corpus's UBL invoices and credit notes, and a corpus document made a Polish
// taxpayer's (its seller's VAT identifier, BT-31, a valid NIP), for the FA(3) mapping's tests.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { CORPUS_DIR } from "../../../../testdata/index.js";
import type { Fa3Node } from "../../src/index.js";

/** The paths (relative to CORPUS_DIR) of the corpus's Invoice and CreditNote documents, in INDEX.tsv order. */
export function corpusInvoices(): string[] {
  return readFileSync(resolve(CORPUS_DIR, "INDEX.tsv"), "utf8")
    .split(/\r?\n/)
    .slice(1)
    .map((l) => l.split("\t"))
    .filter((c) => c[1] === "Invoice" || c[1] === "CreditNote")
    .map((c) => c[0]!);
}

/** The document's text. */
export const corpusXml = (path: string): string => readFileSync(resolve(CORPUS_DIR, path), "utf8");

/** The tree with its seller's VAT identifier (BT-31) set to PL5260250995, in place; null when the seller has none. */
export function withPolishSeller(root: Fa3Node): Fa3Node | null {
  const seller = root.children.find((c) => c.qname === "cac:AccountingSupplierParty")?.children.find((c) => c.qname === "cac:Party");
  const vat = seller?.children.filter((c) => c.qname === "cac:PartyTaxScheme").find((p) => p.children.some((t) => t.qname === "cac:TaxScheme" && t.children.some((i) => i.qname === "cbc:ID" && i.text.trim() === "VAT")));
  const id = vat?.children.find((c) => c.qname === "cbc:CompanyID");
  if (!id) return null;
  (id as { text: string }).text = "PL5260250995";
  return root;
}
