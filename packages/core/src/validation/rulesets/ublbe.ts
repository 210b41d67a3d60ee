// UBL.BE 1.31 (GLOBALUBL.BE, published by UBL.BE): the Belgian rules ubl-BE-*, the Peppol BIS rules UBL.BE carries,
// the Peppol national rules it embeds, and where UBL.BE's own copy of the EN 16931 rules is stricter than CEN 1.3.16.
// GLOBALUBL.BE embeds its own (older) copy of the CEN rules: that part is modelled as basedOn CEN 1.3.16, which runs first, and the families here add
// only what UBL.BE checks beyond it (docs/validation-ublbe.md).
import { ublbeRules } from "../rules/ublbe.js";
import { ublbeCenRules } from "../rules/ublbe-cen.js";
import { ublbeNationalRules } from "../rules/ublbe-national.js";
import { UBLBE_CUSTOMIZATION, ublbePeppolRules } from "../rules/ublbe-peppol.js";
import { ublbeSyntaxRules } from "../rules/ublbe-syntax.js";
import type { RuleSet } from "./types.js";

export const ublbe: RuleSet = {
  id: "UBL-BE-1.31",
  title: "UBL.BE (GLOBALUBL.BE)",
  syntax: "ubl",
  version: "1.31",
  licence: "UBL.BE (ubl.be); no licence allowing redistribution found: rules written from the published Schematron, which is not bundled",
  customizationIds: [UBLBE_CUSTOMIZATION],
  appliesTo: (cid) => cid === UBLBE_CUSTOMIZATION,
  basedOn: ["CEN-EN16931-UBL-2026.5"],
  families: { belgium: ublbeRules, peppol: ublbePeppolRules, national: ublbeNationalRules, cen: ublbeCenRules, syntax: ublbeSyntaxRules },
};
