// One measurement of render_pdf_memory, in a fresh process started with --expose-gc: the invoice of N lines is
// built and the code paths warmed first, then the live heap's growth over its level after a forced GC is sampled
// after a forced GC every 10 chunks of renderPdfStream (a chunk is about a page) while the PDF is written and its
// bytes counted, not kept. The raw peak (heapUsed at every chunk, garbage included) is reported beside it.
import { renderPdfStream } from "../../packages/render/src/index.ts";
import { sampleInvoice } from "../../packages/render/test/support/invoices.ts";

const lines = Number(process.argv[2]);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc || !(lines > 0)) throw new Error("usage: node --expose-gc render-child.ts <lines>");

for await (const _ of renderPdfStream(sampleInvoice(30))); // fonts parsed once, code compiled
const invoice = sampleInvoice(lines);
gc();
gc();
const base = process.memoryUsage().heapUsed;
let bytes = 0;
let live = base;
let raw = base;
let chunks = 0;
for await (const chunk of renderPdfStream(invoice)) {
  bytes += (chunk as Buffer).length;
  raw = Math.max(raw, process.memoryUsage().heapUsed);
  if (++chunks % 10 === 0) {
    gc();
    live = Math.max(live, process.memoryUsage().heapUsed);
  }
}
process.stdout.write(`@@growth ${live - base} raw ${raw - base} bytes ${bytes} lines ${invoice.lines.length}\n`);
