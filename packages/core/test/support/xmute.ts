// The official XRechnung Schematron unit tests (itplr-kosit/xrechnung-schematron v2.5.0, test/instances/ubl-*,
// copied to testdata/xrechnung/schematron-tests) are documents with XML-Mutate instructions: each
// `<?xmute mutator="..." schematron-valid|invalid="xrubl:RULE ..." ?>` changes the element that follows it
// (identity: nothing; remove: drop it; empty: clear its text or an attribute; code: set its text or an attribute
// to each of `values`, split on `separator`, "," by default; whitespace: pad its text) and asserts that the rules
// fire (invalid) or stay silent (valid) on the result. This expands each instruction into its mutants, with xmldom
// (the test's own reader, independent of the code under test).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DOMParser, XMLSerializer, type Element, type Node, type ProcessingInstruction } from "@xmldom/xmldom";
import { TESTDATA_DIR } from "../../../../testdata/index.js";

export const XRECHNUNG_TESTDATA = join(TESTDATA_DIR, "xrechnung");
export const SCHEMATRON_TESTS = join(XRECHNUNG_TESTDATA, "schematron-tests");
export const SCHEMATRON_TEST_DIRS = ["ubl-inv", "ubl-cn"];
/**
 * The UBL test instances of KoSIT's validator configuration for XRechnung (v2026-01-31, src/test; copied to
 * testdata/xrechnung/validator-configuration-tests): they assert CEN rules ("cenubl:") and XRechnung rules ("xrubl:").
 */
export const VALIDATOR_CONFIGURATION_TESTS = join(XRECHNUNG_TESTDATA, "validator-configuration-tests");
export const VALIDATOR_CONFIGURATION_TEST_DIRS = ["cen-unit-test", "instances", "unexpected"];

export interface Mutant {
  /** `<dir>/<file>#<n>` plus `:<value>` for one of several values. */
  id: string;
  xml: string;
  /** Rules that must fire (ids without the "xrubl:"/"cenubl:" prefix). */
  invalid: string[];
  /** Rules that must stay silent. */
  valid: string[];
}

function attributes(data: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of data.matchAll(/([\w-]+)\s*=\s*"([^"]*)"/g)) out[m[1]!] = m[2]!;
  return out;
}

const rules = (s: string | undefined): string[] =>
  (s ?? "").split(/\s+/).filter(Boolean).map((r) => r.replace(/^[a-z]+:/, ""));

function nextElement(n: Node): Element | null {
  for (let s = n.nextSibling; s; s = s.nextSibling) if (s.nodeType === 1) return s as Element;
  return null;
}

function pis(n: Node, out: ProcessingInstruction[] = []): ProcessingInstruction[] {
  for (let c = n.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === 7 && (c as ProcessingInstruction).target === "xmute") out.push(c as ProcessingInstruction);
    pis(c, out);
  }
  return out;
}

/** Every mutant of one test file (`base`: SCHEMATRON_TESTS or VALIDATOR_CONFIGURATION_TESTS). */
export function mutantsOf(dir: string, file: string, base = SCHEMATRON_TESTS): Mutant[] {
  const text = readFileSync(join(base, dir, file), "utf8");
  const count = pis(new DOMParser().parseFromString(text, "text/xml")).length;
  const out: Mutant[] = [];
  for (let i = 0; i < count; i++) {
    // A fresh tree per instruction: each mutant applies its own instruction only.
    const probe = pis(new DOMParser().parseFromString(text, "text/xml"))[i]!;
    const a = attributes(probe.data);
    const values = a.mutator === "code" ? (a.values ?? "").split(a.separator ?? ",").map((v) => v.trim()) : [null];
    values.forEach((value, v) => {
      const doc = new DOMParser().parseFromString(text, "text/xml");
      const all = pis(doc);
      const pi = all[i]!;
      const target = nextElement(pi);
      if (target) {
        switch (a.mutator) {
          case "remove": target.parentNode!.removeChild(target); break;
          case "empty":
            if (a.attribute) target.setAttribute(a.attribute, "");
            else while (target.firstChild) target.removeChild(target.firstChild);
            break;
          case "code":
            if (a.attribute) target.setAttribute(a.attribute, value!);
            else target.textContent = value!;
            break;
          case "whitespace": target.textContent = `  ${target.textContent ?? ""}  `; break;
          default: break; // identity
        }
      }
      for (const p of all) p.parentNode!.removeChild(p);
      out.push({
        id: `${dir}/${file}#${i + 1}${values.length > 1 ? `.${v + 1}:${value}` : ""}`,
        xml: new XMLSerializer().serializeToString(doc),
        invalid: rules(a["schematron-invalid"]),
        valid: rules(a["schematron-valid"]),
      });
    });
  }
  return out;
}

/** Every mutant of every UBL test file, in file order. */
export function allMutants(base = SCHEMATRON_TESTS, dirs = SCHEMATRON_TEST_DIRS): Mutant[] {
  return dirs.flatMap((dir) =>
    readdirSync(join(base, dir)).filter((f) => f.endsWith(".xml")).sort().flatMap((f) => mutantsOf(dir, f, base)));
}

/** Every mutant of the validator configuration's UBL test instances. */
export function validatorConfigurationMutants(): Mutant[] {
  return allMutants(VALIDATOR_CONFIGURATION_TESTS, VALIDATOR_CONFIGURATION_TEST_DIRS);
}
