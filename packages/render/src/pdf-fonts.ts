// The fonts the PDF embeds: DejaVu Sans (Latin with Polish, German and French letters, Greek, Cyrillic), read once from
// the dejavu-fonts-ttf package's TTF files; nothing is fetched at run time. pdfkit embeds the glyphs a document uses.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

let fonts: { regular: string; bold: string } | undefined;

/**
 * The paths of the regular and bold DejaVu Sans TTF files. Paths, not bytes: pdfkit caches a font by its path
 * string, while a font registered from a Buffer under another name is parsed again on every switch to it.
 */
export function pdfFonts(): { regular: string; bold: string } {
  if (!fonts) {
    const dir = join(dirname(createRequire(import.meta.url).resolve("dejavu-fonts-ttf/package.json")), "ttf");
    fonts = { regular: join(dir, "DejaVuSans.ttf"), bold: join(dir, "DejaVuSans-Bold.ttf") };
  }
  return fonts;
}
