// renderPdf: an invoice (InvoiceData, any syntax's, sent or received) as a PDF for people, with pdfkit: the same
// content as the HTML page, in the reader's language, pages streamed out as they are laid out.
import type { Readable } from "node:stream";
import type { InvoiceData } from "@einvoice/core";
import { collect, pdfStream, type RenderPdfOptions } from "./pdf-render.js";

export type { RenderPdfOptions } from "./pdf-render.js";

/**
 * The invoice as a PDF: parties, title, number and dates, references, the lines (the table's header on every page),
 * allowances and charges, the VAT breakdown, totals, payment, notes, delivery, attachments by name, and for a KSeF
 * invoice its number and verification QR code; "page / pages" at the foot. The fonts (DejaVu Sans) are embedded.
 *
 * @example const pdf = await renderPdf(invoice, { lang: "de" }); writeFileSync("invoice.pdf", pdf);
 */
export async function renderPdf(invoice: InvoiceData, options: RenderPdfOptions = {}): Promise<Buffer> {
  return collect(renderPdfStream(invoice, options));
}

/**
 * The PDF as a stream: pages are written as they are laid out and the layout waits for a slow reader, so a
 * 100,000-line invoice costs the memory of a page or two, not of the document.
 *
 * @example renderPdfStream(invoice).pipe(res.type("application/pdf"))
 */
export function renderPdfStream(invoice: InvoiceData, options: RenderPdfOptions = {}): Readable {
  return pdfStream(invoice, options);
}

