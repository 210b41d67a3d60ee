// The fonts the PDF embeds: DejaVu Sans (Latin with Polish, German and French letters, Greek, Cyrillic), read once from
// the dejavu-fonts-ttf package's TTF files; nothing is fetched at run time. pdfkit embeds the glyphs a document uses.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

let fonts: { regular: Buffer; bold: Buffer } | undefined;

/** The regular and bold DejaVu Sans TTF files, read on first use. */
export function pdfFonts(): { regular: Buffer; bold: Buffer } {
  if (!fonts) {
    const dir = join(dirname(createRequire(import.meta.url).resolve("dejavu-fonts-ttf/package.json")), "ttf");
    fonts = { regular: readFileSync(join(dir, "DejaVuSans.ttf")), bold: readFileSync(join(dir, "DejaVuSans-Bold.ttf")) };
  }
  return fonts;
}
