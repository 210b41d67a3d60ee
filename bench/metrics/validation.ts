// validate_vs_official: validateInvoice against the official rules (the CEN and Peppol Schematron run
// by SaxonJS), ms per document on base-example.xml; validate_vs_official_xrechnung: the same with a national
// rule set, CEN + XRechnung 3.0.2 (with KoSIT's levels) on an XRechnung example; rule_families: what each rule family costs on the
// same document and on a 1,000-line invoice, beside the reader's own pass.
import { CEN_FAMILIES, PEPPOL_FAMILIES, parseXml, validateInvoice } from "../../packages/core/src/index.ts";
import { runRules } from "../../packages/core/src/validation/engine.ts";
import { officialVerdict } from "../../packages/core/test/support/official.ts";
import { baseExample, largeInvoice, nlciusExample, xrechnungExample } from "../lib/corpus.ts";
import { alternate, median, nowMs, perCallSync, round } from "../lib/stats.ts";
import type { Metric } from "../run.ts";

export async function validationMetrics(): Promise<Record<string, Metric>> {
  const xml = baseExample();
  const bytes = Buffer.from(xml);
  const ours = validateInvoice(bytes);
  const theirs = officialVerdict(xml);
  const same = JSON.stringify([...new Set(ours.errors.map((e) => e.rule))].sort()) === JSON.stringify(theirs.fatal);
  // Warm both, then alternate: ours over many calls per round, SaxonJS over a few (about 100 ms each).
  perCallSync(200, () => validateInvoice(bytes));
  officialVerdict(xml);
  const r = await alternate({
    rounds: 7,
    warmup: 1,
    a: () => perCallSync(400, () => validateInvoice(bytes)),
    b: () => perCallSync(5, () => officialVerdict(xml)),
  });

  // The same comparison with a national rule set: CEN + XRechnung 3.0.2 on KoSIT's business case 01.01a.
  const xr = xrechnungExample();
  const xrBytes = Buffer.from(xr);
  const xrOurs = validateInvoice(xrBytes), xrTheirs = officialVerdict(xr);
  const xrSame = xrOurs.ruleSets.includes("XRECHNUNG-UBL-3.0.2")
    && JSON.stringify([...new Set(xrOurs.errors.map((e) => e.rule))].sort()) === JSON.stringify(xrTheirs.fatal);
  perCallSync(200, () => validateInvoice(xrBytes));
  const xrRun = await alternate({
    rounds: 7,
    warmup: 1,
    a: () => perCallSync(400, () => validateInvoice(xrBytes)),
    b: () => perCallSync(5, () => officialVerdict(xr)),
  });

  // And with NLCIUS / SI-UBL 2.0.3.13 on SimplerInvoicing's full test invoice.
  const nl = nlciusExample();
  const nlBytes = Buffer.from(nl);
  const nlOurs = validateInvoice(nlBytes), nlTheirs = officialVerdict(nl);
  const nlSame = nlOurs.ruleSets.includes("NLCIUS-SI-UBL-2.0.3.13")
    && JSON.stringify([...new Set(nlOurs.errors.map((e) => e.rule))].sort()) === JSON.stringify(nlTheirs.fatal);
  perCallSync(200, () => validateInvoice(nlBytes));
  const nlRun = await alternate({
    rounds: 7,
    warmup: 1,
    a: () => perCallSync(400, () => validateInvoice(nlBytes)),
    b: () => perCallSync(5, () => officialVerdict(nl)),
  });

  // Per family: the rules alone on a model just read, against the read itself. Each run gets a model of
  // its own, read beforehand and not timed: the families keep what they compute on the model (the VAT
  // sums, the identifiers' facts), so a second run on the same model would be timed without it.
  // "all" is every family on one model, as a submit runs them (the families share some of that work,
  // so it is less than their sum).
  const families = { ...Object.fromEntries(Object.entries(CEN_FAMILIES).map(([k, f]) => [`cen.${k}`, f])), ...Object.fromEntries(Object.entries(PEPPOL_FAMILIES).map(([k, f]) => [`peppol.${k}`, f])) };
  // The model is read right before its run (as in a submit, where the rules find it in the caches), and
  // only the run is timed.
  const onFreshModels = (text: string, n: number, run: (root: ReturnType<typeof parseXml>["root"]) => unknown) =>
    median(
      [1, 2, 3].map(() => {
        let ms = 0;
        for (let i = 0; i < n; i++) {
          const root = parseXml(text).root;
          const t = nowMs();
          run(root);
          ms += nowMs() - t;
        }
        return ms / n;
      }),
    );
  const perFamily = (text: string, n: number) => {
    runRules(parseXml(text).root, Object.values(families));
    const out: Record<string, number> = { read: median([1, 2, 3].map(() => perCallSync(n, () => parseXml(text)))) };
    for (const [name, fam] of Object.entries(families)) out[name] = onFreshModels(text, n, (root) => runRules(root, [fam]));
    out.all = onFreshModels(text, n, (root) => runRules(root, Object.values(families)));
    return out;
  };
  const small = perFamily(xml, 300);
  const large = perFamily(largeInvoice(1_000), 3);
  const us = (ms: number) => `${round(ms * 1000, 0)} us`;
  return {
    validate_vs_official: {
      value: round(r.ratio, 4),
      goal: "<= 0.01",
      ok: r.ratio <= 0.01 && same,
      note: `validateInvoice ${round(median(r.a), 3)} ms/doc vs official rules under SaxonJS ${round(median(r.b), 1)} ms/doc (base-example.xml, CEN + Peppol; same fatal set: ${same})`,
    },
    validate_vs_official_xrechnung: {
      value: round(xrRun.ratio, 4),
      goal: "<= 0.01",
      ok: xrRun.ratio <= 0.01 && xrSame,
      note: `validateInvoice ${round(median(xrRun.a), 3)} ms/doc vs official rules under SaxonJS ${round(median(xrRun.b), 1)} ms/doc (xrechnung-testsuite 01.01a-INVOICE_ubl.xml, ${xr.length} B, CEN + XRechnung 3.0.2; same fatal set: ${xrSame})`,
    },
    validate_vs_official_nlcius: {
      value: round(nlRun.ratio, 4),
      goal: "<= 0.01",
      ok: nlRun.ratio <= 0.01 && nlSame,
      note: `validateInvoice ${round(median(nlRun.a), 3)} ms/doc vs official rules under SaxonJS ${round(median(nlRun.b), 1)} ms/doc (SI-UBL-2.0_ok_full.xml, ${nl.length} B, CEN + SI-UBL 2.0.3.13; same fatal set: ${nlSame})`,
    },
    rule_families: {
      value: round(small.all! / small.read!, 2),
      goal: "report",
      ok: true,
      note: `every rule / read on base-example.xml (read ${us(small.read!)}, every rule ${us(small.all!)}): ${Object.entries(small)
        .filter(([k]) => k !== "read" && k !== "all")
        .map(([k, v]) => `${k} ${us(v)}`)
        .join(", ")}; 1,000 lines (read ${round(large.read!, 1)} ms, every rule ${round(large.all!, 1)} ms): ${Object.entries(large)
        .filter(([k]) => k !== "read" && k !== "all")
        .map(([k, v]) => `${k} ${round(v, 1)} ms`)
        .join(", ")}; each on a model of its own, just read`,
      detail: { baseExampleMs: small, thousandLinesMs: large },
    },
  };
}
