import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { inCodeList } from "../../../src/validation/rules/xrechnung-support.js";
import * as L from "../../../src/validation/codelists/xrechnung.js";

// @ts-expect-error: a plain .mjs script without types
const { render, RULES, TARGET } = (await import("../../../../../scripts/generate-xrechnung-codelists.mjs")) as {
  render: (sef: string) => string;
  RULES: string;
  TARGET: string;
};

describe("scripts/generate-xrechnung-codelists.mjs", () => {
  it("regenerates exactly the committed code lists from the official XRechnung rules", () => {
    expect(render(readFileSync(RULES, "utf8"))).toBe(readFileSync(TARGET, "utf8"));
  });

  it("stops when the rules lack a list it expects (a new release may rename one)", () => {
    expect(() => render(JSON.stringify({ N: "package", C: [] }))).toThrow(/DIGA-CODES/);
  });

  it("keeps the lists as the Schematron searches them: a trailing code without a space after it is not found", () => {
    expect(inCodeList(L.ISO6523_ICD_CODES, "0088")).toBe(true);
    expect(L.ISO6523_ICD_CODES.endsWith(" ")).toBe(false); // so its last code only counts once another list follows
    expect(inCodeList(L.CEF_EAS_CODES, "EM")).toBe(true);
    expect(inCodeList(L.CEF_EAS_CODES, "XR01")).toBe(false);
    expect(inCodeList(L.DIGA_CODES + L.CEF_EAS_CODES, "XR01")).toBe(true);
    expect(inCodeList(L.DIGA_CODES + L.CEF_EAS_CODES, "")).toBe(true); // the double space where the lists meet, as officially
    expect(inCodeList(L.CEF_EAS_CODES, "0088 0002")).toBe(false);
  });
});
