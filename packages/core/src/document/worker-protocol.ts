// What goes to an invoice worker and back: the request (the base64 document or the submit body's
// chunks, transferred), the reply (the decoded bytes transferred back, or the error), and how the
// calling thread turns a reply into a document or an error again.
import { ApiError, type ErrorCode, type RuleError } from "../domain/errors.js";
import type { TargetNetwork } from "../domain/types.js";
import type { DocumentReport } from "./validate.js";
import type { ReadInvoice } from "./read.js";
import type { JudgedDocument } from "./received.js";
import type { UblRoot } from "./ubl.js";
import type { XmlLimits } from "./xml.js";

/**
 * One document to read: the base64 text as received (a string: copied once, cheaper than decoding
 * here), or the raw JSON body of a submit request, in the chunks it arrived in (each chunk's whole
 * ArrayBuffer, transferred: the worker joins and parses them).
 */
export type WorkerRequest = ({ xml: string; limits: XmlLimits } | { chunks: ArrayBuffer[]; limits: XmlLimits }) & {
  /** The root the submit endpoint takes (Invoice when absent). */
  root?: UblRoot;
  /** Whether the recipient is optional (`readDocument`): for an `xml` request, a boolean; for a body, the target networks it is optional for. */
  recipientOptional?: boolean | TargetNetwork[];
};

/** A `POST /v1/validate` body to read and validate (its report capped at MAX_REPORTED_ERRORS items a list). */
export interface ValidateTask {
  validate: { chunks: ArrayBuffer[]; limits: XmlLimits };
}

/** A received document to read and judge (`judgeReceived`, without extra syntaxes): its bytes, copied. */
export interface JudgeTask {
  judge: { bytes: ArrayBuffer; limits: XmlLimits };
}

/** What judging a received document comes back with (`judgeReceived` never throws for the document; an error is a bug). */
export type JudgeReply = { ok: true; judged: JudgedDocument } | { ok: false; error: WorkerError };

/** What a validation comes back with: the capped report, or the body's (400) or the document's error. */
export type ValidateReply = { ok: true; report: DocumentReport } | { ok: false; error: WorkerError };

export type WorkerError = { kind: "api"; code: ErrorCode; message: string; details?: string[]; errors?: RuleError[] } | { kind: "other"; name: string; message: string };

/** What comes back: the result with the decoded bytes as a transferred ArrayBuffer (no copy), or the error. */
export type WorkerReply =
  | (Omit<ReadInvoice, "bytes"> & {
      ok: true;
      /** The decoded document (`ReadInvoice.bytes`), its first `length` bytes. */
      buffer: ArrayBuffer;
      length: number;
      /** For a JSON body: what it asked for. */
      targetNetwork?: TargetNetwork;
    })
  | {
      ok: false;
      error: WorkerError;
      /** For a JSON body: whether the body itself (400) or its document failed. */
      stage?: "body" | "document";
      targetNetwork?: TargetNetwork;
    };

/** A copy of the chunks as ArrayBuffers for the worker, each transferred (not copied) when allowed and it is its own ArrayBuffer. */
export function chunkBuffers(body: readonly Uint8Array[], transfer: boolean): ArrayBuffer[] {
  return body.map((b) => {
    const own = transfer && b.byteOffset === 0 && b.byteLength === b.buffer.byteLength && b.buffer instanceof ArrayBuffer;
    // (Buffer#slice is a view, not a copy: copy explicitly.)
    return own ? (b.buffer as ArrayBuffer) : (Uint8Array.prototype.slice.call(b).buffer as ArrayBuffer);
  });
}

/** The error a worker reported, as the calling thread raises it (an ApiError again, or an Error of the same name). */
export function rebuild(error: WorkerError): Error {
  if (error.kind === "api") {
    return new ApiError(error.code, error.message, error.details || error.errors ? { details: error.details, errors: error.errors } : undefined);
  }
  const e = new Error(error.message);
  e.name = error.name;
  return e;
}

/** The document of a reply that went through, with its bytes over the transferred buffer (no copy), or null. */
export function docOf(m: WorkerReply): ReadInvoice | null {
  if (!m.ok) return null;
  const original = m.original ? { ...m.original, bytes: Buffer.from(m.original.bytes.buffer, m.original.bytes.byteOffset, m.original.bytes.byteLength) } : undefined;
  return {
    bytes: Buffer.from(m.buffer, 0, m.length),
    sha256: m.sha256,
    recipient: m.recipient,
    fields: m.fields,
    peppolDocumentType: m.peppolDocumentType,
    warnings: m.warnings,
    ruleSets: m.ruleSets,
    ...(m.fromData ? { fromData: true } : {}),
    ...(original ? { original } : {}),
  };
}
