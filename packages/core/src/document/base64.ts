// Step 1 of the document pipeline: strict base64 decoding.
import { ApiError } from "../domain/errors.js";

const WHITESPACE = /[\t\n\f\r ]/;
const WHITESPACE_G = /[\t\n\f\r ]+/g;
/** Text that starts like XML (`<` after optional whitespace or a byte order mark). */
const RAW_XML = /^[\t\n\f\r \uFEFF]*</;
const STRICT = /^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Decodes standard-alphabet base64 (RFC 4648 section 4), padding optional, ASCII whitespace ignored
 * (so the line breaks that `base64` inserts are fine). Anything else (URL-safe characters, stray
 * symbols, padding in the middle, a dangling single character) is `invalid_base64_xml`.
 *
 * @example decodeBase64Strict("PEludm9pY2UvPg==") // bytes of "<Invoice/>"
 */
export function decodeBase64Strict(input: string): Buffer {
  return Buffer.from(checkBase64(input), "base64");
}

/** The last string `isStrictBase64` found strict, so that `checkBase64` does not scan it again. */
let knownStrict: string | null = null;

/**
 * Whether `input` is standard-alphabet base64 without whitespace (the strict pattern alone); the
 * answer is remembered for the next `checkBase64` of the same string (an 8 MiB scan is 9 ms).
 */
export function isStrictBase64(input: string): boolean {
  const strict = STRICT.test(input);
  knownStrict = strict ? input : null;
  return strict;
}

/** Checks strict base64 and returns it without whitespace (not yet decoded). */
export function checkBase64(input: string): string {
  const known = knownStrict === input;
  knownStrict = null;
  // Most input has no whitespace: one pass of the strict pattern settles it.
  if ((known || STRICT.test(input)) && input.length % 4 !== 1) return input;
  const compact = WHITESPACE.test(input) ? input.replace(WHITESPACE_G, "") : input;
  if (!STRICT.test(compact) || compact.length % 4 === 1) {
    // The most common mistake: the XML text itself instead of its base64.
    if (RAW_XML.test(input)) {
      throw new ApiError(
        "invalid_base64_xml",
        'xml holds XML text, not base64: the document must be base64-encoded (for example base64 -w0 invoice.xml, or Buffer.from(xml).toString("base64")).',
      );
    }
    throw new ApiError(
      "invalid_base64_xml",
      "xml is not valid base64: use the standard alphabet (A-Z, a-z, 0-9, +, /) with optional = padding.",
    );
  }
  return compact;
}

/** The exact decoded size of checked, whitespace-free base64. */
export function base64DecodedSize(compact: string): number {
  const padding = compact.endsWith("==") ? 2 : compact.endsWith("=") ? 1 : 0;
  return Math.floor((compact.length * 3) / 4) - padding;
}

/** Below this many characters, base64 is decoded through a Latin-1 string (see decodeCanonicalBase64). */
const VIA_LATIN1_BELOW = 1024 * 1024;

/**
 * Base64 that WHATWG's forgiving-base64 decode accepts (`atob`: the standard alphabet, ASCII whitespace
 * ignored, padding optional, no dangling single character) decoded, or null for anything else (which
 * `checkBase64` then judges and names). Everything `atob` accepts `checkBase64` accepts too, with the
 * same bytes, so the answers are those of the strict path.
 *
 * Why not `Buffer.from(input, "base64")`: Node first copies the text into a scratch buffer of its own
 * (two bytes a character, fresh memory each time), and on a virtual machine the page faults of that
 * copy cost more than the decoding (a tenth of a 9 KiB invoice's submit, measured). `atob` decodes into
 * a string on the JavaScript heap, whose bytes are copied once, directly, into the document's Buffer.
 * Past VIA_LATIN1_BELOW characters the Latin-1 string would double a large document's memory, so
 * those keep the direct decode, checked by encoding the bytes again and comparing.
 */
export function decodeCanonicalBase64(input: string, ownBuffer = false): Buffer | null {
  // Already scanned by isStrictBase64 (the HTTP body's path): checkBase64 takes it without a second look.
  if (knownStrict === input) return null;
  knownStrict = null;
  if (input.length === 0) return null;
  if (input.length < VIA_LATIN1_BELOW) {
    let latin1: string;
    try {
      latin1 = atob(input);
    } catch {
      return null;
    }
    if (!ownBuffer) return Buffer.from(latin1, "latin1");
    const bytes = Buffer.allocUnsafeSlow(latin1.length);
    bytes.write(latin1, 0, "latin1");
    return bytes;
  }
  if (input.length % 4 !== 0) return null;
  const bytes = decodeBase64Into(input, base64DecodedSize(input), ownBuffer);
  return bytes.toString("base64") === input ? bytes : null;
}

/**
 * Decodes checked base64 of `size` bytes. With `ownBuffer` the bytes get an ArrayBuffer of their own and of their
 * exact size (not a slice of Node's shared pool), so that a worker can transfer them without a copy.
 */
export function decodeBase64Into(compact: string, size: number, ownBuffer: boolean): Buffer {
  if (!ownBuffer) return Buffer.from(compact, "base64");
  const bytes = Buffer.allocUnsafeSlow(Math.max(size, 0));
  const written = bytes.write(compact, "base64");
  return written === size ? bytes : bytes.subarray(0, written);
}
