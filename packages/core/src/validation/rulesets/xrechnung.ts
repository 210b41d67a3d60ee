// XRechnung 3.0.2 (KoSIT XRechnung Schematron 2.5.0, UBL): BR-DE-*, BR-DEX-* (the extension), BR-TMP-2 and the
// Peppol rules XRechnung takes over, for the CIUS and its extension. CEN always runs with it. The severities are
// those KoSIT's validator configuration for XRechnung (release 2026-01-31, scenarios.xml <customLevel>) gives, the
// verdict German buyers' validators give: they also change the level of some CEN rules.
import { xrechnungCvdRules, xrechnungExtensionRules, xrechnungRules } from "../rules/xrechnung.js";
import { xrechnungPeppolRules } from "../rules/xrechnung-peppol.js";
import { XR_CIUS_ID, XR_EXTENSION_ID } from "../rules/xrechnung-support.js";
import type { RuleLevel, RuleSet } from "./types.js";

const information = (ids: string[]): Record<string, RuleLevel> => Object.fromEntries(ids.map((id) => [id, "information" as const]));

/** KoSIT scenarios.xml (validator-configuration-xrechnung v2026-01-31), by scenario. BR-DE-TMP-32 is flagged information in the rules. */
export const KOSIT_LEVELS = {
  invoice: { "BR-CL-21": "warning", "BR-CL-23": "warning", "UBL-CR-646": "fatal", "BR-DE-TMP-32": "information" },
  creditNote: { "BR-CL-21": "warning", "BR-CL-23": "warning", "BR-DE-TMP-32": "information" },
  // KoSIT has no extension scenario for credit notes; the extension's levels apply to both.
  extension: {
    "BR-CL-23": "warning",
    ...information(["BR-CL-10", "BR-CL-11", "BR-CL-21", "BR-CL-24", "BR-CL-25", "BR-CL-26", "BR-CO-16", "UBL-CR-470", "UBL-CR-646", "BR-DE-TMP-32"]),
  },
} as const satisfies Record<string, Readonly<Record<string, RuleLevel>>>;

export const xrechnung: RuleSet = {
  id: "XRECHNUNG-UBL-3.0.2",
  title: "XRechnung 3.0.2",
  syntax: "ubl",
  version: "3.0.2 (KoSIT XRechnung Schematron 2.5.0; validator configuration 2026-01-31)",
  licence: "Apache-2.0 (KoSIT, itplr-kosit/xrechnung-schematron and itplr-kosit/validator-configuration-xrechnung)",
  customizationIds: [XR_CIUS_ID, XR_EXTENSION_ID],
  appliesTo: (cid) => cid === XR_CIUS_ID || cid === XR_EXTENSION_ID,
  basedOn: ["CEN-EN16931-UBL-2026.5"],
  families: { xrechnung: xrechnungRules, extension: xrechnungExtensionRules, cvd: xrechnungCvdRules, peppol: xrechnungPeppolRules },
  levels: ({ rootElement, customizationId }) =>
    customizationId === XR_EXTENSION_ID ? KOSIT_LEVELS.extension : rootElement === "CreditNote" ? KOSIT_LEVELS.creditNote : KOSIT_LEVELS.invoice,
};
