// Large documents are read off the event loop, on a piscina pool of worker threads; small ones stay inline.
// piscina (a well-kept pool) starts, reuses, unrefs and retires the threads; this file holds the pool:
// its options, the threshold, which document goes to a worker and which is read inline. What goes to a worker and back is
// worker-protocol.ts; the process's default pool is default-pool.ts.
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { Piscina } from "piscina";
import type { TargetNetwork } from "../domain/types.js";
import { readAnyDocumentAsync } from "./any.js";
import { readDataDocument } from "./invoice-data/pipeline.js";
import { decodeDocument, readInvoice, type ReadInvoice } from "./read.js";
import { joinChunks, parseSubmitBody } from "./request.js";
import type { UblRoot } from "./ubl.js";
import { validateBody, type DocumentReport } from "./validate.js";
import { chunkBuffers, docOf, rebuild, type JudgeReply, type JudgeTask, type ValidateReply, type ValidateTask, type WorkerReply, type WorkerRequest } from "./worker-protocol.js";
import { judgeReceived, type JudgedDocument } from "./received.js";
import { DEFAULT_XML_LIMITS, type XmlLimits } from "./xml.js";

/** 512 KiB: documents larger than this are read on a worker thread (see `threshold` for how the size is measured). */
export const DEFAULT_WORKER_THRESHOLD = 512 * 1024;

export interface InvoiceWorkerOptions {
  /**
   * Documents above this many bytes are read on a worker thread; smaller ones on the calling
   * thread, where they cost less than the trip. The size compared is what is known without
   * decoding: for `readInvoice`, the decoded size estimated from the base64 length (3/4 of it); for
   * `readRequest`, the raw JSON body's length (about 4/3 of the decoded document, plus the JSON). `Infinity` turns workers off.
   * Default 512 KiB (such a document takes about 40 ms to read: longer would stall other requests).
   */
  threshold?: number;
  /** Most worker threads. Default: the cores less one (the event loop keeps one), 1 to 4. */
  size?: number;
  /**
   * Linux only: how much nicer than the process the worker threads run (0 to 19, piscina's
   * `niceIncrement`), so that reading a large document yields the cores to the event loop.
   * Default 10. Other systems ignore it (there it would apply to the whole process).
   */
  nice?: number;
  /** An idle worker ends after this many milliseconds (its heap goes with it). Default 30 s. */
  idleTimeoutMs?: number;
}

/** How to read a submit body: see `readRequestAsync`. */
export interface ReadRequestOptions {
  transfer?: boolean;
  root?: UblRoot;
  /** The target networks whose route needs no recipient (the KSeF route): for them a missing one is no error. */
  recipientOptionalFor?: readonly TargetNetwork[];
}

/** A submit body read on a worker: what it asked for, and its document or the document's error. */
export interface ReadRequest {
  targetNetwork: TargetNetwork;
  /** The document, or null when it failed (then `error` says why). */
  doc: ReadInvoice | null;
  error: unknown;
}

/** A pool of invoice workers with its own options (see `createInvoiceWorkers`). */
export interface InvoiceWorkers {
  /** `readInvoice`, on a worker thread when the document is above the threshold. */
  readInvoice(xmlBase64: string, limits?: XmlLimits, root?: UblRoot, recipientOptional?: boolean): Promise<ReadInvoice>;
  /** Validates the document of a `POST /v1/validate` raw JSON body (see `validateRequestAsync`). */
  validateRequest(body: Uint8Array | readonly Uint8Array[], limits?: XmlLimits, options?: { transfer?: boolean }): Promise<DocumentReport>;
  /** Reads a submit request's raw JSON body (see `readRequestAsync`). */
  readRequest(body: Uint8Array | readonly Uint8Array[], limits?: XmlLimits, options?: ReadRequestOptions): Promise<ReadRequest>;
  /** `judgeReceived` (without extra syntaxes) of a received document, on a worker thread when it is above the threshold. */
  judgeReceived(content: Uint8Array, limits?: XmlLimits): Promise<JudgedDocument>;
  /** Waits for the documents being read, then ends the threads. Later documents start them again. */
  close(): Promise<void>;
  /** How many worker threads are running. */
  readonly threadCount: number;
}

function resolveOptions(options: InvoiceWorkerOptions): Required<InvoiceWorkerOptions> {
  return {
    threshold: options.threshold ?? DEFAULT_WORKER_THRESHOLD,
    size: Math.max(1, Math.floor(options.size ?? Math.max(1, Math.min(4, availableParallelism() - 1)))),
    nice: Math.max(0, Math.min(19, Math.floor(options.nice ?? 10))),
    idleTimeoutMs: options.idleTimeoutMs ?? 30_000,
  };
}

/**
 * The worker module: built, it is `invoice-worker.js` beside the bundle (tsup emits it); from
 * TypeScript source (this repository's tests, tsx) a small loader registers tsx in the worker
 * thread first (on Node 20 the main thread's loader does not reach worker threads).
 */
function workerFile(): string {
  const here = import.meta.url;
  return fileURLToPath(new URL(here.endsWith(".ts") ? "./invoice-worker-source.mjs" : "./invoice-worker.js", here));
}

/**
 * The Node options of the worker threads, or undefined for the process's own. A worker made without
 * `execArgv` inherits the process's options as they were parsed, V8 flags such as
 * `--max-old-space-size` included (they apply to the whole process anyway); given them again in
 * `execArgv`, Node refuses to make the worker (ERR_WORKER_INVALID_EXEC_ARGV). So they are given only
 * when the process was started with `--input-type` (code from `-e` or stdin), which a worker started
 * from a file must not inherit: then the process's options without it, and without the flags Node
 * says a worker may not take (V8 and process-wide ones; see `refusedByWorkers`).
 */
function workerExecArgv(): string[] | undefined {
  const argv = process.execArgv;
  if (!argv.some((a) => a === "--input-type" || a.startsWith("--input-type="))) return undefined;
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--input-type") i++;
    else if (!argv[i]!.startsWith("--input-type=")) out.push(argv[i]!);
  }
  const refused = refusedByWorkers(out);
  return refused.size === 0 ? out : out.filter((a) => !refused.has(a));
}

/**
 * The flags among `execArgv` that Node does not take in a worker's `execArgv`. Node checks them when
 * a worker is made, before its thread starts, and names them in the error; a list it takes starts a
 * worker, which is ended at once (this runs once per pool, only for a process started with
 * `--input-type`).
 */
function refusedByWorkers(execArgv: string[]): Set<string> {
  try {
    const probe = new Worker("", { eval: true, execArgv, stdout: true, stderr: true });
    probe.unref();
    void probe.terminate().catch(() => {});
    return new Set();
  } catch (e) {
    const err = e as { code?: unknown; message?: unknown };
    if (err.code !== "ERR_WORKER_INVALID_EXEC_ARGV" || typeof err.message !== "string") return new Set();
    // "Initiated Worker with invalid execArgv flags: --max-old-space-size=2048, --trace-gc"
    const named = err.message.slice(err.message.lastIndexOf(": ") + 2).split(", ");
    return new Set(named.filter((f) => execArgv.includes(f)));
  }
}

async function readRequestInline(chunks: readonly Uint8Array[], limits: XmlLimits, root: UblRoot, recipientOptionalFor: readonly TargetNetwork[]): Promise<ReadRequest> {
  const { xml, document, data, targetNetwork } = parseSubmitBody(joinChunks(chunks), root);
  try {
    const optional = recipientOptionalFor.includes(targetNetwork);
    const doc = data
      ? readDataDocument(data, limits, root, optional)
      : document !== undefined
        ? await readAnyDocumentAsync(decodeDocument(document, limits), limits, root, optional)
        : readInvoice(xml!, limits, root, optional);
    return { targetNetwork, doc, error: null };
  } catch (e) {
    return { targetNetwork, doc: null, error: e };
  }
}

/** `read()` on the calling thread, its result or its error as a promise. */
function settled<T>(read: () => T): Promise<T> {
  try {
    return Promise.resolve(read());
  } catch (e) {
    return Promise.reject(e);
  }
}

/**
 * A pool of invoice workers with these options: piscina threads started on demand up to `size`,
 * unref'd while idle (they never hold the process) and ended after `idleTimeoutMs`. If the worker
 * module cannot be loaded (a bundle without the worker file), documents are read on the calling
 * thread from then on, with a process warning.
 *
 * @example const workers = createInvoiceWorkers({ size: 2 }); const doc = await workers.readInvoice(xml); await workers.close()
 */
export function createInvoiceWorkers(options: InvoiceWorkerOptions = {}): InvoiceWorkers {
  const config = resolveOptions(options);
  let pool: Piscina<WorkerRequest | ValidateTask | JudgeTask, WorkerReply | ValidateReply | JudgeReply> | null = null;
  const pending = new Set<Promise<unknown>>();
  /** Set when the worker module could not be loaded: read inline from then on. */
  let unavailable = false;
  /**
   * Whether the worker module loads, asked once per pool with an empty request before any
   * document is handed over (a transferred body could not be read inline after a failed start).
   */
  let loads: Promise<boolean> | null = null;

  /** Reports a worker that failed outside a task (piscina's 'error' event): while loading, the pool is off. */
  let onPoolError: (e: unknown) => void = () => {};

  function piscina(): Piscina<WorkerRequest | ValidateTask | JudgeTask, WorkerReply | ValidateReply | JudgeReply> {
    if (!pool) {
      const execArgv = workerExecArgv();
      pool = new Piscina<WorkerRequest | ValidateTask | JudgeTask, WorkerReply | ValidateReply | JudgeReply>({
        filename: workerFile(),
        minThreads: 0,
        maxThreads: config.size,
        idleTimeout: config.idleTimeoutMs,
        ...(process.platform === "linux" ? { niceIncrement: config.nice } : {}),
        // A worker is started from a file: `--input-type` (for `node -e` code) does not apply to it.
        ...(execArgv ? { execArgv } : {}),
        recordTiming: false,
      });
      pool.on("error", (e: unknown) => onPoolError(e));
    }
    return pool;
  }

  function workerLoads(): Promise<boolean> {
    loads ??= new Promise<boolean>((resolve) => {
      const refuse = (e: unknown): void => {
        if (unavailable) return;
        unavailable = true;
        const message = e instanceof Error ? e.message : String(e);
        process.emitWarning(`einvoice: the invoice worker could not start (${message}); large documents are read on the main thread.`);
        resolve(false);
        const failed = pool;
        pool = null;
        void failed?.destroy().catch(() => {});
      };
      onPoolError = refuse;
      let started: Promise<unknown>;
      try {
        started = piscina().run({ xml: "", limits: DEFAULT_XML_LIMITS });
      } catch (e) {
        // Node could not make the thread (`new Worker` threw inside piscina, such as
        // ERR_WORKER_INIT_FAILED). The pool is dropped, not destroyed: destroy() would reject the
        // task piscina had queued, which no one holds, as an unhandled rejection.
        pool = null;
        refuse(e);
        return;
      }
      started.then(() => resolve(true), refuse);
    });
    return loads;
  }

  /** Runs one request on a worker; a worker module that cannot be loaded turns the pool off and reads inline. */
  function run<T, R extends WorkerReply | ValidateReply | JudgeReply = WorkerReply>(request: () => [WorkerRequest | ValidateTask | JudgeTask, ArrayBuffer[]], answer: (m: R) => T, inline: () => T | Promise<T>): Promise<T> {
    const p = workerLoads().then(async (ok) => {
      if (!ok) return inline();
      const [task, transferList] = request();
      let m: R;
      try {
        m = (await piscina().run(task, { transferList })) as R;
      } catch (e) {
        throw new Error(`the invoice worker stopped while reading a document: ${e instanceof Error ? e.message : String(e)}`);
      }
      return answer(m);
    });
    const tracked = p.then(
      () => undefined,
      () => undefined,
    );
    pending.add(tracked);
    void tracked.then(() => pending.delete(tracked));
    return p;
  }

  return {
    readInvoice(xmlBase64, limits = DEFAULT_XML_LIMITS, root = "Invoice", recipientOptional = false) {
      if (unavailable || typeof xmlBase64 !== "string" || Math.floor((xmlBase64.length * 3) / 4) <= config.threshold) {
        return settled(() => readInvoice(xmlBase64, limits, root, recipientOptional));
      }
      return run(
        () => [{ xml: xmlBase64, limits, root, recipientOptional }, []],
        (m) => {
          const doc = docOf(m);
          if (doc) return doc;
          throw rebuild((m as Extract<WorkerReply, { ok: false }>).error);
        },
        () => readInvoice(xmlBase64, limits, root, recipientOptional),
      );
    },

    readRequest(body, limits = DEFAULT_XML_LIMITS, opts = {}) {
      const root = opts.root ?? "Invoice";
      const optionalFor = opts.recipientOptionalFor ?? [];
      const chunks = body instanceof Uint8Array ? [body] : body;
      let length = 0;
      for (const c of chunks) length += c.byteLength;
      if (unavailable || length <= config.threshold) return readRequestInline(chunks, limits, root, optionalFor);
      return run(
        () => {
          const buffers = chunkBuffers(chunks, opts.transfer === true);
          return [{ chunks: buffers, limits, root, recipientOptional: [...optionalFor] }, buffers];
        },
        (m) => {
          if (!m.ok && m.stage !== "document") throw rebuild(m.error);
          return { targetNetwork: m.targetNetwork ?? "auto", doc: docOf(m), error: m.ok ? null : rebuild(m.error) };
        },
        () => readRequestInline(chunks, limits, root, optionalFor),
      );
    },

    validateRequest(body, limits = DEFAULT_XML_LIMITS, opts = {}) {
      const chunks = body instanceof Uint8Array ? [body] : body;
      let length = 0;
      for (const c of chunks) length += c.byteLength;
      if (unavailable || length <= config.threshold) return validateBody(chunks, limits);
      return run<DocumentReport, ValidateReply>(
        () => {
          const buffers = chunkBuffers(chunks, opts.transfer === true);
          return [{ validate: { chunks: buffers, limits } }, buffers];
        },
        (m) => {
          if (m.ok) return m.report;
          throw rebuild(m.error);
        },
        () => validateBody(chunks, limits),
      );
    },

    judgeReceived(content, limits = DEFAULT_XML_LIMITS) {
      if (unavailable || content.byteLength <= config.threshold) return judgeReceived(content, { limits });
      return run<JudgedDocument, JudgeReply>(
        () => {
          // A copy: the caller keeps the bytes (they are stored as received).
          const bytes = Uint8Array.prototype.slice.call(content).buffer as ArrayBuffer;
          return [{ judge: { bytes, limits } }, [bytes]];
        },
        (m) => {
          if (m.ok) return m.judged;
          throw rebuild(m.error);
        },
        () => judgeReceived(content, { limits }),
      );
    },

    async close() {
      while (pending.size > 0) await Promise.all([...pending]);
      const ending = pool;
      pool = null;
      loads = null;
      await ending?.destroy();
    },

    get threadCount() {
      return pool?.threads.length ?? 0;
    },
  };
}

