// Rule family: UBL-CR-*, UBL-SR-*, UBL-DT-*.
import type { RuleFamily } from "../model.js";

export const cenSyntaxRules: RuleFamily = () => {};
