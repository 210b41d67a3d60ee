// CEN EN 16931 UBL rules (the validation artefacts 1.3.16 Peppol BIS Billing 3.0 release 2026.5
// carries). Applies to every document: every CIUS and extension restricts EN 16931.
import { cenBusinessRules } from "../rules/cen-business.js";
import { cenCodeRules } from "../rules/cen-codes.js";
import { cenSyntaxRules } from "../rules/cen-syntax.js";
import { cenVatRules } from "../rules/cen-vat.js";
import type { RuleSet } from "./types.js";

export const cen: RuleSet = {
  id: "CEN-EN16931-UBL-2026.5",
  title: "EN 16931",
  syntax: "ubl",
  version: "1.3.16",
  licence: "EUPL-1.2 (CEN/TC 434 and the European Commission, ConnectingEurope/eInvoicing-EN16931)",
  customizationIds: ["urn:cen.eu:en16931:2017"],
  appliesTo: () => true,
  basedOn: [],
  families: { business: cenBusinessRules, vat: cenVatRules, codes: cenCodeRules, syntax: cenSyntaxRules },
};
