// One measurement of large_invoice_memory, in a fresh process started with --expose-gc --trace-gc:
// "pipeline" runs submitInvoice on the memory store (inline: workers off, so this heap is the one
// that reads), "bare" base64-decodes and parses with xmldom. Both hold the same base64 text first.
// Forced GCs (reason "testing" in V8's trace) fence the measured window for the parent.
import { DOMParser } from "@xmldom/xmldom";
import { configureInvoiceWorkers, memoryStore, submitInvoice } from "../../packages/core/src/index.ts";
import { largeInvoice } from "../lib/corpus.ts";
import { eligibleCompany } from "../lib/setup.ts";

const mode = process.argv[2];
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc || (mode !== "pipeline" && mode !== "bare")) throw new Error("usage: node --expose-gc --trace-gc memory-child.ts pipeline|bare");

configureInvoiceWorkers({ threshold: Infinity });
const store = memoryStore();
const { auth } = await eligibleCompany(store);
const xml = Buffer.from(largeInvoice(10_000)).toString("base64");
let keep: unknown = null;
if (mode === "pipeline") {
  // Warm the code paths on a small document so that compiling them is not in the window.
  await submitInvoice(store, auth, { xml: Buffer.from(largeInvoice(5, "WARM")).toString("base64") });
} else {
  new DOMParser().parseFromString(largeInvoice(5, "WARM"), "application/xml");
}
gc();
gc(); // the second forced GC opens the window: its "after" is the baseline
if (mode === "pipeline") {
  keep = await submitInvoice(store, auth, { xml, targetNetwork: "auto" });
  if (!(keep as { success: boolean }).success) throw new Error("not accepted");
} else {
  keep = new DOMParser().parseFromString(Buffer.from(xml, "base64").toString("utf8"), "application/xml");
}
gc(); // closes the window: its "before" is the heap at the end
process.stdout.write(`@@bytes ${Buffer.byteLength(xml, "base64")} kept ${keep ? "yes" : "no"}\n`);
