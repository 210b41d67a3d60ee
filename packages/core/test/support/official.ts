// Test and bench support: the official EN 16931 (CEN UBL) and Peppol BIS Billing 3.0 (2026.5) rules
// themselves, precompiled for SaxonJS (../shared/oracle/rules, beside the corpus), run with the
// SaxonJS that the `xslt3` devDependency (2.7.0) brings. Never a runtime dependency: tests compare our
// rules with these verdicts, the bench compares their speed.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { CORPUS_DIR } from "./corpus.js";

const require = createRequire(createRequire(import.meta.url).resolve("xslt3"));
// SaxonJS has no type declarations; the three calls used here are typed below.
const SaxonJS = require("saxon-js") as {
  transform(options: Record<string, unknown>, mode: "sync"): { principalResult: unknown };
  XPath: { evaluate(xpath: string, context: unknown, options?: Record<string, unknown>): unknown };
};

export const OFFICIAL_RULES_DIR = resolve(CORPUS_DIR, "..", "oracle", "rules");
export const PEPPOL_BIS3 = "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0";
const SETS = { cen: "CEN-EN16931-UBL-2026.5", peppol: "PEPPOL-EN16931-UBL-2026.5" } as const;
const sheets = new Map<string, unknown>();
const sheet = (name: string) => {
  if (!sheets.has(name)) sheets.set(name, JSON.parse(readFileSync(resolve(OFFICIAL_RULES_DIR, `${name}.sef.json`), "utf8")));
  return sheets.get(name);
};
const FIRED = "descendant-or-self::*:failed-assert ! (string(@id) || ' ' || string(@flag))";

export interface OfficialVerdict {
  ruleSets: string[];
  fatal: string[];
  warning: string[];
}

/** The official verdict on one document (XML text): sorted unique fatal and warning rule ids. */
export function officialVerdict(xml: string): OfficialVerdict {
  const doc = SaxonJS.XPath.evaluate("parse-xml($t)", null, { params: { t: xml } });
  const cid = SaxonJS.XPath.evaluate(
    "/*/*[local-name() = 'CustomizationID' and namespace-uri() = 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2'][1] ! normalize-space()",
    doc,
  );
  const ruleSets = typeof cid === "string" && cid.startsWith(PEPPOL_BIS3) ? [SETS.cen, SETS.peppol] : [SETS.cen];
  const fired: Array<[string, string]> = [];
  for (const name of ruleSets) {
    const r = SaxonJS.transform({ stylesheetInternal: sheet(name), sourceNode: doc, destination: "raw" }, "sync");
    for (const s of SaxonJS.XPath.evaluate(FIRED, r.principalResult, { resultForm: "array" }) as string[]) {
      const [id, flag] = s.split(" ");
      fired.push([id!, flag || "fatal"]);
    }
  }
  const uniq = (a: string[]) => [...new Set(a)].sort();
  return {
    ruleSets,
    fatal: uniq(fired.filter(([, f]) => f !== "warning").map(([id]) => id)),
    warning: uniq(fired.filter(([, f]) => f === "warning").map(([id]) => id)),
  };
}
