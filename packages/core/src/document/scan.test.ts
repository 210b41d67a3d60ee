import { describe, expect, it } from "vitest";
import { DEFAULT_XML_LIMITS, scanXml, type ScanResult } from "./scan.js";

function limitMessage(fn: () => ScanResult): string | null {
  return fn().limitExceeded;
}

describe("scanXml", () => {
  it("sees one document with its declared encoding", () => {
    expect(scanXml('<?xml version="1.0" encoding="UTF-8"?>\n<!-- c --><Invoice a="1"><b/><c>x</c></Invoice>\n<!-- end -->')).toEqual({
      multipleDocuments: false,
      encoding: "UTF-8",
      hasDoctype: false,
      limitExceeded: null,
    });
    expect(scanXml("<a/>").encoding).toBeNull();
  });

  it("finds a second top-level element", () => {
    expect(scanXml("<Invoice></Invoice><Invoice></Invoice>").multipleDocuments).toBe(true);
    expect(scanXml("<Invoice/>\n<Invoice/>").multipleDocuments).toBe(true);
  });

  it("finds a second XML declaration anywhere", () => {
    expect(scanXml('<?xml version="1.0"?><a/><?xml version="1.0"?><a/>').multipleDocuments).toBe(true);
    expect(scanXml('<?xml version="1.0"?><a><?xml version="1.0"?></a>').multipleDocuments).toBe(true);
  });

  it("leaves a lone declaration out of place to the parser (not well-formed, not a second document)", () => {
    expect(scanXml('<!-- c --><?xml version="1.0"?><a/>').multipleDocuments).toBe(false);
    expect(scanXml('<a><?xml version="1.0"?></a>').multipleDocuments).toBe(false);
  });

  it("stops at markup that is not a tag, such as UTF-16 read as UTF-8", () => {
    const utf16ish = Buffer.from("<a><b/></a>".repeat(400), "utf16le").toString("latin1").replace(/\u0000/g, "\u0000");
    expect(scanXml(utf16ish)).toEqual({ multipleDocuments: false, encoding: null, hasDoctype: false, limitExceeded: null });
  });

  it("is not fooled by markup-like text in comments, CDATA, attributes and other processing instructions", () => {
    expect(scanXml('<a><!-- <b/> --><![CDATA[</a><c>]]><d x="/>"/><?xml-stylesheet href="x"?></a>').multipleDocuments).toBe(false);
  });

  it("reports a DOCTYPE, with or without an internal subset", () => {
    expect(scanXml('<!DOCTYPE a [<!ENTITY x "<b>">]><a/>').hasDoctype).toBe(true);
    expect(scanXml('<!DOCTYPE a SYSTEM "file:///etc/passwd"><a/>').hasDoctype).toBe(true);
  });

  it("refuses nesting deeper than the limit, quickly", () => {
    const deep = "<a>".repeat(100_000) + "</a>".repeat(100_000);
    const t = performance.now();
    expect(limitMessage(() => scanXml(deep))).toMatch(/deeper than 256 levels/);
    // The scan goes on past a limit, so a second document after it is still found (row 6 before row 8).
    expect(scanXml(deep + "<second/>").multipleDocuments).toBe(true);
    expect(performance.now() - t).toBeLessThan(5_000); // linear: a quadratic scan of 100,000 levels takes far longer
    expect(limitMessage(() => scanXml("<a>".repeat(256) + "</a>".repeat(256)))).toBeNull();
  });

  it("refuses too many elements and too many attributes", () => {
    const limits = { ...DEFAULT_XML_LIMITS, maxElements: 10, maxAttributes: 3 };
    expect(limitMessage(() => scanXml("<r>" + "<e/>".repeat(10) + "</r>", limits))).toMatch(/more than 10 elements/);
    expect(limitMessage(() => scanXml("<r>" + "<e/>".repeat(9) + "</r>", limits))).toBeNull();
    expect(limitMessage(() => scanXml('<r a="1" b="2" c="3" d="4"/>', limits))).toMatch(/more than 3 attributes/);
    expect(limitMessage(() => scanXml('<r a="1" b=\'2\' c="3"/>', limits))).toBeNull();
  });
});
