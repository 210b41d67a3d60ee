// Where the time of pipeline_vs_fastest_parser's submit side goes, in txml parses: Linux perf samples
// the main thread on a timer (cpu-clock), which V8's own sampling profiler does not do (it samples at
// safepoints and overstated a tight loop up to five times here, docs/performance.md), while
// bench/perf-workload.ts runs the metric's two sides in turns.
//
//   pnpm exec tsx bench/perf-profile.ts [seconds] [warm-up seconds]      # default 10 and 4
//
// Needs `perf` (Debian's linux-perf) and a kernel that lets it sample (perf_event_paranoid). Each sample
// of the measured window goes to a side (txml when it falls in one of the txml batches, else submit)
// and to the first group its stack names, leaf first: page faults (a kernel stack through exc_page_fault),
// garbage collection, V8's compiler, or the nearest JavaScript frame's source file (the builtins and
// runtime a function calls, Map lookups, string slices, count as that function's; a function the JIT
// inlined counts as its caller's). docs/performance.md, the session of 2026-11-28, afternoon.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const seconds = process.argv[2] ?? "10";
const warmup = process.argv[3] ?? "4";
// The JIT's code goes to perf through V8's jitdump (--perf-prof) and `perf inject --jit`, which follow code
// that moves or is freed: with --perf-basic-prof's map file, a txml parse's samples were once given to a
// rule family that had had the same addresses earlier. V8 writes its dump into the working folder: a
// temporary one, removed at the end.
const dir = mkdtempSync(join(tmpdir(), "einvoice-perf-"));
const run = (args: string[]) => spawnSync("perf", args, { cwd: dir, encoding: "utf8", maxBuffer: 1 << 30 });
const tsx = fileURLToPath(import.meta.resolve("tsx"));
const workload = resolve(fileURLToPath(new URL(".", import.meta.url)), "perf-workload.ts");

let recorded, script;
try {
  recorded = run(["record", "-q", "-k", "mono", "-e", "cpu-clock", "-F", "499", "-g", "-o", "perf.data", "--",
    process.execPath, "--perf-prof", "--conditions=source", "--import", tsx, workload, seconds, warmup]);
  if (recorded.status !== 0) throw new Error(`perf record failed (${recorded.status}): ${recorded.stderr.trim().slice(-500)}`);
  const injected = run(["inject", "--jit", "-i", "perf.data", "-o", "perf.jit.data"]);
  if (injected.status !== 0) throw new Error(`perf inject failed: ${injected.stderr.trim().slice(-500)}`);
  script = run(["script", "-i", "perf.jit.data", "-F", "tid,time,period,ip,sym,dso"]);
  if (script.status !== 0) throw new Error(`perf script failed: ${script.stderr.trim().slice(-500)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const window = JSON.parse(recorded.stdout.trim().split("\n").at(-1)!) as {
  submits: number;
  parses: number;
  fromNs: string;
  toNs: string;
  pid: number;
  txmlBatches: [string, string][];
};

// perf prints a sample's time in seconds with microseconds: CLOCK_MONOTONIC ns in the same unit.
const seconds6 = (ns: string) => Number(BigInt(ns) / 1000n) / 1e6;
const from = seconds6(window.fromNs);
const to = seconds6(window.toNs);
const batches = window.txmlBatches.map(([a, b]) => [seconds6(a), seconds6(b)] as const);
let batch = 0;
/** The side of a sample at `time`: samples come in time order, the batches too. */
function sideAt(time: number): "submit" | "txml" {
  while (batch < batches.length && batches[batch]![1] < time) batch++;
  return batch < batches.length && batches[batch]![0] <= time ? "txml" : "submit";
}

interface Frame {
  sym: string;
  dso: string;
}

const GC = /Scaveng|Heap::|MarkCompact|Sweeper|Marking|MinorMC|GCTracer|ArrayBufferSweeper|Evacuat|RememberedSet/;
const COMPILER = /compiler::|Compiler::|CompileLazy|Runtime_Compile|Deoptimiz|Maglev|Baseline|BytecodeGenerator|Parser::/;

function sourceGroup(sym: string): string | null {
  const m = /(file:\/\/\S+|node:\S+)/.exec(sym);
  if (!m) return null;
  const url = m[1]!.replace(/:\d+:\d+$/, "");
  if (url.startsWith("node:")) return "node internals";
  const dep = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (dep) return dep[1]!;
  const own = /packages\/([^/]+)\/src\/(.+)\.(?:ts|js|mjs)$/.exec(url);
  if (own) {
    if (own[2]!.startsWith("validation/rules/")) return `rules: ${own[2]!.slice("validation/rules/".length)}`;
    return own[1] === "core" ? own[2]! : `${own[1]}/${own[2]}`;
  }
  return url.slice(url.lastIndexOf("/") + 1);
}

function groupOf(frames: readonly Frame[]): string {
  const kernel = frames.filter((f) => f.dso.includes("kernel"));
  if (kernel.some((f) => f.sym.startsWith("exc_page_fault") || f.sym.startsWith("asm_exc_page_fault"))) return "page faults";
  for (const f of frames) {
    if (f.dso.includes("kernel")) continue;
    if (GC.test(f.sym)) return "garbage collection";
    if (COMPILER.test(f.sym)) return "V8 compile and deopt";
    if (f.sym.startsWith("JS:")) {
      const g = sourceGroup(f.sym);
      if (g !== null && g !== "perf-workload.ts" && g !== "node internals") return g;
    }
  }
  return kernel.length === frames.length ? "kernel, other" : "other (runtime, idle)";
}

const samples: Record<"submit" | "txml", Map<string, number>> = { submit: new Map(), txml: new Map() };
const total = { submit: 0, txml: 0 };
let header: { tid: number; time: number; period: number } | null = null;
let frames: Frame[] = [];
const flush = (): void => {
  if (header && header.tid === window.pid && header.time >= from && header.time <= to) {
    const side = sideAt(header.time);
    const group = groupOf(frames);
    samples[side].set(group, (samples[side].get(group) ?? 0) + header.period);
    total[side] += header.period;
  }
  header = null;
  frames = [];
};
for (const line of script.stdout.split("\n")) {
  if (line.trim() === "") {
    flush();
    continue;
  }
  const h = /^\s*(\d+)\s+([\d.]+):\s+(\d+)\s*$/.exec(line);
  if (h) {
    flush();
    header = { tid: Number(h[1]), time: Number(h[2]), period: Number(h[3]) };
    continue;
  }
  const f = /^\s+[0-9a-f]+\s+(.*?)(?:\+0x[0-9a-f]+)?\s+\(([^)]*)\)\s*$/.exec(line);
  if (f && header) frames.push({ sym: f[1]!, dso: f[2]! });
}
flush();

const usPerSubmit = (ns: number) => ns / 1000 / window.submits;
const txmlUs = total.txml / 1000 / window.parses;
console.log(`${window.submits} submits and ${window.parses} txml parses in ${(to - from).toFixed(1)} s; main thread: a submit ${usPerSubmit(total.submit).toFixed(1)} us, a txml parse ${txmlUs.toFixed(1)} us (${(usPerSubmit(total.submit) / txmlUs).toFixed(2)} x txml)`);
console.log("| submit side | us a submit | x txml | share |");
console.log("| --- | --- | --- | --- |");
for (const [group, ns] of [...samples.submit].sort((a, b) => b[1] - a[1])) {
  const us = usPerSubmit(ns);
  if (us < 0.5) continue;
  console.log(`| ${group} | ${us.toFixed(1)} | ${(us / txmlUs).toFixed(2)} | ${((100 * ns) / total.submit).toFixed(1)}% |`);
}
console.log(`txml side: ${[...samples.txml].sort((a, b) => b[1] - a[1]).map(([g, ns]) => `${g} ${((100 * ns) / total.txml).toFixed(0)}%`).join(", ")}`);
