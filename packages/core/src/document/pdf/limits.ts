// The limits a PDF is read under, their defaults, and what an extraction gives back.

/** The file names of a Factur-X / ZUGFeRD / XRechnung invoice attachment, in the order they are preferred. */
export const INVOICE_ATTACHMENT_NAMES = ["factur-x.xml", "xrechnung.xml", "zugferd-invoice.xml", "ZUGFeRD-invoice.xml"] as const;

/**
 * The bounds of reading one PDF. A PDF is hostile input: each bound, once passed, stops the reading with
 * `invalid_pdf` naming the limit. Memory and time are bounded whatever the PDF library does, because
 * the PDF is read on a worker thread with V8 heap limits that is ended at the deadline.
 */
export interface PdfLimits {
  /** Largest PDF, in bytes. Default 10 MiB (the size limit of an XML document). */
  maxBytes?: number;
  /** Most indirect objects (counted in the file before it is parsed, and after, object streams included). Default 10,000. */
  maxObjects?: number;
  /** Deepest nesting of arrays and dictionaries in one object. Default 200. */
  maxDepth?: number;
  /** Largest invoice attachment once decompressed, in bytes. Default 10 MiB. */
  maxAttachmentBytes?: number;
  /**
   * Largest decompression ratio of the invoice attachment (decompressed bytes per compressed byte) once it is
   * past 1 MiB: a zip bomb stops here long before `maxAttachmentBytes`. Default 100 (XML deflates 5 to 30 times).
   */
  maxInflateRatio?: number;
  /** Longest a reading may take, from the call, in milliseconds; the worker is then ended. Default 5,000. */
  timeoutMs?: number;
  /** The worker's old-generation heap limit (V8 `maxOldGenerationSizeMb`), in MiB. Default 256. */
  maxHeapMb?: number;
  /** The worker's young-generation heap limit (V8 `maxYoungGenerationSizeMb`), in MiB. Default 48 (V8's own on 64-bit: less makes parsing collect more often). */
  maxYoungHeapMb?: number;
}

export const DEFAULT_PDF_LIMITS: Readonly<Required<PdfLimits>> = Object.freeze({
  maxBytes: 10 * 1024 * 1024,
  maxObjects: 10_000,
  maxDepth: 200,
  maxAttachmentBytes: 10 * 1024 * 1024,
  maxInflateRatio: 100,
  timeoutMs: 5_000,
  maxHeapMb: 256,
  maxYoungHeapMb: 48,
});

/** The invoice XML taken out of a Factur-X / ZUGFeRD PDF. */
export interface ExtractedInvoice {
  /** The attachment's bytes, decompressed, as they were embedded (not decoded to text). */
  xml: Buffer;
  /** The attachment's file name (`/UF`, else `/F`, else its key in the EmbeddedFiles tree), e.g. `factur-x.xml`. */
  attachmentName: string;
  /** Its `/AFRelationship` without the slash (`Data`, `Alternative`, `Source`, …), or null when it has none. */
  afRelationship: string | null;
  /** The PDF's size in bytes. */
  pdfSize: number;
}

/** The limits with their defaults filled in (a limit that is not a positive number takes its default). */
export function resolvePdfLimits(limits: PdfLimits = {}): Required<PdfLimits> {
  const out = { ...DEFAULT_PDF_LIMITS };
  for (const key of Object.keys(out) as Array<keyof PdfLimits>) {
    const v = limits[key];
    if (typeof v === "number" && v > 0) out[key] = v;
  }
  return out;
}

/** A byte count as a message says it: `10 MiB`, `300 KiB`, `512 bytes`. */
export function bytesText(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KiB`;
  return `${n} bytes`;
}
