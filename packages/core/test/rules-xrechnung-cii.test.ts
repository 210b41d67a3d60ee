// The XRechnung 3.0.2 CII rule set against the official verdicts, on our reader's model:
// 1. KoSIT's CII unit tests (itplr-kosit/xrechnung-schematron v2.5.0, test/instances/cii, XML-Mutate instructions
//    expanded by test/support/xmute.ts): the asserted rule fires on each error case and stays silent on each success case;
// 2. the same mutants, and the XRechnung CII documents of testdata/cii/xrechnung-testsuite unchanged and as seeded mutants
//    (test/support/xrechnung-cii-mutations.ts), against the official XRechnung CII rules alone (SaxonJS; committed in
//    testdata/xrechnung/official-verdicts-cii-*.jsonl by scripts/xrechnung-cii-verdicts.ts): the same rule ids fire,
//    except where SaxonJS misjudges a long IBAN (BR-DE-19, as on the UBL side);
// 3. the rule set's registration: which guideline ids it applies to and KoSIT's CII levels, equal to the oracle's.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseXml } from "../src/document/xml.js";
import { select, stringValue } from "../src/document/model.js";
import { runRules } from "../src/validation/engine.js";
import { validateModel } from "../src/validation/validate.js";
import { ruleSetIdsFor } from "../src/validation/rulesets/select.js";
import { KOSIT_CII_LEVELS as OURS_LEVELS, kositCiiScenario, xrechnungCii } from "../src/validation/rulesets/xrechnung-cii.js";
import { ibanValid, withoutWhitespace } from "../src/validation/rules/xrechnung-support.js";
import { KOSIT_CII_LEVELS, kositScenario, XRECHNUNG, XRECHNUNG_CVD, XRECHNUNG_EXT } from "./support/official-cii.js";
import { allMutants, SCHEMATRON_TESTS, XRECHNUNG_TESTDATA } from "./support/xmute.js";
import { xrechnungCiiMutants } from "./support/xrechnung-cii-mutations.js";

const jsonl = <T>(name: string): T[] =>
  readFileSync(join(XRECHNUNG_TESTDATA, name), "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as T);
const uniq = (a: string[]) => [...new Set(a)].sort();
const ours = (xml: string) => uniq(runRules(parseXml(xml).root, Object.values(xrechnungCii.families)).map((f) => f.rule));

/** The digits the official BR-DE-19 computes: the IBAN with its first four characters moved to the end, letters as 10..35. */
function ibanDigits(iban: string): string {
  const moved = iban.slice(4) + iban.slice(0, 2).toUpperCase() + iban.slice(2, 4);
  return [...moved].map((c) => String(c.codePointAt(0)! > 64 ? c.codePointAt(0)! - 55 : c.codePointAt(0)! - 48)).join("");
}

/**
 * SaxonJS holds BR-DE-19's xs:integer of 24 or more digits as a double, so it fires BR-DE-19 on valid IBANs whose
 * number a double cannot hold exactly (the unit tests' dummy DE75512108001245126199). KoSIT's validator (Saxon-HE on
 * Java) computes exactly, as we do. True when that is the only difference.
 */
function saxonIbanOnly(xml: string, missing: string[], extra: string[]): boolean {
  if (missing.length !== 1 || missing[0] !== "BR-DE-19" || extra.length !== 0) return false;
  const ids = select(parseXml(xml).root, "rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement/ram:SpecifiedTradeSettlementPaymentMeans/ram:PayeePartyCreditorFinancialAccount/ram:IBANID")
    .map((n) => withoutWhitespace(stringValue(n)));
  return ids.some((id) => ibanValid(id) && Number(ibanDigits(id)) % 97 !== 1);
}

/** Our fired ids against the official ones, each document; the differences that are not SaxonJS's IBAN error. */
function compare(docs: Array<{ id: string; xml: string }>, official: Map<string, { fired?: string[]; error?: string }>) {
  const differ: string[] = [];
  let equal = 0, saxonIban = 0, noVerdict = 0;
  for (const d of docs) {
    const v = official.get(d.id);
    expect(v, d.id).toBeDefined();
    if (!v!.fired) {
      noVerdict++;
      continue;
    }
    const mine = ours(d.xml), theirs = v!.fired;
    const missing = theirs.filter((r) => !mine.includes(r)), extra = mine.filter((r) => !theirs.includes(r));
    if (missing.length === 0 && extra.length === 0) equal++;
    else if (saxonIbanOnly(d.xml, missing, extra)) saxonIban++;
    else differ.push(`${d.id} missing [${missing}] extra [${extra}]`);
  }
  return { differ, equal, saxonIban, noVerdict };
}

describe("XRechnung 3.0.2 CII: KoSIT's CII unit tests (XRechnung Schematron 2.5.0)", () => {
  const mutants = allMutants(SCHEMATRON_TESTS, ["cii"]);
  // Some instructions name two rules joined by a comma ("xrcii:BR-TMP-3,xrcii:PEPPOL-EN16931-R120").
  const split = (rules: string[]) => rules.flatMap((r) => r.split(",")).map((r) => r.replace(/^[a-z]+:/, "")).filter(Boolean);

  it("fires the asserted rule on each error case and stays silent on each success case", () => {
    const cases: Array<{ id: string; agree: boolean }> = [];
    for (const m of mutants) {
      const fired = ours(m.xml);
      for (const r of split(m.invalid)) cases.push({ id: `${m.id} ${r} fires`, agree: fired.includes(r) });
      for (const r of split(m.valid)) cases.push({ id: `${m.id} ${r} silent`, agree: !fired.includes(r) });
    }
    const disagree = cases.filter((c) => !c.agree).map((c) => c.id);
    console.info(`XRechnung CII unit cases: ${cases.length - disagree.length}/${cases.length} agree (${mutants.length} mutants of 125 files)`);
    expect(cases.length).toBeGreaterThan(500);
    expect(disagree).toEqual([]);
  });

  it("fires exactly the rules the official XRechnung CII rules fire on each mutant, but for SaxonJS's long-IBAN error", () => {
    const official = new Map(jsonl<{ id: string; fired?: string[]; error?: string }>("official-verdicts-cii-schematron-tests.jsonl").map((v) => [v.id, v]));
    expect(official.size).toBe(mutants.length);
    const { differ, equal, saxonIban, noVerdict } = compare(mutants, official);
    console.info(`XRechnung CII rules vs SaxonJS on ${mutants.length} unit-test mutants: ${equal} equal, ${saxonIban} differ only in BR-DE-19 where SaxonJS misjudges a valid IBAN, ${noVerdict} without an official verdict`);
    expect(differ).toEqual([]);
    expect(noVerdict).toBe(0);
  });
});

describe("XRechnung 3.0.2 CII: the XRechnung CII documents and seeded mutants of them", () => {
  const docs = xrechnungCiiMutants();
  const official = new Map(jsonl<{ id: string; fired?: string[]; error?: string }>("official-verdicts-cii-mutants.jsonl").map((v) => [v.id, v]));

  it("has the verdicts of the same mutants (scripts/xrechnung-cii-verdicts.ts)", () => {
    expect(docs.map((d) => d.id)).toEqual([...official.keys()]);
    expect(docs.length).toBeGreaterThan(400);
  });

  it("fires no XRechnung rule on the valid documents of the suite", () => {
    const unchanged = docs.filter((d) => d.id.endsWith(": unchanged"));
    expect(unchanged.length).toBe(41);
    for (const d of unchanged) expect([d.id, official.get(d.id)!.fired]).toEqual([d.id, ours(d.xml)]);
  });

  it("fires exactly the rules the official XRechnung CII rules fire on every document and mutant", () => {
    const { differ, equal, saxonIban, noVerdict } = compare(docs, official);
    console.info(`XRechnung CII rules vs SaxonJS on ${docs.length} documents and mutants: ${equal} equal, ${saxonIban} differ only in BR-DE-19 (SaxonJS's IBAN), ${noVerdict} without an official verdict (a dynamic error in the official rules)`);
    expect(differ).toEqual([]);
    expect(equal).toBeGreaterThan(400);
    expect(noVerdict).toBe(0);
  });

  it("covers every BR-DE rule of the CII set with at least one firing mutant", () => {
    const fired = new Set([...official.values()].flatMap((v) => v.fired ?? []));
    for (const id of ["BR-DE-1", "BR-DE-2", "BR-DE-3", "BR-DE-4", "BR-DE-5", "BR-DE-6", "BR-DE-7", "BR-DE-8", "BR-DE-9", "BR-DE-10", "BR-DE-11",
      "BR-DE-14", "BR-DE-15", "BR-DE-16", "BR-DE-17", "BR-DE-18", "BR-DE-19", "BR-DE-21", "BR-DE-22", "BR-DE-23-a", "BR-DE-23-b", "BR-DE-24-a",
      "BR-DE-24-b", "BR-DE-25-a", "BR-DE-25-b", "BR-DE-26", "BR-DE-27", "BR-DE-28", "BR-DE-30", "BR-DE-31", "BR-TMP-2", "BR-TMP-3"]) {
      expect(fired, id).toContain(id);
    }
  });
});

describe("XRechnung 3.0.2 CII: the rule set", () => {
  it("applies to CII documents whose guideline id starts with XRechnung 3.0's (CIUS, extension, CVD), with CEN CII first", () => {
    for (const id of [XRECHNUNG, XRECHNUNG_EXT, `${XRECHNUNG_CVD}0.9`, `${XRECHNUNG}#conformant#urn:example.org:other`]) {
      expect(ruleSetIdsFor(id, undefined, "cii")).toEqual(["CEN-EN16931-CII-1.3.16", "XRECHNUNG-CII-3.0.2"]);
    }
    for (const id of [null, "urn:cen.eu:en16931:2017", "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_2.3"]) {
      expect(ruleSetIdsFor(id, undefined, "cii")).toEqual(["CEN-EN16931-CII-1.3.16"]);
    }
    // A UBL document with the same id gets the UBL sets, never the CII one.
    expect(ruleSetIdsFor(XRECHNUNG)).toEqual(["CEN-EN16931-UBL-2026.5", "XRECHNUNG-UBL-3.0.2"]);
  });

  it("declares KoSIT's CII levels by scenario, as the oracle applies them (and BR-DE-TMP-32 as information, its own flag)", () => {
    for (const scenario of ["standard", "extension", "cvd"] as const) {
      const { "BR-DE-TMP-32": tmp32, ...rest } = OURS_LEVELS[scenario];
      expect(rest).toEqual(KOSIT_CII_LEVELS[scenario]);
      expect(tmp32).toBe("information");
    }
    for (const id of [XRECHNUNG, XRECHNUNG_EXT, `${XRECHNUNG_CVD}0.9`, `${XRECHNUNG_CVD}1.0`, null]) expect(kositCiiScenario(id)).toBe(kositScenario(id));
  });

  it("reports an XRechnung CII invoice without buyer reference with BR-DE-15 as an error, and never BR-DE-TMP-32", () => {
    const [doc] = xrechnungCiiMutants().filter((d) => d.id.endsWith(": no buyer reference + no delivery date or periods") || d.id.endsWith(": no buyer reference"));
    const report = validateModel(parseXml(doc!.xml).root);
    expect(report.syntax).toBe("cii");
    expect(report.ruleSets).toEqual(["CEN-EN16931-CII-1.3.16", "XRECHNUNG-CII-3.0.2"]);
    expect(report.errors.map((e) => e.rule)).toContain("BR-DE-15");
    expect(report.errors.find((e) => e.rule === "BR-DE-15")!.location).toBe("/rsm:CrossIndustryInvoice");
    expect([...report.errors, ...report.warnings].map((e) => e.rule)).not.toContain("BR-DE-TMP-32");
  });
});
