// The names the library exported before the registry, kept for its users: the CEN and Peppol set ids
// and their families by name.
import type { RuleFamily } from "../../document/model.js";
import { cen } from "./cen.js";
import { peppol } from "./peppol.js";

export const CEN_RULESET = cen.id;
export const PEPPOL_RULESET = peppol.id;
export const CEN_FAMILIES: Readonly<Record<string, RuleFamily>> = cen.families;
export const PEPPOL_FAMILIES: Readonly<Record<string, RuleFamily>> = peppol.families;
