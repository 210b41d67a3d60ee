// pnpm bench: every metric, a table, and bench/results.json. Runs in a few minutes on 2 cores.
import { writeFileSync } from "node:fs";
import { availableParallelism, cpus } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "./lib/corpus.ts";

export interface Metric {
  value: number;
  goal: string;
  ok: boolean;
  /** One line for the table: what was measured. */
  note?: string;
  detail?: unknown;
}

const started = Date.now();
const only = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const metrics: Record<string, Metric> = {};

const groups: Array<[string, () => Promise<Record<string, Metric>>]> = [
  ["validation", async () => (await import("./metrics/validation.ts")).validationMetrics()],
  ["pipeline", async () => (await import("./metrics/pipeline.ts")).pipelineMetrics()],
  ["memory", async () => (await import("./metrics/memory.ts")).memoryMetrics()],
  ["http", async () => (await import("./metrics/http.ts")).httpMetrics()],
  ["durable", async () => (await import("./metrics/durable.ts")).durableMetrics()],
  ["discovery", async () => (await import("./metrics/discovery.ts")).discoveryMetrics()],
  ["ksef", async () => (await import("./metrics/ksef.ts")).ksefMetrics()],
  ["invoice-data", async () => (await import("./metrics/invoice-data.ts")).invoiceDataMetrics()],
  ["cii", async () => (await import("./metrics/cii.ts")).ciiMetrics()],
  ["facturx", async () => (await import("./metrics/facturx.ts")).facturxMetrics()],
  ["render-html", async () => (await import("./metrics/render-html.ts")).renderHtmlMetrics()],
  ["render", async () => (await import("./metrics/render.ts")).renderPdfMetrics()],
  ["mixed", async () => (await import("./metrics/mixed.ts")).mixedMetrics()],
  ["inbound", async () => (await import("./metrics/inbound.ts")).inboundMetrics()],
];

for (const [name, run] of groups) {
  if (only.length && !only.includes(name)) continue;
  const t = Date.now();
  process.stderr.write(`bench: ${name} ...\n`);
  Object.assign(metrics, await run());
  process.stderr.write(`bench: ${name} done in ${((Date.now() - t) / 1000).toFixed(0)} s\n`);
}

const rows = Object.entries(metrics).map(([name, m]) => [name, String(m.value), m.goal, m.ok ? "ok" : "MISS", m.note ?? ""]);
const head = ["metric", "value", "goal", "ok", "measured"];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (i < 4 ? r[i]!.length : 0))));
const line = (r: string[]) => `| ${r.map((c, i) => (i < 4 ? c.padEnd(widths[i]!) : c)).join(" | ")} |`;
console.log(line(head));
console.log(`| ${widths.slice(0, 4).map((w) => "-".repeat(w)).join(" | ")} | --- |`);
for (const r of rows) console.log(line(r));
const seconds = Math.round((Date.now() - started) / 1000);
console.log(`\n${Object.values(metrics).filter((m) => m.ok).length}/${rows.length} goals met in ${seconds} s on ${availableParallelism()} cores (${cpus()[0]?.model ?? "?"}), Node ${process.version}`);

writeFileSync(
  join(REPO_ROOT, "bench", "results.json"),
  JSON.stringify(
    {
      metrics: Object.fromEntries(Object.entries(metrics).map(([k, m]) => [k, { value: m.value, goal: m.goal, ok: m.ok }])),
      notes: Object.fromEntries(Object.entries(metrics).map(([k, m]) => [k, { measured: m.note ?? null, detail: m.detail ?? null }])),
      run: { seconds, node: process.version, cores: availableParallelism(), at: new Date().toISOString() },
    },
    null,
    2,
  ) + "\n",
);
// Workers, pools and servers of the metrics are closed by each group; nothing should hold the process.
process.exit(0);
