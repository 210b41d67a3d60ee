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
const XRECHNUNG = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0";
const XRECHNUNG_EXTENSION = `${XRECHNUNG}#conformant#urn:xeinkauf.de:kosit:extension:xrechnung_3.0`;
export const NATIONAL_OFFICIAL: Readonly<Record<string, (typeof RULE_SETS)[keyof typeof RULE_SETS]>> = {
  "urn:cen.eu:en16931:2017#compliant#urn:fdc:nen.nl:nlcius:v1.0": RULE_SETS.nlcius,
  [XRECHNUNG]: RULE_SETS.xrechnung,
  [XRECHNUNG_EXTENSION]: RULE_SETS.xrechnung,
};
/**
 * The levels KoSIT's validator configuration for XRechnung (itplr-kosit/validator-configuration-xrechnung v2026-01-31,
 * scenarios.xml <customLevel>) gives, by scenario: what German buyers' validators report. KoSIT has no extension
 * scenario for credit notes; the extension's levels are used for both (as the oracle's national.mjs does).
 */
const KOSIT_LEVELS: Record<string, Record<string, string>> = {
  Invoice: { "BR-CL-21": "warning", "BR-CL-23": "warning", "UBL-CR-646": "fatal" },
  CreditNote: { "BR-CL-21": "warning", "BR-CL-23": "warning" },
  extension: {
    "BR-CL-23": "warning",
    ...Object.fromEntries(["BR-CL-10", "BR-CL-11", "BR-CL-21", "BR-CL-24", "BR-CL-25", "BR-CL-26", "BR-CO-16", "UBL-CR-470", "UBL-CR-646"].map((id) => [id, "information"])),
  },
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
  if (national === RULE_SETS.xrechnung) {
    const root = SaxonJS.XPath.evaluate("local-name(/*)", doc) as string;
    const levels = KOSIT_LEVELS[cid === XRECHNUNG_EXTENSION ? "extension" : root]!;
    for (const f of fired) f[1] = levels[f[0]] ?? f[1];
  }
  const uniq = (a: string[]) => [...new Set(a)].sort();
  return {
    ruleSets,
    // "information" (XRechnung's BR-DE-TMP-32) is neither fatal nor warning
    fatal: uniq(fired.filter(([, f]) => f !== "warning" && f !== "information" && f !== "info").map(([id]) => id)),
    warning: uniq(fired.filter(([, f]) => f === "warning").map(([id]) => id)),
  };
}

/** Every assertion one official rule set alone fails on a document (its ids, sorted unique; any flag). */
export function officialRuleSetFired(name: (typeof RULE_SETS)[keyof typeof RULE_SETS], xml: string): string[] {
  const doc = SaxonJS.XPath.evaluate("parse-xml($t)", null, { params: { t: xml } });
  const r = SaxonJS.transform({ stylesheetInternal: sheet(name), sourceNode: doc, destination: "raw" }, "sync");
  const fired = SaxonJS.XPath.evaluate(FIRED, r.principalResult, { resultForm: "array" }) as string[];
  return [...new Set(fired.map((s) => s.slice(0, s.lastIndexOf(" "))))].sort();
}

/**
 * The oracle of the developer scripts (scripts/rules-*.ts, …): officialVerdict, or the `officialValidate`
 * of another oracle module (an `official.mjs` given with `--oracle` or `ORACLE`) when `path` is set.
 */
export async function officialOracle(path: string | undefined): Promise<(xml: string) => Omit<OfficialVerdict, "ruleSets">> {
  if (!path) return officialVerdict;
  // official.mjs exports officialValidate; national.mjs (CEN plus a national set, such as a locally compiled UBL.BE) nationalValidate.
  type Validate = (xml: string) => Omit<OfficialVerdict, "ruleSets">;
  const mod = (await import(path)) as { officialValidate?: Validate; nationalValidate?: Validate };
  const validate = mod.nationalValidate ?? mod.officialValidate;
  if (!validate) throw new Error(`${path} exports neither nationalValidate nor officialValidate`);
  return validate;
}
