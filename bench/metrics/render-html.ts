// render_html_vs_parse: the HTML page of a 20-line invoice (renderHtml from its InvoiceData) against a bare xmldom
// parse of its UBL (issue 43: at most 3 times). The invoice is read into InvoiceData once, outside the timing.
import { DOMParser } from "@xmldom/xmldom";
import { readInvoiceData } from "../../packages/core/src/index.ts";
import { renderHtml } from "../../packages/render/src/index.ts";
import { largeInvoice } from "../lib/corpus.ts";
import { alternate, perCallSync, round } from "../lib/stats.ts";
import type { Metric } from "../run.ts";

export async function renderHtmlMetrics(): Promise<Record<string, Metric>> {
  const ubl = largeInvoice(20, "RENDER-20");
  const { rootElement, documentType: _d, ...invoice } = readInvoiceData(ubl);
  const kind = rootElement === "CreditNote" ? "creditNote" : "invoice";
  const render = () => renderHtml(invoice, { lang: "de", kind });
  const parse = () => new DOMParser({ onError: () => {} }).parseFromString(ubl, "text/xml");
  perCallSync(100, render);
  perCallSync(20, parse);
  const r = await alternate({ rounds: 9, warmup: 1, a: () => perCallSync(200, render), b: () => perCallSync(50, parse) });
  const html = render().length;
  return {
    render_html_vs_parse: {
      value: round(r.ratio, 2),
      goal: "<= 3",
      ok: r.ratio <= 3,
      note: `renderHtml of a 20-line invoice (${html} characters) ${round(Math.min(...r.a), 3)} ms against an xmldom parse of its UBL (${ubl.length} characters) ${round(Math.min(...r.b), 3)} ms`,
      detail: { ratios: r.ratios.map((x) => round(x, 2)) },
    },
  };
}
