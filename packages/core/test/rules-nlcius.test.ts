// The NLCIUS / SI-UBL 2.0.3.13 rule set against the official test documents SimplerInvoicing's artefacts
// ship with (the 95 of phive-simplerinvoicing/SI-UBL-2.0.3.2 in testdata/corpus; README there): each file's name
// says the outcome the official rules give it ("SI-UBL-2.0_<rule>_<ok|warning|error>_<what>.xml"). An
// error case: the named rule fires as fatal; a warning case: it fires as a warning and nothing is fatal;
// an ok case: nothing is fatal and the named rule is silent. Where the official rules themselves
// report a file differently from its name, the case asserts what the official rules report (the
// committed official verdicts agree) and is listed in DIFFERS_FROM_NAME with the reason.
// The corpus-wide comparison with the official verdicts (fatal rule ids) is in rules-official.test.ts.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { corpusPath } from "../../../testdata/index.js";
import { validateInvoice } from "../src/index.js";

const DIR = "phive-simplerinvoicing/SI-UBL-2.0.3.2";
const VERDICTS = new Map(
  readFileSync(new URL("./fixtures/official-verdicts.jsonl", import.meta.url), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { file: string; error?: string; fatal?: string[]; warning?: string[] })
    .map((v) => [v.file, v]),
);

/** Files the official rules report otherwise than their name says: what they report, and why. */
const DIFFERS_FROM_NAME: Record<string, { rule: string; kind: "error" | "warning"; why: string }> = {
  "SI-UBL-2.0_BR-NL-34_warning_reasoncode.xml": {
    rule: "BR-NL-32-1",
    kind: "warning",
    why: "the official Schematron gives its BR-NL-34 assertions the ids BR-NL-32-x, and an element is checked by the first matching rule, the BR-NL-32 one",
  },
  "SI-UBL-2.0_BR-NL-34_warning_reasoncode_line.xml": {
    rule: "BR-NL-32-1",
    kind: "warning",
    why: "as above; and the document-level rule's context (cac:AllowanceCharge/cbc:AllowanceChargeReasonCode) also matches reason codes on lines",
  },
  "SI-UBL-2.0_BR-NL-7_error_381_invoice.xml": {
    rule: "BR-NL-8",
    kind: "error",
    why: "381 is one of BR-NL-7's allowed codes; what is wrong is a credit note type code on an Invoice, which is BR-NL-8",
  },
};

const files = readdirSync(corpusPath(DIR)).filter((n) => n.endsWith(".xml")).sort();

describe("NLCIUS / SI-UBL 2.0.3.13 on the official SimplerInvoicing test documents", () => {
  it("finds the 95 official test documents", () => {
    expect(files.length).toBe(95);
  });

  const cases = files.map((name) => {
    const m = /^SI-UBL-2\.0_(?:(.+?)_)?(ok|error|warning)(?:_.*)?\.xml$/.exec(name);
    if (!m) throw new Error(`unexpected test file name ${name}`);
    const differs = DIFFERS_FROM_NAME[name];
    return { name, rule: differs?.rule ?? m[1] ?? null, kind: (differs?.kind ?? m[2]) as "ok" | "error" | "warning" };
  });

  it.each(cases)("$name: $kind $rule", ({ name, rule, kind }) => {
    const report = validateInvoice(readFileSync(corpusPath(`${DIR}/${name}`)));
    // One file has no CustomizationID (SI-UBL's BII2-T10-R001): it is not an NLCIUS document, so the CEN
    // rules alone apply, and their BR-01 is the error.
    expect(report.ruleSets).toEqual(report.customizationId === null ? ["CEN-EN16931-UBL-2026.5"] : ["CEN-EN16931-UBL-2026.5", "NLCIUS-SI-UBL-2.0.3.13"]);
    const fatal = new Set(report.errors.map((e) => e.rule));
    const warn = new Set(report.warnings.map((e) => e.rule));
    const named = (ids: Set<string>) => (rule === null ? ids.size > 0 : [...ids].some((i) => i === rule || i.startsWith(`${rule}-`)));
    if (kind === "error") expect(named(fatal), `${rule} fatal in ${[...fatal]}`).toBe(true);
    if (kind === "warning") {
      expect(named(warn), `${rule} warning in ${[...warn]}`).toBe(true);
      expect([...fatal]).toEqual([]);
    }
    if (kind === "ok") {
      expect([...fatal]).toEqual([]);
      if (rule !== null) expect(named(warn)).toBe(false);
    }
    // Where the official rules give a verdict, ours is the same, warnings included.
    const official = VERDICTS.get(`${DIR}/${name}`);
    if (official && !official.error) {
      expect([...fatal].sort()).toEqual(official.fatal);
      expect([...warn].sort()).toEqual(official.warning);
    }
  });

  it("lists only files that exist among the differences from the names", () => {
    for (const name of Object.keys(DIFFERS_FROM_NAME)) expect(files).toContain(name);
  });
});
