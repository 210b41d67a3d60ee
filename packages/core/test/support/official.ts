// Test and bench support: the official EN 16931 (CEN UBL) and Peppol BIS Billing 3.0 (2026.5) rules,
// and the national CIUS rules (CEN plus the national set, chosen by the exact CustomizationID as the
// oracle's national.mjs does), themselves, precompiled for SaxonJS (testdata/rules), run with the
// SaxonJS that the `xslt3` devDependency (2.7.0) brings. Never a runtime dependency: tests compare our
// rules with these verdicts, the bench compares their speed.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { RULE_SETS, RULES_DIR, rulesPath } from "../../../../testdata/index.js";

const require = createRequire(createRequire(import.meta.url).resolve("xslt3"));
// SaxonJS has no type declarations; the three calls used here are typed below.
const SaxonJS = require("saxon-js") as {
  transform(options: Record<string, unknown>, mode: "sync"): { principalResult: unknown };
  XPath: { evaluate(xpath: string, context: unknown, options?: Record<string, unknown>): unknown };
};

export const OFFICIAL_RULES_DIR = RULES_DIR;
export const PEPPOL_BIS3 = "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0";
const SETS = { cen: RULE_SETS.cen, peppol: RULE_SETS.peppol } as const;
/** The national sets by exact (whitespace-normalised) CustomizationID: CEN runs first, then this one. */
export const NATIONAL_OFFICIAL: Readonly<Record<string, (typeof RULE_SETS)[keyof typeof RULE_SETS]>> = {
  "urn:cen.eu:en16931:2017#compliant#urn:fdc:nen.nl:nlcius:v1.0": RULE_SETS.nlcius,
};
const sheets = new Map<string, unknown>();
const sheet = (name: (typeof RULE_SETS)[keyof typeof RULE_SETS]) => {
  if (!sheets.has(name)) sheets.set(name, JSON.parse(readFileSync(rulesPath(name), "utf8")));
  return sheets.get(name);
};
// The id of each failed assertion (a few SI-UBL ones have none: then the "[ID]" opening their text) and its flag.
const FIRED = `descendant-or-self::*:failed-assert ! ((if (normalize-space(@id)) then normalize-space(@id) else
  (let $t := normalize-space(string-join(*:text, ' ')) return if (matches($t, '^\\[[^\\]]+\\]')) then replace($t, '^\\[([^\\]]+)\\].*$', '$1') else '(no-id)'))
  || ' ' || normalize-space(@flag))`;

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
  const national = typeof cid === "string" ? NATIONAL_OFFICIAL[cid] : undefined;
  const ruleSets = national ? [SETS.cen, national] : typeof cid === "string" && cid.startsWith(PEPPOL_BIS3) ? [SETS.cen, SETS.peppol] : [SETS.cen];
  const fired: Array<[string, string]> = [];
  for (const name of ruleSets) {
    const r = SaxonJS.transform({ stylesheetInternal: sheet(name), sourceNode: doc, destination: "raw" }, "sync");
    for (const s of SaxonJS.XPath.evaluate(FIRED, r.principalResult, { resultForm: "array" }) as string[]) {
      const i = s.lastIndexOf(" ");
      fired.push([s.slice(0, i), s.slice(i + 1) || "fatal"]);
    }
  }
  const uniq = (a: string[]) => [...new Set(a)].sort();
  return {
    ruleSets,
    // "information" (XRechnung's BR-DE-TMP-32) is neither fatal nor warning
    fatal: uniq(fired.filter(([, f]) => f !== "warning" && f !== "information" && f !== "info").map(([id]) => id)),
    warning: uniq(fired.filter(([, f]) => f === "warning").map(([id]) => id)),
  };
}

/**
 * The oracle of the developer scripts (scripts/rules-*.ts, …): officialVerdict, or the `officialValidate`
 * of another oracle module (an `official.mjs` given with `--oracle` or `ORACLE`) when `path` is set.
 */
export async function officialOracle(path: string | undefined): Promise<(xml: string) => Omit<OfficialVerdict, "ruleSets">> {
  if (!path) return officialVerdict;
  const mod = (await import(path)) as { officialValidate: (xml: string) => Omit<OfficialVerdict, "ruleSets"> };
  return mod.officialValidate;
}
