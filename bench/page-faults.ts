// What a first touch of memory costs on this machine, and how many pages the pipeline and the builder touch
// for the first time (docs/performance.md, "page faults"). Three parts, each its own median:
//
//   pnpm exec tsx --conditions=source bench/page-faults.ts            # all three
//   pnpm exec tsx --conditions=source bench/page-faults.ts pipeline   # or: touch, pipeline, store, build
//
// touch:    64 MiB of fresh memory written twice; the first pass pays a page fault per 4 KiB page.
// pipeline: the loop of pipeline_vs_fastest_parser (200 submitInvoice of distinct base-example.xml on an
//           empty memory store, then 200 txml parses of the same bytes), 30 rounds after 10; minor page
//           faults of the process (process.resourceUsage) per submit and per parse.
// store:    what the memory store's keeping costs the pipeline: the loop of pipeline_vs_fastest_parser in turns
//           on the memory store, on the same store keeping no document, on one keeping nothing (its
//           insertSubmission only answers), readInvoice alone and txml; each batch of 200 charged with its
//           scavenge as the bench charges it, 25 rounds after 5; time and minor page faults a call.
// build:    build_linearity's pair (one 10,000-line buildInvoice, ten 1,000-line ones) in turns, 7 rounds
//           after 1; minor page faults per line on each side.
import { parse as txml } from "txml/txml";
import { buildInvoice, memoryStore, readInvoice, submitInvoice, type Store } from "../packages/core/src/index.ts";
import { collectYoung } from "./lib/gc.ts";
import { baseExample } from "./lib/corpus.ts";
import { distinctBase64, eligibleCompany } from "./lib/setup.ts";
import { dataInvoice } from "./metrics/invoice-data.ts";
import { median } from "./lib/stats.ts";

const faults = () => process.resourceUsage().minorPageFault;
const parts = process.argv.slice(2);
const wants = (part: string) => parts.length === 0 || parts.includes(part);

if (wants("touch")) {
  const first: number[] = [];
  const second: number[] = [];
  for (let r = 0; r < 5; r++) {
    const pages = (64 * 2 ** 20) / 4096;
    const bytes = Buffer.allocUnsafeSlow(64 * 2 ** 20);
    let t = performance.now();
    bytes.fill(1);
    first.push(((performance.now() - t) * 1000) / pages);
    t = performance.now();
    bytes.fill(2);
    second.push(((performance.now() - t) * 1000) / pages);
  }
  console.log(`touch: a first write of a 4 KiB page ${median(first).toFixed(2)} us, a second ${median(second).toFixed(2)} us (64 MiB, median of 5)`);
}

if (wants("pipeline")) {
  const next = distinctBase64(baseExample(), "F");
  const bodies = Array.from({ length: 200 }, () => next());
  const bytes = bodies.map((b) => Buffer.from(b, "base64"));
  const submitUs: number[] = [], ratio: number[] = [], perSubmit: number[] = [], perParse: number[] = [];
  for (let round = 0; round < 40; round++) {
    const store = memoryStore();
    const { auth } = await eligibleCompany(store);
    let f = faults();
    let t = performance.now();
    for (const xml of bodies) {
      const r = await submitInvoice(store, auth, { xml, targetNetwork: "auto" });
      if (!r.success) throw new Error(`not accepted: ${r.errorMessage}`);
    }
    const submit = (performance.now() - t) / bodies.length;
    const submitFaults = (faults() - f) / bodies.length;
    f = faults();
    t = performance.now();
    for (const b of bytes) txml(b.toString("utf8"));
    const parse = (performance.now() - t) / bytes.length;
    if (round < 10) continue;
    submitUs.push(submit * 1000);
    ratio.push(submit / parse);
    perSubmit.push(submitFaults);
    perParse.push((faults() - f) / bytes.length);
  }
  console.log(
    `pipeline: submit ${median(submitUs).toFixed(0)} us, ${median(ratio).toFixed(2)} x txml; page faults ${median(perSubmit).toFixed(2)} a submit, ${median(perParse).toFixed(2)} a txml parse (30 rounds of 200)`,
  );
}

if (wants("store")) {
  const next = distinctBase64(baseExample(), "K");
  const bodies = Array.from({ length: 200 }, () => next());
  const bytes = bodies.map((b) => Buffer.from(b, "base64"));
  // The same store with its insertSubmission changed: without the document, or keeping nothing at all.
  const variants: Record<string, (() => Store) | null> = {
    "memory store": () => memoryStore(),
    "no document kept": () => {
      const s = memoryStore();
      return { ...s, insertSubmission: (x) => s.insertSubmission({ ...x, document: null }) };
    },
    "nothing kept": () => ({ ...memoryStore(), insertSubmission: async (x) => ({ inserted: true as const, invoice: x.invoice }) }),
    "readInvoice alone": null,
    txml: null,
  };
  const us: Record<string, number[]> = {};
  const pf: Record<string, number[]> = {};
  for (let round = 0; round < 30; round++) {
    for (const [name, make] of Object.entries(variants)) {
      const store = make?.();
      const auth = store ? (await eligibleCompany(store)).auth : null;
      const f = faults();
      const t = performance.now();
      if (store && auth) {
        for (const xml of bodies) {
          const r = await submitInvoice(store, auth, { xml, targetNetwork: "auto" });
          if (!r.success) throw new Error(`not accepted: ${r.errorMessage}`);
        }
      } else if (name === "txml") for (const b of bytes) txml(b.toString("utf8"));
      else for (const xml of bodies) readInvoice(xml);
      collectYoung();
      if (round < 5) continue;
      (us[name] ??= []).push(((performance.now() - t) * 1000) / bodies.length);
      (pf[name] ??= []).push((faults() - f) / bodies.length);
    }
  }
  const parse = median(us.txml!);
  for (const name of Object.keys(variants)) {
    console.log(`store: ${name}: ${median(us[name]!).toFixed(0)} us (${(median(us[name]!) / parse).toFixed(2)} x txml), ${median(pf[name]!).toFixed(2)} page faults a call`);
  }
}

if (wants("build")) {
  const thousand = dataInvoice("INV-1K", 1_000);
  const tenThousand = dataInvoice("INV-10K", 10_000);
  const measure = (fn: () => void): [number, number] => {
    const f = faults();
    const t = performance.now();
    fn();
    return [((performance.now() - t) * 1000) / 10_000, (faults() - f) / 10_000];
  };
  const big = () => measure(() => buildInvoice(tenThousand));
  const small = () => measure(() => { for (let i = 0; i < 10; i++) buildInvoice(thousand); });
  const a: [number, number][] = [], b: [number, number][] = [];
  for (let round = 0; round < 8; round++) {
    const [x, y] = round % 2 === 0 ? [big(), small()] : ([small(), big()].reverse() as [[number, number], [number, number]]);
    if (round === 0) continue;
    a.push(x);
    b.push(y);
  }
  const m = (xs: [number, number][], i: 0 | 1) => median(xs.map((x) => x[i]));
  console.log(
    `build: 10,000 lines ${m(a, 0).toFixed(1)} us and ${m(a, 1).toFixed(2)} page faults a line; 10 x 1,000 lines ${m(b, 0).toFixed(1)} us and ${m(b, 1).toFixed(2)} (7 rounds in turns)`,
  );
}
