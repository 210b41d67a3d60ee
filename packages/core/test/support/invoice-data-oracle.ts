// The documents of invoice-data-oracle.test.ts (generated InvoiceData, built with buildInvoice), shared with
// scripts/invoice-data-verdicts.ts, which stores the official verdicts on them (fixtures/invoice-data-oracle-verdicts.jsonl).
import fc from "fast-check";
import { buildInvoice } from "../../src/index.js";
import { invoiceDataArb } from "./invoice-data-arb.js";

export const ORACLE_DOCS = 2000;
export const ORACLE_BATCHES = 4;
export const ORACLE_VERDICTS = new URL("../fixtures/invoice-data-oracle-verdicts.jsonl", import.meta.url);

/** The generated invoice data of one batch (0-based), seeded: the same documents on every run. */
export function oracleSamples(batch: number, perBatch = Math.ceil(ORACLE_DOCS / ORACLE_BATCHES)) {
  return fc.sample(invoiceDataArb, { numRuns: perBatch, seed: 20261125 + batch });
}

export { buildInvoice };
