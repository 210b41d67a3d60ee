// Which registered rule sets run on a document: those whose appliesTo matches its CustomizationID,
// with everything they are basedOn, each once, every set after the sets it is based on.
import type { RuleFamily } from "../../document/model.js";
import { RULE_SETS } from "./index.js";
import type { DocumentRoot, RuleLevel, RuleSet, RuleSyntax } from "./types.js";

/**
 * The sets that run on a document of `syntax` with this CustomizationID (UBL's cbc:CustomizationID, CII's guideline
 * id: BT-24), in run order (basedOn first). A set runs only on its own syntax's documents.
 */
export function ruleSetsApplying(customizationId: string | null, registry: readonly RuleSet[] = RULE_SETS, syntax: RuleSyntax = "ubl"): RuleSet[] {
  const byId = new Map(registry.map((s) => [s.id, s]));
  const ordered: RuleSet[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (set: RuleSet, from: string | null): void => {
    const s = state.get(set.id);
    if (s === "done") return;
    if (s === "visiting") throw new Error(`rule set ${set.id} is basedOn itself (through ${from})`);
    if (set.syntax !== syntax) throw new Error(`rule set ${set.id} reads ${set.syntax}, but ${from ?? "a document"} is ${syntax}`);
    state.set(set.id, "visiting");
    for (const id of set.basedOn) {
      const base = byId.get(id);
      if (!base) throw new Error(`rule set ${set.id} is basedOn ${id}, which is not registered`);
      visit(base, set.id);
    }
    state.set(set.id, "done");
    ordered.push(set);
  };
  for (const set of registry) if (set.syntax === syntax && set.appliesTo(customizationId)) visit(set, null);
  return ordered;
}

/** The rule families of these sets, in order. */
export function familiesOf(sets: readonly RuleSet[]): RuleFamily[] {
  return sets.flatMap((s) => Object.values(s.families));
}

/**
 * The severities the applied sets' validator configurations give (later sets win), or null when none does: a rule
 * listed there is reported at that level instead of its own flag, "information" not at all.
 */
export function levelsOf(
  sets: readonly RuleSet[],
  document: { rootElement: DocumentRoot; customizationId: string | null },
): Readonly<Record<string, RuleLevel>> | null {
  let out: Record<string, RuleLevel> | null = null;
  for (const s of sets) if (s.levels) out = { ...(out ?? {}), ...s.levels(document) };
  return out;
}

/** The rule-set ids for a CustomizationID (what `ruleSets` of the report will say). */
export function ruleSetIdsFor(customizationId: string | null, registry: readonly RuleSet[] = RULE_SETS, syntax: RuleSyntax = "ubl"): string[] {
  return ruleSetsApplying(customizationId, registry, syntax).map((s) => s.id);
}

// "urn:cen.eu:en16931:2017#compliant#<CIUS>", "#conformant#<extension>", "#extended#<ext>"
const SPECIFICATION = /#(?:compliant|conformant|extended)#([^#]+)/g;

/** The specifications a CustomizationID names after EN 16931: "#compliant#<CIUS>", "#conformant#<extension>", ... */
function specificationsOf(customizationId: string): string[] {
  return [...customizationId.matchAll(SPECIFICATION)].map((m) => m[1]!);
}

/**
 * The specifications a CustomizationID names that none of the applied sets is documented for, joined
 * with " and ", or null when the applied sets cover it all (a plain EN 16931 id, a CIUS a set covers).
 * Such a document is checked against the sets that applied only, and the report says which rules were not.
 */
export function uncheckedSpecification(customizationId: string | null, applied: readonly RuleSet[]): string | null {
  if (customizationId === null || customizationId === "") return null;
  const covered = new Set(applied.flatMap((s) => s.customizationIds.flatMap(specificationsOf)));
  const named = specificationsOf(customizationId);
  if (named.length === 0) return applied.some((s) => s.customizationIds.includes(customizationId)) ? null : customizationId;
  const unchecked = named.filter((spec) => !covered.has(spec));
  return unchecked.length === 0 ? null : unchecked.join(" and ");
}
