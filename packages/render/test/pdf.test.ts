// renderPdf read back by an independent reader (poppler's pdftotext): every amount, the number and both parties as
// the invoice has them, Polish, German and French letters, page numbers and the lines' header on each page, KSeF's
// number and QR label, and a 1,000-line invoice in bounded heap.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { normaliseInvoiceData, type InvoiceData } from "@einvoice/core";
import { describe, expect, it } from "vitest";
import { renderPdf, renderPdfStream } from "../src/index.js";
import { formatAmount, formatNumber, labelsFor, type Language } from "../src/labels.js";
import { BUYER_NAME, SELLER_NAME, sampleInvoice } from "./support/invoices.js";
import { HAS_PDFTOTEXT, flat, pdfPages } from "./support/pdftotext.js";

const text = describe.skipIf(!HAS_PDFTOTEXT);

/** Every amount a reader of the invoice looks for: line prices and net amounts, allowances, charges, VAT, totals. */
function amountsOf(inv: InvoiceData): string[] {
  const n = normaliseInvoiceData(inv);
  const t = n.totals!;
  return [
    ...n.lines.flatMap((l) => [l.price, l.netAmount!, ...(l.allowances ?? []).map((a) => a.amount!)]),
    ...(n.allowances ?? []).map((a) => a.amount!),
    ...(n.charges ?? []).map((c) => c.amount!),
    ...(t.vatBreakdown ?? []).flatMap((b) => [b.taxableAmount, b.taxAmount]),
    t.lineTotal!, t.allowanceTotal!, t.chargeTotal!, t.taxExclusive!, t.vatTotal!, t.taxInclusive!, t.payable!,
  ];
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** `s` as a whole number in the text: not the tail or head of a longer one. */
const hasNumber = (hay: string, s: string) => new RegExp(`(?<![\\d.,])${escape(s)}(?![\\d])`).test(hay);

text("renderPdf's text (pdftotext)", () => {
  for (const lang of ["de", "fr", "en"] as Language[]) {
    it(`holds every amount formatted for ${lang} with its digits, the number and both party names`, async () => {
      const inv = sampleInvoice(30);
      const all = flat(pdfPages(await renderPdf(inv, { lang })).join(" "));
      const missing = amountsOf(inv).filter((a) => !hasNumber(all, flat(formatNumber(a, lang))));
      expect(missing).toEqual([]);
      expect(all).toContain(inv.number);
      expect(all).toContain(SELLER_NAME);
      expect(all).toContain(BUYER_NAME);
      expect(all).toContain(flat(formatAmount(normaliseInvoiceData(inv).totals!.payable!, "EUR", lang)));
      expect(all).toContain(labelsFor(lang).invoice);
    });
  }

  it("writes the digits as the invoice has them: no rounding, only the language's separators", async () => {
    const inv = sampleInvoice(1, {
      lines: [{ id: "1", name: "Precise", quantity: "1234.125", unitCode: "KGM", price: "1234567.125", vat: { category: "S", rate: "19" } }],
      allowances: [], charges: [],
    });
    const all = flat(pdfPages(await renderPdf(inv, { lang: "de" })).join(" "));
    expect(all).toContain("1.234.567,125"); // the price with its third decimal
    expect(all).toContain(`${flat(formatNumber("1234.125", "de"))} kg`);
    expect(all).not.toContain("1.234.567,13");
  });

  it("writes ł, ß, é and the other Polish, German and French letters as themselves", async () => {
    const all = flat(pdfPages(await renderPdf(sampleInvoice(3), { lang: "pl" })).join(" "));
    for (const word of ["Łódzka Spółka Użyteczności", "Łódź", "Józef Żółć", "Straßenbau Müller & Söhne", "München", "été", "Prestation d'étude", "Dziękujemy", "Faktura", "Do zapłaty"]) {
      expect(all).toContain(word);
    }
  });

  it("numbers the pages 'n / N' and repeats the lines' header on every page they run over", async () => {
    const pages = pdfPages(await renderPdf(sampleInvoice(90), { lang: "de" }), { layout: true });
    expect(pages.length).toBeGreaterThanOrEqual(3);
    pages.forEach((p, i) => expect(flat(p)).toContain(`Seite ${i + 1} / ${pages.length}`));
    const withLines = pages.filter((p) => /Stahlträger|Usługa montażu|Prestation d'étude/.test(p));
    expect(withLines.length).toBeGreaterThanOrEqual(3);
    for (const p of withLines) expect(p).toMatch(/Pos\.\s+Artikel\s+Menge\s+Einzelpreis/);
    // Every line is there once, in order.
    const ids = [...pages.join("\n").matchAll(/^\s{0,8}(\d+)\s{2,}(?:Stahlträger|Usługa|Prestation)/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual(Array.from({ length: 90 }, (_, i) => i + 1));
  });

  it("shows the unit's name, not its code, and the payment with IBAN and BIC", async () => {
    const all = flat(pdfPages(await renderPdf(sampleInvoice(4), { lang: "en" })).join(" "));
    expect(all).toMatch(/\bhour\b/);
    expect(all).not.toMatch(/\bHUR\b/);
    expect(all).toContain("PL61109010140000071219812874");
    expect(all).toContain("WBKPPLPP");
    expect(all).toContain("LS-4711"); // the attachment by name
    expect(all).toContain("Baustelle Süd"); // delivery
  });

  it("prints a KSeF invoice's number and the verification QR code's label", async () => {
    const ksef = { ksefNumber: "5260250995-20261120-0100001AF629-AF", verificationUrl: "https://qr.ksef.mf.gov.pl/invoice/5260250995/20-11-2026/UtQp9Gpc51y-u3xApZjIjgkpZ01js-J8KflSPW8WzIE" };
    const pdf = await renderPdf(sampleInvoice(2), { lang: "pl", ksef });
    const all = flat(pdfPages(pdf).join(" "));
    expect(all).toContain(labelsFor("pl").ksefQrLabel);
    expect(all.replace(/ /g, "")).toContain(ksef.ksefNumber);
    // The code is drawn: far more filled squares than a page without it.
    const plain = await renderPdf(sampleInvoice(2), { lang: "pl" });
    expect(pdf.length).toBeGreaterThan(plain.length + 500);
  });

  it("keeps 'n / N' true with the longest texts the model allows: a row taller than a page is cut, never spills", async () => {
    const long = (w: string, n: number) => Array.from({ length: n }, (_, i) => `${w}${i}`).join(" ");
    const inv = sampleInvoice(3, {
      allowances: [], charges: [],
      notes: Array.from({ length: 20 }, () => long("Anmerkung", 450).slice(0, 5000)),
      lines: [
        {
          id: "1", name: long("Name", 150).slice(0, 1000), description: long("Beschreibung", 70).slice(0, 1000), note: long("Notiz", 160).slice(0, 1000),
          quantity: "1", unitCode: "C62", price: "100000.00", vat: { category: "S", rate: "19" },
          allowances: Array.from({ length: 100 }, (_, i) => ({ amount: "1.00", reason: long(`Grund${i}-`, 40).slice(0, 500) })),
        },
        { id: "2", name: "Zweite Zeile", quantity: "2", unitCode: "HUR", price: "10.00", vat: { category: "S", rate: "19" } },
      ],
    });
    const pages = pdfPages(await renderPdf(inv, { lang: "de" }));
    pages.forEach((p, i) => expect(flat(p)).toContain(`Seite ${i + 1} / ${pages.length}`));
    const all = flat(pages.join(" "));
    expect(all).toContain("Zweite Zeile");
    expect(all).toContain(flat(formatAmount(normaliseInvoiceData(inv).totals!.payable!, "EUR", "de")));
  });

  it("titles a credit note as one", async () => {
    const all = flat(pdfPages(await renderPdf(sampleInvoice(2, { typeCode: "381" }), { lang: "de" })).join(" "));
    expect(all).toContain("Gutschrift");
  });
});

describe("renderPdf's memory", () => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;

  /**
   * The live heap's largest growth over its level before (after a forced GC every 10 chunks of the stream, so
   * garbage does not count), and the PDF's size.
   */
  async function peakGrowth(inv: InvoiceData): Promise<{ growth: number; bytes: number }> {
    gc();
    const base = process.memoryUsage().heapUsed;
    let peak = base;
    let bytes = 0;
    let chunks = 0;
    for await (const chunk of renderPdfStream(inv)) {
      bytes += (chunk as Buffer).length;
      if (++chunks % 10 === 0) {
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed);
      }
    }
    return { growth: peak - base, bytes };
  }

  it("lays out a 1,000-line invoice in bounded heap: 4x the lines hold about the same live heap", async () => {
    const small = sampleInvoice(1000);
    const large = sampleInvoice(4000);
    await peakGrowth(sampleInvoice(5)); // fonts and modules loaded
    const a = await peakGrowth(small);
    const b = await peakGrowth(large);
    expect(a.bytes).toBeGreaterThan(50_000);
    expect(b.bytes).toBeGreaterThan(3 * a.bytes);
    expect(a.growth).toBeLessThan(48 * 1024 * 1024);
    // Unbounded (pdfkit's own word cache, or the invoice copied), 4,000 lines held ~2.5x the 1,000 lines' heap.
    expect(b.growth).toBeLessThan(1.5 * a.growth + 4 * 1024 * 1024);
  });
});
