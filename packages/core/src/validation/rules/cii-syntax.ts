// Rule family: CII-SR-* and CII-DT-* of the CEN EN 16931 CII rules 1.3.16 (pattern CII-syntax), on the CII tree (prefixes rsm:, ram:, udt:, qdt:; document/model.ts).
import type { RuleFamily } from "../../document/model.js";

export const ciiSyntaxRules: RuleFamily = () => {};
