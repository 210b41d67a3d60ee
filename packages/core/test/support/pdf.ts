// PDFs written by the tests: a minimal PDF writer (objects, a cross-reference table, the trailer) and a
// Factur-X-shaped builder on it (a catalog with /AF and the /Names /EmbeddedFiles tree), for the PDF tests.
import { deflateRawSync, deflateSync, constants as zlib } from "node:zlib";

/** An object's body: PDF syntax as text, or bytes (a stream built by `stream`). */
export type PdfBody = string | Uint8Array;

export interface PdfOptions {
  /** The catalog's object number (1-based). Default 1. */
  root?: number;
  /** More entries for the trailer dictionary, e.g. `/Encrypt 9 0 R`. */
  trailer?: string;
  /** Write a cross-reference table with wrong offsets. */
  brokenXref?: boolean;
  /** What comes before `%PDF-1.7`. */
  prefix?: string;
}

/** A stream object's body: the dictionary (without /Length, which is added) and its bytes. */
export function stream(dict: string, data: Uint8Array): Uint8Array {
  return Buffer.concat([Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, "latin1"), data, Buffer.from("\nendstream", "latin1")]);
}

/** A PDF of these objects (numbered from 1), with a cross-reference table and a trailer. */
export function writePdf(objects: PdfBody[], options: PdfOptions = {}): Buffer {
  const parts: Buffer[] = [Buffer.from(`${options.prefix ?? ""}%PDF-1.7\n%\xe2\xe3\xcf\xd3\n`, "latin1")];
  let at = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(at);
    const part = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, "latin1"), typeof body === "string" ? Buffer.from(body, "latin1") : Buffer.from(body), Buffer.from("\nendobj\n", "latin1")]);
    parts.push(part);
    at += part.length;
  });
  const xrefAt = at;
  const rows = offsets.map((o) => `${String(options.brokenXref ? o * 7 + 13 : o).padStart(10, "0")} 00000 n \n`).join("");
  parts.push(
    Buffer.from(
      `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${rows}trailer\n<< /Size ${objects.length + 1} /Root ${options.root ?? 1} 0 R ${options.trailer ?? ""} >>\nstartxref\n${options.brokenXref ? xrefAt + 1000 : xrefAt}\n%%EOF\n`,
      "latin1",
    ),
  );
  return Buffer.concat(parts);
}

/** A PDF text string as a hex string in UTF-16BE with its BOM (how non-ASCII names are written). */
export function utf16(text: string): string {
  const be = Buffer.from(text, "utf16le").swap16();
  return `<FEFF${be.toString("hex").toUpperCase()}>`;
}

export interface PdfAttachment {
  name: string;
  data: Uint8Array;
  /** Named in the catalog's /AF array. Default true. */
  af?: boolean;
  /** In the /Names /EmbeddedFiles tree. Default true. */
  tree?: boolean;
  /** /AFRelationship, e.g. "Data"; null for none. Default "Alternative". */
  relationship?: string | null;
  /** The embedded file's /Filter: "FlateDecode" (default, the data deflated here), null (stored), or another name (stored as is). */
  filter?: string | null;
  /** Bytes already encoded for the filter (e.g. a prepared bomb); the data is then not deflated again. */
  encoded?: Uint8Array;
  /** How the name is written: a literal string (default) or UTF-16 hex. */
  nameAs?: "literal" | "utf16";
}

/** A Factur-X-shaped PDF/A-3: one empty page, the attachments as associated files and in the EmbeddedFiles tree. */
export function facturxPdf(attachments: PdfAttachment[], extra: { objects?: PdfBody[]; catalog?: string; trailer?: string; pageContent?: Uint8Array; treeKids?: boolean } = {}): Buffer {
  // 1 catalog, 2 pages, 3 page, 4 content, then per attachment: file spec, embedded file; then the tree, then extra
  const objects: PdfBody[] = ["", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>", stream("", extra.pageContent ?? Buffer.from("BT ET"))];
  const af: string[] = [];
  const leaves: Array<[string, number]> = [];
  for (const a of attachments) {
    const spec = objects.length + 1;
    const file = spec + 1;
    const name = a.nameAs === "utf16" ? utf16(a.name) : `(${a.name.replace(/[()\\]/g, (c) => `\\${c}`)})`;
    const rel = a.relationship === null ? "" : `/AFRelationship /${a.relationship ?? "Alternative"}`;
    objects.push(`<< /Type /Filespec /F ${name} /UF ${name} ${rel} /EF << /F ${file} 0 R /UF ${file} 0 R >> >>`);
    const filter = a.filter === undefined ? "FlateDecode" : a.filter;
    const bytes = a.encoded ?? (filter === "FlateDecode" ? deflateSync(a.data) : a.data);
    objects.push(stream(`/Type /EmbeddedFile /Subtype /text#2Fxml${filter ? ` /Filter /${filter}` : ""} /Params << /Size ${a.data.length} >>`, bytes));
    if (a.af !== false) af.push(`${spec} 0 R`);
    if (a.tree !== false) leaves.push([name, spec]);
  }
  let names = "";
  if (leaves.length) {
    const pairs = (list: Array<[string, number]>) => list.map(([n, r]) => `${n} ${r} 0 R`).join(" ");
    if (extra.treeKids) {
      // a root with /Kids: one leaf node per attachment
      const kids = leaves.map(([n, r]) => {
        objects.push(`<< /Limits [${n} ${n}] /Names [${pairs([[n, r]])}] >>`);
        return `${objects.length} 0 R`;
      });
      objects.push(`<< /Kids [${kids.join(" ")}] >>`);
    } else {
      objects.push(`<< /Names [${pairs(leaves)}] >>`);
    }
    names = `/Names << /EmbeddedFiles ${objects.length} 0 R >>`;
  }
  objects.push(...(extra.objects ?? []));
  objects[0] = `<< /Type /Catalog /Pages 2 0 R ${names} ${af.length ? `/AF [${af.join(" ")}]` : ""} ${extra.catalog ?? ""} >>`;
  return writePdf(objects, { trailer: extra.trailer });
}

/**
 * `size` zero bytes, zlib-deflated, built without holding them: one deflated MiB of zeros, flushed so it is
 * byte-aligned and stands alone, repeated, then the final block and the Adler-32 of it all. 1 GiB comes to
 * about 1 MB, made in milliseconds.
 */
export function zeroBomb(size: number): Buffer {
  const mib = 1024 * 1024;
  if (size % mib !== 0) throw new Error("zeroBomb: a whole number of MiB");
  const segment = deflateRawSync(Buffer.alloc(mib), { finishFlush: zlib.Z_FULL_FLUSH, level: 9 });
  const count = size / mib;
  const last = deflateRawSync(Buffer.alloc(0)); // the final empty block
  // Adler-32 of `size` zeros: A stays 1, B adds A once per byte.
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE((((size % 65521) << 16) >>> 0) + 1);
  return Buffer.concat([Buffer.from([0x78, 0xda]), ...Array.from({ length: count }, () => segment), last, adler]);
}
