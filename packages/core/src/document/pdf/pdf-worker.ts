// The worker of the PDF pool (a piscina task module): reads one PDF under its limits and hands the
// attachment's bytes back transferred. Never throws: an ApiError goes back as its code and message.
import { move, transferableSymbol, valueSymbol } from "piscina";
import { ApiError } from "../../domain/errors.js";
import { extractFromPdf } from "./attachments.js";
import type { PdfLimits } from "./limits.js";

export interface PdfTask {
  pdf: ArrayBuffer;
  limits: Required<PdfLimits>;
}

export type PdfReply =
  | { ok: true; xml: ArrayBuffer; length: number; attachmentName: string; afRelationship: string | null }
  | { ok: false; code: "invalid_pdf" | "pdf_encrypted" | "pdf_without_invoice"; message: string };

export default async function extractOnWorker(task: PdfTask): Promise<PdfReply> {
  // The pool's start (extract.ts `warmed`): the module, and the PDF library with it, is loaded; nothing to read.
  if ((task as { warm?: boolean }).warm === true) return { ok: false, code: "invalid_pdf", message: "warm" };
  try {
    const r = await extractFromPdf(new Uint8Array(task.pdf), task.limits);
    // A copy of its own: the bytes may be a view into the PDF or zlib's larger buffer.
    const xml = new Uint8Array(r.xml).buffer;
    const reply: PdfReply = { ok: true, xml, length: r.xml.length, attachmentName: r.attachmentName, afRelationship: r.afRelationship };
    return move({ [transferableSymbol]: [xml], [valueSymbol]: reply }) as unknown as PdfReply;
  } catch (e) {
    if (e instanceof ApiError && (e.code === "invalid_pdf" || e.code === "pdf_encrypted" || e.code === "pdf_without_invoice")) return { ok: false, code: e.code, message: e.message };
    const said = e instanceof Error ? e.message.replace(/\s+/g, " ").slice(0, 200) : "";
    return { ok: false, code: "invalid_pdf", message: `The PDF could not be read${said ? ` (${said})` : ""}; send the invoice XML or a Factur-X PDF that opens in a PDF reader.` };
  }
}
