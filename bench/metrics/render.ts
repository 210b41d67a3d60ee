// The PDF renderer's figures (@einvoice/render, issue 43):
// - render_pdf_linearity: renderPdf's time per line of a 1,000-line invoice against a 100-line one (alternated rounds);
// - render_pdf_memory: the live heap's peak growth while the 10,000-line PDF is written against the 1,000-line one's,
//   each in a fresh process (render-child.ts), the PDF streamed and not kept;
// - render_pdf_20_lines_ms: the milliseconds of a 20-line PDF (reported, no goal).
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { renderPdf } from "../../packages/render/src/index.ts";
import { sampleInvoice } from "../../packages/render/test/support/invoices.ts";
import { REPO_ROOT } from "../lib/corpus.ts";
import { alternate, median, nowMs, round } from "../lib/stats.ts";
import type { Metric } from "../run.ts";

const ROUNDS = 7;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = nowMs();
  await fn();
  return nowMs() - t;
}

function childGrowth(lines: number): { growth: number; raw: number; bytes: number } {
  const out = execFileSync(
    process.execPath,
    ["--expose-gc", "--max-semi-space-size=2", "--conditions=source", "--import", "tsx", join(REPO_ROOT, "bench", "metrics", "render-child.ts"), String(lines)],
    { cwd: REPO_ROOT, encoding: "utf8", maxBuffer: 16 * 1024 * 1024 },
  );
  const m = /@@growth (\d+) raw (\d+) bytes (\d+)/.exec(out);
  if (!m) throw new Error(`render-child answered no figure: ${out.slice(0, 300)}`);
  return { growth: Number(m[1]), raw: Number(m[2]), bytes: Number(m[3]) };
}

export async function renderPdfMetrics(): Promise<Record<string, Metric>> {
  const i20 = sampleInvoice(20);
  const i100 = sampleInvoice(100);
  const i1000 = sampleInvoice(1000);
  await renderPdf(sampleInvoice(30)); // warm: modules, fonts' code paths

  const small: number[] = [];
  for (let i = 0; i < 9; i++) small.push(await timed(() => renderPdf(i20)));

  const r = await alternate({
    rounds: ROUNDS,
    warmup: 1,
    a: () => timed(() => renderPdf(i1000)).then((ms) => ms / 1000),
    b: () => timed(() => renderPdf(i100)).then((ms) => ms / 100),
  });

  // The smaller of two fresh processes each (the same statistic on both sides: GC timing only adds).
  const least = (xs: Array<{ growth: number; raw: number; bytes: number }>) => xs.sort((a, b) => a.growth - b.growth)[0]!;
  const m1k = least([childGrowth(1000), childGrowth(1000)]);
  const m10k = least([childGrowth(10_000), childGrowth(10_000)]);
  const memRatio = m10k.growth / m1k.growth;
  const mb = (b: number) => `${round(b / 1024 / 1024, 1)} MB`;
  const ms = (x: number) => `${round(x, 2)} ms`;
  return {
    render_pdf_linearity: {
      value: round(r.ratio),
      goal: "<= 1.15",
      ok: r.ratio <= 1.15,
      note: `renderPdf per line: 1,000 lines ${ms(median(r.a))} vs 100 lines ${ms(median(r.b))}`,
      detail: { ratios: r.ratios.map((x) => round(x)) },
    },
    render_pdf_memory: {
      value: round(memRatio),
      goal: "<= 4",
      ok: memRatio <= 4,
      note: `peak live heap growth writing the PDF: 10,000 lines ${mb(m10k.growth)} (${mb(m10k.bytes)} of PDF) vs 1,000 lines ${mb(m1k.growth)} (${mb(m1k.bytes)}); with garbage ${mb(m10k.raw)} vs ${mb(m1k.raw)}`,
      detail: { growth10k: m10k.growth, growth1k: m1k.growth, raw10k: m10k.raw, raw1k: m1k.raw, bytes10k: m10k.bytes, bytes1k: m1k.bytes },
    },
    render_pdf_20_lines_ms: {
      value: round(median(small), 1),
      goal: "report",
      ok: true,
      note: `renderPdf of a 20-line invoice (median of ${small.length}, 2 pages, fonts embedded)`,
      detail: { runs: small.map((x) => round(x, 1)) },
    },
  };
}
