// Test and bench invoices for the renderer: a German–Polish invoice with every section, of any number of lines.
import { parseInvoiceData, type InvoiceData, type InvoiceDataInput } from "@einvoice/core";

export const SELLER_NAME = "Łódzka Spółka Użyteczności Sp. z o.o.";
export const BUYER_NAME = "Straßenbau Müller & Söhne GmbH";

/** An invoice of `lines` lines (1 to 100,000) with allowances, charges, two VAT rates, payment, notes, delivery. */
export function sampleInvoiceInput(lines: number, patch: Partial<InvoiceDataInput> = {}): InvoiceDataInput {
  return {
    number: "FV/2026/11/0042",
    issueDate: "2026-11-20",
    dueDate: "2026-12-20",
    taxPointDate: "2026-11-18",
    currency: "EUR",
    buyerReference: "BR-7788",
    orderReference: "PO-2026-991",
    contractReference: "K-12/2025",
    projectReference: "Brücke Nord",
    paymentTerms: "Zahlbar innerhalb von 30 Tagen ohne Abzug.",
    notes: ["Dziękujemy za zamówienie. Vielen Dank für Ihren Auftrag. Merci de votre confiance, à bientôt."],
    seller: {
      name: SELLER_NAME,
      vatId: "PL5260250995",
      endpoint: { scheme: "9945", id: "PL5260250995" },
      address: { lines: ["ul. Piotrkowska 120"], city: "Łódź", postalCode: "90-006", country: "PL" },
      contact: { name: "Józef Żółć", email: "biuro@example.pl" },
    },
    buyer: {
      name: BUYER_NAME,
      vatId: "DE123456789",
      endpoint: { scheme: "9930", id: "DE123456789" },
      address: { lines: ["Hauptstraße 5"], city: "München", postalCode: "80331", country: "DE" },
    },
    delivery: { partyName: "Baustelle Süd", date: "2026-11-18", address: { lines: ["Werkstraße 9"], city: "Augsburg", postalCode: "86150", country: "DE" } },
    payment: {
      meansCode: "58",
      reference: "FV 2026 11 0042",
      accounts: [{ iban: "PL61109010140000071219812874", bic: "WBKPPLPP", name: "Łódzka Spółka" }],
    },
    allowances: [{ amount: "15.00", reason: "Rabatt für Stammkunden", vat: { category: "S", rate: "19" } }],
    charges: [{ amount: "42.50", reason: "Fracht", vat: { category: "S", rate: "19" } }],
    attachments: [{ id: "LS-4711", description: "Lieferschein (signé)", url: "https://example.com/ls-4711.pdf" }],
    lines: Array.from({ length: lines }, (_, i) => ({
      id: String(i + 1),
      name: i % 3 === 0 ? `Stahlträger HEB ${100 + i} – größe ${i}` : i % 3 === 1 ? `Usługa montażu łączników nr ${i}` : `Prestation d'étude n° ${i} – été`,
      description: i % 5 === 0 ? "Lieferung frei Baustelle, inkl. Verpackung und Entsorgung der Transportmittel" : undefined,
      quantity: String((i % 7) + 1) + (i % 4 === 0 ? ".5" : ""),
      unitCode: ["C62", "HUR", "KGM", "MTR"][i % 4]!,
      price: `${(i * 37) % 2000}.${String((i * 13) % 100).padStart(2, "0")}`,
      vat: i % 2 === 0 ? { category: "S" as const, rate: "19" } : { category: "S" as const, rate: "7" },
      ...(i % 11 === 3 ? { allowances: [{ amount: "1.00", reason: "Skonto" }] } : {}),
    })),
    ...patch,
  };
}

export function sampleInvoice(lines: number, patch: Partial<InvoiceDataInput> = {}): InvoiceData {
  return parseInvoiceData(sampleInvoiceInput(lines, patch));
}
