// The cheap checks of a PDF's bytes before any parser sees them: the header, and one linear pass that
// counts objects and the nesting of arrays and dictionaries, notices an /Encrypt entry, and inflates the
// streams the parser would inflate on loading (object and cross-reference streams) under a cap first.
import { inflateSync, constants as zlib } from "node:zlib";
import { ApiError } from "../../domain/errors.js";
import { bytesText, type PdfLimits } from "./limits.js";

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
  /** The object and cross-reference streams checked (inflated under the cap). */
  decodedStreams: number;
}

const FLATE = new Set(["FlateDecode", "Fl"]);
const OTHER_FILTERS = new Set(["LZWDecode", "LZW", "ASCII85Decode", "A85", "ASCIIHexDecode", "AHx", "RunLengthDecode", "RL", "CCITTFaxDecode", "CCF", "DCTDecode", "DCT", "JBIG2Decode", "JPXDecode", "Crypt"]);

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
export function scanPdf(bytes: Uint8Array, limits: Required<PdfLimits>): PdfScan {
  const { maxObjects, maxDepth } = limits;
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let objects = 0;
  let depth = 0;
  let deepest = 0;
  let encrypted = false;
  let decodedStreams = 0;
  /** What the current object's dictionary said so far: an object or xref stream, and its filters. */
  let loadsDecoded = false;
  let flate = false;
  let otherFilter: string | null = null;
  /** The current object's `/Length`, when it is written as a number (not a reference). */
  let length: number | null = null;
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
      // a name: /Encrypt, the stream types the parser inflates on loading, and filters matter here
      const start = ++i;
      while (i < n && !isDelimiter(bytes[i]) && i - start < 64) i++;
      if (i - start < 64) {
        const name = buf.toString("latin1", start, i);
        if (name === "Encrypt") encrypted = true;
        else if (name === "Length") length = directInteger(bytes, i);
        else if (name === "ObjStm" || name === "XRef") loadsDecoded = true;
        else if (FLATE.has(name)) flate = true;
        else if (OTHER_FILTERS.has(name)) otherFilter = name;
      }
      while (i < n && !isDelimiter(bytes[i])) i++;
      continue;
    } else if (c === 0x73 && isDelimiter(bytes[i - 1]) && at(bytes, i, "stream") && (bytes[i + 6] === 0x0a || bytes[i + 6] === 0x0d)) {
      // stream data: skipped whole, up to endstream
      let start = i + 6;
      if (bytes[start] === 0x0d) start++;
      if (bytes[start] === 0x0a) start++;
      // Where /Length says the data ends, when endstream is there; else the first endstream (data that holds
      // the word, such as an uncompressed PDF attached, is then read on as PDF syntax: counted, never trusted).
      const end = endAt(bytes, length === null ? -1 : start + length) ?? buf.indexOf("endstream", start);
      if (end < 0) {
        throw new ApiError("invalid_pdf", "The PDF has a stream without an end (no endstream: the file is cut short or broken); send the invoice XML or a complete Factur-X PDF.");
      }
      if (loadsDecoded) {
        checkInflate(buf.subarray(start, end), flate, otherFilter, limits);
        decodedStreams++;
      }
      i = end + 9;
      depth = 0;
      loadsDecoded = flate = false;
      otherFilter = null;
      length = null;
      continue;
    } else if (c === 0x6f && isWhite(bytes[i - 1]) && at(bytes, i, "obj") && isDelimiter(bytes[i + 3])) {
      if (++objects > maxObjects) throw new ApiError("invalid_pdf", `The PDF has more than ${maxObjects} objects (the limit of objects in a PDF); send the invoice XML or a smaller Factur-X PDF.`);
      depth = 0;
      loadsDecoded = flate = false;
      otherFilter = null;
      length = null;
      i += 3;
      continue;
    } else if (c === 0x65 && at(bytes, i, "endobj")) {
      depth = 0;
      i += 6;
      continue;
    }
    i++;
  }
  return { objects, depth: deepest, encrypted, decodedStreams };
}

/**
 * An object or cross-reference stream, which the parser inflates while loading with no bound of its own,
 * is inflated here first with zlib's output capped (the attachment's cap: `maxAttachmentBytes`, and
 * `maxInflateRatio` times its size past 1 MiB). Data zlib cannot read is left to the parser to refuse.
 */
function checkInflate(data: Buffer, flate: boolean, otherFilter: string | null, limits: Required<PdfLimits>): void {
  if (otherFilter !== null) {
    throw new ApiError("invalid_pdf", `The PDF has an object stream encoded with /${otherFilter}, which is not read (only /FlateDecode is); send the invoice XML or a Factur-X PDF.`);
  }
  if (!flate) return;
  const cap = Math.min(limits.maxAttachmentBytes, Math.max(1024 * 1024, data.length * limits.maxInflateRatio));
  try {
    inflateSync(data, { maxOutputLength: cap, finishFlush: zlib.Z_SYNC_FLUSH });
  } catch (e) {
    if ((e as { code?: string }).code === "ERR_BUFFER_TOO_LARGE" || e instanceof RangeError) {
      throw new ApiError(
        "invalid_pdf",
        `The PDF has an object stream that decompresses to more than ${bytesText(cap)} (the limit of decompression in a PDF: ${bytesText(limits.maxAttachmentBytes)}, or ${limits.maxInflateRatio} times the compressed size); send the invoice XML or a Factur-X PDF.`,
      );
    }
  }
}

/** The integer after a name at `i` (`/Length 1234`), or null when it is not one or is a reference (`12 0 R`). */
function directInteger(bytes: Uint8Array, i: number): number | null {
  while (isWhite(bytes[i])) i++;
  let value = 0;
  let digits = 0;
  while (bytes[i]! >= 0x30 && bytes[i]! <= 0x39 && digits < 12) {
    value = value * 10 + (bytes[i]! - 0x30);
    digits++;
    i++;
  }
  if (digits === 0 || !isDelimiter(bytes[i])) return null;
  // `12 0 R` is a reference: the length is elsewhere
  let j = i;
  while (isWhite(bytes[j])) j++;
  const second = j;
  while (bytes[j]! >= 0x30 && bytes[j]! <= 0x39) j++;
  if (j > second) {
    while (isWhite(bytes[j])) j++;
    if (bytes[j] === 0x52 && isDelimiter(bytes[j + 1])) return null;
  }
  return value;
}

/** Where `endstream` starts when it follows `pos` (after an optional end of line), else null. */
function endAt(bytes: Uint8Array, pos: number): number | null {
  if (pos < 0 || pos >= bytes.length) return null;
  let i = pos;
  if (bytes[i] === 0x0d) i++;
  if (bytes[i] === 0x0a) i++;
  return at(bytes, i, "endstream") ? i : null;
}

function depthError(maxDepth: number): ApiError {
  return new ApiError("invalid_pdf", `The PDF nests arrays or dictionaries more than ${maxDepth} levels deep (the limit of nesting in a PDF); send the invoice XML or a Factur-X PDF.`);
}

export const ENCRYPTED_MESSAGE = "The PDF is encrypted and cannot be read; send the PDF unencrypted, or the invoice XML itself.";
