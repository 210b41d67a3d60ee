// The CEN CII syntax and code list rules (cii-syntax.ts, cii-codes.ts) where the Schematron's semantics are easy to get
// wrong; each expectation is the official rules' verdict on the same document (checked with
// test/support/official-cii.ts when written). The corpus and the mutants (test/rules-cii-syntax.test.ts) cover the rest.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { render, TARGETS } from "../../../../../scripts/generate-cii-rule-tables.js";
import { parseXml } from "../../../src/document/xml.js";
import { runRules } from "../../../src/validation/engine.js";
import { ciiCodeRules } from "../../../src/validation/rules/cii-codes.js";
import { ciiSyntaxRules } from "../../../src/validation/rules/cii-syntax.js";
import { ciiDoc } from "../../support/cii-doc.js";

const ids = (xml: string) => [...new Set(runRules(parseXml(xml).root, [ciiSyntaxRules, ciiCodeRules]).map((f) => f.rule))].sort();
const date = (value: string, format = "102") => ciiDoc({ document: `<ram:IssueDateTime><udt:DateTimeString format="${format}">${value}</udt:DateTimeString></ram:IssueDateTime>` });

describe("CII syntax rules: the first matching context", () => {
  it("checks the document type code as any ram:TypeCode: a listID is allowed (CII-DT-010 never applies), a name is not (CII-DT-008)", () => {
    expect(ids(ciiDoc({ typeCode: `<ram:TypeCode listID="1001">380</ram:TypeCode>` }))).toEqual([]);
    expect(ids(ciiDoc({ typeCode: `<ram:TypeCode name="Invoice">380</ram:TypeCode>` }))).toEqual(["CII-DT-008"]);
  });

  it("gives the guideline identifier CII-DT-001..007 and not the general identifier rules CII-DT-101..104 (its schemeID is BR-CL-11's)", () => {
    expect(ids(ciiDoc({ context: `<ram:ID schemeName="x" schemeID="y">urn:cen.eu:en16931:2017</ram:ID>` }))).toEqual(["BR-CL-11", "CII-DT-001", "CII-DT-005"]);
    expect(ids(ciiDoc({ product: `<ram:BuyerAssignedID schemeName="x" schemeID="y">B1</ram:BuyerAssignedID>` }))).toEqual(["CII-DT-101"]);
  });

  it("reports a rule once per context element: one warning per line (CII-SR-049)", () => {
    const f = runRules(parseXml(ciiDoc({ lines: 3, product: "<ram:TradeName>x</ram:TradeName>" })).root, [ciiSyntaxRules]);
    expect(f.map((x) => [x.rule, x.flag, x.location])).toEqual([1, 2, 3].map((i) => ["CII-SR-049", "warning", `/rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction[1]/ram:IncludedSupplyChainTradeLineItem[${i}]/ram:SpecifiedTradeProduct[1]`]));
  });
});

describe("CII-DT-097: a date of format 102 is YYYYMMDD as XPath's matches() reads it", () => {
  it("accepts surrounding whitespace, any Unicode decimal digit in the year, and a day the month does not have", () => {
    for (const value of ["20260131", " 20260131\n", "\u0662\u0660\u0662\u06660131", "20260230"]) expect(ids(date(value)), value).toEqual([]);
  });
  it("rejects other forms, and checks only format 102", () => {
    for (const value of ["2026-01-31", "20261301", "2026013", ""]) expect(ids(date(value)), value).toEqual(["CII-DT-097"]);
    expect(ids(date("2026-01-31", "610"))).toEqual([]);
  });
});

describe("CII code lists: the first matching rule", () => {
  const origin = (id: string) => ciiDoc({ product: `<ram:OriginTradeCountry>${id}</ram:OriginTradeCountry>` });
  it("checks the item's origin country as an identifier scheme when it has a schemeID (BR-CL-11), else as a country (BR-CL-15)", () => {
    expect(ids(origin(`<ram:ID schemeID="0088">XX</ram:ID>`))).toEqual([]);
    expect(ids(origin(`<ram:ID schemeID="XX">DE</ram:ID>`))).toEqual(["BR-CL-11"]);
    expect(ids(origin(`<ram:ID>XX</ram:ID>`))).toEqual(["BR-CL-15"]);
  });
  it("uses CII's own ISO 3166 list: AN is a country, SS is not (BR-CL-15), unlike UBL's", () => {
    expect(ids(origin(`<ram:ID>AN</ram:ID>`))).toEqual([]);
    expect(ids(origin(`<ram:ID>SS</ram:ID>`))).toEqual(["BR-CL-15"]);
  });
});

describe("scripts/generate-cii-rule-tables.ts", () => {
  // With a copy of ConnectingEurope/eInvoicing-EN16931 at hand (CEN_SCHEMATRON_REPO, a bare or normal git directory), the
  // committed tables must be exactly what the script makes from the preprocessed CII Schematron of 1.3.16.
  const repo = process.env.CEN_SCHEMATRON_REPO;
  it.skipIf(!repo || !existsSync(repo))("makes exactly the committed tables from the official file (CEN_SCHEMATRON_REPO)", () => {
    const sch = execFileSync("git", ["-C", repo!, "show", "b6c9e06a59812fb1a83585da40923b3678a649ad:cii/schematron/preprocessed/EN16931-CII-validation-preprocessed.sch"], { encoding: "utf8", maxBuffer: 64 << 20 });
    const out = render(sch, "1.3.16");
    expect(readFileSync(TARGETS.syntax, "utf8")).toBe(out.syntax);
    expect(readFileSync(TARGETS.codes, "utf8")).toBe(out.codes);
  });
});
