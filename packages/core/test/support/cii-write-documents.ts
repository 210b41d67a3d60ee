// Test support: the invoices the CII writer is held to, shared by test/document/syntaxes/cii/write.test.ts and
// scripts/cii-write-verdicts.ts (which records the official CII verdict of each written document in
// test/fixtures/cii-write-verdicts.jsonl). Every corpus UBL Invoice or CreditNote the official CEN UBL rules accept
// (fixtures/official-verdicts.jsonl), read as InvoiceData; GENERATED_COUNT seeded generated invoices; and every CII
// test document (testdata/cii) the official CII rules accept (fixtures/official-cii-verdicts.jsonl), read with the
// CII reader and written again with its own guideline id (an XRechnung one brings the XRechnung CII rules).
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { ciiPath, corpusPath } from "../../../../testdata/index.js";
import { InvoiceDataSchema, type InvoiceData } from "../../src/domain/invoice-data.js";
import { invoiceDataOf } from "../../src/document/invoice-data/read.js";
import { invoiceDataOfCii } from "../../src/document/syntaxes/cii/read.js";
import type { CiiWriteOptions } from "../../src/document/syntaxes/cii/write.js";
import { parseXml } from "../../src/document/xml.js";
import { invoiceDataArb } from "./invoice-data-arb.js";

export const CII_WRITE_VERDICTS = new URL("../fixtures/cii-write-verdicts.jsonl", import.meta.url);
export const GENERATED_COUNT = 220;
export const GENERATED_SEED = 20261129;

/** One recorded verdict: the document's id, the SHA-256 of the CII written for it, the official CEN CII rule ids. */
export interface CiiWriteVerdict {
  id: string;
  sha256: string;
  fatal: string[];
  warning: string[];
}

export interface CiiWriteDocument {
  /** `corpus:<path in testdata/corpus>`, `generated:<n>` or `cii:<path in testdata/cii>`. */
  id: string;
  data: InvoiceData;
  /** What writeCii is given (a CII test document's own guideline id). */
  options?: CiiWriteOptions;
  /** The original UBL text, for a corpus document. */
  ubl?: string;
}

/**
 * A fatal rule id of the CEN EN 16931 UBL set (BR-*, UBL-*), not of a national set that shares the prefix
 * (the Dutch SI-UBL BR-NL-*, the German BR-DE-*).
 */
export const isCenUblRule = (id: string) => /^(BR-|UBL-)/.test(id) && !/^BR-(NL|DE)-/.test(id);

interface UblVerdict {
  file: string;
  documentType: string | null;
  fatal: string[];
}

/** The corpus UBL documents with no CEN fatal error, in the order of the verdict file. */
export function cenValidCorpus(): string[] {
  return readFileSync(new URL("../fixtures/official-verdicts.jsonl", import.meta.url), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as UblVerdict)
    .filter((v) => (v.documentType === "Invoice" || v.documentType === "CreditNote") && !v.fatal.some(isCenUblRule))
    .map((v) => v.file);
}

/** Every document the writer is held to: the CEN-valid corpus, then the generated invoices. */
export function ciiWriteDocuments(): CiiWriteDocument[] {
  const corpus = cenValidCorpus().map((file) => {
    const ubl = readFileSync(corpusPath(file), "utf8");
    return { id: `corpus:${file}`, data: invoiceDataOf(parseXml(ubl).root), ubl };
  });
  const generated = fc
    .sample(invoiceDataArb, { numRuns: GENERATED_COUNT, seed: GENERATED_SEED })
    .map((s, i) => ({ id: `generated:${i}`, data: InvoiceDataSchema.parse(s.data) }));
  const cii = cleanCii().map(({ file, guidelineId }) => ({
    id: `cii:${file}`,
    data: invoiceDataOfCii(parseXml(readFileSync(ciiPath(file), "utf8")).root),
    options: guidelineId === null ? {} : { guidelineId },
  }));
  return [...corpus, ...generated, ...cii];
}

/** The CII test documents with no fatal error from the official CII rules, with their guideline ids (BT-24). */
export function cleanCii(): Array<{ file: string; guidelineId: string | null }> {
  return readFileSync(new URL("../fixtures/official-cii-verdicts.jsonl", import.meta.url), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as { file: string; guidelineId?: string | null; fatal?: string[] })
    .filter((v) => v.fatal !== undefined && v.fatal.length === 0)
    .map((v) => ({ file: v.file, guidelineId: v.guidelineId ?? null }));
}

export const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

export function readCiiWriteVerdicts(): Map<string, CiiWriteVerdict> {
  const lines = readFileSync(CII_WRITE_VERDICTS, "utf8").split("\n").filter((l) => l.trim() !== "");
  return new Map(lines.map((l) => JSON.parse(l) as CiiWriteVerdict).map((v) => [v.id, v]));
}
