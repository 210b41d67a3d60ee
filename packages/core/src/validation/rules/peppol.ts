// Rule family: PEPPOL-EN16931-*, PEPPOL-COMMON-* and the national rules of Peppol BIS Billing 3.0 release 2026.5.
import type { RuleFamily } from "../model.js";

export const peppolRules: RuleFamily = () => {};
