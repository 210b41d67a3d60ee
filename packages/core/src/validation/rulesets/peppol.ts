// Peppol BIS Billing 3.0, release 2026.5: PEPPOL-EN16931-*, PEPPOL-COMMON-* and the national rules
// of that release, for documents whose CustomizationID starts with the BIS Billing 3.0 identifier.
import { peppolRules } from "../rules/peppol.js";
import type { RuleSet } from "./types.js";

const BIS3 = "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0";

export const peppol: RuleSet = {
  id: "PEPPOL-EN16931-UBL-2026.5",
  title: "Peppol BIS Billing 3.0",
  syntax: "ubl",
  version: "2026.5 (3.0.21)",
  licence: "OpenPeppol AISBL, derived works allowed with no additional licensing requirements (OpenPEPPOL/peppol-bis-invoice-3)",
  customizationIds: [BIS3],
  appliesTo: (cid) => cid !== null && cid.startsWith(BIS3),
  basedOn: ["CEN-EN16931-UBL-2026.5"],
  families: { peppol: peppolRules },
};
