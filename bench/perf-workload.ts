// The loop bench/perf-profile.ts records: pipeline_vs_fastest_parser's two sides in turns (200
// submitInvoice of distinct base-example.xml on an empty memory store, then 200 txml parses of the same
// bytes, each batch charged with its scavenge, as bench/metrics/pipeline.ts measures them): `warmup`
// seconds, then `seconds` seconds whose window (CLOCK_MONOTONIC, perf's `-k mono`) and calls it prints,
// so that the samples of each side in that window become time per call. Run it through
// bench/perf-profile.ts, not on its own.
import { parse as txml } from "txml/txml";
import { memoryStore, submitInvoice, type AuthContext, type Store } from "../packages/core/src/index.ts";
import { collectYoung } from "./lib/gc.ts";
import { baseExample } from "./lib/corpus.ts";
import { distinctBase64, eligibleCompany } from "./lib/setup.ts";

const seconds = Number(process.argv[2] ?? "10");
const warmup = Number(process.argv[3] ?? "4");
const next = distinctBase64(baseExample(), "W");
const bodies = Array.from({ length: 200 }, () => next());
const bytes = bodies.map((b) => Buffer.from(b, "base64"));

async function submitSide(store: Store, auth: AuthContext): Promise<void> {
  for (const xml of bodies) {
    const r = await submitInvoice(store, auth, { xml, targetNetwork: "auto" });
    if (!r.success) throw new Error(`not accepted: ${r.errorMessage}`);
  }
  collectYoung();
}

function txmlSide(): void {
  for (const b of bytes) txml(b.toString("utf8"));
  collectYoung();
}

// The txml batches of the measured window (CLOCK_MONOTONIC ns): a sample in one is the txml side's, any other the submit side's.
const txmlBatches: string[][] = [];
let measuring = false;

async function round(): Promise<void> {
  const store = memoryStore();
  const { auth } = await eligibleCompany(store);
  await submitSide(store, auth);
  const from = process.hrtime.bigint();
  txmlSide();
  if (measuring) txmlBatches.push([String(from), String(process.hrtime.bigint())]);
}

const warm = performance.now() + warmup * 1000;
while (performance.now() < warm) await round();
let rounds = 0;
measuring = true;
const from = process.hrtime.bigint();
const until = performance.now() + seconds * 1000;
while (performance.now() < until) {
  await round();
  rounds++;
}
const to = process.hrtime.bigint();
// One line of JSON for bench/perf-profile.ts: the calls of each side in the window, the window and its txml batches.
console.log(JSON.stringify({ submits: rounds * bodies.length, parses: rounds * bytes.length, fromNs: String(from), toNs: String(to), pid: process.pid, txmlBatches }));
