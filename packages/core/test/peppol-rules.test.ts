// The Peppol BIS Billing 3.0 rule family (PEPPOL-*, national rules) against the official verdicts: every case of
// the official Peppol rule unit tests (openpeppol-bis3/unit-tests-UBL-PEPPOL) and every Peppol BIS document of
// the corpus (packages/core/test/fixtures/official-verdicts.jsonl, made with the official rules under SaxonJS).
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { DOMParser, XMLSerializer, type Element } from "@xmldom/xmldom";
import { runRules } from "../src/validation/engine.js";
import { PEPPOL_FAMILIES, PEPPOL_RULESET } from "../src/validation/rulesets/legacy.js";
import { CORPUS_DIR } from "./support/corpus.js";
import { xmldomTree } from "./support/xmldom-tree.js";

const isPeppolRule = (id: string) => !id.startsWith("BR-") && !id.startsWith("UBL-");
const peppolIds = (xml: string) => {
  const out = { fatal: new Set<string>(), warning: new Set<string>() };
  for (const f of runRules(xmldomTree(xml), Object.values(PEPPOL_FAMILIES))) out[f.flag].add(f.rule);
  return out;
};
const elements = (e: Element, local: string) => Array.from(e.childNodes).filter((n) => n.nodeType === 1 && (n as Element).localName === local) as Element[];

describe("Peppol BIS rules against the official verdicts", () => {
  it("agree with every case of the official Peppol rule unit tests", () => {
    const dir = join(CORPUS_DIR, "openpeppol-bis3/unit-tests-UBL-PEPPOL");
    const wrong: string[] = [];
    let cases = 0;
    for (const name of readdirSync(dir).filter((n) => n.endsWith(".xml")).sort()) {
      const set = new DOMParser({ onError: () => {} }).parseFromString(readFileSync(join(dir, name), "utf8"), "text/xml").documentElement!;
      elements(set, "test").forEach((test, i) => {
        const assert = elements(test, "assert")[0];
        const body = [...elements(test, "Invoice"), ...elements(test, "CreditNote")][0];
        if (!assert || !body) return;
        const ids = (tag: string) => elements(assert, tag).map((e) => (e.textContent ?? "").trim()).filter(isPeppolRule);
        const found = peppolIds(new XMLSerializer().serializeToString(body));
        const all = new Set([...found.fatal, ...found.warning]);
        for (const r of [...ids("error"), ...ids("warning")]) { cases++; if (!all.has(r)) wrong.push(`${name}#${i + 1}: ${r} should fire`); }
        for (const r of ids("success")) { cases++; if (all.has(r)) wrong.push(`${name}#${i + 1}: ${r} should be silent`); }
      });
    }
    expect(cases).toBeGreaterThan(200);
    expect(wrong).toEqual([]);
  });

  it("report the official fatal and warning rule ids on every Peppol BIS document of the corpus", () => {
    const verdicts = readFileSync(resolve(import.meta.dirname, "fixtures/official-verdicts.jsonl"), "utf8").split("\n").filter(Boolean)
      .map((l) => JSON.parse(l) as { file: string; ruleSets?: string[]; fatal?: string[]; warning?: string[] })
      .filter((v) => v.ruleSets?.includes(PEPPOL_RULESET));
    expect(verdicts.length).toBeGreaterThan(50);
    const wrong: string[] = [];
    for (const v of verdicts) {
      const found = peppolIds(readFileSync(join(CORPUS_DIR, v.file), "utf8"));
      const same = (mine: Set<string>, theirs: string[]) => [...mine].sort().join(" ") === theirs.filter(isPeppolRule).sort().join(" ");
      if (!same(found.fatal, v.fatal ?? []) || !same(found.warning, v.warning ?? [])) wrong.push(`${v.file}: fatal [${[...found.fatal]}] warning [${[...found.warning]}]`);
    }
    expect(wrong).toEqual([]);
  });
});
