// The CEN EN 16931 CII syntax and code list rules (CII-SR-*, CII-DT-*, BR-CL-*; rules/cii-syntax.ts, cii-codes.ts)
// against the official rules: on every CII test document and on seeded mutants of them
// (support/cii-syntax-mutations.ts), our fatal and warning ids of those families equal the official CEN CII 1.3.16
// ones (test/fixtures/official-cii-syntax-mutants.jsonl, scripts/cii-syntax-verdicts.ts), and every assertion of the
// official rule set is one of ours.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { rulesPath, RULE_SETS } from "../../../testdata/index.js";
import { parseXml } from "../src/document/xml.js";
import { runRules } from "../src/validation/engine.js";
import { CII_CODE_RULE_IDS, ciiCodeRules } from "../src/validation/rules/cii-codes.js";
import { CII_SYNTAX_RULE_IDS, ciiSyntaxRules } from "../src/validation/rules/cii-syntax.js";
import { ciiDoc } from "./support/cii-doc.js";
import { CII_SYNTAX_CORPUS, CII_SYNTAX_PER_BASE, CII_SYNTAX_SEED, ciiSyntaxDocuments } from "./support/cii-syntax-mutations.js";

interface Verdict {
  id: string;
  sha256: string;
  changes: string[];
  fatal?: string[];
  warning?: string[];
  /** The official rules stopped with a dynamic error: no verdict to compare with. */
  error?: string;
}

const FIXTURE = new URL("./fixtures/official-cii-syntax-mutants.jsonl", import.meta.url);
const verdicts = new Map(readFileSync(FIXTURE, "utf8").split("\n").filter(Boolean).map((l) => [(JSON.parse(l) as Verdict).id, JSON.parse(l) as Verdict]));
const documents = ciiSyntaxDocuments(CII_SYNTAX_CORPUS(), CII_SYNTAX_PER_BASE, CII_SYNTAX_SEED);

/**
 * Where we knowingly differ from the official verdict: document id -> the ids on which we differ, with the reason.
 * Empty: no known disagreement.
 */
const KNOWN_DISAGREEMENTS: Record<string, { ids: string[]; reason: string }> = {};

const ours = (id: string) => /^(CII-SR|CII-DT|BR-CL)-/.test(id);

function ourVerdict(xml: string): { fatal: string[]; warning: string[] } {
  const findings = runRules(parseXml(xml).root, [ciiSyntaxRules, ciiCodeRules]);
  const ids = (flag: string) => [...new Set(findings.filter((f) => f.flag === flag && ours(f.rule)).map((f) => f.rule))].sort();
  return { fatal: ids("fatal"), warning: ids("warning") };
}

describe("CII syntax and code list rules against the official CEN CII rules 1.3.16", () => {
  it("has an official verdict for every document, made from the same bytes", () => {
    expect(documents.length).toBeGreaterThan(600);
    for (const d of documents) {
      const v = verdicts.get(d.id);
      expect(v, `${d.id}: no verdict; run scripts/cii-syntax-verdicts.ts`).toBeDefined();
      expect(v!.sha256, `${d.id}: the mutant changed since its verdict was made (${d.changes.join("; ")})`).toBe(d.sha256);
    }
    // Few mutants may be ones the official rules cannot judge (a dynamic error).
    expect(documents.filter((d) => verdicts.get(d.id)?.error).length).toBeLessThan(documents.length / 10);
  });

  it.each(documents.filter((d) => verdicts.get(d.id) && !verdicts.get(d.id)!.error).map((d) => [d.id, d] as const))("%s", (_id, d) => {
    const official = verdicts.get(d.id)!;
    const known = new Set(KNOWN_DISAGREEMENTS[d.id]?.ids ?? []);
    const drop = (ids: string[]) => ids.filter((id) => !known.has(id));
    const got = ourVerdict(d.xml);
    expect({ fatal: drop(got.fatal), warning: drop(got.warning) }, d.changes.join("; ")).toEqual({ fatal: drop(official.fatal!), warning: drop(official.warning!) });
  });

  it("checks every CII-SR, CII-DT and BR-CL assertion of the official rule set, and no other", () => {
    const sef = readFileSync(rulesPath(RULE_SETS.ciiCen), "utf8");
    const official = [...new Set([...sef.matchAll(/"val":"((?:CII-SR|CII-DT|BR-CL)-\d+)"/g)].map((m) => m[1]!))].sort();
    expect(official.length).toBe(606);
    expect([...CII_SYNTAX_RULE_IDS, ...CII_CODE_RULE_IDS].sort()).toEqual(official);
  });

  it("makes documents that break every assertion that can fail (the official verdicts name them)", () => {
    const fired = new Set<string>();
    for (const v of verdicts.values()) for (const id of [...(v.fatal ?? []), ...(v.warning ?? [])]) fired.add(id);
    // CII-DT-010..012 (context /rsm:CrossIndustryInvoice/rsm:ExchangedDocument/ram:TypeCode) cannot fail: the earlier
    // rule //ram:TypeCode of the same pattern takes that element.
    expect([...CII_SYNTAX_RULE_IDS, ...CII_CODE_RULE_IDS].filter((id) => !fired.has(id)).sort()).toEqual(["CII-DT-010", "CII-DT-011", "CII-DT-012"]);
  });
});

describe("CII syntax rules on a large document", () => {
  it("reports a rule once per context element: each of 10,000 lines with a trade name (CII-SR-049)", () => {
    const findings = runRules(parseXml(ciiDoc({ lines: 10_000, product: "<ram:TradeName>x</ram:TradeName>" })).root, [ciiSyntaxRules, ciiCodeRules]);
    const byRule = new Map<string, number>();
    for (const f of findings) byRule.set(f.rule, (byRule.get(f.rule) ?? 0) + 1);
    expect(Object.fromEntries(byRule)).toEqual({ "CII-SR-049": 10_000 });
    expect(findings[9_999]!.location).toBe("/rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction[1]/ram:IncludedSupplyChainTradeLineItem[10000]/ram:SpecifiedTradeProduct[1]");
    expect(findings[0]!).toMatchObject({ flag: "warning", message: "The document contains rsm:SupplyChainTradeTransaction/ram:IncludedSupplyChainTradeLineItem/ram:SpecifiedTradeProduct/ram:TradeName, which EN 16931 does not use; the recipient may ignore it." });
  });
});
