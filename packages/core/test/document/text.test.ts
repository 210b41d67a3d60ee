import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/domain/errors.js";
import { decodeUtf8, isZip, rejectZip, requireMarkupStart } from "../../src/document/text.js";

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof ApiError ? e.code : "not-an-ApiError";
  }
  return undefined;
}

describe("ZIP detection", () => {
  it("recognises a local-file header, an empty archive and a spanned archive", () => {
    expect(isZip(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]))).toBe(true);
    expect(isZip(Buffer.concat([Buffer.from([0x50, 0x4b, 0x05, 0x06]), Buffer.alloc(18)]))).toBe(true);
    expect(isZip(Buffer.from([0x50, 0x4b, 0x07, 0x08]))).toBe(true);
  });

  it("does not take XML or short input for a ZIP", () => {
    expect(isZip(Buffer.from("<Invoice/>"))).toBe(false);
    expect(isZip(Buffer.from("PK"))).toBe(false);
    expect(isZip(Buffer.from("PK\u0003"))).toBe(false);
  });

  it("rejects a ZIP with single_xml_only", () => {
    expect(codeOf(() => rejectZip(Buffer.from([0x50, 0x4b, 0x03, 0x04])))).toBe("single_xml_only");
    expect(codeOf(() => rejectZip(Buffer.from("<a/>")))).toBeUndefined();
  });
});

describe("UTF-8 decoding", () => {
  it("decodes UTF-8 and drops a BOM", () => {
    expect(decodeUtf8(Buffer.from("\uFEFF<a>€</a>"))).toBe("<a>€</a>");
  });

  it("answers null for invalid sequences, overlong forms and UTF-16", () => {
    expect(decodeUtf8(Buffer.from([0x3c, 0x61, 0xc3, 0x28, 0x3e]))).toBeNull();
    expect(decodeUtf8(Buffer.from([0x3c, 0xc0, 0xbc, 0x3e]))).toBeNull(); // overlong '<'
    expect(decodeUtf8(Buffer.from([0xff]))).toBeNull();
    expect(decodeUtf8(Buffer.from([0xed, 0xa0, 0x80]))).toBeNull(); // encoded surrogate
    expect(decodeUtf8(Buffer.from("\uFEFF<a/>", "utf16le"))).toBeNull();
  });
});

describe("markup start", () => {
  it("accepts text that starts with '<' after whitespace", () => {
    expect(codeOf(() => requireMarkupStart("\r\n\t <Invoice/>"))).toBeUndefined();
  });

  it("rejects other text and empty text with invalid_base64_xml", () => {
    expect(codeOf(() => requireMarkupStart("hello <Invoice/>"))).toBe("invalid_base64_xml");
    expect(codeOf(() => requireMarkupStart("   "))).toBe("invalid_base64_xml");
    expect(codeOf(() => requireMarkupStart(""))).toBe("invalid_base64_xml");
  });
});
