// Regenerates the official verdicts of the CII test documents (testdata/cii) that the CII tests compare against
// (test-time only; the product never runs the official rules), with the official CEN and XRechnung CII rules of
// testdata/rules under SaxonJS (packages/core/test/support/official-cii.ts). Writes
// packages/core/test/fixtures/official-cii-verdicts.jsonl: one line a document, {file, typeCode, guidelineId,
// ruleSets, fatal, warning}, `file` relative to testdata/cii.
// Run: pnpm exec tsx --conditions=source scripts/cii-verdicts.ts
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { CII_DIR } from "../testdata/index.js";
import { officialCiiVerdict } from "../packages/core/test/support/official-cii.js";

/** Every .xml file under `dir`, sorted. */
export function xmlFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".xml"))
    .map((f) => join(dir, f))
    .sort();
}

const lines = xmlFiles(CII_DIR).map((path) => {
  const file = relative(CII_DIR, path);
  try {
    return JSON.stringify({ file, ...officialCiiVerdict(readFileSync(path, "utf8")) });
  } catch (e) {
    return JSON.stringify({ file, error: String((e as Error).message ?? e).slice(0, 200) });
  }
});
writeFileSync(new URL("../packages/core/test/fixtures/official-cii-verdicts.jsonl", import.meta.url), lines.join("\n") + "\n");
console.log(`${lines.length} CII documents`);
