// Rule family: BR-01..BR-65, BR-B-*, BR-CO-*, BR-DEC-* and the VAT category rules (BR-S-*, BR-Z-*, BR-E-*, BR-AE-*, BR-K-*, BR-G-*, BR-IC-*, BR-IG-*, BR-IP-*, BR-O-*) of the CEN EN 16931 CII rules 1.3.16 (pattern CII-model), on the CII tree (prefixes rsm:, ram:, udt:, qdt:; document/model.ts).
import type { RuleFamily } from "../../document/model.js";

export const ciiBusinessRules: RuleFamily = () => {};
