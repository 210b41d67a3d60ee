// renderHtml (issue 43): what the page shows, in which order, in which language; and that a hostile document renders inert.
import { readFileSync } from "node:fs";
import { normaliseInvoiceData, parseInvoiceData, type InvoiceData } from "@einvoice/core";
import { parseDocument } from "htmlparser2";
import { describe, expect, it } from "vitest";
import { escapeHtml, formatAmount, renderHtml } from "../src/index.js";

type Node = { type: string; name?: string; attribs?: Record<string, string>; children?: Node[]; data?: string };

const EXAMPLE = JSON.parse(readFileSync(new URL("../../../examples/invoice.json", import.meta.url), "utf8")) as Record<string, unknown>;
const data = (input: Record<string, unknown>): InvoiceData => normaliseInvoiceData(parseInvoiceData(input));

/** Every element of a parsed page. */
function elements(node: Node, out: Node[] = []): Node[] {
  if (node.type === "tag" || node.type === "script" || node.type === "style") out.push(node);
  for (const c of node.children ?? []) elements(c, out);
  return out;
}
/** The text of a parsed page (outside style), entities decoded. */
function textOf(node: Node): string {
  if (node.type === "text") return node.data ?? "";
  if (node.type === "style" || node.type === "script") return "";
  return (node.children ?? []).map(textOf).join(" ");
}
const parse = (html: string) => parseDocument(html, { decodeEntities: true }) as unknown as Node;

/** A full invoice: every part of the page has something to show. */
const FULL: Record<string, unknown> = {
  ...EXAMPLE,
  number: "FULL-2026/0042",
  taxPointDate: "2026-03-02",
  projectReference: "PRJ-7",
  contractReference: "CT-2026-1",
  orderReference: "PO-4711",
  precedingInvoices: [{ number: "INV-2025-0999", issueDate: "2025-12-30" }],
  notes: ["First note", "Second note"],
  delivery: { date: "2026-02-28", partyName: "Warehouse B", address: { lines: ["Dock 3"], city: "Antwerpen", postalCode: "2000", country: "BE" } },
  payment: { meansCode: "58", reference: "RF18539007547034", accounts: [{ iban: "NL91ABNA0417164300", bic: "ABNANL2A", name: "Seller BV" }] },
  paymentTerms: "30 days net",
  allowances: [{ amount: "10.00", reason: "Loyalty discount", vat: { category: "S", rate: "21" } }],
  charges: [{ amount: "25.00", reason: "Freight", vat: { category: "S", rate: "21" } }],
  paidAmount: "100.00",
  attachments: [{ id: "ATT-1", description: "Timesheet", filename: "timesheet.pdf", mimeCode: "application/pdf", content: "JVBERi0xLjQK" }],
  lines: [
    {
      id: "1",
      name: "Consulting",
      description: "Architecture review",
      quantity: "12.5",
      unitCode: "HUR",
      price: "1234.5678",
      vat: { category: "S", rate: "21" },
      allowances: [{ amount: "100.00", reason: "Volume" }],
      charges: [{ amount: "5.00", reason: "Travel" }],
    },
    { id: "2", name: "Licence", quantity: "3", unitCode: "C62", price: "99.99", vat: { category: "S", rate: "21" } },
  ],
};

describe("renderHtml", () => {
  it("shows every amount (digits as written), the number and both party names exactly, in the order of the issue", () => {
    const invoice = data(FULL);
    const html = renderHtml(invoice, { lang: "en" });
    const text = textOf(parse(html));
    expect(text).toContain("FULL-2026/0042");
    expect(text).toContain(invoice.seller.name);
    expect(text).toContain(invoice.buyer.name);
    const t = invoice.totals!;
    const amounts = [
      ...invoice.lines.flatMap((l) => [l.netAmount!, l.price, ...(l.allowances ?? []).map((a) => a.amount!), ...(l.charges ?? []).map((a) => a.amount!)]),
      ...(invoice.allowances ?? []).map((a) => a.amount!),
      ...(invoice.charges ?? []).map((a) => a.amount!),
      ...t.vatBreakdown!.flatMap((b) => [b.taxableAmount, b.taxAmount]),
      t.lineTotal!,
      t.allowanceTotal!,
      t.chargeTotal!,
      t.taxExclusive!,
      t.vatTotal!,
      t.taxInclusive!,
      t.payable!,
      invoice.paidAmount!,
    ];
    for (const a of amounts) {
      const shown = formatAmount(a, null, "en");
      // The grouping is the only change: the same digits, in the same order.
      expect(shown.replace(/[^\d.-]/g, "")).toBe(a);
      expect(text).toContain(shown);
    }
    // The totals carry the currency.
    expect(text).toContain(`${formatAmount(t.payable!, null, "en")}\u00a0EUR`);
    // The unit's name, not its code.
    expect(text).toContain("12.5 hour");
    expect(text).toContain("3 unit");
    // Everything the issue lists, in its order.
    const order = [
      invoice.seller.name,
      invoice.buyer.name,
      "Invoice",
      "Issue date",
      "Due date",
      "Tax point date",
      "Buyer reference",
      "Purchase order",
      "Contract",
      "Project",
      "INV-2025-0999",
      "Architecture review",
      "Volume",
      "Loyalty discount",
      "VAT breakdown",
      "Total without VAT",
      "Amount due",
      "SEPA credit transfer",
      "NL91ABNA0417164300 (BIC ABNANL2A)",
      "RF18539007547034",
      "30 days net",
      "First note",
      "Warehouse B",
      "timesheet.pdf",
    ];
    let at = -1;
    for (const s of order) {
      const i = text.indexOf(s, at + 1);
      expect(i, `${s} after position ${at}`).toBeGreaterThan(at);
      at = i;
    }
    // A printable page: A4, the lines' header repeated.
    expect(html).toContain("size:A4");
    expect(html).toContain("thead{display:table-header-group}");
    expect(elements(parse(html)).filter((e) => e.name === "thead").length).toBeGreaterThanOrEqual(1);
  });

  it("titles a credit note as one, in the language asked, and takes the buyer's country's language by default", () => {
    expect(renderHtml(data({ ...EXAMPLE, typeCode: "381" }), { lang: "de" })).toContain("<h1>Gutschrift ");
    expect(renderHtml(data(EXAMPLE), { kind: "creditNote", lang: "nl" })).toContain("<h1>Creditnota ");
    const buyerIn = (country: string) => data({ ...EXAMPLE, buyer: { ...(EXAMPLE["buyer"] as object), address: { city: "X", country } } });
    expect(renderHtml(buyerIn("AT"))).toContain('<html lang="de">');
    expect(renderHtml(buyerIn("FR"))).toContain('<html lang="fr">');
    expect(renderHtml(buyerIn("PL"))).toContain('<html lang="pl">');
    expect(renderHtml(buyerIn("SE"))).toContain('<html lang="en">');
  });

  it("writes Polish, German and French characters as they are, and formats for the language", () => {
    const invoice = data({
      ...FULL,
      seller: { ...(FULL["seller"] as object), name: "Zażółć gęślą jaźń Sp. z o.o." },
      buyer: { ...(FULL["buyer"] as object), name: "Müller & Söhne GmbH – Straße" },
      notes: ["Facture réglée à échéance, garantie œuvre « été »"],
    });
    for (const lang of ["pl", "de", "fr"] as const) {
      const html = renderHtml(invoice, { lang });
      expect(html).toMatch(/^<!DOCTYPE html><html lang="[a-z]{2}"><head><meta charset="utf-8">/);
      const text = textOf(parse(html));
      expect(text).toContain("Zażółć gęślą jaźń Sp. z o.o.");
      expect(text).toContain("Müller & Söhne GmbH – Straße");
      expect(text).toContain("Facture réglée à échéance, garantie œuvre « été »");
    }
    const de = textOf(parse(renderHtml(invoice, { lang: "de" })));
    expect(de).toContain("1.234,5678");
    expect(de).toContain("01.03.2026");
    expect(de).toContain("Stunde");
    const fr = textOf(parse(renderHtml(invoice, { lang: "fr" })));
    expect(fr).toContain("1\u202f234,5678");
    expect(fr).toContain("01/03/2026");
    const pl = textOf(parse(renderHtml(invoice, { lang: "pl" })));
    expect(pl).toContain("1234,5678");
    expect(pl).toContain("godz.");
    expect(pl).toContain("Do zapłaty");
  });

  it("shows a KSeF invoice's number and the QR code as a data: image, with its label", () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"><text>X</text></svg>';
    const html = renderHtml(data(EXAMPLE), { lang: "pl", ksef: { ksefNumber: "5260250995-20261120-0100001AF629-AF", verificationUrl: "https://qr.ksef.mf.gov.pl/invoice/x", qrSvg: svg } });
    const img = elements(parse(html)).find((e) => e.name === "img")!;
    expect(img.attribs!["src"]).toBe(`data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`);
    const text = textOf(parse(html));
    expect(text).toContain("Numer KSeF");
    expect(text).toContain("5260250995-20261120-0100001AF629-AF");
    expect(text).toContain("Sprawdź, czy Twoja faktura znajduje się w KSeF!");
    // A link that is not https is text, never a link.
    const js = renderHtml(data(EXAMPLE), { ksef: { ksefNumber: "N", verificationUrl: "javascript:alert(1)" } });
    expect(elements(parse(js)).filter((e) => e.name === "a")).toEqual([]);
  });

  describe("a hostile document renders inert", () => {
    const PAYLOADS = ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "javascript:alert(1)", "' onmouseover='alert(1)", "</style><script>alert(2)</script>", "<!--", "]]>&amp;"];

    /** Every text field of the invoice set to `payload` (where the schema takes free text). */
    function hostile(payload: string): InvoiceData {
      const party = (p: Record<string, unknown>) => ({
        ...p,
        name: payload,
        tradingName: payload,
        vatId: payload,
        legalId: { id: payload },
        legalInfo: payload,
        identifiers: [{ id: payload }],
        endpoint: { scheme: "0208", id: payload },
        address: { lines: [payload, payload], city: payload, postalCode: payload.slice(0, 50), subdivision: payload, country: "BE" },
        contact: { name: payload, phone: payload, email: payload },
      });
      const ac = { amount: "1.00", reason: payload, vat: { category: "S", rate: "21" } };
      return data({
        ...EXAMPLE,
        number: payload,
        buyerReference: payload,
        projectReference: payload,
        contractReference: payload,
        orderReference: payload,
        salesOrderReference: payload,
        receivingAdviceReference: payload,
        despatchAdviceReference: payload,
        tenderReference: payload,
        accountingCost: payload,
        objectId: { id: payload },
        paymentTerms: payload,
        notes: [payload],
        precedingInvoices: [{ number: payload }],
        seller: party(EXAMPLE["seller"] as Record<string, unknown>),
        buyer: { ...party(EXAMPLE["buyer"] as Record<string, unknown>), identifiers: [{ id: payload }] },
        payee: { name: payload, identifier: { id: payload } },
        taxRepresentative: { name: payload, vatId: payload, address: { lines: [payload], country: "BE" } },
        delivery: { partyName: payload, location: { id: payload }, address: { lines: [payload], city: payload, country: "BE" } },
        payment: { meansCode: "30", meansText: payload, reference: payload, accounts: [{ iban: payload, name: payload, bic: payload.slice(0, 20) }] },
        allowances: [ac],
        charges: [ac],
        attachments: [{ id: payload, description: payload, url: payload }],
        lines: [
          {
            id: payload,
            name: payload,
            description: payload,
            note: payload,
            sellerItemId: payload,
            buyerItemId: payload,
            orderLineReference: payload,
            accountingCost: payload,
            attributes: [{ name: payload, value: payload }],
            quantity: "1",
            unitCode: "C62",
            price: "10.00",
            vat: { category: "S", rate: "21" },
            allowances: [{ amount: "1.00", reason: payload }],
          },
        ],
      });
    }

    for (const payload of PAYLOADS) {
      it(`with ${JSON.stringify(payload)} in every text field`, () => {
        const html = renderHtml(hostile(payload), { lang: "en", ksef: { ksefNumber: payload, verificationUrl: payload } });
        const doc = parse(html);
        const all = elements(doc);
        expect(all.filter((e) => e.type === "script" || e.name === "script")).toEqual([]);
        expect(all.filter((e) => e.type === "style")).toHaveLength(1);
        // No element the document could have made: the page's own elements only.
        const allowed = new Set(["html", "head", "meta", "title", "style", "body", "main", "header", "div", "section", "h1", "h2", "span", "address", "table", "thead", "tbody", "tr", "th", "td", "p", "ul", "li", "figure", "figcaption", "a", "img"]);
        expect(all.map((e) => e.name).filter((n) => !allowed.has(n!))).toEqual([]);
        expect(all.filter((e) => e.name === "img")).toEqual([]);
        for (const el of all) {
          for (const [name, value] of Object.entries(el.attribs ?? {})) {
            expect(name, `attribute ${name} on ${el.name}`).not.toMatch(/^on/i);
            expect(["class", "lang", "charset", "name", "content", "scope", "href", "rel", "alt", "src"]).toContain(name);
            expect(value).not.toMatch(/^\s*javascript:/i);
          }
        }
        // The text is intact: the payload shows as it was written, as text.
        const text = textOf(doc);
        expect(text.split(payload).length - 1).toBeGreaterThanOrEqual(40);
        // The raw page never holds the payload unescaped (a `<` of it would start markup).
        if (/[<>"']/.test(payload)) expect(html).not.toContain(payload);
      });
    }

    it("escapes the five characters that end text or a quoted attribute", () => {
      expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe("&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
    });
  });
});
