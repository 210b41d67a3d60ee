// large_invoice_memory: peak heap of the whole pipeline on the 10,000-line invoice / of a bare xmldom parse, each in a fresh process.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "../lib/corpus.ts";
import { alternate, median, round } from "../lib/stats.ts";
import type { Metric } from "../run.ts";

const run = promisify(execFile);
const GC_LINE = /: (?:Scavenge|Mark-Compact|Mark-sweep|Minor Mark-Compact|Mark-Compact \(reduce\))[^\d]*([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB.*$/;

/** Peak heap used in the window fenced by the child's forced GCs, in MiB above the baseline. */
export function peakFromTrace(trace: string): { peakMiB: number; baselineMiB: number } {
  const gcs = trace
    .split("\n")
    .map((l) => ({ l, m: GC_LINE.exec(l) }))
    .filter((x) => x.m !== null)
    .map(({ l, m }) => ({ before: Number(m![1]), after: Number(m![3]), testing: /\btesting\b/.test(l) }));
  const forced = gcs.map((g, i) => (g.testing ? i : -1)).filter((i) => i >= 0);
  if (forced.length < 2) throw new Error("no forced GCs in the trace");
  const open = forced[forced.length - 2]!;
  const close = forced[forced.length - 1]!;
  const baseline = gcs[open]!.after;
  let peak = 0;
  for (let i = open + 1; i <= close; i++) peak = Math.max(peak, gcs[i]!.before);
  return { peakMiB: peak - baseline, baselineMiB: baseline };
}

async function measure(mode: "pipeline" | "bare"): Promise<number> {
  const { stdout } = await run(
    process.execPath,
    ["--expose-gc", "--trace-gc", "--max-semi-space-size=2", "--conditions=source", "--import", "tsx", join(REPO_ROOT, "bench", "metrics", "memory-child.ts"), mode],
    { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024 },
  );
  return peakFromTrace(stdout).peakMiB;
}

export async function memoryMetrics(): Promise<Record<string, Metric>> {
  const r = await alternate({ rounds: 3, warmup: 0, a: () => measure("pipeline"), b: () => measure("bare") });
  return {
    large_invoice_memory: {
      value: round(r.ratio),
      goal: "<= 0.5",
      ok: r.ratio <= 0.5,
      note: `peak heap above baseline: pipeline (validation included) ${round(median(r.a), 1)} MiB vs xmldom ${round(median(r.b), 1)} MiB (10,000 lines, 6.9 MiB; fresh process each, V8 --trace-gc)`,
    },
  };
}
