// The CEN families (business, VAT, code lists) on small documents for the tricky semantics: rounding, decimals as
// written, the CreditNote alternations, empty versus absent, first-matching-rule contexts. The expectations are
// the official verdicts (scripts/rules-cases.ts checks each against the official rules).
import { describe, expect, it } from "vitest";
import { runRules } from "../../../src/validation/engine.js";
import { CEN_FAMILIES } from "../../../src/validation/rulesets/legacy.js";
import { cenBusinessRules } from "../../../src/validation/rules/cen-business.js";
import { cenVatRules } from "../../../src/validation/rules/cen-vat.js";
import { cenCodeRules } from "../../../src/validation/rules/cen-codes.js";
import { xmldomTree } from "../../support/xmldom-tree.js";
import { CEN_RULE_CASES, doc } from "../../support/cen-rule-cases.js";

const findings = (xml: string) => runRules(xmldomTree(xml), Object.values(CEN_FAMILIES));

describe("CEN rules on small documents (expectations checked against the official rules)", () => {
  for (const c of CEN_RULE_CASES) {
    it(`${c.name} → ${c.fires ? "fires" : "silent"}`, () => {
      const fired = findings(c.xml).some((f) => f.rule === c.rule);
      expect(fired).toBe(c.fires);
    });
  }
});

describe("CEN rule findings", () => {
  it("BR-CO-10 names both amounts and points at the monetary total", () => {
    const xml = doc(`<cac:LegalMonetaryTotal><cbc:LineExtensionAmount currencyID="EUR">100.00</cbc:LineExtensionAmount></cac:LegalMonetaryTotal>` +
      `<cac:InvoiceLine><cbc:ID>1</cbc:ID><cbc:LineExtensionAmount currencyID="EUR">70.00</cbc:LineExtensionAmount></cac:InvoiceLine>` +
      `<cac:InvoiceLine><cbc:ID>2</cbc:ID><cbc:LineExtensionAmount currencyID="EUR">50.00</cbc:LineExtensionAmount></cac:InvoiceLine>`);
    const f = findings(xml).find((x) => x.rule === "BR-CO-10")!;
    expect(f).toMatchObject({ flag: "fatal", location: "/Invoice/cac:LegalMonetaryTotal[1]" });
    expect(f.message).toContain("120.00");
    expect(f.message).toContain("100.00");
  });

  it("a VAT breakdown rule points at the breakdown's tax category and names the rate", () => {
    const xml = doc(`<cac:TaxTotal><cbc:TaxAmount currencyID="EUR">5</cbc:TaxAmount><cac:TaxSubtotal><cbc:TaxableAmount currencyID="EUR">100</cbc:TaxableAmount>` +
      `<cbc:TaxAmount currencyID="EUR">5</cbc:TaxAmount><cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>25</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal></cac:TaxTotal>`);
    const f = findings(xml).find((x) => x.rule === "BR-S-09")!;
    expect(f.location).toBe("/Invoice/cac:TaxTotal[1]/cac:TaxSubtotal[1]/cac:TaxCategory[1]");
    expect(f.message).toContain("25.00");
    expect(f.message).toContain("25%");
  });

  it("BR-51 is a warning, not an error", () => {
    const xml = doc(`<cac:PaymentMeans><cbc:PaymentMeansCode>48</cbc:PaymentMeansCode><cac:CardAccount><cbc:PrimaryAccountNumberID>1234567890123456</cbc:PrimaryAccountNumberID></cac:CardAccount></cac:PaymentMeans>`);
    expect(findings(xml).filter((x) => x.rule === "BR-51").map((x) => x.flag)).toEqual(["warning"]);
  });

  it("a rule is reported once per failing context node (two bad lines, two BR-25)", () => {
    const xml = doc(`<cac:InvoiceLine><cbc:ID>1</cbc:ID></cac:InvoiceLine><cac:InvoiceLine><cbc:ID>2</cbc:ID></cac:InvoiceLine>`);
    expect(findings(xml).filter((x) => x.rule === "BR-25").map((x) => x.location)).toEqual(["/Invoice/cac:InvoiceLine[1]", "/Invoice/cac:InvoiceLine[2]"]);
  });

  it("each family reports only its own rule ids", () => {
    const xml = doc(`<cbc:InvoiceTypeCode>1</cbc:InvoiceTypeCode><cac:InvoiceLine><cbc:ID>1</cbc:ID><cac:Item><cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>0</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory></cac:Item></cac:InvoiceLine>`);
    const root = xmldomTree(xml);
    const ids = (fam: typeof cenBusinessRules) => runRules(root, [fam]).map((f) => f.rule);
    const business = ids(cenBusinessRules), vat = ids(cenVatRules), codes = ids(cenCodeRules);
    // The document breaks one rule of each area: a line without an item name (BR-25, business), a
    // standard-rated line at 0 % (BR-S-05, VAT), an invoice type code not in UNTDID 1001 (BR-CL-01, codes).
    expect([business.includes("BR-25"), vat.includes("BR-S-05"), codes.includes("BR-CL-01")]).toEqual([true, true, true]);
    expect(business.every((r) => /^BR-(\d\d|CO-|DEC-|B-)/.test(r))).toBe(true);
    expect(vat.every((r) => /^BR-(S|Z|E|AE|IC|G|O|AF|AG)-\d\d$/.test(r))).toBe(true);
    expect(codes.every((r) => r.startsWith("BR-CL-"))).toBe(true);
  });
});

describe("normalizeSpace and select (the model helpers the CEN rules lean on)", () => {
  it("normalize-space collapses only the four XML whitespace characters and trims", async () => {
    const { normalizeSpace } = await import("../../../src/document/model.js");
    expect(normalizeSpace("a b")).toBe("a b");
    expect(normalizeSpace("a  b")).toBe("a b");
    expect(normalizeSpace(" a\t\r\nb ")).toBe("a b");
    expect(normalizeSpace("\n")).toBe("");
    expect(normalizeSpace("")).toBe("");
    expect(normalizeSpace("a\u00a0b\u3000")).toBe("a\u00a0b\u3000"); // not XML whitespace
    expect(normalizeSpace(" EUR")).toBe("EUR");
  });

  it("select follows child steps for one step and for several", async () => {
    const { select } = await import("../../../src/document/model.js");
    const root = xmldomTree(doc(`<cac:TaxTotal><cac:TaxSubtotal><cbc:TaxAmount>1</cbc:TaxAmount></cac:TaxSubtotal><cac:TaxSubtotal><cbc:TaxAmount>2</cbc:TaxAmount></cac:TaxSubtotal></cac:TaxTotal>`));
    expect(select(root, "cac:TaxTotal").length).toBe(1);
    expect(select(root, "cac:TaxTotal/cac:TaxSubtotal/cbc:TaxAmount").map((n) => n.text)).toEqual(["1", "2"]);
    expect(select(root, "cac:TaxTotal/cac:Nothing/cbc:TaxAmount")).toEqual([]);
  });
});
