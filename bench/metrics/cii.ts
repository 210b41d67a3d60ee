// cii_validate_vs_official: our CII rules against the official CEN CII Schematron under SaxonJS (ms per document, the
// same fatal set); cii_pipeline_vs_parse: a CII submit on the memory store (its CII rules, the conversion to Peppol BIS
// UBL and the UBL rules included) against a bare xmldom parse of the CII; cii_conversion_linearity: the document step
// of a CII submit (read, CII rules, InvoiceData, UBL, UBL rules) on one 10,000-line CII against ten 1,000-line ones.
import { readFileSync } from "node:fs";
import { DOMParser } from "@xmldom/xmldom";
import { memoryStore, readInvoiceData, submitInvoice, syntaxById, type AuthContext, type Store } from "../../packages/core/src/index.ts";
import { readAnyDocument } from "../../packages/core/src/document/any.ts";
import { readXml } from "../../packages/core/src/document/read.ts";
import { DEFAULT_XML_LIMITS } from "../../packages/core/src/document/xml.ts";
import { validateModel } from "../../packages/core/src/validation/validate.ts";
import { officialCiiVerdict } from "../../packages/core/test/support/official-cii.ts";
import { ciiPath } from "../../testdata/index.ts";
import { baseExample, largeInvoice } from "../lib/corpus.ts";
import { charged } from "../lib/gc.ts";
import { eligibleCompany } from "../lib/setup.ts";
import { alternate, median, perCall, perCallSync, round } from "../lib/stats.ts";
import type { Metric } from "../run.ts";

const BATCH = 100;

/** The CII of a UBL document: read into InvoiceData, written as EN 16931 CII (with the Peppol guideline's UBL made of it later). */
function ciiOf(ubl: string): string {
  const { rootElement, documentType: _d, ...data } = readInvoiceData(ubl);
  return syntaxById("cii")!.write(data, { kind: rootElement === "CreditNote" ? "creditNote" : "invoice" });
}

/** The CII with its invoice number (BT-1, the first ram:ID of rsm:ExchangedDocument) made distinct. */
function withNumber(cii: string, number: string): string {
  return cii.replace(/(<rsm:ExchangedDocument>\s*<ram:ID>)[^<]*(<\/ram:ID>)/, `$1${number}$2`);
}

const verdictOf = (bytes: Buffer) => validateModel(readXml(bytes, DEFAULT_XML_LIMITS).root);


async function submitBatch(store: Store, auth: AuthContext, bodies: readonly string[]): Promise<number> {
  return perCall(bodies.length, async (i) => {
    const r = await submitInvoice(store, auth, { document: bodies[i]!, targetNetwork: "peppol" });
    if (!r.success) throw new Error(`not accepted: ${r.errorMessage}`);
  });
}

export async function ciiMetrics(): Promise<Record<string, Metric>> {
  // The official verdict against ours on a CEN example, both warmed, taken in turns.
  const example = readFileSync(ciiPath("cen-en16931/cii/examples/CII_example1.xml"), "utf8");
  const exampleBytes = Buffer.from(example);
  const ours = verdictOf(exampleBytes);
  const theirs = officialCiiVerdict(example);
  const same = JSON.stringify([...new Set(ours.errors.map((e) => e.rule))].sort()) === JSON.stringify(theirs.fatal);
  perCallSync(200, () => verdictOf(exampleBytes));
  const vsOfficial = await alternate({
    rounds: 7,
    warmup: 1,
    a: () => perCallSync(300, () => verdictOf(exampleBytes)),
    b: () => perCallSync(5, () => officialCiiVerdict(example)),
  });

  // A CII submit: Peppol's base example as CII (what converts to a valid Peppol BIS UBL), distinct numbers.
  const cii = ciiOf(baseExample());
  let n = 0;
  const bodies = Array.from({ length: BATCH }, () => Buffer.from(withNumber(cii, `CII-BENCH-${++n}`)).toString("base64"));
  const bytes = bodies.map((b) => Buffer.from(b, "base64"));
  const xmldom = (b: Buffer) => new DOMParser().parseFromString(b.toString("utf8"), "application/xml");
  const freshRound = async (): Promise<number> => {
    const store = memoryStore();
    return submitBatch(store, (await eligibleCompany(store)).auth, bodies);
  };
  const vsParse = await alternate({
    rounds: 9,
    warmup: 2,
    a: () => charged(BATCH, freshRound),
    b: () => charged(BATCH, () => perCallSync(BATCH, (i) => xmldom(bytes[i]!))),
  });

  // The conversion's linearity: the document step of a CII submit, one 10,000-line CII against ten 1,000-line ones.
  const big = Buffer.from(ciiOf(largeInvoice(10_000)));
  const small = Buffer.from(ciiOf(largeInvoice(1_000)));
  const step = (b: Buffer) => readAnyDocument(b, { ...DEFAULT_XML_LIMITS, maxBytes: 64 * 1024 * 1024 }, "Invoice");
  step(small);
  const linear = await alternate({
    rounds: 5,
    warmup: 1,
    a: () => perCallSync(1, () => step(big)),
    b: () => 10 * perCallSync(10, () => step(small)),
  });

  const ms = (x: number) => `${round(x, 3)} ms`;
  return {
    cii_validate_vs_official: {
      value: round(vsOfficial.ratio, 4),
      goal: "<= 0.01, same fatal set",
      ok: vsOfficial.ratio <= 0.01 && same,
      note: `our CII rules ${ms(median(vsOfficial.a))} vs the official CEN CII rules under SaxonJS ${ms(median(vsOfficial.b))} (CII_example1.xml; same fatal set: ${same})`,
    },
    cii_pipeline_vs_parse: {
      value: round(vsParse.ratio),
      goal: "<= 0.8",
      ok: vsParse.ratio <= 0.8,
      note: `submitInvoice of a CII document (CII rules, conversion to Peppol BIS UBL, UBL rules) ${ms(median(vsParse.a))}/invoice vs xmldom ${ms(median(vsParse.b))} (base-example.xml as CII, ${bytes[0]!.length} B)`,
    },
    cii_conversion_linearity: {
      value: round(linear.ratio),
      goal: "<= 1.15",
      ok: linear.ratio <= 1.15,
      note: `the document step of a CII submit: 10,000 lines ${ms(median(linear.a))} vs 10 x 1,000 lines ${ms(median(linear.b))} (${big.length} B vs ${small.length} B each)`,
    },
  };
}
