// The worker thread of the invoice pool: runs the whole document pipeline on one large document at a time.
import { setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { ApiError } from "../domain/errors.js";
import type { TargetNetwork } from "../domain/types.js";
import { decodeDocument, readDocument } from "./read.js";
import { joinChunks, parseSubmitBody } from "./request.js";
import type { WorkerReply, WorkerRequest, WorkerSetup } from "./pool.js";

const port = parentPort;
if (!port) throw new Error("invoice-worker runs only as a worker thread of the invoice pool");

const setup = (workerData ?? {}) as Partial<WorkerSetup>;
// On Linux the nice value belongs to the thread that sets it (NPTL), so this lowers only this
// worker: a large document then yields the cores to the event loop that serves small requests.
if (process.platform === "linux" && typeof setup.nice === "number" && setup.nice > 0) {
  try {
    setPriority(0, setup.nice);
  } catch {
    // not allowed here: run at the normal priority
  }
}

function describe(e: unknown): Extract<WorkerReply, { ok: false }>["error"] {
  return e instanceof ApiError
    ? { kind: "api", code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) }
    : { kind: "other", name: e instanceof Error ? e.name : "Error", message: e instanceof Error ? e.message : String(e) };
}

port.on("message", (req: WorkerRequest) => {
  let reply: WorkerReply;
  let transfer: ArrayBuffer[] = [];
  let xml: string;
  let targetNetwork: TargetNetwork | undefined;
  if ("chunks" in req) {
    try {
      ({ xml, targetNetwork } = parseSubmitBody(joinChunks(req.chunks.map((c) => new Uint8Array(c)))));
    } catch (e) {
      port.postMessage({ id: req.id, ok: false, stage: "body", error: describe(e) } satisfies WorkerReply);
      return;
    }
  } else {
    xml = req.xml;
  }
  try {
    const doc = readDocument(decodeDocument(xml, req.limits, true), req.limits);
    const buffer = doc.bytes.buffer as ArrayBuffer;
    reply = {
      id: req.id,
      ok: true,
      buffer,
      length: doc.bytes.length,
      sha256: doc.sha256,
      recipient: doc.recipient,
      fields: doc.fields,
      documentType: doc.documentType,
      ...(targetNetwork ? { targetNetwork } : {}),
    };
    transfer = [buffer];
  } catch (e) {
    reply = { id: req.id, ok: false, stage: "document", error: describe(e), ...(targetNetwork ? { targetNetwork } : {}) };
  }
  port.postMessage(reply, transfer);
});

port.postMessage({ ready: true });
