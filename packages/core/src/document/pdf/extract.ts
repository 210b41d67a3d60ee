// extractInvoiceXml: the invoice XML of a Factur-X / ZUGFeRD PDF, read on a worker thread that has a heap
// limit and a deadline, so that no PDF can take the process's memory or time, whatever the parser does.
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Piscina } from "piscina";
import { ApiError } from "../../domain/errors.js";
import { bytesText, resolvePdfLimits, type ExtractedInvoice, type PdfLimits } from "./limits.js";
import type { PdfReply, PdfTask } from "./pdf-worker.js";
import { isPdf, PDF_HEADER_WINDOW } from "./scan.js";

/** The worker module: `pdf-worker.js` beside the bundle; from TypeScript source, a loader that registers tsx first. */
function workerFile(): string {
  const here = import.meta.url;
  return fileURLToPath(new URL(here.endsWith(".ts") ? "./pdf-worker-source.mjs" : "./pdf-worker.js", here));
}

/** One pool per pair of heap limits (V8's limits are a worker's, fixed when it starts), the latest used last. */
const pools = new Map<string, Piscina<PdfTask, PdfReply>>();
/** The most pools kept: a caller that varies the heap limits call by call does not pile up threads. */
const MAX_POOLS = 4;

function pool(limits: Required<PdfLimits>): Piscina<PdfTask, PdfReply> {
  const key = `${limits.maxHeapMb}/${limits.maxYoungHeapMb}`;
  let p = pools.get(key);
  if (p) {
    pools.delete(key);
    pools.set(key, p);
  } else {
    if (pools.size >= MAX_POOLS) {
      // the least recently used pool ends once its running readings are done
      const [oldest, old] = pools.entries().next().value!;
      pools.delete(oldest);
      void old.close().catch(() => {});
    }
    p = new Piscina<PdfTask, PdfReply>({
      filename: workerFile(),
      minThreads: 0,
      maxThreads: Math.max(1, Math.min(4, availableParallelism() - 1)),
      idleTimeout: 30_000,
      // A worker past these is ended by V8 (ERR_WORKER_OUT_OF_MEMORY), not the process.
      resourceLimits: { maxOldGenerationSizeMb: limits.maxHeapMb, maxYoungGenerationSizeMb: limits.maxYoungHeapMb },
      // Not niced (the invoice pool is): the deadline is wall-clock time, and a niced thread on a busy machine
      // would miss it with an ordinary PDF; a PDF costs milliseconds of CPU, bounded by that deadline.
      recordTiming: false,
    });
    // A worker that dies outside a task (it cannot, but piscina reports it here) must not crash the process.
    p.on("error", () => {});
    pools.set(key, p);
  }
  return p;
}

/** Each pool's start: one empty task run to completion, so that a worker (and the PDF library in it) is loaded. */
const warm = new WeakMap<Piscina<PdfTask, PdfReply>, Promise<void>>();
/** The longest a worker may take to start (it loads the PDF library) before the PDF worker is said to be unavailable. */
const START_TIMEOUT_MS = 60_000;

function warmed(p: Piscina<PdfTask, PdfReply>): Promise<void> {
  let ready = warm.get(p);
  if (!ready) {
    ready = (async () => {
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), START_TIMEOUT_MS);
      try {
        await p.run({ warm: true } as unknown as PdfTask, { signal: abort.signal });
      } catch (e) {
        warm.delete(p);
        throw new Error(`the PDF worker could not start: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      } finally {
        clearTimeout(timer);
      }
    })();
    warm.set(p, ready);
  }
  return ready;
}

/** Ends the PDF worker threads (the next extraction starts them again). For tests and a clean shutdown. */
export async function closePdfWorkers(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.destroy().catch(() => {})));
}

/**
 * The invoice XML embedded in a Factur-X / ZUGFeRD / XRechnung PDF (PDF/A-3 with `factur-x.xml`,
 * `xrechnung.xml`, `zugferd-invoice.xml` or `ZUGFeRD-invoice.xml` attached). When several are attached, one
 * the catalog's `/AF` array names wins over one only in the `/Names /EmbeddedFiles` tree, then the names in
 * that order. The PDF is read on a worker thread under `limits` (size, objects, nesting, decompressed size and
 * ratio, time, heap). Rejects with `ApiError`: `invalid_pdf` (not a PDF, broken, or past a limit: the message
 * names it), `pdf_encrypted`, `pdf_without_invoice` (the message lists the attachments found), all 422.
 *
 * @example
 * const { xml, attachmentName } = await extractInvoiceXml(readFileSync("invoice.pdf"));
 */
export async function extractInvoiceXml(pdf: Uint8Array, limits?: PdfLimits): Promise<ExtractedInvoice> {
  const l = resolvePdfLimits(limits);
  if (!(pdf instanceof Uint8Array)) throw new ApiError("invalid_pdf", "The PDF must be bytes (a Uint8Array or a Buffer).");
  if (pdf.length > l.maxBytes) {
    throw new ApiError("invalid_pdf", `The PDF is ${bytesText(pdf.length)}, larger than ${bytesText(l.maxBytes)} (the size limit of a PDF); send the invoice XML or a smaller Factur-X PDF.`);
  }
  if (!isPdf(pdf)) {
    throw new ApiError("invalid_pdf", `This is not a PDF: it has no %PDF- header in its first ${PDF_HEADER_WINDOW} bytes; send the invoice XML or a Factur-X PDF.`);
  }
  // The worker gets a copy of its own, transferred: the caller's buffer stays as it was.
  const copy = new Uint8Array(pdf).buffer;
  const p = pool(l);
  // The deadline is the PDF's reading time, not a worker's start (loading the PDF library takes hundreds of ms, and
  // seconds on a busy machine or under tsx): a pool's worker is started, untimed, before its first PDF is handed over.
  await warmed(p);
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), l.timeoutMs);
  let reply: PdfReply;
  try {
    reply = await p.run({ pdf: copy, limits: l }, { transferList: [copy], signal: abort.signal });
  } catch (e) {
    // An aborted task ends its worker: the next PDF starts (and warms) another one.
    if (abort.signal.aborted) warm.delete(p);
    throw workerFailure(e, l, abort.signal.aborted);
  } finally {
    clearTimeout(timer);
  }
  if (!reply.ok) throw new ApiError(reply.code, reply.message);
  return { xml: Buffer.from(reply.xml, 0, reply.length), attachmentName: reply.attachmentName, afRelationship: reply.afRelationship, pdfSize: pdf.length };
}

/** Why a worker did not answer: the deadline, the heap limit, or (not the PDF's doing) a worker that cannot start. */
function workerFailure(e: unknown, l: Required<PdfLimits>, timedOut: boolean): Error {
  const code = (e as { code?: unknown }).code;
  if (timedOut || (e instanceof Error && e.name === "AbortError")) {
    return new ApiError("invalid_pdf", `Reading the PDF took longer than ${l.timeoutMs >= 1000 ? `${l.timeoutMs / 1000} seconds` : `${l.timeoutMs} ms`} (the time limit of a PDF); send the invoice XML or a simpler Factur-X PDF.`);
  }
  if (code === "ERR_WORKER_OUT_OF_MEMORY") {
    return new ApiError("invalid_pdf", `Reading the PDF needed more than ${l.maxHeapMb} MiB of memory (the memory limit of a PDF); send the invoice XML or a simpler Factur-X PDF.`);
  }
  if (code === "ERR_WORKER_INIT_FAILED" || code === "ERR_WORKER_PATH" || code === "ERR_MODULE_NOT_FOUND") {
    return new Error(`the PDF worker could not start: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  // The worker stopped while reading this PDF: the PDF's doing as far as the caller can tell.
  return new ApiError("invalid_pdf", "The PDF could not be read (the reader stopped on it); send the invoice XML or a Factur-X PDF that opens in a PDF reader.", { cause: e });
}
