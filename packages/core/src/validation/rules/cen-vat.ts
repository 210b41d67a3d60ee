// Rule family: the VAT category families BR-S/Z/E/AE/IC/G/O/AF/AG-*.
import type { RuleFamily } from "../model.js";

export const cenVatRules: RuleFamily = () => {};
