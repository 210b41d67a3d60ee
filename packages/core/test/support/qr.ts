// Test support: reads a QR code back from the SVG the service serves, as a phone would from a print:
// the SVG rasterised (resvg) and the image decoded (jsQR), both independent of the encoder.
import { Resvg } from "@resvg/resvg-js";
import jsqr from "jsqr";

// jsqr is CommonJS with an ES default export: under NodeNext the import is its module object.
type Decode = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
const jsQR = ((jsqr as unknown as { default?: Decode }).default ?? (jsqr as unknown as Decode)) as Decode;

/** The text of the QR code in an SVG document, or null when none is found. */
export function decodeQrSvg(svg: string): string | null {
  const image = new Resvg(svg, { fitTo: { mode: "width", value: 400 }, background: "#ffffff" }).render();
  const found = jsQR(new Uint8ClampedArray(image.pixels), image.width, image.height);
  return found?.data ?? null;
}
