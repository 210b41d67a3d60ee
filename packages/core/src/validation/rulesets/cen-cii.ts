// CEN EN 16931 CII rules 1.3.16 (ConnectingEurope/eInvoicing-EN16931, cii/schematron): every UN/CEFACT CII D16B
// invoice, whatever its guideline id (EN 16931 CII, XRechnung CII, Factur-X / ZUGFeRD 2.x).
import { ciiBusinessRules } from "../rules/cii-business.js";
import { ciiCodeRules } from "../rules/cii-codes.js";
import { ciiSyntaxRules } from "../rules/cii-syntax.js";
import { ciiVatRules } from "../rules/cii-vat.js";
import type { RuleSet } from "./types.js";

export const cenCii: RuleSet = {
  id: "CEN-EN16931-CII-1.3.16",
  title: "EN 16931 (CII)",
  syntax: "cii",
  version: "1.3.16",
  licence: "EUPL-1.2 (CEN/TC 434 and the European Commission, ConnectingEurope/eInvoicing-EN16931)",
  customizationIds: ["urn:cen.eu:en16931:2017"],
  appliesTo: () => true,
  basedOn: [],
  families: { business: ciiBusinessRules, vat: ciiVatRules, codes: ciiCodeRules, syntax: ciiSyntaxRules },
};
