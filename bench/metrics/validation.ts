// validate_vs_official: validateInvoice against the official rules (the CEN and Peppol Schematron run
// by SaxonJS), ms per document on base-example.xml; validate_vs_official_xrechnung: the same with a national
// rule set, CEN + XRechnung 3.0.2 (with KoSIT's levels) on an XRechnung example; rule_families: what each rule family costs on the
// same document and on a 1,000-line invoice, beside the reader's own pass.
import { CEN_FAMILIES, PEPPOL_FAMILIES, parseXml, validateInvoice } from "../../packages/core/src/index.ts";
import { runRules } from "../../packages/core/src/validation/engine.ts";
import { officialVerdict } from "../../packages/core/test/support/official.ts";
import { baseExample, largeInvoice, nlciusExample, xrechnungExample } from "../lib/corpus.ts";
import { alternate, median, perCallSync, round } from "../lib/stats.ts";
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

  // Per family: the rules alone on a model already read, against the read itself.
  const families = { ...Object.fromEntries(Object.entries(CEN_FAMILIES).map(([k, f]) => [`cen.${k}`, f])), ...Object.fromEntries(Object.entries(PEPPOL_FAMILIES).map(([k, f]) => [`peppol.${k}`, f])) };
  const perFamily = (text: string, n: number) => {
    const root = parseXml(text).root;
    const out: Record<string, number> = { read: median([1, 2, 3].map(() => perCallSync(n, () => parseXml(text)))) };
    for (const [name, fam] of Object.entries(families)) {
      runRules(root, [fam]);
      out[name] = median([1, 2, 3].map(() => perCallSync(n, () => runRules(root, [fam]))));
    }
    return out;
  };
  const small = perFamily(xml, 300);
  const large = perFamily(largeInvoice(1_000), 3);
  const us = (ms: number) => `${round(ms * 1000, 0)} us`;
  const rules = (m: Record<string, number>) => Object.entries(m).filter(([k]) => k !== "read").reduce((s, [, v]) => s + v, 0);
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
      value: round(rules(small) / small.read!, 2),
      goal: "report",
      ok: true,
      note: `rules / read on base-example.xml (read ${us(small.read!)}): ${Object.entries(small)
        .filter(([k]) => k !== "read")
        .map(([k, v]) => `${k} ${us(v)}`)
        .join(", ")}; 1,000 lines (read ${round(large.read!, 1)} ms): ${Object.entries(large)
        .filter(([k]) => k !== "read")
        .map(([k, v]) => `${k} ${round(v, 1)} ms`)
        .join(", ")}`,
      detail: { baseExampleMs: small, thousandLinesMs: large },
    },
  };
}
