// Developer tool: compares the rule families with the official verdicts, rule by rule.
//   tsx --conditions=source scripts/rules-diff.ts [--prefix BR-CO-] [--units] [--corpus] [--verdicts FILE] [--verbose]
// --corpus: every corpus Invoice/CreditNote against the oracle's verdicts (default
//   packages/core/test/fixtures/official-verdicts.jsonl).
// --units: every case of the official rule unit tests (VEFA testSet files): the asserted rule must
//   fire on error/warning cases and stay silent on success cases.
// The model is built with xmldom here (test support), so this runs before and beside the reader's builder.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DOMParser, XMLSerializer, type Element } from "@xmldom/xmldom";
import { CORPUS_DIR } from "../testdata/index.js";
import { xmldomTree } from "../packages/core/test/support/xmldom-tree.js";
import { runRules } from "../packages/core/src/validation/engine.js";
import { cen } from "../packages/core/src/validation/rulesets/cen.js";
import { peppol as peppolSet } from "../packages/core/src/validation/rulesets/peppol.js";
import { familiesOf, ruleSetsApplying } from "../packages/core/src/validation/rulesets/select.js";
import type { RuleSet } from "../packages/core/src/validation/rulesets/types.js";
import { first, norm, type DocumentNode } from "../packages/core/src/document/model.js";

const args = process.argv.slice(2);
const flag = (n: string) => args.includes(n);
const opt = (n: string) => { const i = args.indexOf(n); return i >= 0 ? args[i + 1] : undefined; };
const prefix = opt("--prefix") ?? "";
const verbose = flag("--verbose");
const repo = resolve(import.meta.dirname, "..");
const corpus = CORPUS_DIR;
const want = (id: string) => id.startsWith(prefix);

function fired(root: DocumentNode, sets: readonly RuleSet[]): { fatal: Set<string>; warning: Set<string> } {
  const fams = familiesOf(sets);
  const out = { fatal: new Set<string>(), warning: new Set<string>() };
  for (const f of runRules(root, fams)) (f.flag === "warning" ? out.warning : out.fatal).add(f.rule);
  return out;
}

if (flag("--corpus") || !flag("--units")) {
  const committed = join(repo, "packages/core/test/fixtures/official-verdicts.jsonl");
  const file = opt("--verdicts") ?? committed;
  let docs = 0, same = 0;
  const missBy = new Map<string, number>(), extraBy = new Map<string, number>();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const v = JSON.parse(line) as { file: string; error?: string; customizationId?: string; fatal?: string[]; warning?: string[] };
    if (v.error) continue;
    const path = v.file.includes("/corpus/") ? join(corpus, v.file.slice(v.file.indexOf("/corpus/") + 8)) : join(corpus, v.file);
    const root = xmldomTree(readFileSync(path, "utf8"));
    const ours = fired(root, ruleSetsApplying(norm(first(root, "cbc:CustomizationID")) || null));
    docs++;
    let ok = true;
    for (const [kind, theirs, mine] of [["fatal", v.fatal!, ours.fatal], ["warning", v.warning!, ours.warning]] as const) {
      const t = new Set(theirs.filter(want)), m = [...mine].filter(want);
      const missing = [...t].filter((r) => !mine.has(r)), extra = m.filter((r) => !t.has(r));
      if (missing.length || extra.length) {
        if (kind === "fatal") ok = false;
        for (const r of missing) missBy.set(r, (missBy.get(r) ?? 0) + 1);
        for (const r of extra) extraBy.set(r, (extraBy.get(r) ?? 0) + 1);
        if (verbose || kind === "fatal") console.log(`${kind} ${v.file.replace(/.*\/corpus\//, "")}: missing [${missing}] extra [${extra}]`);
      }
    }
    if (ok) same++;
  }
  console.log(`corpus: ${same}/${docs} documents with the official fatal set (prefix '${prefix}')`);
  console.log(`  missed (official fired, we did not): ${[...missBy].map(([r, n]) => `${r}×${n}`).join(" ") || "none"}`);
  console.log(`  extra (we fired, official did not): ${[...extraBy].map(([r, n]) => `${r}×${n}`).join(" ") || "none"}`);
}

if (flag("--units") || !flag("--corpus")) {
  const dirs = ["cen-en16931/unit-tests-Invoice-UBL", "cen-en16931/unit-tests-CreditNote-UBL", "openpeppol-bis3/unit-tests-UBL-PEPPOL"];
  let cases = 0, good = 0;
  const bad = new Map<string, string[]>();
  for (const dir of dirs) {
    for (const name of readdirSync(join(corpus, dir)).filter((n) => n.endsWith(".xml")).sort()) {
      const doc = new DOMParser({ onError: () => {} }).parseFromString(readFileSync(join(corpus, dir, name), "utf8"), "text/xml");
      const peppol = dir.startsWith("openpeppol");
      const tests = Array.from(doc.documentElement!.childNodes).filter((n) => n.nodeType === 1 && (n as Element).localName === "test") as Element[];
      tests.forEach((test, i) => {
        const assert = Array.from(test.childNodes).find((n) => n.nodeType === 1 && (n as Element).localName === "assert") as Element | undefined;
        const body = Array.from(test.childNodes).find((n) => n.nodeType === 1 && ((n as Element).localName === "Invoice" || (n as Element).localName === "CreditNote")) as Element | undefined;
        if (!assert || !body) return;
        const exp = (tag: string) => Array.from(assert.getElementsByTagNameNS("*", tag)).map((e) => (e.textContent ?? "").trim()).filter(Boolean);
        const errors = [...exp("error"), ...exp("warning")], successes = exp("success");
        if (![...errors, ...successes].some(want)) return;
        const root = xmldomTree(new XMLSerializer().serializeToString(body));
        const ours = fired(root, peppol ? [cen, peppolSet] : [cen]);
        const all = new Set([...ours.fatal, ...ours.warning]);
        for (const r of errors.filter(want)) { cases++; if (all.has(r)) good++; else (bad.get(r) ?? bad.set(r, []).get(r)!).push(`${dir.split("/")[1]}/${name}#${i + 1} should fire`); }
        for (const r of successes.filter(want)) { cases++; if (!all.has(r)) good++; else (bad.get(r) ?? bad.set(r, []).get(r)!).push(`${dir.split("/")[1]}/${name}#${i + 1} should be silent`); }
      });
    }
  }
  for (const [r, list] of [...bad].sort()) console.log(`${r}: ${list.length} wrong: ${list.slice(0, verbose ? 99 : 3).join(", ")}`);
  console.log(`units: ${good}/${cases} cases agree with the asserted rule (prefix '${prefix}')`);
}
