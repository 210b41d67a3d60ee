import { describe, expect, it } from "vitest";
import { dec } from "../../src/validation/decimal.js";

describe("dec", () => {
  it("reads a decimal written with or without XML whitespace around it", () => {
    expect(dec("12.50")!.toString()).toBe("12.5");
    expect(dec(" \n\t12.50\r\n ")!.toString()).toBe("12.5");
    expect(dec("+.5")!.toString()).toBe("0.5");
    expect(dec("-.5")!.toString()).toBe("-0.5");
  });

  it("refuses what is not an xs:decimal", () => {
    for (const t of ["", " ", "1e3", "1.2.3", "abc", "1 2", null, undefined]) expect(dec(t)).toBeNull();
  });

  it("reads 19 digits on either side of the point and refuses a 20th, short texts included", () => {
    expect(dec("9".repeat(19) + "." + "9".repeat(19))).not.toBeNull();
    expect(dec("9".repeat(20))).toBeNull();
    expect(dec("0." + "1".repeat(20))).toBeNull();
    expect(dec(" " + "9".repeat(19) + " ")!.toString()).toBe("9".repeat(19));
  });
});
