// The renderers of the API's rendered formats (GET /v1/invoices/{id}/document?format=…, POST /v1/render): one entry
// per format of the core's RENDER_FORMATS, each a lazy call into @einvoice/render (its PDF writer is loaded on the
// first PDF asked, never at the server's start). Adding a format is adding it to RENDER_FORMATS and an entry here.
import { type RenderFormat, type RenderInput, type RenderLanguage } from "@einvoice/core";

/** How one format is made and answered. */
export interface Renderer {
  /** The answer's Content-Type. */
  mediaType: string;
  /** Headers the answer carries besides the API's own (`Cache-Control: no-store`, `X-Content-Type-Options: nosniff`). */
  headers: Readonly<Record<string, string>>;
  /** The rendered invoice. */
  render(input: RenderInput, lang: RenderLanguage | undefined): Promise<string | Uint8Array>;
}

/**
 * What a rendered page may do: nothing but show itself. No script, no request of any kind (its styles are inline and
 * its only image, the KSeF QR code, a data: URL), no form, no base, no framing.
 */
export const HTML_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** @einvoice/render, loaded on the first render (its PDF writer and fonts are not needed to start the server). */
const renderer = () => import("@einvoice/render");

/** The options every renderer of @einvoice/render takes. */
const optionsOf = (input: RenderInput, lang: RenderLanguage | undefined) => ({ lang, kind: input.kind, ...(input.ksef ? { ksef: input.ksef } : {}) });

/** The renderer of each rendered format; a format of RENDER_FORMATS without one fails to compile. */
export const RENDERERS: Readonly<Record<RenderFormat, Renderer>> = {
  html: {
    mediaType: "text/html; charset=utf-8",
    headers: { "Content-Security-Policy": HTML_CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer" },
    render: async (input, lang) => (await renderer()).renderHtml(input.invoice, optionsOf(input, lang)),
  },
  pdf: {
    mediaType: "application/pdf",
    headers: {},
    render: async (input, lang) => (await renderer()).renderPdf(input.invoice, optionsOf(input, lang)),
  },
  facturx: {
    mediaType: "application/pdf",
    headers: {},
    render: async (input, lang) => (await renderer()).toFacturX(input.invoice, optionsOf(input, lang)),
  },
};
