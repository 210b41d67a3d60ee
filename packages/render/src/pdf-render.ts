// The PDF writer behind renderPdf and toFacturX: pdfkit, the fonts, and the layout of the page's sections in order.
import { PassThrough, type Readable } from "node:stream";
import PDFDocument from "pdfkit";
import QRCode from "qrcode";
import type { InvoiceData, InvoiceKind } from "@einvoice/core";
import { documentTotals, lineAmounts, type PdfTotals } from "./pdf-amounts.js";
import { pdfFonts } from "./pdf-fonts.js";
import { CONTENT_W, Flow, MARGIN, PAGE_W, type Doc } from "./pdf-layout.js";
import { documentKind, formatAmount, formatDate, formatNumber, formatPercent, isLanguage, labelsFor, languageFor, paymentMeansName, unitName, type Labels, type Language } from "./labels.js";

export interface RenderPdfOptions {
  /** en, de, nl, fr or pl; default: the buyer's country's language, else English. */
  lang?: string | undefined;
  /** Invoice or credit note; default from the type code (381, 396, … are credit notes). */
  kind?: InvoiceKind | undefined;
  /** An invoice in KSeF: its number and verification link (KOD I), printed with the link's QR code. */
  ksef?: { ksefNumber: string; verificationUrl: string } | undefined;
}

/** What the PDF writer is started with; toFacturX adds PDF/A-3 to it. */
export interface PdfDocumentSetup {
  pdfVersion?: "1.7";
  subset?: "PDF/A-3b";
  tagged?: boolean;
}

/** A stream's bytes, in one Buffer. */
export async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The PDF writer's stream with `setup` (PDF/A-3 for toFacturX) and `before`, called on the document before its first page. */
export function pdfStream(invoice: InvoiceData, options: RenderPdfOptions, setup: PdfDocumentSetup = {}, before?: (doc: Doc) => void): Readable {
  const out = new PassThrough({ highWaterMark: 256 * 1024 });
  const fonts = pdfFonts();
  const t = texts(invoice, options);
  const doc = new PDFDocument({
    autoFirstPage: false,
    compress: true,
    font: fonts.regular,
    bufferPages: false,
    ...setup,
    info: { Title: sanitiseInfo(`${t.title} ${invoice.number}`), Creator: "@einvoice/render", Producer: "@einvoice/render (pdfkit)", CreationDate: documentDate(invoice) },
  } as ConstructorParameters<typeof PDFDocument>[0]);
  doc.pipe(out);
  void (async () => {
    try {
      before?.(doc);
      // The dry pass counts the pages (for "1 / 3"); the second draws, yielding after each page so the reader drains.
      const dry = new Flow(doc, fonts, true, () => "");
      await layout(dry, invoice, t, options, async () => {});
      const pages = Math.max(1, dry.page);
      let pending = false;
      const flow = new Flow(doc, fonts, false, (n) => `${t.title} ${invoice.number} · ${t.l.page} ${n} / ${pages}`, () => (pending = true));
      await layout(flow, invoice, t, options, async () => {
        if (!pending) return;
        pending = false;
        await drained(out);
      });
      doc.end();
    } catch (e) {
      out.destroy(e as Error);
    }
  })();
  return out;
}

/** The issue date as the PDF's creation date: the same invoice gives the same bytes. */
export const documentDate = (invoice: InvoiceData): Date => new Date(`${invoice.issueDate}T00:00:00Z`);

/** Waits while the stream holds more than its high-water mark (its reader is behind). */
async function drained(out: PassThrough): Promise<void> {
  await new Promise<void>((r) => setImmediate(r));
  while (out.writableNeedDrain && !out.destroyed) await new Promise<void>((r) => out.once("drain", r));
}

/** PDF/A wants the Info dictionary and the XMP to agree; pdfkit writes the title into the XMP as it is. */
const sanitiseInfo = (s: string): string => s.replace(/[<>&"]/g, " ").slice(0, 200);

interface Texts {
  lang: Language;
  l: Labels;
  title: string;
  data: InvoiceData;
  /** Computed amounts where the invoice gives none (the amounts it gives are shown as written). */
  totals: PdfTotals;
}

function texts(invoice: InvoiceData, options: RenderPdfOptions): Texts {
  const lang: Language = isLanguage(options.lang) ? options.lang : languageFor(invoice);
  const l = labelsFor(lang);
  const kind: InvoiceKind = documentKind(invoice, options.kind);
  return { lang, l, title: kind === "creditNote" ? l.creditNote : l.invoice, data: invoice, totals: documentTotals(invoice) };
}

// Table columns of the lines.
const COL = { pos: 26, qty: 74, price: 70, vat: 48, net: 78 };
const ITEM_W = CONTENT_W - COL.pos - COL.qty - COL.price - COL.vat - COL.net;
const X = {
  pos: MARGIN,
  item: MARGIN + COL.pos,
  qty: MARGIN + COL.pos + ITEM_W,
  price: MARGIN + COL.pos + ITEM_W + COL.qty,
  vat: MARGIN + COL.pos + ITEM_W + COL.qty + COL.price,
  net: MARGIN + COL.pos + ITEM_W + COL.qty + COL.price + COL.vat,
};
const PAD = 3;
const SMALL = 7.5;
const BODY = 8.5;

async function layout(f: Flow, _invoice: InvoiceData, t: Texts, options: RenderPdfOptions, pageDone: () => Promise<void>): Promise<void> {
  const { l, lang, data, totals: tot } = t;
  const amt = (v: string | undefined) => (v === undefined ? "" : formatNumber(v, lang));
  const money = (v: string | undefined) => (v === undefined ? "" : formatAmount(v, data.currency, lang));
  const date = (v: string | undefined) => (v === undefined ? "" : formatDate(v, lang));
  const vatText = (v: { category: string; rate?: string | undefined }) => (v.rate === undefined ? v.category : `${v.category} ${formatPercent(v.rate, lang)}`);

  f.newPage();

  // Title, number, dates; the KSeF block at the right.
  const qrSize = 92;
  const ksefW = 140; // the KSeF block: its label, the code and the KSeF number, at the right
  const headW = options.ksef ? CONTENT_W - ksefW - 16 : CONTENT_W;
  const top = f.y;
  f.y += f.text(t.title, MARGIN, f.y, headW, { bold: true, size: 18 }) + 4;
  const headRows: Array<[string, string | undefined]> = [
    [l.number, data.number],
    [l.issueDate, date(data.issueDate)],
    [l.dueDate, date(data.dueDate)],
    [l.taxPointDate, date(data.taxPointDate)],
    [l.deliveryDate, date(data.delivery?.date)],
    [l.invoicingPeriod, data.period ? [date(data.period.start), date(data.period.end)].filter(Boolean).join(" – ") : undefined],
  ];
  if (options.ksef) headRows.push([l.ksefNumber, options.ksef.ksefNumber]);
  for (const [k, v] of headRows) if (v) f.y += kvRow(f, k, v, MARGIN, headW, 110);
  if (options.ksef) {
    const bottom = ksefBlock(f, options.ksef, l, PAGE_W - MARGIN - ksefW, top, ksefW, qrSize);
    f.y = Math.max(f.y, bottom);
  }
  f.y += 10;

  // Seller and buyer side by side; payee and tax representative under them.
  const half = (CONTENT_W - 20) / 2;
  const pair = (a: [string, string[]], b: [string, string[]] | null) => {
    const ha = partyHeight(f, a, half);
    const hb = b ? partyHeight(f, b, half) : 0;
    f.ensure(Math.max(ha, hb));
    const y = f.y;
    drawParty(f, a, MARGIN, y, half);
    if (b) drawParty(f, b, MARGIN + half + 20, y, half);
    f.y = y + Math.max(ha, hb) + 8;
  };
  pair([l.seller, partyLines(data.seller, l, true)], [l.buyer, partyLines(data.buyer, l, false)]);
  const payee = data.payee ? [data.payee.name, ...(data.payee.identifier ? [data.payee.identifier.id] : []), ...(data.payee.legalId ? [`${l.legalId}: ${data.payee.legalId.id}`] : [])] : null;
  const rep = data.taxRepresentative ? [data.taxRepresentative.name, ...addressLines(data.taxRepresentative.address), `${l.vatId}: ${data.taxRepresentative.vatId}`] : null;
  if (payee || rep) pair(payee ? [l.payee, payee] : [l.taxRepresentative, rep!], payee && rep ? [l.taxRepresentative, rep] : null);

  // References.
  const refs: Array<[string, string | undefined]> = [
    [l.buyerReference, data.buyerReference],
    [l.orderReference, data.orderReference],
    [l.salesOrderReference, data.salesOrderReference],
    [l.contractReference, data.contractReference],
    [l.projectReference, data.projectReference],
    [l.despatchAdviceReference, data.despatchAdviceReference],
    [l.receivingAdviceReference, data.receivingAdviceReference],
    [l.tenderReference, data.tenderReference],
    [l.accountingCost, data.accountingCost],
    ...(data.precedingInvoices ?? []).map((p): [string, string] => [l.precedingInvoice, p.issueDate ? `${p.number} (${date(p.issueDate)})` : p.number]),
  ];
  section(f, l.references, refs);

  // The lines, the header repeated on each page.
  f.y += 4;
  const header = () => {
    const y = f.y;
    const o = { bold: true, size: SMALL };
    f.text(l.position, X.pos, y, COL.pos - PAD, o);
    f.text(l.item, X.item, y, ITEM_W - PAD, o);
    f.text(l.quantity, X.qty, y, COL.qty - PAD, { ...o, align: "right" });
    f.text(l.unitPrice, X.price, y, COL.price - PAD, { ...o, align: "right" });
    f.text(l.vat, X.vat, y, COL.vat - PAD, { ...o, align: "right" });
    const h = f.text(`${l.netAmount} (${data.currency})`, X.net, y, COL.net, { ...o, align: "right" });
    f.y = y + h + 2;
    f.rule(f.y, "#000000");
    f.y += 3;
  };
  f.ensure(40);
  f.repeat = header;
  header();
  for (let i = 0; i < data.lines.length; i++) {
    const line = data.lines[i]!;
    const amounts = lineAmounts(line);
    const details: string[] = [];
    if (line.description) details.push(line.description);
    if (line.sellerItemId) details.push(line.sellerItemId);
    if (line.note) details.push(line.note);
    if (line.period) details.push([date(line.period.start), date(line.period.end)].filter(Boolean).join(" – "));
    (line.allowances ?? []).forEach((a, j) => details.push(`${l.allowance}: ${a.reason ?? a.reasonCode ?? ""} −${amt(a.amount ?? amounts.allowances[j])}`));
    (line.charges ?? []).forEach((c, j) => details.push(`${l.charge}: ${c.reason ?? c.reasonCode ?? ""} +${amt(c.amount ?? amounts.charges[j])}`));
    const detail = details.join("\n");
    const qty = `${formatNumber(line.quantity, lang)} ${unitName(line.unitCode, lang)}`;
    const h =
      Math.max(
        f.height(line.name, ITEM_W - PAD, { bold: true, size: BODY }) + f.height(detail, ITEM_W - PAD, { size: SMALL }),
        f.height(qty, COL.qty - PAD, { size: BODY }),
      ) + 4;
    f.ensure(h);
    const y = f.y;
    f.text(line.id, X.pos, y, COL.pos - PAD, { size: BODY });
    const nh = f.text(line.name, X.item, y, ITEM_W - PAD, { bold: true, size: BODY });
    f.text(detail, X.item, y + nh, ITEM_W - PAD, { size: SMALL, color: "#333333" });
    f.text(qty, X.qty, y, COL.qty - PAD, { size: BODY, align: "right" });
    f.text(amt(line.price), X.price, y, COL.price - PAD, { size: BODY, align: "right" });
    f.text(vatText(line.vat), X.vat, y, COL.vat - PAD, { size: BODY, align: "right" });
    f.text(amt(amounts.net), X.net, y, COL.net, { size: BODY, align: "right" });
    f.y = y + Math.min(h, f.room(y));
    await pageDone();
  }
  f.repeat = null;
  f.rule(f.y);
  f.y += 8;

  // Document allowances and charges.
  const acs: Array<[string, string]> = [
    ...(data.allowances ?? []).map((a, j): [string, string] => [`${l.allowance}: ${a.reason ?? a.reasonCode ?? ""} (${l.vat} ${vatText(a.vat)})`, `−${money(a.amount ?? tot.allowances[j])}`]),
    ...(data.charges ?? []).map((c, j): [string, string] => [`${l.charge}: ${c.reason ?? c.reasonCode ?? ""} (${l.vat} ${vatText(c.vat)})`, `+${money(c.amount ?? tot.charges[j])}`]),
  ];
  if (acs.length) {
    heading(f, l.allowancesAndCharges);
    for (const [k, v] of acs) amountRow(f, k, v);
    f.y += 6;
  }

  // VAT breakdown.
  const breakdown = tot.vatBreakdown;
  if (breakdown.length) {
    heading(f, l.vatBreakdown);
    const w = CONTENT_W / 4;
    const row = (cells: string[], bold: boolean) => {
      const h = f.height(cells[0]!, w - PAD, { size: BODY, bold }) + 3;
      f.ensure(h);
      cells.forEach((c, i) => f.text(c, MARGIN + i * w, f.y, w - PAD, { size: BODY, bold, align: i === 0 ? "left" : "right" }));
      f.y += h;
    };
    row([l.category, l.rate, l.taxableAmount, l.taxAmount], true);
    for (const b of breakdown) {
      const ex = data.vatExemptions?.[b.category as keyof NonNullable<InvoiceData["vatExemptions"]>];
      const cat = ex ? `${b.category} · ${l.exemptionReason}: ${[ex.code, ex.reason].filter(Boolean).join(" ")}` : b.category;
      row([cat, b.rate === undefined ? "" : formatPercent(b.rate, lang), money(b.taxableAmount), money(b.taxAmount)], false);
    }
    f.y += 6;
  }

  // Totals.
  const given = data.totals ?? {};
  const totals: Array<[string, string | undefined, boolean]> = [
    [l.lineTotal, tot.lineTotal, false],
    [l.allowanceTotal, given.allowanceTotal ?? (data.allowances?.length ? tot.allowanceTotal : undefined), false],
    [l.chargeTotal, given.chargeTotal ?? (data.charges?.length ? tot.chargeTotal : undefined), false],
    [l.taxExclusive, tot.taxExclusive, false],
    [l.vatTotal, tot.vatTotal, false],
    [l.taxInclusive, tot.taxInclusive, true],
    [l.paidAmount, data.paidAmount, false],
    [l.roundingAmount, data.roundingAmount, false],
    [l.payable, tot.payable, true],
  ];
  heading(f, l.totals);
  for (const [k, v, bold] of totals) if (v !== undefined) amountRow(f, k, money(v), bold);
  f.y += 6;

  // Payment.
  const p = data.payment;
  if (p) {
    const rows: Array<[string, string | undefined]> = [[l.paymentMeans, p.meansText ? `${paymentMeansName(p.meansCode, lang)} (${p.meansText})` : paymentMeansName(p.meansCode, lang)]];
    for (const a of p.accounts ?? []) {
      rows.push([l.iban, a.bic ? `${a.iban}   ${l.bic}: ${a.bic}` : a.iban]);
      if (a.name) rows.push([l.accountName, a.name]);
    }
    rows.push([l.paymentReference, p.reference]);
    if (p.card) rows.push([l.card, `**** ${p.card.last4}${p.card.holder ? ` (${p.card.holder})` : ""}`]);
    if (p.directDebit) rows.push([l.mandate, [p.directDebit.mandate, p.directDebit.creditorId, p.directDebit.debitedAccount].filter(Boolean).join(" · ")]);
    rows.push([l.dueDate, date(data.dueDate)]);
    rows.push([l.paymentTerms, data.paymentTerms]);
    section(f, l.payment, rows);
  } else if (data.paymentTerms) section(f, l.payment, [[l.paymentTerms, data.paymentTerms]]);

  // Notes, delivery, attachments.
  if (data.notes?.length) {
    heading(f, l.notes);
    for (const n of data.notes) paragraph(f, n);
    f.y += 6;
  }
  const d = data.delivery;
  if (d) {
    section(f, l.delivery, [
      [l.delivery, [d.partyName, d.location?.id].filter(Boolean).join(" · ") || undefined],
      [l.deliveryDate, date(d.date)],
      ["", d.address ? addressLines(d.address).join(", ") : undefined],
    ]);
  }
  if (data.attachments?.length) {
    heading(f, l.attachments);
    for (const a of data.attachments) paragraph(f, [a.id, a.description, a.filename, a.url].filter(Boolean).join(" · "));
  }
}

function heading(f: Flow, s: string): void {
  f.ensure(34); // keep the heading with what follows
  f.y += f.text(s, MARGIN, f.y, CONTENT_W, { bold: true, size: 10 }) + 3;
}

function paragraph(f: Flow, s: string): void {
  const h = f.height(s, CONTENT_W, { size: BODY }) + 3;
  f.ensure(Math.min(h, 200));
  f.y += f.text(s, MARGIN, f.y, CONTENT_W, { size: BODY }) + 3;
}

function section(f: Flow, title: string, rows: Array<[string, string | undefined]>): void {
  const present = rows.filter((r): r is [string, string] => r[1] !== undefined && r[1] !== "");
  if (!present.length) return;
  heading(f, title);
  for (const [k, v] of present) {
    const h = kvHeight(f, k, v, CONTENT_W, 130);
    f.ensure(h);
    f.y += kvRow(f, k, v, MARGIN, CONTENT_W, 130);
  }
  f.y += 6;
}

function kvHeight(f: Flow, k: string, v: string, w: number, kw: number): number {
  return Math.max(f.height(k, kw - PAD, { size: BODY, bold: true }), f.height(v, w - kw, { size: BODY })) + 2;
}

function kvRow(f: Flow, k: string, v: string, x: number, w: number, kw: number): number {
  const h = kvHeight(f, k, v, w, kw);
  f.text(k, x, f.y, kw - PAD, { size: BODY, bold: true });
  f.text(v, x + kw, f.y, w - kw, { size: BODY });
  return h;
}

function amountRow(f: Flow, k: string, v: string, bold = false): void {
  const vw = 150;
  const h = Math.max(f.height(k, CONTENT_W - vw - PAD, { size: BODY, bold }), f.height(v, vw, { size: BODY, bold })) + 2;
  f.ensure(h);
  f.text(k, MARGIN, f.y, CONTENT_W - vw - PAD, { size: BODY, bold });
  f.text(v, PAGE_W - MARGIN - vw, f.y, vw, { size: BODY, bold, align: "right" });
  f.y += h;
}

type Party = InvoiceData["seller"];

function addressLines(a: Party["address"]): string[] {
  return [...(a.lines ?? []), [a.postalCode, a.city].filter(Boolean).join(" "), a.subdivision ?? "", a.country].filter((s) => s !== "");
}

function partyLines(p: Party, l: Labels, seller: boolean): string[] {
  const out = [p.name];
  if (p.tradingName) out.push(p.tradingName);
  out.push(...addressLines(p.address));
  if (p.vatId) out.push(`${l.vatId}: ${p.vatId}`);
  if (p.legalId) out.push(`${l.legalId}: ${p.legalId.id}`);
  if (seller && p.taxRegistrationId) out.push(`${l.taxRegistrationId}: ${p.taxRegistrationId}`);
  for (const id of p.identifiers ?? []) out.push(id.id);
  if (p.contact) out.push([p.contact.name, p.contact.phone, p.contact.email].filter(Boolean).join(" · "));
  if (seller && p.legalInfo) out.push(p.legalInfo);
  return out;
}

function partyHeight(f: Flow, [title, lines]: [string, string[]], w: number): number {
  const [name, ...rest] = lines;
  return f.height(title, w, { size: SMALL, bold: true }) + f.height(name ?? "", w, { size: 10, bold: true }) + f.height(rest.join("\n"), w, { size: BODY }) + 2;
}

function drawParty(f: Flow, [title, lines]: [string, string[]], x: number, y: number, w: number): void {
  const [name, ...rest] = lines;
  y += f.text(title.toUpperCase(), x, y, w, { size: SMALL, bold: true, color: "#555555" });
  y += f.text(name ?? "", x, y, w, { size: 10, bold: true });
  f.text(rest.join("\n"), x, y, w, { size: BODY });
}

/**
 * KOD I: the verification link's QR code (error correction M, as the Ministry's rules ask) with the KSeF number under
 * it and the label above, right-aligned in a box `w` wide.
 */
function ksefBlock(f: Flow, ksef: { ksefNumber: string; verificationUrl: string }, l: Labels, x: number, y: number, w: number, size: number): number {
  y += f.text(l.ksefQrLabel, x, y, w, { size: SMALL, bold: true, align: "right" }) + 3;
  const qr = QRCode.create(ksef.verificationUrl, { errorCorrectionLevel: "M" });
  const n = qr.modules.size;
  const m = size / n;
  const left = x + w - size;
  if (!f.dry) {
    const doc = f.doc;
    for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) if (qr.modules.get(r, c)) doc.rect(left + c * m, y + r * m, m, m);
    doc.fillColor("#000000").fill();
  }
  y += size + 3;
  y += f.text(ksef.ksefNumber, x, y, w, { size: 6, align: "right" });
  return y;
}
