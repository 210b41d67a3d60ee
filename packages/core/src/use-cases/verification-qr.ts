// The KSeF verification link (KOD I) of an invoice as a QR code, with the KSeF number under it (kody-qr.md).
import QRCode from "qrcode";
import { ApiError, quoteId } from "../domain/errors.js";
import type { AuthContext } from "../domain/types.js";
import type { Store } from "../ports/store.js";
import { guardStore } from "./options.js";
import { isUuid } from "../domain/schemas.js";

/** The QR code of an invoice's verification link. */
export interface VerificationQr {
  /** An SVG document: the code, and the label under it. */
  svg: string;
  verificationUrl: string;
  ksefNumber: string;
}

const escapeXml = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * `text` as a QR code (ISO/IEC 18004, error correction M, a quiet zone of 4 modules; encoded by the
 * `qrcode` library) in an SVG document, with `label` centred under it as KSeF asks (the invoice's
 * KSeF number, or `OFFLINE` before it has one). `pixelsPerModule` sets the drawn size.
 *
 * @example await verificationQrSvg("https://qr.ksef.mf.gov.pl/invoice/…", "5260250995-20261120-0100001AF629-AF")
 */
export async function verificationQrSvg(text: string, label: string, pixelsPerModule = 5): Promise<string> {
  const code = await QRCode.toString(text, { type: "svg", errorCorrectionLevel: "M", margin: 4 });
  // The library draws the modules in a viewBox of the code's size in modules, quiet zone included.
  const size = Number(/viewBox="0 0 (\d+) \1"/.exec(code)?.[1]);
  const inner = /<svg[^>]*>([\s\S]*)<\/svg>/.exec(code)?.[1];
  if (!Number.isInteger(size) || size <= 0 || inner === undefined) throw new Error("the QR code library answered an SVG of an unexpected form");
  // A 35-character KSeF number in a monospace font (0.6 em a character) fits the code's width.
  const font = Math.max(1, Math.min(2, size / 24));
  const height = size + font * 1.75;
  const fmt = (n: number): string => String(Math.round(n * 100) / 100);
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<svg xmlns="http://www.w3.org/2000/svg" width="${fmt(size * pixelsPerModule)}" height="${fmt(height * pixelsPerModule)}" viewBox="0 0 ${size} ${fmt(height)}">` +
    `<title>${escapeXml(text)}</title>` +
    `<rect width="${size}" height="${fmt(height)}" fill="#ffffff"/>` +
    `<svg width="${size}" height="${size}" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges">${inner}</svg>` +
    `<text x="${fmt(size / 2)}" y="${fmt(size + font * 0.9)}" font-family="monospace" font-size="${fmt(font)}" text-anchor="middle" fill="#000000">${escapeXml(label)}</text>` +
    `</svg>\n`
  );
}

/**
 * The KSeF verification link (KOD I) of one of the company's invoices as a QR code with its KSeF
 * number under it: what must be printed on any visualisation of a KSeF invoice.
 * `invoice_not_found` as `getInvoice`; `evidence_not_available` (409) when the invoice has no
 * link: it is not (yet) in KSeF, and the message says why.
 *
 * @example const { svg } = await getVerificationQr(store, auth, submissionId)
 */
export async function getVerificationQr(store: Store, auth: AuthContext, id: string): Promise<VerificationQr> {
  const r = isUuid(id) ? await guardStore(store).getInvoice(auth.companyId, id.toLowerCase()) : null;
  if (!r) throw new ApiError("invoice_not_found", `No invoice with id ${quoteId(id)} in this company.`);
  if (r.verificationUrl && r.ksefNumber) {
    return { svg: await verificationQrSvg(r.verificationUrl, r.ksefNumber), verificationUrl: r.verificationUrl, ksefNumber: r.ksefNumber };
  }
  const why =
    r.network !== "ksef"
      ? `it is not a KSeF invoice (network ${r.network ?? "none"}); only invoices issued through KSeF have one`
      : r.status === "sending"
        ? "it is still being sent to KSeF (status sending); the link exists once KSeF gives the invoice its number"
        : r.status === "failed"
          ? "it did not reach KSeF (status failed)"
          : "its delivery to KSeF recorded no verification link (a delivery made before links were kept, or a network that gives none)";
  throw new ApiError("evidence_not_available", `Invoice ${r.id} has no KSeF verification link: ${why}.`);
}
