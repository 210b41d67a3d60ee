// NLCIUS / SI-UBL 2.0 (SimplerInvoicing), release 2.0.3.13: the BR-NL-* rules and SI-UBL-2, on top of
// EN 16931, for the NLCIUS CustomizationID and the extensions of it (such as the G-account extension,
// whose own rules are then reported as not checked).
import { nlciusRules } from "../rules/nlcius.js";
import type { RuleSet } from "./types.js";

const NLCIUS = "urn:cen.eu:en16931:2017#compliant#urn:fdc:nen.nl:nlcius:v1.0";

export const nlcius: RuleSet = {
  id: "NLCIUS-SI-UBL-2.0.3.13",
  title: "NLCIUS / SI-UBL 2.0 (SimplerInvoicing)",
  syntax: "ubl",
  version: "2.0.3.13",
  licence: "MIT (Stichting Simplerinvoicing, peppolautoriteit-nl/validation)",
  customizationIds: [NLCIUS],
  appliesTo: (cid) => cid === NLCIUS || (cid !== null && cid.startsWith(`${NLCIUS}#`)),
  basedOn: ["CEN-EN16931-UBL-2026.5"],
  families: { nlcius: nlciusRules },
};
