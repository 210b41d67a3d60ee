// The rule families, by rule set. CEN (EN 16931 UBL, validation artefacts 1.3.16) always applies;
// Peppol BIS Billing 3.0 (release 2026.5) when the CustomizationID says so.
import type { RuleFamily } from "../model.js";
import { cenBusinessRules } from "./cen-business.js";
import { cenCodeRules } from "./cen-codes.js";
import { cenSyntaxRules } from "./cen-syntax.js";
import { cenVatRules } from "./cen-vat.js";
import { peppolRules } from "./peppol.js";

export const CEN_RULESET = "CEN-EN16931-UBL-2026.5";
export const PEPPOL_RULESET = "PEPPOL-EN16931-UBL-2026.5";
export const PEPPOL_BIS3 = "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0";

/** The CEN families by name (names are for reports and the per-family benchmark). */
export const CEN_FAMILIES: Readonly<Record<string, RuleFamily>> = {
  business: cenBusinessRules,
  vat: cenVatRules,
  codes: cenCodeRules,
  syntax: cenSyntaxRules,
};

/** The Peppol BIS Billing 3.0 families by name. */
export const PEPPOL_FAMILIES: Readonly<Record<string, RuleFamily>> = {
  peppol: peppolRules,
};
