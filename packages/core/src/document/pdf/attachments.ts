// The reading itself, on the worker thread: the PDF parsed by @cantoo/pdf-lib, the catalog's /AF array and
// its /Names /EmbeddedFiles tree walked, the invoice attachment chosen and decompressed under the limits.
import { inflateSync, constants as zlib } from "node:zlib";
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFRawStream, PDFString, ParseSpeeds, type PDFContext, type PDFObject } from "@cantoo/pdf-lib";
import { ApiError } from "../../domain/errors.js";
import { bytesText, INVOICE_ATTACHMENT_NAMES, type PdfLimits } from "./limits.js";
import { ENCRYPTED_MESSAGE, scanPdf } from "./scan.js";

/** An attachment as the PDF declares it: a file specification dictionary. */
interface Attachment {
  name: string;
  afRelationship: string | null;
  /** Whether the catalog's /AF array names it (a PDF/A-3 associated file). */
  associated: boolean;
  spec: PDFDict;
}

/** What the worker hands back: the attachment's bytes and what describes them. */
export interface PdfExtraction {
  xml: Uint8Array;
  attachmentName: string;
  afRelationship: string | null;
}

/** The deepest name tree (/Kids in /Kids) walked; a real one has 1 to 3 levels. */
const MAX_TREE_DEPTH = 32;
/** The most attachment names a message lists. */
const MAX_NAMES_LISTED = 10;

/** Parses the PDF with the library and nothing else: what the bench compares the extraction with. */
export async function loadPdf(bytes: Uint8Array): Promise<PDFDocument> {
  return PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false, parseSpeed: ParseSpeeds.Fastest, throwOnInvalidObject: false });
}

/**
 * The invoice XML of a Factur-X / ZUGFeRD PDF (see `extractInvoiceXml`, which runs this on a worker).
 * Throws `ApiError` (`invalid_pdf`, `pdf_encrypted`, `pdf_without_invoice`); any other failure of the
 * parser is turned into `invalid_pdf` too.
 */
export async function extractFromPdf(bytes: Uint8Array, limits: Required<PdfLimits>): Promise<PdfExtraction> {
  // An /Encrypt entry is enough: nothing is ever decrypted, so its strings and streams could not be read.
  if (scanPdf(bytes, limits).encrypted) throw new ApiError("pdf_encrypted", ENCRYPTED_MESSAGE);
  let doc: PDFDocument;
  try {
    doc = await loadPdf(bytes);
  } catch (e) {
    throw unreadable(e);
  }
  if (doc.isEncrypted) throw new ApiError("pdf_encrypted", ENCRYPTED_MESSAGE);
  try {
    const count = doc.context.enumerateIndirectObjects().length;
    if (count > limits.maxObjects) {
      throw new ApiError("invalid_pdf", `The PDF has ${count} objects, more than ${limits.maxObjects} (the limit of objects in a PDF); send the invoice XML or a smaller Factur-X PDF.`);
    }
    if (!(catalogOf(doc) instanceof PDFDict)) {
      throw new ApiError("invalid_pdf", "The PDF has no document catalog (its trailer names none: the file may be cut short); send the invoice XML or a complete Factur-X PDF.");
    }
    const attachments = listAttachments(doc);
    const chosen = choose(attachments);
    if (!chosen) {
      const names = [...new Set(attachments.map((a) => a.name))];
      const listed = names.slice(0, MAX_NAMES_LISTED).map((n) => JSON.stringify(n.length > 100 ? `${n.slice(0, 100)}…` : n));
      const found =
        names.length === 0
          ? "it has no attachments"
          : `its attachments are ${listed.join(", ")}${names.length > MAX_NAMES_LISTED ? ` and ${names.length - MAX_NAMES_LISTED} more` : ""}`;
      throw new ApiError(
        "pdf_without_invoice",
        `The PDF holds no Factur-X, ZUGFeRD or XRechnung invoice (an attachment named ${INVOICE_ATTACHMENT_NAMES.join(", ")}): ${found}. Send the invoice XML, or a Factur-X PDF.`,
      );
    }
    return { xml: contents(doc.context, chosen, limits), attachmentName: chosen.name, afRelationship: chosen.afRelationship };
  } catch (e) {
    throw e instanceof ApiError ? e : unreadable(e);
  }
}

/** The document catalog, whatever the trailer's /Root resolves to (the library types it as a catalog unchecked). */
function catalogOf(doc: PDFDocument): unknown {
  return doc.catalog as unknown;
}

/** A parser failure as `invalid_pdf`, in words a person can act on (the parser's own words, cut short). */
function unreadable(e: unknown): ApiError {
  if (e instanceof RangeError && /call stack/i.test(e.message)) {
    return new ApiError("invalid_pdf", "The PDF nests objects deeper than it can be read (the limit of nesting in a PDF); send the invoice XML or a Factur-X PDF.");
  }
  const said = e instanceof Error ? e.message.replace(/\s+/g, " ").trim().slice(0, 200) : "";
  return new ApiError("invalid_pdf", `The PDF could not be read${said ? ` (${said})` : ""}; send the invoice XML or a Factur-X PDF that opens in a PDF reader.`);
}

/** The text of a PDF string or name, or null. */
function text(obj: PDFObject | undefined): string | null {
  if (obj instanceof PDFString || obj instanceof PDFHexString) return obj.decodeText();
  if (obj instanceof PDFName) return obj.decodeText();
  return null;
}

function lookup(context: PDFContext, dict: PDFDict, key: string): PDFObject | undefined {
  const v = dict.get(PDFName.of(key));
  return v === undefined ? undefined : context.lookup(v);
}

function attachmentOf(context: PDFContext, spec: PDFObject | undefined, key: string | null, associated: boolean): Attachment | null {
  const dict = spec === undefined ? undefined : context.lookup(spec);
  if (!(dict instanceof PDFDict)) return null;
  const name = text(lookup(context, dict, "UF")) ?? text(lookup(context, dict, "F")) ?? key;
  if (name === null) return null;
  const rel = lookup(context, dict, "AFRelationship");
  const afRelationship = rel instanceof PDFName ? rel.decodeText().replace(/^\//, "") : null;
  return { name, afRelationship, associated, spec: dict };
}

/** Every file specification of the catalog's /AF array and its EmbeddedFiles name tree (the same one once). */
function listAttachments(doc: PDFDocument): Attachment[] {
  const context = doc.context;
  const catalog = doc.catalog as PDFDict;
  const out: Attachment[] = [];
  const seen = new Set<PDFDict>();
  const add = (a: Attachment | null) => {
    if (a && !seen.has(a.spec)) {
      seen.add(a.spec);
      out.push(a);
    }
  };
  const af = lookup(context, catalog, "AF");
  if (af instanceof PDFArray) for (let i = 0; i < af.size(); i++) add(attachmentOf(context, af.get(i), null, true));
  const names = lookup(context, catalog, "Names");
  const tree = names instanceof PDFDict ? lookup(context, names, "EmbeddedFiles") : undefined;
  const visited = new Set<PDFDict>();
  const walk = (node: PDFObject | undefined, level: number) => {
    if (!(node instanceof PDFDict) || visited.has(node) || level > MAX_TREE_DEPTH) return;
    visited.add(node);
    const leaves = lookup(context, node, "Names");
    if (leaves instanceof PDFArray) {
      for (let i = 0; i + 1 < leaves.size(); i += 2) add(attachmentOf(context, leaves.get(i + 1), text(context.lookup(leaves.get(i))), false));
    }
    const kids = lookup(context, node, "Kids");
    if (kids instanceof PDFArray) for (let i = 0; i < kids.size(); i++) walk(context.lookup(kids.get(i)), level + 1);
  };
  walk(tree, 0);
  return out;
}

/** How much a name is preferred: its place among the invoice names (exact first, then ignoring case), or -1. */
function rank(name: string): number {
  const exact = (INVOICE_ATTACHMENT_NAMES as readonly string[]).indexOf(name);
  if (exact >= 0) return exact;
  const folded = INVOICE_ATTACHMENT_NAMES.findIndex((n) => n.toLowerCase() === name.toLowerCase());
  return folded >= 0 ? INVOICE_ATTACHMENT_NAMES.length + folded : -1;
}

/**
 * The invoice attachment: one the /AF array names with a known name, else a known name of the tree; by name
 * order. One with an embedded file (/EF) first; a known name without one is still chosen, to be refused as
 * such rather than reported missing.
 */
function choose(attachments: Attachment[]): Attachment | null {
  const known = attachments.filter((a) => rank(a.name) >= 0);
  const embedded = known.filter((a) => a.spec.get(PDFName.of("EF")) !== undefined);
  const best = (list: Attachment[]) => [...list].sort((a, b) => rank(a.name) - rank(b.name))[0] ?? null;
  return best(embedded.filter((a) => a.associated)) ?? best(embedded) ?? best(known);
}

/** The attachment's bytes: the embedded file stream, decompressed under the limits. */
function contents(context: PDFContext, a: Attachment, limits: Required<PdfLimits>): Uint8Array {
  const ef = lookup(context, a.spec, "EF");
  const stream = ef instanceof PDFDict ? (lookup(context, ef, "UF") ?? lookup(context, ef, "F")) : undefined;
  if (!(stream instanceof PDFRawStream)) {
    throw new ApiError("invalid_pdf", `The PDF's attachment ${JSON.stringify(a.name)} has no embedded file stream; send the invoice XML or a Factur-X PDF.`);
  }
  const filter = lookup(context, stream.dict, "Filter");
  const filters = filter instanceof PDFArray ? Array.from({ length: filter.size() }, (_, i) => context.lookup(filter.get(i))) : filter === undefined ? [] : [filter];
  const names = filters.map((f) => (f instanceof PDFName ? f.decodeText() : "?"));
  const raw = stream.contents;
  if (names.length === 0) {
    if (raw.length > limits.maxAttachmentBytes) throw tooLarge(a.name, limits);
    return raw;
  }
  if (names.length > 1 || (names[0] !== "FlateDecode" && names[0] !== "Fl")) {
    throw new ApiError("invalid_pdf", `The PDF's attachment ${JSON.stringify(a.name)} is encoded with ${names.map((n) => `/${n}`).join(" ")}, which is not read (only /FlateDecode is); send the invoice XML or a Factur-X PDF.`);
  }
  const parms = lookup(context, stream.dict, "DecodeParms");
  const predictor = parms instanceof PDFDict ? lookup(context, parms, "Predictor") : undefined;
  if (predictor !== undefined && predictor.toString() !== "1") {
    throw new ApiError("invalid_pdf", `The PDF's attachment ${JSON.stringify(a.name)} uses a /Predictor, which is not read; send the invoice XML or a Factur-X PDF.`);
  }
  // The output is capped where it is made: zlib stops at maxOutputLength, so a bomb never inflates past it.
  const byRatio = Math.max(1024 * 1024, raw.length * limits.maxInflateRatio);
  const cap = Math.min(limits.maxAttachmentBytes, byRatio);
  try {
    // Z_SYNC_FLUSH: a stream cut before its checksum (some writers do) still gives what it holds, as PDF readers do.
    return inflateSync(raw, { maxOutputLength: cap, finishFlush: zlib.Z_SYNC_FLUSH });
  } catch (e) {
    if ((e as { code?: string }).code === "ERR_BUFFER_TOO_LARGE" || e instanceof RangeError) {
      if (cap < limits.maxAttachmentBytes) {
        throw new ApiError(
          "invalid_pdf",
          `The PDF's attachment ${JSON.stringify(a.name)} decompresses to more than ${limits.maxInflateRatio} times its compressed size of ${bytesText(raw.length)} (the limit of decompression in a PDF); send the invoice XML or a Factur-X PDF.`,
        );
      }
      throw tooLarge(a.name, limits);
    }
    throw new ApiError("invalid_pdf", `The PDF's attachment ${JSON.stringify(a.name)} is not valid /FlateDecode data; send the invoice XML or a Factur-X PDF.`);
  }
}

function tooLarge(name: string, limits: Required<PdfLimits>): ApiError {
  return new ApiError("invalid_pdf", `The PDF's attachment ${JSON.stringify(name)} is larger than ${bytesText(limits.maxAttachmentBytes)} decompressed (the limit of an invoice attachment); send the invoice XML or a smaller Factur-X PDF.`);
}
