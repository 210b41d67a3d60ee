import { renderPdf } from "./src/index.ts";
import { sampleInvoice } from "./test/support/invoices.ts";
for (const n of [20, 20, 100, 1000, 1000, 10000]) {
  const inv = sampleInvoice(n);
  const t = performance.now();
  const pdf = await renderPdf(inv);
  console.log(n, pdf.length, Math.round(performance.now() - t), "ms");
}
