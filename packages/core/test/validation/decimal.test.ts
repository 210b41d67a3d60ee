import { describe, expect, it } from "vitest";
import { dec, round2 } from "../../src/validation/decimal.js";

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

describe("round2", () => {
  const r = (x: string) => round2(dec(x)!).toFixed(2);

  it("rounds as XPath round($x, 2) does: a half goes towards positive infinity, on both sides of zero", () => {
    expect(r("2.345")).toBe("2.35");
    expect(r("-2.345")).toBe("-2.34");
    expect(r("0.005")).toBe("0.01");
    expect(r("-0.005")).toBe("0.00");
    expect(r("-0.015")).toBe("-0.01");
  });

  it("rounds anything but a half to the nearest cent, whatever the digits after it", () => {
    expect(r("-2.3450000000000000001")).toBe("-2.35");
    expect(r("-2.3449999999999999999")).toBe("-2.34");
    expect(r("2.3449999999999999999")).toBe("2.34");
    expect(r("-0.006")).toBe("-0.01");
    expect(r("-0.004")).toBe("0.00");
    expect(r("9999999999999999999.995")).toBe("10000000000000000000.00");
    expect(r("-9999999999999999999.995")).toBe("-9999999999999999999.99");
  });

  it("keeps what already has two places or fewer", () => {
    for (const x of ["0", "-0", "5", "-5", "-1.00", "-0.01", "123.4"]) expect(round2(dec(x)!).eq(dec(x)!)).toBe(true);
  });
});
