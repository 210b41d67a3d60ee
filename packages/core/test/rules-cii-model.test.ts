// The CEN CII model rules (rules/cii-business.ts, rules/cii-vat.ts: BR-*, BR-CO-*, BR-DEC-*, BR-B-* and the VAT category
// rules of pattern EN16931-CII-Model, 1.3.16) against the official verdicts, on our reader's model:
// 1. every CII test document (testdata/cii; verdicts in fixtures/official-cii-verdicts.jsonl);
// 2. every seeded mutant of them (support/cii-mutations.ts; the official verdicts of the same mutants, CEN CII rules
//    under SaxonJS, in fixtures/official-cii-model-mutants.jsonl, written by scripts/cii-model-verdicts.ts);
// 3. the official rule test sets of the CII rules (testdata/cii/cen-en16931/test/cii: BR-CO-15-2, BR-CO-17);
// 4. messages and locations of a few findings.
// The rule ids compared are the model pattern's (not BR-CL-*, not XRechnung's BR-DE-*), fatal and warning alike.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DOMParser, XMLSerializer, type Element } from "@xmldom/xmldom";
import { describe, expect, it } from "vitest";
import { parseXml } from "../src/document/xml.js";
import { runRules } from "../src/validation/engine.js";
import { ciiBusinessRules } from "../src/validation/rules/cii-business.js";
import { ciiVatRules } from "../src/validation/rules/cii-vat.js";
import { CII_DIR } from "../../../testdata/index.js";
import { ciiBaseDocuments, ciiMutants, ourCiiModelVerdict } from "./support/cii-mutations.js";
import { CII_RULESETS, officialCiiRuleSetFindings } from "./support/official-cii.js";

/** The ids of the model pattern (200 assertions): BR-n, BR-B-n, BR-CO-n, BR-DEC-n and the VAT categories' BR-xx-n. */
const MODEL_RULE = /^BR-(\d+|B-\d+|CO-\d+|DEC-\d+|(S|Z|E|AE|IC|G|O|AF|AG)-\d+)$/;
const model = (ids: readonly string[] | undefined) => (ids ?? []).filter((r) => MODEL_RULE.test(r)).sort();

/**
 * Mutants where we knowingly give another verdict than the official rules, with the reason. Empty: every mutant with
 * an official verdict agrees. (A mutant the official rules cannot judge, an XPath dynamic error, has no verdict and is
 * not compared: the fixture records the error.)
 */
const KNOWN_DISAGREEMENTS: Readonly<Record<string, string>> = {};

/**
 * Assertions of the pattern that no mutant shows: BR-CO-05 ... BR-CO-08, BR-AF-09 and BR-AG-09 assert true() in 1.3.16;
 * BR-AF-08 and BR-AG-08 take their rates and taxable amount from the breakdown's parent (../ram:RateApplicablePercent of
 * ram:ApplicableHeaderTradeSettlement, which the CII schema has not), so `every $rate in ()` holds on any schema-valid
 * document (the twists below give the settlement a rate, and BR-AF-08 fires as officially).
 */
const CANNOT_FIRE = ["BR-CO-05", "BR-CO-06", "BR-CO-07", "BR-CO-08", "BR-AF-09", "BR-AG-09", "BR-AF-08", "BR-AG-08"];

// Every assertion id of the pattern (cii/schematron/preprocessed/EN16931-CII-validation-preprocessed.sch, EN16931-CII-Model): 200.
const ALL_MODEL_RULES: readonly string[] = [
  "BR-01", "BR-02", "BR-03", "BR-04", "BR-05", "BR-06", "BR-07", "BR-08", "BR-09", "BR-10", "BR-11", "BR-12", "BR-13", "BR-14", "BR-15",
  "BR-16", "BR-17", "BR-18", "BR-19", "BR-20", "BR-21", "BR-22", "BR-23", "BR-24", "BR-25", "BR-26", "BR-27", "BR-28", "BR-29", "BR-30",
  "BR-31", "BR-32", "BR-33", "BR-36", "BR-37", "BR-38", "BR-41", "BR-42", "BR-43", "BR-44", "BR-45", "BR-46", "BR-47", "BR-48", "BR-49",
  "BR-50", "BR-51", "BR-52", "BR-53", "BR-54", "BR-55", "BR-56", "BR-57", "BR-61", "BR-62", "BR-63", "BR-64", "BR-65",
  "BR-B-01", "BR-B-02",
  "BR-E-01", "BR-E-02", "BR-E-03", "BR-E-04", "BR-E-05", "BR-E-06", "BR-E-07", "BR-E-08", "BR-E-09", "BR-E-10",
  "BR-G-01", "BR-G-02", "BR-G-03", "BR-G-04", "BR-G-05", "BR-G-06", "BR-G-07", "BR-G-08", "BR-G-09", "BR-G-10",
  "BR-O-01", "BR-O-02", "BR-O-03", "BR-O-04", "BR-O-05", "BR-O-06", "BR-O-07", "BR-O-08", "BR-O-09", "BR-O-10", "BR-O-11", "BR-O-12",
  "BR-O-13", "BR-O-14",
  "BR-S-01", "BR-S-02", "BR-S-03", "BR-S-04", "BR-S-05", "BR-S-06", "BR-S-07", "BR-S-08", "BR-S-09", "BR-S-10",
  "BR-Z-01", "BR-Z-02", "BR-Z-03", "BR-Z-04", "BR-Z-05", "BR-Z-06", "BR-Z-07", "BR-Z-08", "BR-Z-09", "BR-Z-10",
  "BR-AE-01", "BR-AE-02", "BR-AE-03", "BR-AE-04", "BR-AE-05", "BR-AE-06", "BR-AE-07", "BR-AE-08", "BR-AE-09", "BR-AE-10",
  "BR-AF-01", "BR-AF-02", "BR-AF-03", "BR-AF-04", "BR-AF-05", "BR-AF-06", "BR-AF-07", "BR-AF-08", "BR-AF-09", "BR-AF-10",
  "BR-AG-01", "BR-AG-02", "BR-AG-03", "BR-AG-04", "BR-AG-05", "BR-AG-06", "BR-AG-07", "BR-AG-08", "BR-AG-09", "BR-AG-10",
  "BR-CO-03", "BR-CO-04", "BR-CO-05", "BR-CO-06", "BR-CO-07", "BR-CO-08", "BR-CO-09", "BR-CO-10", "BR-CO-11", "BR-CO-12", "BR-CO-13",
  "BR-CO-14", "BR-CO-15", "BR-CO-16", "BR-CO-17", "BR-CO-18", "BR-CO-19", "BR-CO-20", "BR-CO-21", "BR-CO-22", "BR-CO-23", "BR-CO-24",
  "BR-CO-26",
  "BR-IC-01", "BR-IC-02", "BR-IC-03", "BR-IC-04", "BR-IC-05", "BR-IC-06", "BR-IC-07", "BR-IC-08", "BR-IC-09", "BR-IC-10", "BR-IC-11",
  "BR-IC-12",
  "BR-DEC-01", "BR-DEC-02", "BR-DEC-05", "BR-DEC-06", "BR-DEC-09", "BR-DEC-10", "BR-DEC-11", "BR-DEC-12", "BR-DEC-13", "BR-DEC-14",
  "BR-DEC-15", "BR-DEC-16", "BR-DEC-17", "BR-DEC-18", "BR-DEC-19", "BR-DEC-20", "BR-DEC-23", "BR-DEC-24", "BR-DEC-25", "BR-DEC-27",
  "BR-DEC-28",
];

interface MutantVerdict {
  id: string;
  base: string;
  mutations: string[];
  sha256: string;
  fatal?: string[];
  warning?: string[];
  error?: string;
}

const MUTANT_VERDICTS: MutantVerdict[] = readFileSync(resolve(import.meta.dirname, "fixtures/official-cii-model-mutants.jsonl"), "utf8")
  .split("\n").filter(Boolean).map((l) => JSON.parse(l) as MutantVerdict);

describe("the CEN CII model rules give the official verdict", () => {
  it("on every CII test document", () => {
    const lines = readFileSync(resolve(import.meta.dirname, "fixtures/official-cii-verdicts.jsonl"), "utf8").split("\n").filter(Boolean);
    const documents = lines.map((l) => JSON.parse(l) as { file: string; fatal?: string[]; warning?: string[]; error?: string })
      .filter((v) => ciiBaseDocuments().includes(v.file));
    expect(documents.length).toBe(ciiBaseDocuments().length);
    for (const v of documents) {
      expect(v.error, v.file).toBeUndefined();
      const ours = ourCiiModelVerdict(readFileSync(join(CII_DIR, v.file), "utf8"));
      expect({ file: v.file, ...ours }, v.file).toEqual({ file: v.file, fatal: model(v.fatal), warning: model(v.warning) });
    }
  });

  it("on every mutant of them, exactly (fatal and warning ids)", () => {
    const bySeed = new Map<number, MutantVerdict[]>();
    for (const v of MUTANT_VERDICTS) {
      const seed = Number(v.id.split("-")[0]);
      bySeed.set(seed, [...(bySeed.get(seed) ?? []), v]);
    }
    let judged = 0, agree = 0;
    const disagreements: string[] = [];
    for (const [seed, verdicts] of bySeed) {
      const mutants = ciiMutants(seed, verdicts.length);
      verdicts.forEach((v, i) => {
        const m = mutants[i]!;
        // The generator still makes the mutants the verdicts were made of.
        const sha256 = createHash("sha256").update(m.xml).digest("hex").slice(0, 16);
        expect({ id: m.id, base: m.base, mutations: m.mutations, sha256 }).toEqual({ id: v.id, base: v.base, mutations: v.mutations, sha256: v.sha256 });
        // No official verdict (the official rules stop on an XPath dynamic error): ours still judge it, without throwing.
        if (v.error) {
          expect(() => ourCiiModelVerdict(m.xml), v.id).not.toThrow();
          return;
        }
        judged++;
        const ours = ourCiiModelVerdict(m.xml);
        const same = JSON.stringify(ours) === JSON.stringify({ fatal: model(v.fatal), warning: model(v.warning) });
        if (same) agree++;
        if (same === (v.id in KNOWN_DISAGREEMENTS)) {
          disagreements.push(`${v.id} (${v.base}; ${v.mutations.join("; ")}): ours ${JSON.stringify(ours)}, official ${JSON.stringify({ fatal: v.fatal, warning: v.warning })}${same ? " — listed as a known disagreement, but agrees now" : ""}`);
        }
      });
    }
    expect(disagreements).toEqual([]);
    expect(judged).toBeGreaterThanOrEqual(600);
    expect(agree).toBe(judged - Object.keys(KNOWN_DISAGREEMENTS).length);
  }, 120_000);

  it("the mutants make every assertion that can fail fire at least once", () => {
    const fired = new Set(MUTANT_VERDICTS.flatMap((v) => [...(v.fatal ?? []), ...(v.warning ?? [])]));
    expect(ALL_MODEL_RULES.length).toBe(200);
    expect(ALL_MODEL_RULES.filter((r) => !MODEL_RULE.test(r))).toEqual([]);
    const never = ALL_MODEL_RULES.filter((r) => !fired.has(r) && !CANNOT_FIRE.includes(r));
    expect(never).toEqual([]);
    expect(CANNOT_FIRE.filter((r) => fired.has(r))).toEqual([]);
  });
});

describe("the official CII rule test sets", () => {
  for (const name of ["BR-CO-15-2.xml", "BR-CO-17.xml"]) {
    it(`${name}: the asserted rule fires on each error case and stays silent on each success case, as the official rules say`, () => {
      const doc = new DOMParser({ onError: () => {} }).parseFromString(readFileSync(join(CII_DIR, "cen-en16931/test/cii", name), "utf8"), "text/xml");
      const kids = (e: Element, local: string) => Array.from(e.childNodes).filter((c) => c.nodeType === 1 && (c as Element).localName === local) as Element[];
      const tests = kids(doc.documentElement!, "test");
      expect(tests.length).toBeGreaterThan(3);
      tests.forEach((test, i) => {
        const assert = kids(test, "assert")[0]!;
        const body = kids(test, "CrossIndustryInvoice")[0]!;
        const xml = new XMLSerializer().serializeToString(body);
        const fired = new Set(runRules(parseXml(xml).root, [ciiBusinessRules, ciiVatRules]).map((f) => f.rule));
        const official = new Set(officialCiiRuleSetFindings(CII_RULESETS.cen, xml).fatal);
        for (const r of kids(assert, "error").map((e) => (e.textContent ?? "").trim())) {
          expect(fired.has(r), `${name}#${i + 1}: ${r} fires`).toBe(true);
          expect(official.has(r), `${name}#${i + 1}: ${r} fires officially`).toBe(true);
        }
        for (const r of kids(assert, "success").map((e) => (e.textContent ?? "").trim())) {
          expect(fired.has(r), `${name}#${i + 1}: ${r} silent`).toBe(false);
          expect(official.has(r), `${name}#${i + 1}: ${r} silent officially`).toBe(false);
        }
        expect(model([...fired]), `${name}#${i + 1}: every model rule as the official rules`).toEqual(model([...official]));
      });
    }, 60_000);
  }
});

describe("messages and locations", () => {
  const base = readFileSync(join(CII_DIR, "cen-en16931/cii/examples/CII_example1.xml"), "utf8");
  const findings = (xml: string) => runRules(parseXml(xml).root, [ciiBusinessRules, ciiVatRules]);
  const SUMMATION = "/rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction[1]/ram:ApplicableHeaderTradeSettlement[1]/ram:SpecifiedTradeSettlementHeaderMonetarySummation[1]";

  it("the example is clean", () => {
    expect(findings(base)).toEqual([]);
  });

  it("BR-CO-10 names both sums and the BTs, at the document totals", () => {
    const f = findings(base.replace("<ram:LineTotalAmount>229.6</ram:LineTotalAmount>", "<ram:LineTotalAmount>230.6</ram:LineTotalAmount>"));
    const co10 = f.find((x) => x.rule === "BR-CO-10")!;
    expect(co10.location).toBe(SUMMATION);
    expect(co10.message).toContain("BT-106");
    expect(co10.message).toContain("230.60");
    expect(co10.message).toContain("229.60");
    expect(co10.flag).toBe("fatal");
  });

  it("BR-CO-16 names the amount due and what it should be", () => {
    const f = findings(base.replace("<ram:DuePayableAmount>250.33</ram:DuePayableAmount>", "<ram:DuePayableAmount>250.00</ram:DuePayableAmount>"));
    const co16 = f.find((x) => x.rule === "BR-CO-16")!;
    expect(co16.location).toBe(SUMMATION);
    expect(co16.message).toMatch(/BT-115\) is 250\.00.*BT-112\) 250\.33.* is 250\.33/);
  });

  it("a VAT category sum (BR-S-08) lists the lines it adds, at the breakdown's category code", () => {
    const xml = base.replace(/(<ram:ApplicableHeaderTradeSettlement>[\s\S]*?<ram:ApplicableTradeTax>[\s\S]*?<ram:BasisAmount>)([^<]*)</, "$1999.00<");
    const s08 = findings(xml).find((x) => x.rule === "BR-S-08")!;
    expect(s08.message).toContain("BT-116");
    expect(s08.message).toContain("'999.00'");
    expect(s08.message).toMatch(/line \d+: /);
    expect(s08.location).toMatch(/ram:ApplicableHeaderTradeSettlement\[1\]\/ram:ApplicableTradeTax\[\d+\]\/ram:CategoryCode\[1\]$/);
  });

  it("a line rule names the line (BR-25 at the line)", () => {
    const xml = base.replace(/(<ram:SpecifiedTradeProduct>[\s\S]*?)<ram:Name>[^<]*<\/ram:Name>/, "$1");
    const br25 = findings(xml).find((x) => x.rule === "BR-25")!;
    expect(br25.message).toMatch(/^Invoice line \S+ has no item name \(BT-153\)/);
    expect(br25.location).toBe("/rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction[1]/ram:IncludedSupplyChainTradeLineItem[1]");
  });
});

describe("the twists of the CII rules, each against the official rules", () => {
  const base = readFileSync(join(CII_DIR, "cen-en16931/cii/examples/CII_example1.xml"), "utf8");
  const official = (xml: string) => model(officialCiiRuleSetFindings(CII_RULESETS.cen, xml).fatal);
  const ours = (xml: string) => ourCiiModelVerdict(xml).fatal;
  const firstHeaderTax = (xml: string, change: (tax: string) => string) =>
    xml.replace(/(<ram:ApplicableHeaderTradeSettlement>[\s\S]*?)(<ram:ApplicableTradeTax>[\s\S]*?<\/ram:ApplicableTradeTax>)/, (_, before: string, tax: string) => before + change(tax));
  const allowance = (indicator: string, amount: string | null) =>
    `<ram:SpecifiedTradeAllowanceCharge><ram:ChargeIndicator><udt:Indicator>${indicator}</udt:Indicator></ram:ChargeIndicator>${amount === null ? "" : `<ram:ActualAmount>${amount}</ram:ActualAmount>`}` +
    "<ram:Reason>Discount</ram:Reason><ram:CategoryTradeTax><ram:TypeCode>VAT</ram:TypeCode><ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>6</ram:RateApplicablePercent></ram:CategoryTradeTax></ram:SpecifiedTradeAllowanceCharge>";
  const beforeTerms = (xml: string, add: string) => xml.replace("<ram:SpecifiedTradePaymentTerms>", `${add}<ram:SpecifiedTradePaymentTerms>`);

  it("an IGIC (L) breakdown is its category rule's context: without a taxable amount it gets no BR-45, no BR-CO-17", () => {
    const xml = firstHeaderTax(base, (t) => t.replace("<ram:CategoryCode>S<", "<ram:CategoryCode>L<").replace(/<ram:BasisAmount>[^<]*<\/ram:BasisAmount>/, ""));
    const theirs = official(xml);
    expect(theirs).not.toContain("BR-45");
    expect(theirs).not.toContain("BR-CO-17");
    expect(ours(xml)).toEqual(theirs);
  }, 30_000);

  it("BR-AF-08 reads the rate and taxable amount of the breakdown's parent, so it fires only when that parent has a rate", () => {
    const igic = firstHeaderTax(base, (t) => t.replace("<ram:CategoryCode>S<", "<ram:CategoryCode>L<").replace("<ram:BasisAmount>183.23<", "<ram:BasisAmount>1.00<"));
    expect(official(igic)).not.toContain("BR-AF-08");
    expect(ours(igic)).toEqual(official(igic));
    const withParentRate = igic.replace("<ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>", "<ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode><ram:RateApplicablePercent>6</ram:RateApplicablePercent>");
    expect(official(withParentRate)).toContain("BR-AF-08");
    expect(ours(withParentRate)).toEqual(official(withParentRate));
  }, 30_000);

  it("BR-CO-17 accepts a VAT amount exactly 1 away, BR-S-09 does not", () => {
    const xml = firstHeaderTax(base, (t) => t.replace("<ram:CalculatedAmount>10.99<", "<ram:CalculatedAmount>11.99<"));
    const theirs = official(xml);
    expect(theirs).toContain("BR-S-09");
    expect(theirs).not.toContain("BR-CO-17");
    expect(ours(xml)).toEqual(theirs);
  }, 30_000);

  it("BR-CO-11 adds and rounds the allowances as xs:double: of 0.14 and 0.15 for an allowance of 0.145, exactly one passes", () => {
    const variants = ["0.14", "0.15"].map((total) =>
      beforeTerms(base, allowance("false", "0.145")).replace("<ram:LineTotalAmount>229.6</ram:LineTotalAmount>", `<ram:LineTotalAmount>229.6</ram:LineTotalAmount><ram:AllowanceTotalAmount>${total}</ram:AllowanceTotalAmount>`));
    const verdicts = variants.map(official);
    expect(verdicts.filter((v) => v.includes("BR-CO-11")).length).toBe(1);
    variants.forEach((xml, i) => expect(ours(xml)).toEqual(verdicts[i]));
  }, 30_000);

  it("an indicator written '1' is no allowance or charge for BR-31 ... BR-38 (a string test), but a charge for BR-CO-12 (a boolean)", () => {
    const xml = beforeTerms(base, allowance("1", null));
    const theirs = official(xml);
    expect(theirs).not.toContain("BR-36");
    expect(theirs).not.toContain("BR-31");
    expect(theirs).toContain("BR-CO-12");
    expect(ours(xml)).toEqual(theirs);
  }, 30_000);
});
