// The process's default pool of invoice workers: what `readInvoiceAsync`, `readRequestAsync`,
// `validateRequestAsync` and the submit and validate functions use, configured with `configureInvoiceWorkers`, ended with `closeInvoiceWorkers`.
import type { ReadInvoice } from "./read.js";
import { createInvoiceWorkers, type InvoiceWorkerOptions, type InvoiceWorkers, type ReadRequest, type ReadRequestOptions } from "./pool.js";
import type { UblRoot } from "./ubl.js";
import type { DocumentReport } from "./validate.js";
import type { JudgedDocument } from "./received.js";
import { DEFAULT_XML_LIMITS, type XmlLimits } from "./xml.js";

let defaultOptions: InvoiceWorkerOptions = {};
let defaultWorkers: InvoiceWorkers | null = null;

function workers(): InvoiceWorkers {
  defaultWorkers ??= createInvoiceWorkers(defaultOptions);
  return defaultWorkers;
}

/**
 * Changes how the default pool reads large documents (see `InvoiceWorkerOptions`; options not
 * given keep their current value). The running pool finishes what it reads and ends; the next
 * large document starts one with the new options.
 *
 * @example configureInvoiceWorkers({ threshold: Infinity }) // always read on the calling thread
 */
export function configureInvoiceWorkers(options: InvoiceWorkerOptions): void {
  defaultOptions = { ...defaultOptions, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
  const old = defaultWorkers;
  defaultWorkers = null;
  void old?.close();
}

/**
 * Like `readInvoice`, with the same result and the same errors, but a document above the
 * threshold is read on a worker thread of the default pool, so a large invoice does not stall the
 * event loop. Idle workers do not keep the process alive.
 *
 * @example const { sha256, recipient } = await readInvoiceAsync(body.xml)
 */
export function readInvoiceAsync(xmlBase64: string, limits: XmlLimits = DEFAULT_XML_LIMITS, root: UblRoot = "Invoice", recipientOptional = false): Promise<ReadInvoice> {
  return workers().readInvoice(xmlBase64, limits, root, recipientOptional);
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
  options: ReadRequestOptions = {},
): Promise<ReadRequest> {
  return workers().readRequest(body, limits, options);
}

/**
 * Validates the document of a `POST /v1/validate` raw JSON body (`{"xml": base64}`), off the event loop
 * when the body is over the threshold: the report with at most MAX_REPORTED_ERRORS items a list and the
 * counts of every rule. Rejects with the body's 400 or the document's 422, as `validateDocument`.
 */
export function validateRequestAsync(body: Uint8Array | readonly Uint8Array[], limits: XmlLimits = DEFAULT_XML_LIMITS, options: { transfer?: boolean } = {}): Promise<DocumentReport> {
  return workers().validateRequest(body, limits, options);
}

/**
 * `judgeReceived` of a received document (UBL, CII, a Factur-X PDF; no extra syntaxes), off the event loop when it is
 * over the threshold: a 10 MiB document judged on the calling thread would stall every request for a second or more.
 *
 * @example const judged = await judgeReceivedAsync(bytes)
 */
export function judgeReceivedAsync(content: Uint8Array, limits: XmlLimits = DEFAULT_XML_LIMITS): Promise<JudgedDocument> {
  return workers().judgeReceived(content, limits);
}

/**
 * Waits for the documents being read, then ends the default pool's threads. The pool starts again
 * on the next large document. For tests and graceful shutdown; idle workers never hold the process.
 */
export async function closeInvoiceWorkers(): Promise<void> {
  const ending = defaultWorkers;
  defaultWorkers = null;
  await ending?.close();
}

/** How many worker threads the default pool runs (for tests). */
export function invoiceWorkerCount(): number {
  return defaultWorkers?.threadCount ?? 0;
}
