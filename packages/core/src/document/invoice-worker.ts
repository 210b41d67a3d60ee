// The worker of the invoice pool (a piscina task module): runs the whole document pipeline on one
// large document and hands the decoded bytes back transferred, not copied.
import { move, transferableSymbol, valueSymbol } from "piscina";
import { ApiError } from "../domain/errors.js";
import type { TargetNetwork } from "../domain/types.js";
import type { JudgeReply, JudgeTask, ValidateReply, ValidateTask, WorkerReply, WorkerRequest } from "./worker-protocol.js";
import { judgeReceived } from "./received.js";
import { decodeDocument, readDocument } from "./read.js";
import { readAnyDocumentAsync } from "./any.js";
import { validateBody } from "./validate.js";
import { joinChunks, parseSubmitBody } from "./request.js";
import { readDataDocument } from "./invoice-data/pipeline.js";
import type { InvoiceData } from "../domain/invoice-data.js";

function describe(e: unknown): Extract<WorkerReply, { ok: false }>["error"] {
  return e instanceof ApiError
    ? { kind: "api", code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}), ...(e.errors ? { errors: e.errors } : {}) }
    : { kind: "other", name: e instanceof Error ? e.name : "Error", message: e instanceof Error ? e.message : String(e) };
}

/** Reads one request, validates one, or judges a received document; never throws (every failure is in the reply). */
export default function readOnWorker(req: WorkerRequest | ValidateTask | JudgeTask): Promise<WorkerReply | ValidateReply | JudgeReply> {
  if ("judge" in req) return judgeOnWorker(req);
  return "validate" in req ? validateOnWorker(req) : readOne(req);
}

async function judgeOnWorker({ judge }: JudgeTask): Promise<JudgeReply> {
  try {
    return { ok: true, judged: await judgeReceived(new Uint8Array(judge.bytes), { limits: judge.limits }) };
  } catch (e) {
    return { ok: false, error: describe(e) };
  }
}

async function validateOnWorker({ validate }: ValidateTask): Promise<ValidateReply> {
  try {
    return { ok: true, report: await validateBody(validate.chunks.map((c) => new Uint8Array(c)), validate.limits) };
  } catch (e) {
    return { ok: false, error: describe(e) };
  }
}

async function readOne(req: WorkerRequest): Promise<WorkerReply> {
  let xml: string | undefined;
  let document: string | undefined;
  let data: InvoiceData | undefined;
  let targetNetwork: TargetNetwork | undefined;
  if ("chunks" in req) {
    try {
      ({ xml, document, data, targetNetwork } = parseSubmitBody(joinChunks(req.chunks.map((c) => new Uint8Array(c))), req.root ?? "Invoice"));
    } catch (e) {
      return { ok: false, stage: "body", error: describe(e) };
    }
  } else {
    xml = req.xml;
  }
  try {
    const optional = Array.isArray(req.recipientOptional) ? targetNetwork !== undefined && req.recipientOptional.includes(targetNetwork) : req.recipientOptional === true;
    const doc = data
      ? readDataDocument(data, req.limits, req.root ?? "Invoice", optional)
      : document !== undefined
        ? await readAnyDocumentAsync(decodeDocument(document, req.limits, true), req.limits, req.root ?? "Invoice", optional)
        : readDocument(decodeDocument(xml!, req.limits, true), req.limits, req.root ?? "Invoice", optional);
    const buffer = doc.bytes.buffer as ArrayBuffer;
    const reply: WorkerReply = {
      ok: true,
      buffer,
      length: doc.bytes.length,
      sha256: doc.sha256,
      recipient: doc.recipient,
      fields: doc.fields,
      peppolDocumentType: doc.peppolDocumentType,
      warnings: doc.warnings,
      ruleSets: doc.ruleSets,
      ...(doc.fromData ? { fromData: true } : {}),
      // The original (a CII, a PDF) is copied back: it is kept, never sent, and rarely large.
      ...(doc.original ? { original: { ...doc.original, bytes: new Uint8Array(doc.original.bytes) as Buffer } } : {}),
      ...(targetNetwork ? { targetNetwork } : {}),
    };
    // piscina posts the value and transfers the buffer with it.
    return move({ [transferableSymbol]: [buffer], [valueSymbol]: reply }) as unknown as WorkerReply;
  } catch (e) {
    return { ok: false, stage: "document", error: describe(e), ...(targetNetwork ? { targetNetwork } : {}) };
  }
}
