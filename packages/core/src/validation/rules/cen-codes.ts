// Rule family: BR-CL-* (code lists).
import type { RuleFamily } from "../model.js";

export const cenCodeRules: RuleFamily = () => {};
