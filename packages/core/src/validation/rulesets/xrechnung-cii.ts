// XRechnung 3.0.2 for UN/CEFACT CII (KoSIT XRechnung Schematron 2.5.0, XRechnung-CII-validation.sch): BR-DE-*, BR-DEX-*
// (the extension), BR-DE-CVD-* (CVD), BR-TMP-*, BR-DE-TMP-32 and the Peppol rules XRechnung takes over, for CII documents
// whose guideline id (BT-24) is XRechnung 3.0's: the CIUS, its extension and CVD, as KoSIT's CII scenarios select them.
// The CEN CII set always runs with it. The severities are those of KoSIT's validator configuration for XRechnung
// (release 2026-01-31, scenarios.xml <customLevel>, the CII scenarios), which also change the level of some CEN rules.
import { xrechnungCiiCvdRules, xrechnungCiiExtensionRules, xrechnungCiiPeppolRules, xrechnungCiiRules } from "../rules/xrechnung-cii.js";
import { XR_CIUS_ID, XR_CVD_ID, XR_EXTENSION_ID } from "../rules/xrechnung-support.js";
import type { RuleLevel, RuleSet } from "./types.js";

const levelled = (level: RuleLevel, ids: string[]): Record<string, RuleLevel> => Object.fromEntries(ids.map((id) => [id, level]));
const CII_SR = levelled("fatal", ["CII-SR-452", "CII-SR-453", "CII-SR-454"]);

/**
 * KoSIT scenarios.xml (validator-configuration-xrechnung v2026-01-31) for CII, by scenario. BR-DE-TMP-32 is flagged
 * information in the rules themselves (reported by our family as a warning, levelled here).
 */
export const KOSIT_CII_LEVELS = {
  standard: { "BR-CL-21": "warning", "BR-CL-23": "warning", ...CII_SR, "BR-DE-TMP-32": "information" },
  extension: {
    "BR-CL-23": "warning",
    ...levelled("information", ["BR-CL-10", "BR-CL-11", "BR-CL-21", "BR-CL-24", "BR-CL-25", "BR-CL-26"]),
    ...CII_SR,
    "BR-DE-TMP-32": "information",
  },
  cvd: { "BR-CL-13": "information", "BR-CL-21": "warning", "BR-CL-23": "warning", ...CII_SR, "BR-DE-TMP-32": "information" },
} as const satisfies Record<"standard" | "extension" | "cvd", Readonly<Record<string, RuleLevel>>>;

/** KoSIT's CII scenario of an XRechnung guideline id: the extension's, CVD's (any CVD version), else the standard one. */
export function kositCiiScenario(guidelineId: string | null): keyof typeof KOSIT_CII_LEVELS {
  if (guidelineId === XR_EXTENSION_ID) return "extension";
  if (guidelineId !== null && guidelineId.startsWith(`${XR_CIUS_ID}#compliant#urn:xeinkauf.de:kosit:xrechnung:cvd_`)) return "cvd";
  return "standard";
}

export const xrechnungCii: RuleSet = {
  id: "XRECHNUNG-CII-3.0.2",
  title: "XRechnung 3.0.2 (CII)",
  syntax: "cii",
  version: "3.0.2 (KoSIT XRechnung Schematron 2.5.0; validator configuration 2026-01-31)",
  licence: "Apache-2.0 (KoSIT, itplr-kosit/xrechnung-schematron and itplr-kosit/validator-configuration-xrechnung)",
  customizationIds: [XR_CIUS_ID, XR_EXTENSION_ID, XR_CVD_ID],
  // KoSIT's CII scenarios: every guideline id that starts with XRechnung 3.0's (the CIUS, the extension, CVD).
  appliesTo: (cid) => cid !== null && cid.startsWith(XR_CIUS_ID),
  basedOn: ["CEN-EN16931-CII-1.3.16"],
  families: { xrechnung: xrechnungCiiRules, extension: xrechnungCiiExtensionRules, cvd: xrechnungCiiCvdRules, peppol: xrechnungCiiPeppolRules },
  levels: ({ customizationId }) => KOSIT_CII_LEVELS[kositCiiScenario(customizationId)],
};
