import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/domain/errors.js";
import { decodeBase64Strict } from "../../src/document/base64.js";
import { decodeDocument } from "../../src/document/read.js";
import { DEFAULT_XML_LIMITS } from "../../src/document/xml.js";

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof ApiError ? e.code : "not-an-ApiError";
  }
  return undefined;
}

describe("decodeBase64Strict", () => {
  it("decodes padded and unpadded standard base64", () => {
    expect(decodeBase64Strict("PGE+PC9hPg==").toString()).toBe("<a></a>");
    expect(decodeBase64Strict("PGE+PC9hPg").toString()).toBe("<a></a>");
    expect(decodeBase64Strict("PGEvPg==").toString()).toBe("<a/>");
    expect(decodeBase64Strict("PGEv").toString()).toBe("<a/");
  });

  it("ignores the line breaks and spaces that encoders insert", () => {
    const wrapped = Buffer.from("<Invoice>" + "x".repeat(200) + "</Invoice>").toString("base64").replace(/(.{76})/g, "$1\r\n");
    expect(decodeBase64Strict(" " + wrapped + "\n\t").toString()).toBe("<Invoice>" + "x".repeat(200) + "</Invoice>");
  });

  it("rejects characters outside the standard alphabet with invalid_base64_xml", () => {
    expect(code(() => decodeBase64Strict("PGE-PC9hPg=="))).toBe("invalid_base64_xml"); // URL-safe '-'
    expect(code(() => decodeBase64Strict("PGE_PC9hPg=="))).toBe("invalid_base64_xml");
    expect(code(() => decodeBase64Strict("<Invoice/>"))).toBe("invalid_base64_xml");
    expect(code(() => decodeBase64Strict("PGE+PC9hPg==!"))).toBe("invalid_base64_xml");
  });

  it("rejects padding in the wrong place and impossible lengths", () => {
    expect(code(() => decodeBase64Strict("PG=E+PC9hPg"))).toBe("invalid_base64_xml");
    expect(code(() => decodeBase64Strict("PGE+P"))).toBe("invalid_base64_xml"); // 5 chars: one dangles
    expect(code(() => decodeBase64Strict("PGE+PC9hPg==="))).toBe("invalid_base64_xml");
    expect(code(() => decodeBase64Strict("P==="))).toBe("invalid_base64_xml");
  });
});

describe("decodeDocument (what atob accepts decoded first, everything else judged by the strict pattern)", () => {
  const decode = (s: string) => decodeDocument(s, DEFAULT_XML_LIMITS);
  it("decodes what encoders write, and the same bytes into a buffer of its own", () => {
    const xml = "<Invoice>" + "é".repeat(50) + "</Invoice>";
    const b64 = Buffer.from(xml).toString("base64");
    expect(decode(b64).toString()).toBe(xml);
    const own = decodeDocument(b64, DEFAULT_XML_LIMITS, true);
    expect(own.toString()).toBe(xml);
    expect(own.buffer.byteLength).toBe(Buffer.byteLength(xml));
  });

  it("still accepts strict base64 that is not canonical: unpadded, wrapped, or with bits after the last byte", () => {
    expect(decode("PGE+PC9hPg").toString()).toBe("<a></a>");
    expect(decode("PGE+\r\nPC9hPg==").toString()).toBe("<a></a>");
    // 'QR==' is strict base64 whose unused bits are not zero: it decodes to 'A' (as 'QQ==' does).
    expect(decode("QR==").toString()).toBe("A");
  });

  it("refuses a four-character-aligned text with a character outside the alphabet, which a lenient decoder would skip", () => {
    expect(code(() => decode("PGE-PC9hPg=="))).toBe("invalid_base64_xml");
    expect(code(() => decode("PGE+PC9h!g=="))).toBe("invalid_base64_xml");
    expect(code(() => decode("PG=E+PC9hPg="))).toBe("invalid_base64_xml");
  });

  it("gives the strict decoder's bytes for every base64 form it accepts: all 256 byte values, every length, padded, unpadded, wrapped", () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    for (let n = 0; n <= 64; n++) {
      const slice = bytes.subarray(n, n + 3 * n + (n % 3));
      const b64 = slice.toString("base64");
      for (const form of [b64, b64.replace(/=+$/, ""), b64.replace(/(.{8})/g, "$1\n"), ` ${b64}\t`]) {
        expect(decode(form).equals(slice)).toBe(true);
        expect(decodeDocument(form, DEFAULT_XML_LIMITS, true).equals(decodeBase64Strict(form))).toBe(true);
      }
    }
  });

  it("refuses what it refused before, with the same message: text beyond Latin-1, padding mid-way, a dangling character, XML text", () => {
    expect(code(() => decode("PGE+PC9hPg€="))).toBe("invalid_base64_xml");
    expect(code(() => decode("PGE+PC9hPgé="))).toBe("invalid_base64_xml");
    expect(code(() => decode("PGE=PC9hPg=="))).toBe("invalid_base64_xml");
    expect(code(() => decode("PGE+P"))).toBe("invalid_base64_xml");
    expect(() => decode("<Invoice/>")).toThrow(/xml holds XML text, not base64/);
  });
});
