// The page machinery of the PDF: an A4 flow with our own margins, page breaks, a footer with "page / pages" and a
// table header repeated on each page. The document is laid out twice: a dry pass that only measures (to count the
// pages) and the pass that draws, page after page, each page written out as soon as the next one starts.
import type PDFDocument from "pdfkit";

export const PAGE_W = 595.28;
export const PAGE_H = 841.89;
export const MARGIN = 40;
export const CONTENT_W = PAGE_W - 2 * MARGIN;
const FOOTER_H = 28;
const BOTTOM = PAGE_H - MARGIN - FOOTER_H;

export type Doc = InstanceType<typeof PDFDocument>;

export interface TextOptions {
  bold?: boolean;
  size?: number;
  align?: "left" | "right" | "center";
  color?: string;
}

export class Flow {
  page = 0;
  y = MARGIN;
  /** Drawn at the top of every page started while it is set (a table's header). */
  repeat: (() => void) | null = null;

  constructor(
    readonly doc: Doc,
    private readonly fonts: { regular: string; bold: string },
    /** Measure only: nothing is drawn, no page is added; `page` counts them. */
    readonly dry: boolean,
    /** The footer's text of page n of `pages` (known on the drawing pass). */
    private readonly footer: (page: number) => string,
    /** Called after each page is started on the drawing pass (to yield to the stream's reader). */
    private readonly onPage: () => void = () => {},
  ) {}

  newPage(): void {
    this.page++;
    this.y = MARGIN;
    if (!this.dry) {
      this.doc.addPage({ size: [PAGE_W, PAGE_H], margins: { top: 0, bottom: 0, left: 0, right: 0 } });
      const f = this.footer(this.page);
      this.font(false, 7.5).fillColor("#555555");
      this.doc.text(f, MARGIN, PAGE_H - MARGIN - 10, { width: CONTENT_W, align: "center", lineBreak: false });
      this.doc.fillColor("#000000");
      this.onPage();
    }
    this.repeat?.();
  }

  /** Room for `h` points, or a new page. */
  ensure(h: number): void {
    if (this.page === 0 || (this.y + h > BOTTOM && this.y > MARGIN + 1)) this.newPage();
  }

  private current = "";
  private currentSize = 0;

  /** Switches font and size when they change (pdfkit looks the font up by its path). */
  font(bold = false, size = 9): Doc {
    const src = bold ? this.fonts.bold : this.fonts.regular;
    if (src !== this.current) {
      this.doc.font((this.current = src));
      boundLayoutCache((this.doc as unknown as { _font: unknown })._font);
    }
    if (size !== this.currentSize) this.doc.fontSize((this.currentSize = size));
    return this.doc;
  }

  height(s: string, w: number, o: TextOptions = {}): number {
    if (s === "") return 0;
    return this.font(o.bold, o.size).heightOfString(s, { width: w });
  }

  /** The room left on this page. */
  room(y = this.y): number {
    return Math.max(0, BOTTOM - y);
  }

  /**
   * Draws `s` at (x, y) in a box `w` wide (nothing on the dry pass); returns its height. The box ends at the page's
   * foot: a text longer than the room left is cut there with an ellipsis, so pdfkit never starts a page of its own
   * (a line with a 1,000-character name, description and 100 allowances stays one row of one page).
   */
  text(s: string, x: number, y: number, w: number, o: TextOptions = {}): number {
    const room = this.room(y);
    const h = Math.min(this.height(s, w, o), room);
    if (!this.dry && s !== "" && h > 0) {
      this.font(o.bold, o.size);
      if (o.color) this.doc.fillColor(o.color);
      this.doc.text(s, x, y, { width: w, align: o.align ?? "left", height: room, ellipsis: true });
      if (o.color) this.doc.fillColor("#000000");
    }
    return h;
  }

  rule(y = this.y, color = "#999999"): void {
    if (!this.dry) this.doc.moveTo(MARGIN, y).lineTo(PAGE_W - MARGIN, y).lineWidth(0.5).strokeColor(color).stroke();
  }
}

const LAYOUT_CACHE_SIZE = 4096;
const BOUNDED = Symbol("bounded layout cache");

/**
 * pdfkit keeps the layout of every word it has measured, per font, for the document's life: a 10,000-line invoice's
 * unique words (amounts, names) made the heap grow with the lines. Here the cache is a Map started afresh when it
 * holds LAYOUT_CACHE_SIZE words (the frequent words come back at once); without it (`fontLayoutCache: false`)
 * rendering is five times slower. Reaches into pdfkit's EmbeddedFont (layoutRun, layoutCached; pdfkit 0.20): a font
 * without them keeps pdfkit's own cache.
 */
function boundLayoutCache(font: unknown): void {
  const f = font as { [BOUNDED]?: true; layoutRun?: (text: string) => unknown; layoutCached?: (text: string) => unknown; layoutCache?: unknown };
  if (f[BOUNDED] || typeof f.layoutRun !== "function" || typeof f.layoutCached !== "function") return;
  f[BOUNDED] = true;
  let cache = new Map<string, unknown>();
  const run = f.layoutRun.bind(f);
  f.layoutCache = undefined;
  f.layoutCached = (text: string) => {
    let r = cache.get(text);
    if (r === undefined) {
      r = run(text);
      if (cache.size >= LAYOUT_CACHE_SIZE) cache = new Map();
      cache.set(text, r);
    }
    return r;
  };
}
