// The JSON body of a submit request, from raw bytes: parsed and checked against the request schema.
import { ApiError } from "../domain/errors.js";
import { CreditNoteRequestSchema, InvoiceRequestSchema, parseDocumentBody, ValidateRequestSchema } from "../domain/schemas.js";
import type { TargetNetwork } from "../domain/types.js";
import { isStrictBase64 } from "./base64.js";
import type { InvoiceData } from "../domain/invoice-data.js";
import type { UblRoot } from "./ubl.js";

/** A checked submit body: the document as `xml` (UBL, base64), `document` (any syntax, base64) or as `data` (the invoice or credit note as data), and the target. */
export interface SubmitBody {
  xml?: string;
  document?: string;
  data?: InvoiceData;
  targetNetwork: TargetNetwork;
}

/** Checks a parsed submit body against the endpoint's schema (`invoice` or `creditNote` as data): the 400 of its shape, else the body. */
export function checkSubmitBody(body: unknown, root: UblRoot = "Invoice"): SubmitBody {
  if (root === "CreditNote") {
    const b = parseDocumentBody(CreditNoteRequestSchema, body);
    return { xml: b.xml, document: b.document, data: b.creditNote, targetNetwork: b.targetNetwork };
  }
  const b = parseDocumentBody(InvoiceRequestSchema, body);
  return { xml: b.xml, document: b.document, data: b.invoice, targetNetwork: b.targetNetwork };
}

const utf8 = new TextDecoder("utf-8");

/** The JSON value of a request body; unparseable JSON is a 400 that says where, never what. */
export function parseJsonBody(bytes: Uint8Array): unknown {
  let text = utf8.decode(bytes); // drops a BOM
  if (text.trim() === "") text = "{}";
  try {
    return JSON.parse(text);
  } catch (e) {
    const at = /position (\d+)/.exec(e instanceof Error ? e.message : "");
    throw new ApiError("bad_request", `Request body is not valid JSON${at ? ` (at position ${at[1]})` : ""}.`);
  }
}

/** A submit request body, checked: `xml` or the document as data, and `targetNetwork`; or the 400 of its shape. */
export function parseSubmitBody(bytes: Uint8Array, root: UblRoot = "Invoice"): SubmitBody {
  return checkSubmitBody(readEnvelope(bytes) ?? parseJsonBody(bytes), root);
}

/** A `POST /v1/validate` body, checked: `xml`, `document`, `invoice` or `creditNote` (exactly one), or the 400 of its shape. */
export function parseValidateBody(bytes: Uint8Array): { xml?: string; document?: string; invoice?: InvoiceData; creditNote?: InvoiceData } {
  return parseDocumentBody(ValidateRequestSchema, readEnvelope(bytes) ?? parseJsonBody(bytes));
}

/** A body received in chunks, as one buffer (a single chunk as it is, without a copy). */
export function joinChunks(chunks: readonly Uint8Array[]): Uint8Array {
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

const PREFIX = Buffer.from('{"xml":"');
/** A BOM after the document is not whitespace to JSON.parse: keep it, so that the tail fails as the whole body would. */
const utf8KeepBom = new TextDecoder("utf-8", { ignoreBOM: true });
/** Below this a body goes through JSON.parse alone: the shortcut pays off only for large documents. */
const ENVELOPE_MIN = 64 * 1024;
/** A longer tail after the document is not the usual envelope: JSON.parse reads it. */
const TAIL_MAX = 1024;

/**
 * The usual envelope, `{"xml":"<base64>"` followed by the rest of a JSON object, read without
 * turning the whole body into text and parsing it (for an 8 MiB body that is two 8 MiB strings
 * and 14 ms). Returns null for anything else, and JSON.parse decides as before: whitespace or a
 * BOM first, escapes or anything but the base64 alphabet in the document, a tail that is not the
 * end of an object, a second "xml" member. What it returns is what JSON.parse would have: the
 * body is that JSON with the number 0 in place of the string, which changes neither its validity
 * nor its other members.
 */
export function readEnvelope(bytes: Uint8Array): Record<string, unknown> | null {
  if (bytes.length < ENVELOPE_MIN) return null;
  const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!body.subarray(0, PREFIX.length).equals(PREFIX)) return null;
  const end = body.indexOf(0x22 /* " */, PREFIX.length);
  if (end === -1 || body.length - end - 1 > TAIL_MAX) return null;
  const backslash = body.indexOf(0x5c /* \ */, PREFIX.length);
  if (backslash !== -1 && backslash < end) return null;
  let rest: unknown;
  try {
    rest = JSON.parse(`{"xml":0${utf8KeepBom.decode(body.subarray(end + 1))}`);
  } catch {
    return null;
  }
  if (rest === null || typeof rest !== "object" || Array.isArray(rest) || (rest as { xml?: unknown }).xml !== 0) return null;
  // Only the base64 alphabet: no control character (invalid in JSON), nothing that UTF-8 would read otherwise.
  const xml = body.toString("latin1", PREFIX.length, end);
  if (!isStrictBase64(xml)) return null;
  (rest as { xml: unknown }).xml = xml; // the first member already: the order JSON.parse gives
  return rest as Record<string, unknown>;
}

/**
 * Checks a submit body's shape only (contract row 2), for a company whose refusal is known: the
 * answer is then that refusal unless the shape is wrong. The usual large envelope
 * (`{"xml":"…"` and a short tail) is checked in place, one pass over its bytes without joining
 * them or making a string of them; anything else goes through `parseSubmitBody`. Throws the 400; returns the target network the body asks for.
 */
export function checkSubmitShape(chunks: readonly Uint8Array[], root: UblRoot = "Invoice"): TargetNetwork {
  const envelope = envelopeShape(chunks);
  if (envelope) return checkSubmitBody(envelope, root).targetNetwork;
  return parseSubmitBody(joinChunks(chunks), root).targetNetwork;
}

/** The usual envelope with the document replaced by a placeholder of the same emptiness, or null. */
function envelopeShape(chunks: readonly Uint8Array[]): Record<string, unknown> | null {
  let total = 0;
  for (const c of chunks) total += c.byteLength;
  const first = chunks[0];
  if (total < ENVELOPE_MIN || !first || first.byteLength < PREFIX.length) return null;
  for (let i = 0; i < PREFIX.length; i++) if (first[i] !== PREFIX[i]) return null;
  // The string's closing quote; an escape or a control character (not allowed raw in JSON) before
  // it leaves the body to JSON.parse. Native searches (memchr), no loop over the bytes in JavaScript.
  let seen = 0;
  let end = -1;
  for (const c of chunks) {
    const buf = Buffer.from(c.buffer, c.byteOffset, c.byteLength);
    const from = seen === 0 ? PREFIX.length : 0;
    const quote = buf.indexOf(0x22, from);
    const stop = quote === -1 ? buf.length : quote;
    if (hasEscapeOrControl(buf, from, stop)) return null;
    if (quote !== -1) {
      end = seen + quote;
      break;
    }
    seen += c.byteLength;
  }
  if (end === -1 || total - end - 1 > TAIL_MAX) return null;
  const tail = bytesFrom(chunks, end + 1);
  let rest: unknown;
  try {
    rest = JSON.parse(`{"xml":0${utf8KeepBom.decode(tail)}`);
  } catch {
    return null;
  }
  if (rest === null || typeof rest !== "object" || Array.isArray(rest) || (rest as { xml?: unknown }).xml !== 0) return null;
  (rest as { xml: unknown }).xml = end > PREFIX.length ? "x" : "";
  return rest as Record<string, unknown>;
}

/** The bytes of `chunks` from offset `start` on, as one buffer (the short tail of a body). */
function bytesFrom(chunks: readonly Uint8Array[], start: number): Uint8Array {
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const c of chunks) {
    if (at + c.byteLength > start) parts.push(c.subarray(Math.max(0, start - at)));
    at += c.byteLength;
  }
  return Buffer.concat(parts);
}

const FORBIDDEN_IN_STRING = [0x5c, ...Array.from({ length: 0x20 }, (_, i) => i)];

/** Whether `buf[from, stop)` holds a backslash or a byte below 0x20. */
function hasEscapeOrControl(buf: Buffer, from: number, stop: number): boolean {
  if (stop <= from) return false;
  const part = buf.subarray(from, stop);
  for (const b of FORBIDDEN_IN_STRING) if (part.indexOf(b) !== -1) return true;
  return false;
}
