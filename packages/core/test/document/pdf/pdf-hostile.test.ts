// Hostile PDFs, built here: each gets its code (never a 5xx, never a hang) with its cost bounded. Cost is
// measured as the CPU time of this test process (worker threads included), not wall-clock time, which a
// busy machine stretches; memory is bounded by the worker's V8 heap limits and zlib's output caps, which the
// answers prove (a bomb stops at its cap; a heap limit ends the worker, not the process).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { FACTURX_DIR } from "../../../../../testdata/index.js";
import { ApiError, closePdfWorkers, extractInvoiceXml, type ErrorCode, type PdfLimits } from "../../../src/index.js";
import { facturxPdf, stream, writePdf, zeroBomb } from "../../support/pdf.js";

const MIB = 1024 * 1024;
/** CPU a hostile PDF may cost, worker threads included (a fresh worker's start under tsx is about 1 s of it). */
const CPU_BUDGET_MS = 5_000;
/** How much the process (worker threads included) may grow while a bomb is answered: far below its 1 GiB. */
const RSS_BUDGET_MB = 400;
const REAL = readFileSync(join(FACTURX_DIR, "pdf_zf_en16931_1.pdf"));
const xml = Buffer.from('<?xml version="1.0" encoding="UTF-8"?><Invoice/>');

afterAll(() => closePdfWorkers());

/** The error an extraction ends with and the CPU it cost; a PDF that is read fails the test. */
async function answer(pdf: Uint8Array, limits?: PdfLimits): Promise<{ code: ErrorCode; message: string; cpuMs: number; rssGrowthMb: number }> {
  const rss = process.memoryUsage.rss();
  const before = process.cpuUsage();
  let error: unknown = null;
  try {
    await extractInvoiceXml(pdf, limits);
  } catch (e) {
    error = e;
  }
  const used = process.cpuUsage(before);
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${error === null ? "an invoice" : String(error)}`);
  expect(error.status).toBe(422);
  expect(error.message).not.toMatch(/\n\s+at /); // no stack
  return { code: error.code, message: error.message, cpuMs: (used.user + used.system) / 1000, rssGrowthMb: (process.memoryUsage.rss() - rss) / MIB };
}

function qpdf(): boolean {
  try {
    execFileSync("qpdf", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("zip bombs", () => {
  it("stops a 1 GiB FlateDecode bomb as the invoice attachment at 10 MiB (invalid_pdf naming the limit)", async () => {
    const bomb = zeroBomb(1024 * MIB);
    expect(bomb.length).toBeLessThan(1.1 * MIB);
    const a = await answer(facturxPdf([{ name: "factur-x.xml", data: Buffer.alloc(0), encoded: bomb }]));
    expect(a.code).toBe("invalid_pdf");
    expect(a.message).toBe('The PDF\'s attachment "factur-x.xml" is larger than 10 MiB decompressed (the limit of an invoice attachment); send the invoice XML or a smaller Factur-X PDF.');
    expect(a.cpuMs).toBeLessThan(CPU_BUDGET_MS);
    expect(a.rssGrowthMb).toBeLessThan(RSS_BUDGET_MB);
  });

  it("stops a smaller bomb at its ratio: 64 MiB of zeros in 65 KiB passes 100 times its size long before 10 MiB", async () => {
    const a = await answer(facturxPdf([{ name: "factur-x.xml", data: Buffer.alloc(0), encoded: zeroBomb(64 * MIB) }]));
    expect(a.code).toBe("invalid_pdf");
    expect(a.message).toMatch(/^The PDF's attachment "factur-x.xml" decompresses to more than 100 times its compressed size of \d+ KiB \(the limit of decompression in a PDF\)/);
    expect(a.cpuMs).toBeLessThan(CPU_BUDGET_MS);
    expect(a.rssGrowthMb).toBeLessThan(RSS_BUDGET_MB);
  });

  it("stops a 1 GiB bomb in an object stream (which the parser would inflate while loading) before the parser sees it", async () => {
    const pdf = writePdf(["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>", stream("/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode", zeroBomb(1024 * MIB))]);
    const a = await answer(pdf);
    expect(a.code).toBe("invalid_pdf");
    expect(a.message).toBe(
      "The PDF has an object stream that decompresses to more than 10 MiB (the limit of decompression in a PDF: 10 MiB, or 100 times the compressed size); send the invoice XML or a Factur-X PDF.",
    );
    expect(a.cpuMs).toBeLessThan(CPU_BUDGET_MS);
    expect(a.rssGrowthMb).toBeLessThan(RSS_BUDGET_MB);
  });

  it("leaves a 1 GiB bomb as a page's content alone (content is never decoded): the PDF has no invoice", async () => {
    const pdf = writePdf(["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", "<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>", stream("/Filter /FlateDecode", zeroBomb(1024 * MIB))]);
    const a = await answer(pdf);
    expect(a.code).toBe("pdf_without_invoice");
    expect(a.cpuMs).toBeLessThan(CPU_BUDGET_MS);
    expect(a.rssGrowthMb).toBeLessThan(RSS_BUDGET_MB);
  });
});

describe("structure past the limits", () => {
  it("refuses 100,000 nested arrays, and 100,000 nested dictionaries, at the nesting limit", async () => {
    for (const body of ["[".repeat(100_000) + "]".repeat(100_000), "<< /A ".repeat(100_000) + ">>".repeat(100_000)]) {
      const a = await answer(writePdf([`<< /Type /Catalog /X ${body} >>`]));
      expect(a).toMatchObject({ code: "invalid_pdf", message: "The PDF nests arrays or dictionaries more than 200 levels deep (the limit of nesting in a PDF); send the invoice XML or a Factur-X PDF." });
      expect(a.cpuMs).toBeLessThan(CPU_BUDGET_MS);
    }
  });

  it("answers 100,000 nested arrays hidden in an object stream (past the scan) with a code", async () => {
    const data = deflateSync(Buffer.from(`3 0 ${"[".repeat(100_000)}${"]".repeat(100_000)}`));
    const pdf = writePdf(["<< /Type /Catalog /Pages 2 0 R /X 3 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>", stream("/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode", data)]);
    const a = await answer(pdf);
    expect(["invalid_pdf", "pdf_without_invoice"]).toContain(a.code);
    expect(a.cpuMs).toBeLessThan(CPU_BUDGET_MS);
  });

  it("refuses 20,000 objects at the object limit, counted before parsing", async () => {
    const a = await answer(writePdf(["<< /Type /Catalog >>", ...Array.from({ length: 20_000 }, (_, i) => `${i}`)]));
    expect(a).toMatchObject({ code: "invalid_pdf", message: "The PDF has more than 10000 objects (the limit of objects in a PDF); send the invoice XML or a smaller Factur-X PDF." });
    expect(a.cpuMs).toBeLessThan(CPU_BUDGET_MS);
  });

  it("refuses 10,001 objects packed in one object stream, counted after parsing", async () => {
    const count = 10_001;
    const bodies = Array.from({ length: count }, (_, i) => `${i}`);
    let offset = 0;
    const header = bodies.map((b, i) => {
      const entry = `${i + 4} ${offset}`;
      offset += b.length + 1;
      return entry;
    }).join(" ") + "\n";
    const data = Buffer.from(header + bodies.join(" ") + " ");
    const pdf = writePdf(["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>", stream(`/Type /ObjStm /N ${count} /First ${header.length} /Filter /FlateDecode`, deflateSync(data))]);
    const a = await answer(pdf);
    expect(a.code).toBe("invalid_pdf");
    expect(a.message).toMatch(/^The PDF has 1000\d objects, more than 10000 \(the limit of objects in a PDF\)/);
    expect(a.cpuMs).toBeLessThan(CPU_BUDGET_MS);
  });

  it("reads past a 9 MiB content stream (never decoded) to say there is no invoice", async () => {
    const a = await answer(facturxPdf([], { pageContent: Buffer.alloc(9 * MIB, 0x20) }));
    expect(a.code).toBe("pdf_without_invoice");
    expect(a.cpuMs).toBeLessThan(CPU_BUDGET_MS);
  });

  it("refuses an endless stream (a huge /Length and no endstream)", async () => {
    const head = "%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Length 999999999 >>\nstream\n";
    const a = await answer(Buffer.concat([Buffer.from(head), Buffer.alloc(5 * MIB, 0x41)]));
    expect(a).toMatchObject({ code: "invalid_pdf", message: "The PDF has a stream without an end (no endstream: the file is cut short or broken); send the invoice XML or a complete Factur-X PDF." });
    expect(a.cpuMs).toBeLessThan(CPU_BUDGET_MS);
  });
});

describe("broken and cut files", () => {
  it("reads a PDF whose cross-reference table and startxref are wrong (the objects are read in file order, as PDF readers recover)", async () => {
    const good = facturxPdf([{ name: "factur-x.xml", data: xml, relationship: "Data" }]);
    const broken = Buffer.from(good.toString("latin1").replace(/xref\n0 (\d+)\n0000000000 65535 f \n((?:\d{10} 00000 n \n)+)/, (_, n: string, rows: string) => `xref\n0 ${n}\n0000000000 65535 f \n${rows.replace(/\d{10}/g, "0000099999")}`).replace(/startxref\n\d+/, "startxref\n99999999"), "latin1");
    expect(broken.equals(good)).toBe(false);
    const r = await extractInvoiceXml(broken);
    expect([r.attachmentName, r.afRelationship, r.xml.equals(xml)]).toEqual(["factur-x.xml", "Data", true]);
  });

  it("refuses a real Factur-X PDF cut short, wherever it is cut", async () => {
    for (const length of [10, 100, REAL.length >> 2, REAL.length >> 1, REAL.length - 2000]) {
      const a = await answer(REAL.subarray(0, length));
      expect(a.code, `cut at ${length}`).toBe("invalid_pdf");
      expect(a.cpuMs).toBeLessThan(CPU_BUDGET_MS);
    }
  });

  it("refuses bytes that are no PDF after a PDF header", async () => {
    const noise = Buffer.from(Array.from({ length: 100_000 }, (_, i) => (i * 7919 + (i >> 7)) % 256));
    const a = await answer(Buffer.concat([Buffer.from("%PDF-1.7\n"), noise]));
    expect(a.code).toBe("invalid_pdf");
    expect(a.cpuMs).toBeLessThan(CPU_BUDGET_MS);
  });
});

describe("encrypted PDFs", () => {
  it("refuses a PDF whose trailer names an /Encrypt dictionary (pdf_encrypted)", async () => {
    const pdf = facturxPdf([{ name: "factur-x.xml", data: xml }], { objects: ["<< /Filter /Standard /V 2 /R 3 /Length 128 /O <00> /U <00> /P -4 >>"], trailer: "/Encrypt 8 0 R /ID [<00112233> <00112233>]" });
    const a = await answer(pdf);
    expect(a).toMatchObject({ code: "pdf_encrypted", message: "The PDF is encrypted and cannot be read; send the PDF unencrypted, or the invoice XML itself." });
  });

  it.skipIf(!qpdf())("refuses real Factur-X PDFs encrypted by qpdf: AES-256 with an empty user password, RC4 with one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pdf-encrypted-"));
    try {
      const aes = join(dir, "aes.pdf");
      const rc4 = join(dir, "rc4.pdf");
      execFileSync("qpdf", ["--encrypt", "", "owner", "256", "--", join(FACTURX_DIR, "pdf_zf_en16931_1.pdf"), aes]);
      execFileSync("qpdf", ["--allow-weak-crypto", "--encrypt", "user", "owner", "40", "--", join(FACTURX_DIR, "invoice_EN16931.pdf"), rc4]);
      for (const file of [aes, rc4]) expect((await answer(readFileSync(file))).code).toBe("pdf_encrypted");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("what is not an invoice PDF", () => {
  it("answers pdf_without_invoice for attachments none of which is an invoice, listing them", async () => {
    const a = await answer(
      facturxPdf([
        { name: "delivery-note.pdf", data: Buffer.from("%PDF-1.4") },
        { name: "invoice.xml", data: xml, relationship: "Data" },
      ]),
    );
    expect(a.code).toBe("pdf_without_invoice");
    expect(a.message).toContain('its attachments are "delivery-note.pdf", "invoice.xml". Send the invoice XML, or a Factur-X PDF.');
  });

  it("answers invalid_pdf for what is not a PDF at all, without a worker", async () => {
    const notPdf = "This is not a PDF: it has no %PDF- header in its first 1024 bytes; send the invoice XML or a Factur-X PDF.";
    for (const bytes of [Buffer.from('<?xml version="1.0"?><Invoice/>'), Buffer.from("PK\x03\x04\x14\x00"), Buffer.from("\x89PNG\r\n\x1a\n"), Buffer.alloc(0), Buffer.concat([Buffer.alloc(2000, 0x20), REAL])]) {
      expect(await answer(bytes)).toMatchObject({ code: "invalid_pdf", message: notPdf });
    }
    expect((await answer("%PDF-1.7" as unknown as Uint8Array)).message).toBe("The PDF must be bytes (a Uint8Array or a Buffer).");
  });

  it("refuses a PDF over the size limit before reading it (10 MiB by default, or the given one)", async () => {
    const big = Buffer.concat([REAL, Buffer.alloc(10 * MIB - REAL.length + 1, 0x20)]);
    expect(await answer(big)).toMatchObject({ code: "invalid_pdf", message: "The PDF is 10.0 MiB, larger than 10 MiB (the size limit of a PDF); send the invoice XML or a smaller Factur-X PDF." });
    expect((await answer(REAL, { maxBytes: 64 * 1024 })).message).toBe("The PDF is 83 KiB, larger than 64 KiB (the size limit of a PDF); send the invoice XML or a smaller Factur-X PDF.");
  });
});

describe("time and memory, whatever the parser does", () => {
  it("ends the worker at the deadline: invalid_pdf naming the time limit", async () => {
    // 9,000 objects (under the object limit): tens of milliseconds of parsing, so the 1 ms deadline comes first
    // however fast a warm worker reads (a real 296 KiB PDF is read in about 1 ms, a race with a 1 ms timer).
    const slow = writePdf(["<< /Type /Catalog >>", ...Array.from({ length: 9_000 }, (_, i) => `<< /N ${i} /A [${i} ${i} ${i}] >>`)]);
    const a = await answer(slow, { timeoutMs: 1 });
    expect(a).toMatchObject({ code: "invalid_pdf", message: "Reading the PDF took longer than 1 ms (the time limit of a PDF); send the invoice XML or a simpler Factur-X PDF." });
  });

  it("ends a worker past its heap limit, not the process: invalid_pdf naming the memory limit", async () => {
    // 100,000 dictionary entries: 2 MB of PDF, far more as parsed objects
    const big = `<< ${Array.from({ length: 100_000 }, (_, i) => `/k${i} [${i} ${i}]`).join(" ")} >>`;
    const a = await answer(writePdf(["<< /Type /Catalog /X 2 0 R >>", big]), { maxHeapMb: 20, timeoutMs: 120_000 });
    expect(a).toMatchObject({ code: "invalid_pdf", message: "Reading the PDF needed more than 20 MiB of memory (the memory limit of a PDF); send the invoice XML or a simpler Factur-X PDF." });
    expect(a.cpuMs).toBeLessThan(2 * CPU_BUDGET_MS);
  });

  it("still reads a real Factur-X PDF after all of the above (ended workers are replaced)", async () => {
    const r = await extractInvoiceXml(REAL);
    expect([r.attachmentName, r.xml.length]).toEqual(["factur-x.xml", 13456]);
  });
});
