// The cheap checks of a PDF's bytes before any parser sees them: the header, and one linear pass that
// counts objects and the nesting of arrays and dictionaries, and notices an /Encrypt entry.
import { ApiError } from "../../domain/errors.js";

const HEADER = [0x25, 0x50, 0x44, 0x46, 0x2d]; // %PDF-
/** How far into the file the header may start: PDF readers (Acrobat, pdf.js, poppler) look in the first 1024 bytes. */
export const PDF_HEADER_WINDOW = 1024;

/**
 * Whether the bytes are a PDF: `%PDF-` within the first 1024 bytes, as PDF readers accept (a file may
 * start with a BOM, whitespace or a few bytes of junk before the header).
 *
 * @example isPdf(readFileSync("invoice.pdf")) // true
 */
export function isPdf(bytes: Uint8Array): boolean {
  if (!(bytes instanceof Uint8Array)) return false;
  const end = Math.min(bytes.length, PDF_HEADER_WINDOW + HEADER.length) - HEADER.length;
  outer: for (let i = 0; i <= end; i++) {
    for (let j = 0; j < HEADER.length; j++) if (bytes[i + j] !== HEADER[j]) continue outer;
    return true;
  }
  return false;
}

/** What the pass over the bytes saw. */
export interface PdfScan {
  /** `N G obj` keywords outside streams and strings. */
  objects: number;
  /** The deepest nesting of arrays and dictionaries in one object. */
  depth: number;
  /** Whether an `/Encrypt` name appears (outside streams and strings): the PDF is encrypted. */
  encrypted: boolean;
}

const isWhite = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00;
const isDelimiter = (c: number | undefined) => c === undefined || isWhite(c) || c === 0x28 || c === 0x29 || c === 0x3c || c === 0x3e || c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d || c === 0x2f || c === 0x25;

function at(bytes: Uint8Array, i: number, word: string): boolean {
  for (let j = 0; j < word.length; j++) if (bytes[i + j] !== word.charCodeAt(j)) return false;
  return true;
}

/**
 * One pass over the bytes as a PDF tokenizer sees them (comments, literal and hex strings, names, stream
 * data skipped to `endstream`), stopping with `invalid_pdf` as soon as the objects or the nesting pass
 * their limit. Linear in the size; builds nothing.
 */
export function scanPdf(bytes: Uint8Array, maxObjects: number, maxDepth: number): PdfScan {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let objects = 0;
  let depth = 0;
  let deepest = 0;
  let encrypted = false;
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const c = bytes[i]!;
    if (c === 0x25) {
      // % comment, to the end of the line
      while (i < n && bytes[i] !== 0x0a && bytes[i] !== 0x0d) i++;
    } else if (c === 0x28) {
      // ( literal string ), balanced parentheses, \ escapes the next byte
      let open = 1;
      i++;
      while (i < n && open > 0) {
        const s = bytes[i]!;
        if (s === 0x5c) i++;
        else if (s === 0x28) open++;
        else if (s === 0x29) open--;
        i++;
      }
      continue;
    } else if (c === 0x3c) {
      if (bytes[i + 1] === 0x3c) {
        i += 2;
        if (++depth > deepest) deepest = depth;
        if (depth > maxDepth) throw depthError(maxDepth);
        continue;
      }
      const close = buf.indexOf(0x3e, i + 1); // < hex string >
      i = close < 0 ? n : close;
    } else if (c === 0x3e) {
      if (bytes[i + 1] === 0x3e) {
        i++;
        if (depth > 0) depth--;
      }
    } else if (c === 0x5b) {
      if (++depth > deepest) deepest = depth;
      if (depth > maxDepth) throw depthError(maxDepth);
    } else if (c === 0x5d) {
      if (depth > 0) depth--;
    } else if (c === 0x2f) {
      // a name: /Encrypt is the one that matters here
      if (at(bytes, i + 1, "Encrypt") && isDelimiter(bytes[i + 8])) encrypted = true;
      i++;
      while (i < n && !isDelimiter(bytes[i])) i++;
      continue;
    } else if (c === 0x73 && isDelimiter(bytes[i - 1]) && at(bytes, i, "stream") && (bytes[i + 6] === 0x0a || bytes[i + 6] === 0x0d)) {
      // stream data: skipped whole, up to endstream (or the end of a cut file)
      const end = buf.indexOf("endstream", i + 6);
      i = end < 0 ? n : end + 9;
      depth = 0;
      continue;
    } else if (c === 0x6f && isWhite(bytes[i - 1]) && at(bytes, i, "obj") && isDelimiter(bytes[i + 3])) {
      if (++objects > maxObjects) throw new ApiError("invalid_pdf", `The PDF has more than ${maxObjects} objects (the limit of objects in a PDF); send the invoice XML or a smaller Factur-X PDF.`);
      depth = 0;
      i += 3;
      continue;
    } else if (c === 0x65 && at(bytes, i, "endobj")) {
      depth = 0;
      i += 6;
      continue;
    }
    i++;
  }
  return { objects, depth: deepest, encrypted };
}

function depthError(maxDepth: number): ApiError {
  return new ApiError("invalid_pdf", `The PDF nests arrays or dictionaries more than ${maxDepth} levels deep (the limit of nesting in a PDF); send the invoice XML or a Factur-X PDF.`);
}

export const ENCRYPTED_MESSAGE = "The PDF is encrypted and cannot be read; send the PDF unencrypted, or the invoice XML itself.";
