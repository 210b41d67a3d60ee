// CPU profile of submits, step by step (docs/performance.md, "Where a submit's time goes").
//
//   pnpm exec tsx --conditions=source bench/profile-submit.ts 20 2000      # 20-line invoices, 2,000 submits
//   pnpm exec tsx --conditions=source bench/profile-submit.ts 10000 4      # 10,000-line invoices, 4 submits
//
// Each submit is what `POST /v1/peppol/invoice` does: `submitInvoiceBody` on the raw JSON body, a
// durable PGlite store (on disk, as the example server runs it), participant discovery through a
// warmed cache. Workers are off, so every step runs on this thread and shows in one profile. After
// a warm-up, V8's sampling profiler (the one behind `node --cpu-prof`, 100 µs interval) records
// the measured submits only; every sample is given to the step of the nearest frame on its stack
// that belongs to one (below); each step's share of the samples splits the CPU time per submit.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { cachedDiscovery, configureInvoiceWorkers, readInvoice, sandboxDiscovery, submitInvoiceBody, type CoreOptions } from "../packages/core/src/index.ts";
import { fromPGlite, postgresStore } from "../packages/postgres/src/index.ts";
import { largeInvoice } from "./lib/corpus.ts";
import { distinctBase64, eligibleCompany, invoiceBody } from "./lib/setup.ts";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The steps, tried from the sampled frame outwards; the first whose pattern matches the frame's file (or name) takes the sample. */
const STEPS: ReadonlyArray<readonly [string, RegExp]> = [
  ["SHA-256", /node:internal\/crypto/],
  ["insert: deflate (zlib)", /zlib/],
  ["insert + duplicate check: PGlite (SQL, WebAssembly)", /@electric-sql\/pglite/],
  ["insert: postgres adapter (params, rows)", /packages\/postgres\/src/],
  ["body read: JSON parse and shape", /document\/request\.ts|document\/worker-protocol\.ts|^JSON\.parse$/],
  ["base64 check and decode", /document\/base64\.ts/],
  ["XML read (one pass, builds the model)", /document\/xml\.ts|document\/text\.ts/],
  ["model queries (select/first/children)", /document\/model\.ts|validation\/model\.ts/],
  ["rules: cen.business (BR-*, BR-CO-*)", /rules\/cen-business\.ts/],
  ["rules: cen.vat (BR-S/Z/E/AE/K/G/O/IC)", /rules\/cen-vat\.ts/],
  ["rules: cen.codes", /rules\/cen-codes\.ts|codelists\//],
  ["rules: cen.syntax", /rules\/cen-syntax(-table)?\.ts/],
  ["rules: peppol", /rules\/peppol[^/]*\.ts/],
  ["rules: national sets", /rules\/(xrechnung|nlcius|ublbe)[^/]*\.ts/],
  ["rules: engine, rule-set choice, report", /validation\/(engine|validate|rulesets\/[^/]*)\.ts|rules\/index\.ts|document\/validate\.ts/],
  ["fields, recipient, document type", /document\/(fields|recipient|ubl|doctype|read|index)\.ts/],
  ["routing and eligibility", /routing\/|use-cases\/options\.ts|domain\/eligib/],
  ["discovery cache", /adapters\/cached-discovery\.ts|adapters\/sandbox-discovery\.ts|routing\/discovery/],
  ["submit: record and answer", /use-cases\/submit\.ts/],
  ["garbage collector", /^\(garbage collector\)$/],
];
/** Helpers shared by the rule families: their time goes to the family that called them. */
const SHARED = /rules\/(cen-common|peppol-support|xrechnung-support)\.ts|validation\/(decimal|bounds)\.ts/;

function stepOf(frames: readonly { functionName: string; url: string }[]): string | null {
  for (const f of frames) {
    if (f.functionName === "(idle)" || f.functionName === "(program)") return null;
    if (SHARED.test(f.url)) continue;
    for (const [step, re] of STEPS) if (re.test(f.url) || (f.url === "" && re.test(f.functionName))) return step;
  }
  return "other (Node, promises, event loop)";
}

function summarise(profile: Profile, submits: number): Array<[string, number]> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const cache = new Map<number, string | null>();
  const totals = new Map<string, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    let step = cache.get(id);
    if (step === undefined) {
      const frames: { functionName: string; url: string }[] = [];
      for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) frames.push(byId.get(n)!.callFrame);
      step = stepOf(frames);
      cache.set(id, step);
    }
    // timeDeltas[i] is the time before sample i; the sample's own time is the next delta.
    const dt = profile.timeDeltas[i + 1] ?? 0;
    if (step) totals.set(step, (totals.get(step) ?? 0) + dt);
  }
  return [...totals].map(([s, us]) => [s, us / submits] as [string, number]).sort((a, b) => b[1] - a[1]);
}

async function main(): Promise<void> {
  const lines = Number(process.argv[2] ?? 20);
  const submits = Number(process.argv[3] ?? (lines > 1000 ? 4 : 2000));
  const warmup = lines > 1000 ? 1 : 300;
  configureInvoiceWorkers({ threshold: Infinity });
  const dir = mkdtempSync(join(tmpdir(), "einvoice-profile-"));
  const pglite = await PGlite.create(join(dir, "pglite"));
  try {
    const store = await postgresStore({ db: fromPGlite(pglite), schema: "bench" });
    const next = distinctBase64(largeInvoice(lines), `PR${lines}`);
    const discovery = cachedDiscovery(sandboxDiscovery(), { ttlMs: 3_600_000 });
    const first = next();
    const doc = readInvoice(first);
    await discovery.lookup(doc.recipient!, doc.peppolDocumentType?.id);
    const options: CoreOptions = { discovery };
    const { auth } = await eligibleCompany(store);
    const body = () => Buffer.from(invoiceBody(next()));
    const run = async (n: number) => {
      const bodies = Array.from({ length: n }, body);
      const started = process.cpuUsage();
      for (const b of bodies) {
        const r = await submitInvoiceBody(store, auth, b, options);
        if (!r.success) throw new Error(`not accepted: ${r.errorMessage}`);
      }
      const cpu = process.cpuUsage(started);
      return (cpu.user + cpu.system) / n;
    };
    await run(warmup);
    const session = new Session();
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 100 });
    await session.post("Profiler.start");
    const cpuPerSubmit = await run(submits);
    const { profile } = (await session.post("Profiler.stop")) as unknown as { profile: Profile };
    session.disconnect();
    const out = join(tmpdir(), `submit-${lines}-${process.pid}.cpuprofile`);
    writeFileSync(out, JSON.stringify(profile));
    const rows = summarise(profile, submits);
    const total = rows.reduce((s, [, us]) => s + us, 0);
    console.log(`${lines}-line invoice (${Buffer.byteLength(largeInvoice(lines))} B), ${submits} submits on PGlite; profile ${out}`);
    console.log(`CPU per submit (process.cpuUsage, all threads): ${(cpuPerSubmit / 1000).toFixed(3)} ms; sampled on this thread: ${(total / 1000).toFixed(3)} ms`);
    // On a loaded machine a sample's wall time includes waits for a core: the shares are what the
    // profile says, the times are the process's CPU per submit split by those shares.
    const time = (us: number) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(0)} µs`);
    console.log("| step | share | CPU per submit |\n| --- | --- | --- |");
    for (const [step, us] of rows) console.log(`| ${step} | ${((100 * us) / total).toFixed(1)} % | ${time((cpuPerSubmit * us) / total)} |`);
  } finally {
    await pglite.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
