// Where the repository's test data is: the one place tests, the bench and the scripts find the
// acceptance corpus and the official rules (SOURCES.md: origin and licence of each; README.md: how
// to use them). Resolved from this file, never from the working directory, and never from a folder
// outside the repository.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** This folder: `<repo>/testdata`. */
export const TESTDATA_DIR = dirname(fileURLToPath(import.meta.url));

/** The acceptance corpus (public UBL documents, rule unit-test files, code lists), with INDEX.tsv. */
export const CORPUS_DIR = join(TESTDATA_DIR, "corpus");

/** The official Schematron rules, compiled for SaxonJS (rules/NOTICE.md says how). */
export const RULES_DIR = join(TESTDATA_DIR, "rules");

/** The compiled rule sets in RULES_DIR, by name (the file is `<name>.sef.json`). */
export const RULE_SETS = {
  cen: "CEN-EN16931-UBL-2026.5",
  peppol: "PEPPOL-EN16931-UBL-2026.5",
  xrechnung: "XRechnung-UBL-3.0.2",
  nlcius: "SI-UBL-2.0.3.13",
  ciiCen: "CEN-EN16931-CII-1.3.16",
  ciiXrechnung: "XRechnung-CII-3.0.2",
} as const;

/** UN/CEFACT CII D16B test documents (CEN examples, KoSIT's XRechnung CII test suite): cii/SOURCES.md. */
export const CII_DIR = join(TESTDATA_DIR, "cii");

/** The path of a CII test document, from its path relative to `cii/` (as cii/SOURCES.md names it). */
export function ciiPath(relative: string): string {
  return join(CII_DIR, relative);
}

/** The path of a corpus file, from its path relative to the corpus (as INDEX.tsv names it). */
export function corpusPath(relative: string): string {
  return join(CORPUS_DIR, relative);
}

/** The path of a compiled rule set (`RULE_SETS.cen`, …). */
export function rulesPath(name: (typeof RULE_SETS)[keyof typeof RULE_SETS]): string {
  return join(RULES_DIR, `${name}.sef.json`);
}

/** Factur-X / ZUGFeRD PDFs and `expected.jsonl`, the independent reader's results on them: facturx/SOURCES.md. */
export const FACTURX_DIR = join(TESTDATA_DIR, "facturx");
