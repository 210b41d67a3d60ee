import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { b64, invoiceXml } from "../support/ubl.js";
import { ApiError } from "../../src/domain/errors.js";
import { readInvoice } from "../../src/document/index.js";

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e.code;
    throw e;
  }
  return undefined;
}

const zip = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00]);
const invalidUtf8 = Buffer.from([0x3c, 0x61, 0xff, 0x3e]);

describe("readInvoice: the pipeline in order", () => {
  it("returns the exact bytes, their sha256, the recipient and the fields", () => {
    const xml = invoiceXml({ endpoint: "BE0123", scheme: "0106", lines: 2 });
    const r = readInvoice(b64(xml));
    expect(r.bytes.toString("utf8")).toBe(xml);
    expect(r.sha256).toBe(createHash("sha256").update(xml).digest("hex"));
    expect(r.recipient).toEqual({ scheme: "0106", value: "BE0123" });
    expect(r.fields.totals.payable).toBe("242.00");
    expect(r.warnings.map((w) => w.rule)).toEqual(expect.any(Array));
  });

  it("checks base64 before anything else", () => {
    expect(code(() => readInvoice("!!!" + b64(zip)))).toBe("invalid_base64_xml");
  });

  it("checks for a ZIP before UTF-8 (ZIP bytes are not UTF-8)", () => {
    expect(code(() => readInvoice(b64(zip)))).toBe("single_xml_only");
  });

  it("reports two documents before invalid UTF-8 and before well-formedness", () => {
    const two = Buffer.concat([Buffer.from("<Invoice>caf"), Buffer.from([0xe9]), Buffer.from("</Invoice><Invoice/>")]);
    expect(code(() => readInvoice(b64(two)))).toBe("single_xml_only");
    expect(code(() => readInvoice(b64(invoiceXml() + invoiceXml())))).toBe("single_xml_only");
  });

  it("reports invalid UTF-8 and non-XML text as invalid_base64_xml, before XML checks", () => {
    expect(code(() => readInvoice(b64(invalidUtf8)))).toBe("invalid_base64_xml");
    expect(code(() => readInvoice(b64("hello, not xml")))).toBe("invalid_base64_xml");
    expect(code(() => readInvoice(b64("{\"json\": true}")))).toBe("invalid_base64_xml");
  });

  it("accepts a UTF-8 BOM and leading whitespace", () => {
    expect(readInvoice(b64(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(invoiceXml({ declaration: false }))]))).recipient!.scheme).toBe("0208");
    expect(readInvoice(b64("\n  " + invoiceXml({ declaration: false }))).recipient!.scheme).toBe("0208");
  });

  it("checks the XML and the root before the recipient", () => {
    expect(code(() => readInvoice(b64("<Invoice><broken></Invoice>")))).toBe("invalid_ubl_xml");
    const creditNote = invoiceXml().replace(/Invoice/g, "CreditNote");
    expect(code(() => readInvoice(b64(creditNote)))).toBe("invalid_ubl_xml");
    expect(code(() => readInvoice(b64(invoiceXml({ scheme: "EM" }))))).toBe("missing_recipient");
  });

  const small = { maxBytes: 1024 * 1024, maxDepth: 256, maxElements: 100_000, maxAttributes: 10 };

  it("refuses a document over the size limit with invalid_ubl_xml, in its place after rows 6 and 7", () => {
    const over = invoiceXml().replace("<cbc:ID>", `<cbc:Note>${"x".repeat(1024 * 1024)}</cbc:Note><cbc:ID>`);
    expect(code(() => readInvoice(b64(over), small))).toBe("invalid_ubl_xml");
    expect(code(() => readInvoice(b64(Buffer.concat([zip, Buffer.alloc(1024 * 1024)])), small))).toBe("single_xml_only");
    expect(code(() => readInvoice(b64("x".repeat(1024 * 1024 + 10)), small))).toBe("invalid_base64_xml");
  });

  it("refuses a document far past the size limit before decoding it", () => {
    expect(code(() => readInvoice("A".repeat(8 * 1024 * 1024), small))).toBe("invalid_ubl_xml");
  });

  it("reports a second document before a limit the first one passes", () => {
    const deep = "<a>".repeat(300) + "</a>".repeat(300);
    expect(code(() => readInvoice(b64(deep + deep)))).toBe("single_xml_only");
    expect(code(() => readInvoice(b64("text first " + deep)))).toBe("invalid_base64_xml");
    expect(code(() => readInvoice(b64(deep)))).toBe("invalid_ubl_xml");
  });
});

describe("readInvoice: the record's dates are xs:dates", () => {
  const CEN = "urn:cen.eu:en16931:2017";
  const dated = (issue: string, due = "2026-02-15", customizationId = CEN) =>
    b64(invoiceXml({ customizationId }).replace("<cbc:IssueDate>2026-01-15</cbc:IssueDate>", `<cbc:IssueDate>${issue}</cbc:IssueDate>`).replace("<cbc:DueDate>2026-02-15</cbc:DueDate>", `<cbc:DueDate>${due}</cbc:DueDate>`));
  const refusal = (fn: () => unknown): ApiError => {
    try {
      fn();
    } catch (e) {
      if (e instanceof ApiError) return e;
      throw e;
    }
    throw new Error("not refused");
  };

  it("an EN 16931 invoice dated 2026-13-45, 2026-1-1, +2026-01-01 or 2026-02-29 is invalid_ubl_xml naming BT-2 (the rules pass it; it was stored as written)", () => {
    for (const issue of ["2026-13-45", "2026-1-1", "+2026-01-01", "2026-02-29", "0000-01-01", "2026-01-15T10:00:00"]) {
      const e = refusal(() => readInvoice(dated(issue)));
      expect([e.code, e.message], issue).toEqual([
        "invalid_ubl_xml",
        `The issue date (BT-2, cbc:IssueDate) is ${JSON.stringify(issue)}, which is not a date: the UBL schema requires one such as 2026-01-31 (a day that exists, optionally with a time zone such as Z or +01:00).`,
      ]);
    }
    expect(refusal(() => readInvoice(dated("2026-01-15", "2026-02-30"))).message).toMatch(/^The payment due date \(BT-9, cbc:DueDate\) is "2026-02-30", which is not a date/);
  });

  it("xs:dates as the schema allows them are read and kept as written: a leap day, a time zone, a five-digit year", () => {
    for (const issue of ["2024-02-29", "2026-01-15Z", "2026-01-15+14:00", "2026-01-15-05:30"]) expect(readInvoice(dated(issue)).fields.issueDate, issue).toBe(issue);
    expect(readInvoice(dated("2026-01-15", "12026-01-01")).fields.dueDate).toBe("12026-01-01");
  });

  it("a Peppol BIS invoice with a bad date still gets its rule (PEPPOL-EN16931-F001), which runs first", () => {
    const e = refusal(() => readInvoice(dated("2026-13-45", "2026-02-15", "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0")));
    expect(e.code).toBe("invalid_ubl_xml");
    expect(e.errors?.map((r) => r.rule)).toContain("PEPPOL-EN16931-F001");
  });
});
