import { describe, expect, it } from "vitest";
import * as L from "../../../src/validation/codelists/ublbe.js";

// @ts-expect-error: a plain .mjs script without types
const { render: renderWith } = (await import("../../../../../scripts/generate-ublbe-codelists.mjs")) as { render: (xslt: string, cenSef: string) => string };

// The CEN rules as compiled for SaxonJS, reduced to what the generator reads: assertion ids and tests.
const att = (name: string, val: string) => ({ N: "att", name, C: [{ N: "str", val }] });
const cenSef = JSON.stringify({ N: "package", C: [
  { N: "assert", C: [att("id", "UBL-CR-005"), att("test", "not(cbc:UUID)")] },
  { N: "assert", C: [att("id", "UBL-CR-006"), att("test", "not(cbc:IssueTime)")] },
] });
const render = (xslt: string) => renderWith(xslt, cenSef);

const VARIABLES: Record<string, [string, string]> = {
  BELM: ["BELM-001 BELM-002", "\\s"], BELMText: ["Special ruling - used goods; Special ruling - art objects", ";"],
  BTCC: ["00;03;00/44", ";"], BVERC: ["BETE-45;BETE-EX", ";"], BVERCText: ["Exempt;Margin", ";"],
  MIMECODE: ["application/pdf image/png", "\\s"], UNCL5189: ["41 95", "\\s"], UNCL7161: ["AA ZZZ", "\\s"],
  UNCL2005: ["3 35 432", "\\s"], ISO4217: ["EUR USD", "\\s"], eaid: ["0088 0208", "\\s"],
};
const INLINE = ["BR-CL-03", "BR-CL-07", "BR-CL-10", "BR-CL-11", "BR-CL-13", "BR-CL-15", "BR-CL-16", "BR-CL-19", "BR-CL-20", "BR-CL-21", "BR-CL-25", "BR-CL-26"];
const assert = (id: string, test: string, flag = "fatal") =>
  `<svrl:failed-assert test="${test}"><xsl:attribute name="id">${id}</xsl:attribute><xsl:attribute name="flag">${flag}</xsl:attribute><svrl:text>t</svrl:text></svrl:failed-assert>`;
const xslt = `<xsl:stylesheet xmlns:xsl="http://www.w3.org/1999/XSL/Transform" xmlns:svrl="http://purl.oclc.org/dsdl/svrl" version="2.0">
${Object.entries(VARIABLES).map(([n, [v, sep]]) => `<xsl:variable name="${n}" select="tokenize('${v}', '${sep}')"/>`).join("\n")}
<xsl:template match="x">
${assert("BR-CL-01", "(self::cbc:InvoiceTypeCode and contains(' 380 381 ', concat(' ', ., ' '))) or (self::cbc:CreditNoteTypeCode and contains(' 381 ', concat(' ', ., ' ')))")}
${INLINE.map((id) => assert(id, `contains(' A${id.slice(-2)} B ', concat(' ', ., ' '))`)).join("\n")}
${assert("PEPPOL-EN16931-P0100", "$profile != '01' or (some $code in tokenize('380 383', '\\s') satisfies . = $code)")}
${assert("PEPPOL-EN16931-P0101", "$profile != '01' or (some $code in tokenize('381', '\\s') satisfies . = $code)")}
${assert("BR-CO-09", "( contains( 'AD BE EL',substring(cbc:CompanyID,1,2) ) )")}
${assert("ubl-CR-005", "not(cbc:UUID)", "warning")}
${assert("ubl-CR-006", "not(cbc:IssueTimes)", "warning")}
</xsl:template></xsl:stylesheet>`;

describe("scripts/generate-ublbe-codelists.mjs", () => {
  it("writes the rules' variables split as the rules split them, and the lists inside the assertions", () => {
    const out = render(xslt);
    expect(out).toContain('export const BELM_CODES: readonly string[] = [\n  "BELM-001", "BELM-002",\n];');
    // split on ';' only: the leading space of a text stays, as the rules compare it
    expect(out).toContain('"Special ruling - used goods", " Special ruling - art objects",');
    expect(out).toContain('export const BTCC_CODES: readonly string[] = [\n  "00", "03", "00/44",\n];');
    expect(out).toContain('export const INVOICE_TYPE_CODES: readonly string[] = [\n  "380", "381",\n];');
    expect(out).toContain('export const CREDIT_NOTE_TYPE_CODES: readonly string[] = [\n  "381",\n];');
    expect(out).toContain('export const ENDPOINT_SCHEMES: readonly string[] = [\n  "A25", "B",\n];');
    expect(out).toContain('export const P0100_INVOICE_TYPES: readonly string[] = [\n  "380", "383",\n];');
    expect(out).toContain('export const VAT_PREFIX_TEXT = "AD BE EL";');
    expect(out).toMatch(/GLOBALUBL\.BE\.xslt \(sha256 [0-9a-f]{64}\)/);
    // a renamed syntax warning is carried only when its assertion is CEN's word for word
    expect(out).toContain('export const SYNTAX_WARNINGS_CARRIED: readonly string[] = [\n  "UBL-CR-005",\n];');
  });

  it("refuses rules without a list it needs", () => {
    expect(() => render(xslt.replace(/<xsl:variable name="BTCC"[^>]*>/, ""))).toThrow(/\$BTCC/);
  });
});

describe("codelists/ublbe.ts (generated from GLOBALUBL.BE 1.31)", () => {
  it("has the Belgian lists and UBL.BE's older copies of the standard lists", () => {
    expect(L.BELM_CODES).toHaveLength(8);
    expect(L.BTCC_CODES).toContain("03");
    expect(L.BVERC_CODES).toContain("BETE-EX");
    // older than CEN 1.3.16: no payment means 98, no invoice type 71
    expect(L.PAYMENT_MEANS_CODES).not.toContain("98");
    expect(L.INVOICE_TYPE_CODES).not.toContain("71");
    expect(L.INVOICE_TYPE_CODES).toContain("380");
  });
});
