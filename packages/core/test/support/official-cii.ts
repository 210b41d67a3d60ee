// Test and bench support: the official rules for UN/CEFACT CII D16B invoices (CEN EN 16931 CII 1.3.16 always, XRechnung
// 3.0.2 CII when the guideline id (BT-24) is XRechnung's, with the severities of KoSIT's validator configuration for
// XRechnung CII), precompiled for SaxonJS (testdata/rules, NOTICE-CII.md), run with the SaxonJS of the `xslt3`
// devDependency. The CII counterpart of official.ts. Never a runtime dependency: tests compare our CII rules with these
// verdicts and build expectation files with them; the bench compares their speed.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { RULE_SETS, rulesPath } from "../../../../testdata/index.js";

const require = createRequire(createRequire(import.meta.url).resolve("xslt3"));
const SaxonJS = require("saxon-js") as {
  transform(options: Record<string, unknown>, mode: "sync"): { principalResult: unknown };
  XPath: { evaluate(xpath: string, context: unknown, options?: Record<string, unknown>): unknown };
};

export const CII_NS = "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100";
const RAM = "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100";
const UDT = "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100";
export const XRECHNUNG = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0";
export const XRECHNUNG_EXT = `${XRECHNUNG}#conformant#urn:xeinkauf.de:kosit:extension:xrechnung_3.0`;
export const XRECHNUNG_CVD = `${XRECHNUNG}#compliant#urn:xeinkauf.de:kosit:xrechnung:cvd_`;
/** The rule-set names of the verdicts (the official sets' own names). */
export const CII_RULESETS = { cen: "CEN-EN16931-CII-1.3.16", xrechnung: "XRECHNUNG-CII-3.0.2" } as const;
const SEF = { [CII_RULESETS.cen]: RULE_SETS.ciiCen, [CII_RULESETS.xrechnung]: RULE_SETS.ciiXrechnung } as const;

const SR = ["CII-SR-452", "CII-SR-453", "CII-SR-454"];
/**
 * KoSIT's validator configuration for XRechnung (itplr-kosit/validator-configuration-xrechnung v2026-01-31,
 * scenarios.xml <customLevel>) for CII, by scenario. "error" is fatal; "information" is neither fatal nor warning.
 */
export const KOSIT_CII_LEVELS: Record<"standard" | "extension" | "cvd", Record<string, "fatal" | "warning" | "information">> = {
  standard: { "BR-CL-21": "warning", "BR-CL-23": "warning", ...Object.fromEntries(SR.map((id) => [id, "fatal" as const])) },
  extension: {
    "BR-CL-23": "warning",
    ...Object.fromEntries(["BR-CL-10", "BR-CL-11", "BR-CL-21", "BR-CL-24", "BR-CL-25", "BR-CL-26"].map((id) => [id, "information" as const])),
    ...Object.fromEntries(SR.map((id) => [id, "fatal" as const])),
  },
  cvd: { "BR-CL-13": "information", "BR-CL-21": "warning", "BR-CL-23": "warning", ...Object.fromEntries(SR.map((id) => [id, "fatal" as const])) },
};
/** Which KoSIT scenario an XRechnung guideline id selects. */
export const kositScenario = (g: string | null): "standard" | "extension" | "cvd" => (g === XRECHNUNG_EXT ? "extension" : g?.startsWith(XRECHNUNG_CVD) ? "cvd" : "standard");

const sheets = new Map<string, unknown>();
const sheet = (name: string) => {
  if (!sheets.has(name)) sheets.set(name, JSON.parse(readFileSync(rulesPath(SEF[name as keyof typeof SEF]), "utf8")));
  return sheets.get(name);
};
const FIRED = "descendant-or-self::*:failed-assert ! (normalize-space(@id) || ' ' || normalize-space(@flag))";

export interface OfficialCiiVerdict {
  typeCode: string | null;
  guidelineId: string | null;
  ruleSets: string[];
  /** Sorted unique rule ids, after KoSIT's levels for an XRechnung document. */
  fatal: string[];
  warning: string[];
}

function parse(xml: string): unknown {
  const doc = SaxonJS.XPath.evaluate("parse-xml($t)", null, { params: { t: xml.replace(/^\uFEFF/, "") } });
  const root = SaxonJS.XPath.evaluate("/*", doc) as { namespaceURI?: string; localName?: string } | null;
  if (!root || root.namespaceURI !== CII_NS || root.localName !== "CrossIndustryInvoice") throw new Error("not a CII D16B CrossIndustryInvoice");
  return doc;
}
const str = (doc: unknown, xpath: string): string | null => {
  const v = SaxonJS.XPath.evaluate(`(${xpath})[1] ! normalize-space()`, doc, { namespaceContext: { rsm: CII_NS, ram: RAM, udt: UDT } });
  return typeof v === "string" ? v : null;
};

/** Every assertion one official CII rule set fails on a parsed document: [id, flag as the set gives it]. */
function fired(name: string, doc: unknown): Array<[string, string]> {
  const r = SaxonJS.transform({ stylesheetInternal: sheet(name), sourceNode: doc, destination: "raw" }, "sync");
  return (SaxonJS.XPath.evaluate(FIRED, r.principalResult, { resultForm: "array" }) as string[]).map((s) => {
    const i = s.lastIndexOf(" ");
    return [s.slice(0, i) || "(no-id)", s.slice(i + 1) || "fatal"];
  });
}

/** The official verdict on one CII document (XML text): CEN always, XRechnung CII for an XRechnung guideline id. */
export function officialCiiVerdict(xml: string): OfficialCiiVerdict {
  const doc = parse(xml);
  const guidelineId = str(doc, "/rsm:CrossIndustryInvoice/rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID");
  const typeCode = str(doc, "/rsm:CrossIndustryInvoice/rsm:ExchangedDocument/ram:TypeCode");
  const ruleSets: string[] = [CII_RULESETS.cen];
  if (guidelineId?.startsWith(XRECHNUNG)) ruleSets.push(CII_RULESETS.xrechnung);
  const all = ruleSets.flatMap((name) => fired(name, doc));
  const levels: Record<string, string> = ruleSets.includes(CII_RULESETS.xrechnung) ? KOSIT_CII_LEVELS[kositScenario(guidelineId)] : {};
  const level = (flag: string) => (flag === "warning" ? "warning" : flag === "information" || flag === "info" ? "information" : "fatal");
  const final = all.map(([id, flag]) => [id, levels[id] ?? level(flag)] as const);
  const uniq = (a: string[]) => [...new Set(a)].sort();
  return {
    typeCode,
    guidelineId,
    ruleSets,
    fatal: uniq(final.filter(([, l]) => l === "fatal").map(([id]) => id)),
    warning: uniq(final.filter(([, l]) => l === "warning").map(([id]) => id)),
  };
}

/** The ids (sorted unique, any flag) one official CII rule set alone fails on a document. */
export function officialCiiRuleSetFired(name: (typeof CII_RULESETS)[keyof typeof CII_RULESETS], xml: string): string[] {
  return [...new Set(fired(name, parse(xml)).map(([id]) => id))].sort();
}

/** What one official CII rule set alone fails on a document, by the flags its assertions carry: sorted unique ids. */
export function officialCiiRuleSetVerdict(name: (typeof CII_RULESETS)[keyof typeof CII_RULESETS], xml: string): { fatal: string[]; warning: string[] } {
  const all = fired(name, parse(xml));
  const uniq = (a: string[]) => [...new Set(a)].sort();
  return { fatal: uniq(all.filter(([, f]) => f !== "warning" && f !== "information" && f !== "info").map(([id]) => id)), warning: uniq(all.filter(([, f]) => f === "warning").map(([id]) => id)) };
}

/**
 * What some patterns of one official CII rule set fail on a document, by their assertions' flags: the patterns' XSLT
 * modes (the ISO skeleton compiles each pattern to a mode: for CEN CII, M10 the model, M11 the syntax, M12 the code
 * lists) applied to the document alone. Patterns are independent, so this is the set's verdict on them, also for a
 * document on which another pattern stops with a dynamic error.
 */
export function officialCiiPatternsVerdict(name: (typeof CII_RULESETS)[keyof typeof CII_RULESETS], xml: string, modes: readonly string[]): { fatal: string[]; warning: string[] } {
  const doc = parse(xml);
  const all = modes.flatMap((mode) => {
    const r = SaxonJS.transform({ stylesheetInternal: sheet(name), sourceNode: doc, destination: "raw", initialMode: mode }, "sync");
    const items = Array.isArray(r.principalResult) ? (r.principalResult as unknown[]) : r.principalResult == null ? [] : [r.principalResult];
    return items.flatMap((item) => SaxonJS.XPath.evaluate(FIRED, item, { resultForm: "array" }) as string[]).map((s) => {
      const i = s.lastIndexOf(" ");
      return [s.slice(0, i) || "(no-id)", s.slice(i + 1) || "fatal"] as const;
    });
  });
  const uniq = (a: string[]) => [...new Set(a)].sort();
  return { fatal: uniq(all.filter(([, f]) => f !== "warning" && f !== "information" && f !== "info").map(([id]) => id)), warning: uniq(all.filter(([, f]) => f === "warning").map(([id]) => id)) };
}

/** The same as `officialCiiRuleSetVerdict` (the name the model rules' test uses). */
export const officialCiiRuleSetFindings = officialCiiRuleSetVerdict;
