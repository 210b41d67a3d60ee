import { renderPdf } from "./src/index.ts";
import { sampleInvoice } from "./test/support/invoices.ts";
const inv = sampleInvoice(100);
await renderPdf(sampleInvoice(2));
const t = performance.now();
await renderPdf(inv);
console.log(Math.round(performance.now() - t), "ms");
