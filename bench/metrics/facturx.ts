// facturx_extract_vs_load: extractInvoiceXml of a real Factur-X PDF (the checks, the trip to its worker
// thread, the scan, the parse, the attachment found and inflated, the bytes back) against the PDF
// library's bare load of the same bytes on the calling thread (@cantoo/pdf-lib's PDFDocument.load with
// the options extractInvoiceXml uses), side by side.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { closePdfWorkers, extractInvoiceXml } from "../../packages/core/src/index.ts";
import { loadPdf } from "../../packages/core/src/document/pdf/attachments.ts";
import { FACTURX_DIR } from "../../testdata/index.ts";
import { alternate, median, perCall, round } from "../lib/stats.ts";
import type { Metric } from "../run.ts";

const FILE = "invoice_EN16931.pdf"; // akretion's EN 16931 Factur-X: 296 KiB, two attachments
const BATCH = 20;
const ROUNDS = 25;

export async function facturxMetrics(): Promise<Record<string, Metric>> {
  const pdf = readFileSync(join(FACTURX_DIR, FILE));
  try {
    const r = await alternate({
      rounds: ROUNDS,
      warmup: 3,
      a: () => perCall(BATCH, () => extractInvoiceXml(pdf)),
      b: () => perCall(BATCH, () => loadPdf(pdf)),
    });
    const ms = (x: number) => `${round(x, 1)} ms`;
    return {
      facturx_extract_vs_load: {
        value: round(r.ratio),
        goal: "<= 1.5",
        ok: r.ratio <= 1.5,
        note: `extractInvoiceXml ${ms(median(r.a))}/PDF (on its worker) vs the library's bare load ${ms(median(r.b))} (${FILE}, ${Math.round(pdf.length / 1024)} KiB)`,
        detail: { ratios: r.ratios.map((x) => round(x)) },
      },
    };
  } finally {
    await closePdfWorkers();
  }
}
