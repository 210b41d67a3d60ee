import { describe, expect, it } from "vitest";
import { ApiError } from "../domain/errors.js";
import { decodeBase64Strict } from "./base64.js";

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
