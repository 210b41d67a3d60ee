// poppler's pdftotext for the PDF tests: an independent reader of the PDFs we write. Missing, the tests that need it
// are skipped with a message; under CI (CI=true) it is required (.ci/run installs poppler-utils).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const HAS_PDFTOTEXT = spawnSync("pdftotext", ["-v"]).status === 0;
if (!HAS_PDFTOTEXT) {
  if (process.env.CI === "true") throw new Error("pdftotext (Debian's poppler-utils) is required under CI: apt-get install poppler-utils");
  console.warn("render tests: pdftotext is not installed (apt-get install poppler-utils); the PDF text tests are skipped");
}

/** The text of each page of a PDF, as pdftotext reads it (UTF-8, in reading order). */
export function pdfPages(pdf: Buffer, options: { layout?: boolean } = {}): string[] {
  const dir = mkdtempSync(join(tmpdir(), "render-pdf-"));
  try {
    const file = join(dir, "doc.pdf");
    writeFileSync(file, pdf);
    const text = execFileSync("pdftotext", [...(options.layout ? ["-layout"] : []), "-enc", "UTF-8", file, "-"], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
    const pages = text.split("\f");
    if (pages.at(-1)?.trim() === "") pages.pop();
    return pages;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whitespace (line breaks, no-break and thin spaces included) as single spaces: compare texts with flat() on both sides. */
export const flat = (s: string): string => s.replace(/\s+/g, " ");
