// A small pool of worker threads that read large documents off the event loop; small ones stay inline.
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { ApiError, type ErrorCode } from "../domain/errors.js";
import type { ParticipantId, TargetNetwork } from "../domain/types.js";
import type { InvoiceFields } from "./fields.js";
import { readInvoice, type ReadInvoice } from "./read.js";
import type { DocumentType } from "./doctype.js";
import { joinChunks, parseSubmitBody } from "./request.js";
import { DEFAULT_XML_LIMITS, type XmlLimits } from "./scan.js";

/** 512 KiB: documents larger than this (decoded) are read on a worker thread. */
export const DEFAULT_WORKER_THRESHOLD = 512 * 1024;

export interface InvoiceWorkerOptions {
  /**
   * Documents whose decoded size is above this many bytes are read on a worker thread; smaller
   * ones on the calling thread, where they cost less than the trip. `Infinity` turns workers off.
   * Default 512 KiB (such a document takes about 40 ms to read: longer would stall other requests).
   */
  threshold?: number;
  /** Most worker threads. Default: the cores less one (the event loop keeps one), 1 to 4. */
  size?: number;
  /**
   * Linux only: the nice value of the worker threads (0 to 19), so that reading a large document
   * yields the cores to the event loop. Default 10. Other systems ignore it (there it would apply
   * to the whole process).
   */
  nice?: number;
  /** An idle worker ends after this many milliseconds (its heap goes with it). Default 30 s. */
  idleTimeoutMs?: number;
}

/** What a worker is started with. */
export interface WorkerSetup {
  nice: number;
}

/**
 * One document to read: the base64 text as received (a string: copied once, cheaper than decoding
 * here), or the raw JSON body of a submit request, in the chunks it arrived in (each chunk's whole
 * ArrayBuffer, transferred: the worker joins and parses them).
 */
export type WorkerRequest =
  | { id: number; xml: string; limits: XmlLimits }
  | { id: number; chunks: ArrayBuffer[]; limits: XmlLimits };

type WorkerError = { kind: "api"; code: ErrorCode; message: string; details?: string[] } | { kind: "other"; name: string; message: string };

/** What comes back: the result with the decoded bytes as a transferred ArrayBuffer (no copy), or the error. */
export type WorkerReply =
  | {
      id: number;
      ok: true;
      buffer: ArrayBuffer;
      length: number;
      sha256: string;
      recipient: ParticipantId;
      fields: InvoiceFields;
      documentType: DocumentType | null;
      /** For a JSON body: what it asked for. */
      targetNetwork?: TargetNetwork;
    }
  | {
      id: number;
      ok: false;
      error: WorkerError;
      /** For a JSON body: whether the body itself (400) or its document failed. */
      stage?: "body" | "document";
      targetNetwork?: TargetNetwork;
    };

interface Task {
  id: number;
  xml?: string;
  body?: readonly Uint8Array[];
  /** Hand the body's memory to the worker (the caller's buffers become empty) instead of copying it. */
  transfer?: boolean;
  limits: XmlLimits;
  /** For a JSON body: the answer, or the body's error; a document error is in the answer. */
  resolve: (r: ReadInvoice | ReadRequest) => void;
  reject: (e: unknown) => void;
}

/** A submit body read on a worker: what it asked for, and its document or the document's error. */
export interface ReadRequest {
  targetNetwork: TargetNetwork;
  /** The document, or null when it failed (then `error` says why). */
  doc: ReadInvoice | null;
  error: unknown;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  task: Task | null;
  idle: NodeJS.Timeout | null;
  /** Ended by the pool (idle, close) or already failed: its exit is expected. */
  done: boolean;
}

function defaults(): Required<InvoiceWorkerOptions> {
  return {
    threshold: DEFAULT_WORKER_THRESHOLD,
    size: Math.max(1, Math.min(4, availableParallelism() - 1)),
    nice: 10,
    idleTimeoutMs: 30_000,
  };
}

let config = defaults();
let slots: Slot[] = [];
const queue: Task[] = [];
const pending = new Set<Promise<unknown>>();
/** Set when a worker could not start (e.g. a bundler left the worker file out): read inline from then on. */
let unavailable: string | null = null;
let nextId = 1;

/**
 * Changes how large documents are read (see `InvoiceWorkerOptions`); applies to workers started afterwards.
 *
 * @example configureInvoiceWorkers({ threshold: Infinity }) // always read on the calling thread
 */
export function configureInvoiceWorkers(options: InvoiceWorkerOptions): void {
  const d = defaults();
  config = {
    threshold: options.threshold ?? config.threshold ?? d.threshold,
    size: Math.max(1, Math.floor(options.size ?? config.size ?? d.size)),
    nice: Math.max(0, Math.min(19, Math.floor(options.nice ?? config.nice ?? d.nice))),
    idleTimeoutMs: options.idleTimeoutMs ?? config.idleTimeoutMs ?? d.idleTimeoutMs,
  };
  unavailable = null;
}

/**
 * Like `readInvoice`, with the same result and the same errors, but a document above the
 * threshold is read on a worker thread, so a large invoice does not stall the event loop.
 * Idle workers do not keep the process alive.
 *
 * @example const { sha256, recipient } = await readInvoiceAsync(body.xml)
 */
export function readInvoiceAsync(xmlBase64: string, limits: XmlLimits = DEFAULT_XML_LIMITS): Promise<ReadInvoice> {
  if (unavailable !== null || typeof xmlBase64 !== "string" || Math.floor((xmlBase64.length * 3) / 4) <= config.threshold) {
    return settled(() => readInvoice(xmlBase64, limits));
  }
  return enqueue<ReadInvoice>({ xml: xmlBase64, limits });
}

/**
 * Reads the raw JSON body of a submit request that is over the threshold on a worker thread: the
 * JSON text and the document never exist on the calling thread. The body is one buffer or the
 * chunks it arrived in (in order; they are joined on the worker, not here). It is copied to the
 * worker, or with `transfer` handed over without a copy: each buffer that is exactly its own
 * ArrayBuffer (as socket reads are) is then emptied, any other is copied. Rejects with the body's
 * 400; a document error comes back in the answer, for the caller to raise in its place in the
 * check order. Below the threshold (or without workers) it does the same on the calling thread.
 */
export function readRequestAsync(
  body: Uint8Array | readonly Uint8Array[],
  limits: XmlLimits = DEFAULT_XML_LIMITS,
  options: { transfer?: boolean } = {},
): Promise<ReadRequest> {
  const chunks = body instanceof Uint8Array ? [body] : body;
  let length = 0;
  for (const c of chunks) length += c.byteLength;
  if (unavailable !== null || length <= config.threshold) return settled(() => readRequestInline(chunks, limits));
  return enqueue<ReadRequest>({ body: chunks, transfer: options.transfer === true, limits });
}

/** `read()` on the calling thread, its result or its error as a promise. */
function settled<T>(read: () => T): Promise<T> {
  try {
    return Promise.resolve(read());
  } catch (e) {
    return Promise.reject(e);
  }
}

/** Queues a document for the workers; `closeInvoiceWorkers` waits for it. */
function enqueue<T extends ReadInvoice | ReadRequest>(task: Pick<Task, "xml" | "body" | "transfer" | "limits">): Promise<T> {
  const p = new Promise<T>((resolve, reject) => {
    queue.push({ ...task, id: nextId++, resolve: resolve as Task["resolve"], reject });
    dispatch();
  });
  const tracked = p.then(
    () => undefined,
    () => undefined,
  );
  pending.add(tracked);
  void tracked.then(() => pending.delete(tracked));
  return p;
}

function readRequestInline(chunks: readonly Uint8Array[], limits: XmlLimits): ReadRequest {
  const { xml, targetNetwork } = parseSubmitBody(joinChunks(chunks));
  try {
    return { targetNetwork, doc: readInvoice(xml, limits), error: null };
  } catch (e) {
    return { targetNetwork, doc: null, error: e };
  }
}

/**
 * Waits for the documents being read, then ends the worker threads. The pool starts again on the
 * next large document. For tests and graceful shutdown; idle workers never hold the process.
 */
export async function closeInvoiceWorkers(): Promise<void> {
  while (pending.size > 0) await Promise.all([...pending]);
  const ending = slots;
  slots = [];
  await Promise.all(
    ending.map((s) => {
      s.done = true;
      if (s.idle) clearTimeout(s.idle);
      return s.worker.terminate();
    }),
  );
}

/** How many worker threads are running (for tests). */
export function invoiceWorkerCount(): number {
  return slots.length;
}

function workerSource(): { url: URL } | { code: string } {
  const here = import.meta.url;
  if (here.endsWith(".ts")) {
    // From TypeScript source (this repository's tests, tsx): the worker thread registers tsx's
    // loader first (on Node 20 the loader of the main thread does not reach worker threads).
    const tsxRoot = dirname(createRequire(here).resolve("tsx/package.json"));
    const api = pathToFileURL(join(tsxRoot, "dist", "esm", "api", "index.mjs")).href;
    const entry = new URL("./invoice-worker.ts", here).href;
    return { code: `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })` };
  }
  // Built: tsup emits the worker beside the bundle that holds this module.
  return { url: new URL("./invoice-worker.js", here) };
}

function spawn(): void {
  const source = workerSource();
  const workerData: WorkerSetup = { nice: config.nice };
  const worker = "url" in source ? new Worker(source.url, { workerData }) : new Worker(source.code, { eval: true, workerData });
  const slot: Slot = { worker, ready: false, task: null, idle: null, done: false };
  slots.push(slot);
  worker.on("message", (m: WorkerReply | { ready: true }) => {
    if ("ready" in m) {
      slot.ready = true;
    } else {
      const task = slot.task;
      slot.task = null;
      if (task) settle(task, m);
    }
    dispatch();
    if (!slot.task && !slot.done) rest(slot);
  });
  worker.on("error", (e) => fail(slot, e));
  worker.on("exit", (code) => fail(slot, new Error(`the invoice worker exited with code ${code}`)));
}

function rebuild(error: WorkerError): Error {
  if (error.kind === "api") return new ApiError(error.code, error.message, error.details ? { details: error.details } : undefined);
  const e = new Error(error.message);
  e.name = error.name;
  return e;
}

function settle(task: Task, m: WorkerReply): void {
  const doc = m.ok ? { bytes: Buffer.from(m.buffer, 0, m.length), sha256: m.sha256, recipient: m.recipient, fields: m.fields, documentType: m.documentType } : null;
  if (task.body === undefined) {
    if (doc) task.resolve(doc);
    else if (!m.ok) task.reject(rebuild(m.error));
    return;
  }
  if (!m.ok && m.stage !== "document") task.reject(rebuild(m.error));
  else task.resolve({ targetNetwork: m.targetNetwork ?? "auto", doc, error: m.ok ? null : rebuild(m.error) });
}

/** Hands queued documents to ready workers, starting workers up to the pool size. */
function dispatch(): void {
  while (queue.length > 0) {
    const free = slots.find((s) => s.ready && !s.task && !s.done);
    if (!free) break;
    const task = queue.shift()!;
    if (free.idle) clearTimeout(free.idle);
    free.idle = null;
    free.task = task;
    free.worker.ref();
    if (task.body !== undefined) {
      // Transfer each chunk's memory when asked and it is exactly its own ArrayBuffer; otherwise copy it once.
      const chunks = task.body.map((b) => {
        const own = task.transfer === true && b.byteOffset === 0 && b.byteLength === b.buffer.byteLength && b.buffer instanceof ArrayBuffer;
        // (Buffer#slice is a view, not a copy: copy explicitly.)
        return own ? (b.buffer as ArrayBuffer) : (Uint8Array.prototype.slice.call(b).buffer as ArrayBuffer);
      });
      free.worker.postMessage({ id: task.id, chunks, limits: task.limits } satisfies WorkerRequest, chunks);
    } else {
      free.worker.postMessage({ id: task.id, xml: task.xml!, limits: task.limits } satisfies WorkerRequest);
    }
  }
  const starting = slots.filter((s) => !s.ready && !s.done).length;
  for (let n = starting; n < queue.length && slots.length < config.size; n++) spawn();
}

/** An idle worker does not hold the process, and ends after a while. */
function rest(slot: Slot): void {
  slot.worker.unref();
  if (slot.idle) clearTimeout(slot.idle);
  slot.idle = setTimeout(() => {
    slot.done = true;
    slots = slots.filter((s) => s !== slot);
    void slot.worker.terminate();
  }, config.idleTimeoutMs);
  slot.idle.unref();
}

function fail(slot: Slot, error: Error): void {
  if (slot.done) return;
  slot.done = true;
  if (slot.idle) clearTimeout(slot.idle);
  slots = slots.filter((s) => s !== slot);
  const task = slot.task;
  slot.task = null;
  if (!slot.ready) {
    // It never started: the worker file cannot be loaded here. Read on the calling thread from now on.
    unavailable = error.message;
    process.emitWarning(`einvoice: the invoice worker could not start (${error.message}); large documents are read on the main thread.`);
    for (const t of [task, ...queue.splice(0)]) if (t) inline(t);
    return;
  }
  if (task) task.reject(new Error(`the invoice worker stopped while reading a document: ${error.message}`));
  dispatch();
}

function inline(t: Task): void {
  try {
    t.resolve(t.body !== undefined ? readRequestInline(t.body, t.limits) : readInvoice(t.xml!, t.limits));
  } catch (e) {
    t.reject(e);
  }
}
