// Rule family: BR-CL-* of the CEN EN 16931 CII rules 1.3.16 (pattern Codesmodel), on the CII tree (prefixes rsm:, ram:, udt:, qdt:; document/model.ts).
import type { RuleFamily } from "../../document/model.js";

export const ciiCodeRules: RuleFamily = () => {};
