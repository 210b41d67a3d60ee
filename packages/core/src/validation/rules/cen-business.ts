// Rule family: BR-01..BR-65 and BR-B-*, BR-CO-*, BR-DEC-*.
import type { RuleFamily } from "../model.js";

export const cenBusinessRules: RuleFamily = () => {};
