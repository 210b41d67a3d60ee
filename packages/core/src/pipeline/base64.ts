// Step 1 of the document pipeline: strict base64 decoding.
import { ApiError } from "../errors.js";

const WHITESPACE = /[\t\n\f\r ]/;
const WHITESPACE_G = /[\t\n\f\r ]+/g;
const STRICT = /^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Decodes standard-alphabet base64 (RFC 4648 section 4), padding optional, ASCII whitespace ignored
 * (so the line breaks that `base64` inserts are fine). Anything else (URL-safe characters, stray
 * symbols, padding in the middle, a dangling single character) is `invalid_base64_xml`.
 *
 * @example decodeBase64Strict("PEludm9pY2UvPg==") // bytes of "<Invoice/>"
 */
export function decodeBase64Strict(input: string): Buffer {
  const compact = WHITESPACE.test(input) ? input.replace(WHITESPACE_G, "") : input;
  if (!STRICT.test(compact) || compact.length % 4 === 1) {
    throw new ApiError(
      "invalid_base64_xml",
      "xml is not valid base64: use the standard alphabet (A-Z, a-z, 0-9, +, /) with optional = padding.",
    );
  }
  return Buffer.from(compact, "base64");
}

/** The decoded size of a base64 string, without decoding it (whitespace counted as data: an upper bound). */
export function base64DecodedSizeUpperBound(input: string): number {
  return Math.floor((input.length * 3) / 4);
}
