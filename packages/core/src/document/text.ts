// Steps 2 and 3 of the document pipeline: one document only (no ZIP, no second document), and UTF-8 XML text.
import { ApiError } from "../domain/errors.js";

const ZIP_SIGNATURES = [
  [0x50, 0x4b, 0x03, 0x04], // local file header
  [0x50, 0x4b, 0x05, 0x06], // end of central directory: an empty archive
  [0x50, 0x4b, 0x07, 0x08], // spanned archive marker
];

/** True when the bytes start with a ZIP signature. */
export function isZip(bytes: Uint8Array): boolean {
  return ZIP_SIGNATURES.some((sig) => sig.every((b, i) => bytes[i] === b));
}

/** Rejects ZIP archives with `single_xml_only`. */
export function rejectZip(bytes: Uint8Array): void {
  if (isZip(bytes)) {
    throw new ApiError("single_xml_only", "xml decodes to a ZIP archive; send one UBL XML document per request, not an archive.");
  }
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const lossyUtf8 = new TextDecoder("utf-8");

/** Decodes UTF-8 (a BOM is dropped); returns null when the bytes are not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/** Decodes UTF-8, replacing invalid sequences: only to look at the structure of text already known to be broken. */
export function decodeUtf8Lossy(bytes: Uint8Array): string {
  return lossyUtf8.decode(bytes);
}

export function notUtf8Error(): ApiError {
  return new ApiError("invalid_base64_xml", "xml decodes to bytes that are not UTF-8 text; encode the invoice as UTF-8 before base64.");
}

/** Rejects text whose first character after whitespace is not `<`. */
export function requireMarkupStart(text: string): void {
  const start = /^[\t\n\r ]*/.exec(text)![0].length;
  if (start === text.length) {
    throw new ApiError("invalid_base64_xml", "xml decodes to empty text; send a base64-encoded UBL XML document.");
  }
  if (text[start] !== "<") {
    throw new ApiError("invalid_base64_xml", "xml does not decode to XML text: the first character is not '<'.");
  }
}
