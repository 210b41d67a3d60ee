// cen-common's codePointPrefix, which replaced `[...text].slice(0, n).join("")` on the rules' path: the same
// text on any input (pairs, lone surrogates of either half, the end of the text).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { codePointPrefix } from "../../../src/validation/rules/cen-common.js";

const tricky = fc.constantFrom("a", "B", "1", "é", " ", "\ud83d", "\ude00", "\ud83d\ude00", "\u{10ffff}");
const text = fc.oneof(fc.array(tricky, { maxLength: 8 }).map((parts) => parts.join("")), fc.string({ unit: "binary", maxLength: 8 }));

describe("codePointPrefix", () => {
  it("gives the first characters as the string iterator counts them (a pair is one, a lone surrogate is one)", () => {
    expect(codePointPrefix("BE0123", 2)).toBe("BE");
    expect(codePointPrefix("\ud83d\ude00X", 1)).toBe("\ud83d\ude00");
    expect(codePointPrefix("\ud83dX", 1)).toBe("\ud83d");
    expect(codePointPrefix("\ud83d", 2)).toBe("\ud83d");
    expect(codePointPrefix("", 2)).toBe("");
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 4 }), (s, n) => codePointPrefix(s, n) === [...s].slice(0, n).join("")),
      { numRuns: 2000 },
    );
  });
});
