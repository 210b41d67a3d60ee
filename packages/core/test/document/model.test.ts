// model.ts's isBlankText, which replaced `!/[^ \t\r\n]/.test(text)` in the empty-element rules (R008): the
// same answer on any text; only the four XML spaces count as blank.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isBlankText } from "../../src/document/model.js";

const tricky = fc.constantFrom(" ", "\t", "\r", "\n", "\u00a0", "\u2028", "\u000b", "\f", "a", "\ud83d", "\ud83d\ude00");
const text = fc.oneof(fc.array(tricky, { maxLength: 8 }).map((parts) => parts.join("")), fc.string({ unit: "binary", maxLength: 8 }));

describe("isBlankText", () => {
  it("is true for nothing and XML whitespace only, as not(/[^ \\t\\r\\n]/) is", () => {
    expect(isBlankText("")).toBe(true);
    expect(isBlankText(" \t\r\n")).toBe(true);
    expect(isBlankText("\u00a0")).toBe(false); // a no-break space is not XML whitespace
    expect(isBlankText(" x ")).toBe(false);
    fc.assert(fc.property(text, (s) => isBlankText(s) === !/[^ \t\r\n]/.test(s)), { numRuns: 2000 });
  });
});
