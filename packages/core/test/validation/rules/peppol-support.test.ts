import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { daysFromCivil, xsDate } from "../../../src/validation/rules/peppol-support.js";

/** What a Date gives for the start of a UTC day, in minutes (NaN outside the range a Date holds). */
function byDate(year: number, month: number, day: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(0, 0, 0, 0);
  return date.getTime() / 60000;
}

describe("xs:date as the Peppol rules compare it", () => {
  it("counts the same days as a Date for every year a Date holds, leap days and era ends included", () => {
    fc.assert(
      fc.property(fc.integer({ min: -271_820, max: 275_759 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }), (y, m, d) => {
        expect(daysFromCivil(y, m, d) * 1440).toBe(byDate(y, m, d));
      }),
      { numRuns: 2000 },
    );
    for (const [y, m, d] of [[2024, 2, 29], [2000, 2, 29], [1900, 3, 1], [1600, 2, 29], [0, 2, 29], [-1, 12, 31], [-400, 3, 1], [1970, 1, 1], [1969, 12, 31]] as const) {
      expect(daysFromCivil(y, m, d) * 1440).toBe(byDate(y, m, d));
    }
  });

  it("reads a date with or without a timezone, refuses a day its month lacks, and gives NaN past a Date's range as before", () => {
    expect(xsDate("1970-01-02")).toBe(1440);
    expect(xsDate(" 2024-02-29 ")).toBe(byDate(2024, 2, 29));
    expect(xsDate("2024-02-29+01:00")).toBe(byDate(2024, 2, 29) - 60);
    expect(xsDate("2024-02-29-05:30")).toBe(byDate(2024, 2, 29) + 330);
    expect(xsDate("2024-02-29Z")).toBe(byDate(2024, 2, 29));
    expect(xsDate("2023-02-29")).toBeNull();
    expect(xsDate("2100-02-29")).toBeNull();
    expect(xsDate("2024-04-31")).toBeNull();
    expect(xsDate("2024-4-30")).toBeNull();
    expect(xsDate("275760-09-13")).toBe(byDate(275760, 9, 13));
    expect(xsDate("275760-09-14")).toBeNaN();
    expect(xsDate("-271821-04-20")).toBe(byDate(-271821, 4, 20));
    expect(xsDate("-271821-04-19")).toBeNaN();
  });
});
