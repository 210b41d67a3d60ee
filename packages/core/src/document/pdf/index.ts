// Placeholder until the Factur-X reader lands: recognises a PDF; extraction says it is not available.
import { ApiError } from "../../domain/errors.js";

export interface ExtractedInvoice {
  xml: Buffer;
  attachmentName: string;
  afRelationship: string | null;
  pdfSize: number;
}

/** True when the bytes start like a PDF (`%PDF-`). */
export function isPdf(bytes: Uint8Array): boolean {
  return bytes.length >= 5 && bytes[0] === 0x25 && bytes[1] === 0x50 && bytes[2] === 0x44 && bytes[3] === 0x46 && bytes[4] === 0x2d;
}

export async function extractInvoiceXml(_pdf: Uint8Array): Promise<ExtractedInvoice> {
  throw new ApiError("unsupported_document", "Reading PDFs is not available yet.");
}
