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

/**
 * Base64 as encoders write it (padded, no whitespace, zero bits after the last byte) decoded, or null for
 * anything else (which `checkBase64` then judges). Checked by encoding the bytes again and comparing: both
 * native, several times cheaper than the strict pattern's scan of the text.
 */
export function decodeCanonicalBase64(input: string, ownBuffer = false): Buffer | null {
  // Already scanned by isStrictBase64 (the HTTP body's path): checkBase64 takes it without a second look.
  if (knownStrict === input) return null;
  knownStrict = null;
  if (input.length === 0 || input.length % 4 !== 0) return null;
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
