import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/domain/sha256.js";

const reference = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

describe("sha256Hex", () => {
  it("gives the published digests of the empty input and of 'abc' (FIPS 180-2), as bytes and as text", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex(new Uint8Array(0))).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex(Buffer.from("abc"))).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("hashes text as UTF-8 and a view of a larger buffer as its own bytes only, as createHash does", () => {
    const text = "Zażółć gęślą jaźń 😀 €";
    expect(sha256Hex(text)).toBe(reference(Buffer.from(text, "utf8")));
    const whole = Buffer.from("before|<Invoice>…</Invoice>|after");
    const view = whole.subarray(7, whole.length - 6);
    expect(sha256Hex(view)).toBe(reference(Buffer.from(view)));
    expect(sha256Hex(view)).not.toBe(reference(whole));
    const large = new Uint8Array(300_000).map((_, i) => (i * 31) & 0xff);
    expect(sha256Hex(large)).toBe(reference(large));
  });
});
