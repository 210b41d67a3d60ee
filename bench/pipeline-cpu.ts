// pipeline_vs_parse and pipeline_vs_fastest_parser in CPU time instead of wall time, for a machine that is
// not idle: 25 rounds (5 warm-up) of 200 submitInvoice on the memory store, 200 xmldom parses and 200 txml
// parses of the same distinct documents, each batch timed by process.cpuUsage; the medians of the per-round
// ratios. Other processes still share the caches and cores, so compare two checkouts run one after the other
// (docs/performance.md), not against the goals:
//
//   pnpm exec tsx --conditions=source bench/pipeline-cpu.ts
import { DOMParser } from "@xmldom/xmldom";
import { parse as txml } from "txml/txml";
import { memoryStore, submitInvoice, type AuthContext } from "../packages/core/src/index.ts";
import { baseExample } from "./lib/corpus.ts";
import { distinctBase64, eligibleCompany } from "./lib/setup.ts";
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const next = distinctBase64(baseExample(), "P");
const bodies = Array.from({ length: 200 }, () => next());
const bytes = bodies.map((b) => Buffer.from(b, "base64"));
const rA: number[] = [], rX: number[] = [], rT: number[] = [];
for (let round = 0; round < 25; round++) {
  const store = memoryStore(); // empty each round, as in pipeline.ts
  const { auth } = await eligibleCompany(store);
  let t = cpu();
  for (const b of bodies) { const r = await submitInvoice(store, auth, { xml: b, targetNetwork: "auto" }); if (!r.success) throw new Error(r.errorMessage); }
  const a = (cpu() - t) / 200; t = cpu();
  for (const b of bytes) new DOMParser().parseFromString(b.toString("utf8"), "application/xml");
  const x = (cpu() - t) / 200; t = cpu();
  for (const b of bytes) txml(b.toString("utf8"));
  const tx = (cpu() - t) / 200;
  if (round >= 5) { rA.push(a); rX.push(a / x); rT.push(a / tx); }
}
const med = (v: number[]) => v.sort((p, q) => p - q)[v.length >> 1]!;
console.log(`pipeline ${med(rA).toFixed(3)} ms cpu; vs xmldom ${med(rX).toFixed(3)}; vs txml ${med(rT).toFixed(2)}`);
