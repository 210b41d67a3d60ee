// validateModel: the official verdict of the registered rule sets that apply to the document
// (rulesets/: EN 16931 always, Peppol BIS Billing 3.0 and national CIUS when the CustomizationID says
// so), on the model the reader builds in one pass (document/model.ts, the only thing of document/ the
// rules read; document/validate.ts reads the document and calls this). Pure: no store.
import { requireBoundedDecimals } from "./bounds.js";
import { runRules } from "./engine.js";
import { normalizeSpace, stringValue, child, locationOf, type Finding, type UblNode } from "../document/model.js";
import { familiesOf, levelsOf, ruleSetsApplying, uncheckedSpecification } from "./rulesets/select.js";
import type { RuleSet } from "./rulesets/types.js";

/** One broken rule, as the report and the submit error list it. */
export interface ValidationItem {
  /** The official rule id, such as "BR-CO-10" or "PEPPOL-EN16931-R001". */
  rule: string;
  /** What is wrong, naming the values involved. */
  message: string;
  /** Where, such as `/Invoice/cac:InvoiceLine[3]/cbc:LineExtensionAmount`. */
  location: string;
}

/** A UBL document's root: the rules validate both. */
export type UblDocumentType = "Invoice" | "CreditNote";

/** What `validateInvoice` returns. */
export interface ValidationReport {
  /** True when no fatal rule is broken (warnings do not count). */
  valid: boolean;
  documentType: UblDocumentType;
  /** The document's cbc:CustomizationID (whitespace-normalised), or null when it has none. */
  customizationId: string | null;
  /** The ids of the rule sets that were applied, in run order: the CEN one always, then those the CustomizationID selects. */
  ruleSets: string[];
  /** Broken fatal rules, in the order the rule sets report them. */
  errors: ValidationItem[];
  /** Broken warning rules. */
  warnings: ValidationItem[];
}

/** The rule id of the warning that says a specification's own rules were not checked. */
export const UNCHECKED_RULES = "EINVOICE-RULESET-MISSING";

/**
 * Runs the registered rule sets that apply (rulesets/index.ts) on the model of a UBL Invoice or
 * CreditNote: each set whose `appliesTo` matches cbc:CustomizationID, with the sets it is basedOn,
 * each once, bases first. A CustomizationID naming a specification none of them covers gets a
 * warning (`EINVOICE-RULESET-MISSING`) saying which rules were not checked. A number longer than the rules
 * read (`MAX_INTEGER_DIGITS`, `MAX_FRACTION_DIGITS`) is `invalid_ubl_xml`, thrown before any rule runs.
 */
export function validateModel(root: UblNode): ValidationReport {
  requireBoundedDecimals(root);
  const documentType: UblDocumentType = root.name === "CreditNote" ? "CreditNote" : "Invoice";
  const cid = child(root, "cbc:CustomizationID");
  const customizationId = cid === null ? null : normalizeSpace(stringValue(cid));
  const sets = ruleSetsApplying(customizationId);
  const findings = runRules(root, familiesOf(sets));
  const levels = levelsOf(sets, { documentType, customizationId });
  const errors: ValidationItem[] = [];
  const warnings: ValidationItem[] = [];
  for (const f of findings) {
    const level = levels?.[f.rule] ?? f.flag;
    if (level !== "information") (level === "fatal" ? errors : warnings).push(item(f));
  }
  const unchecked = uncheckedSpecification(customizationId, sets);
  if (unchecked !== null) warnings.unshift(uncheckedItem(unchecked, sets, locationOf(cid ?? root)));
  return { valid: errors.length === 0, documentType, customizationId, ruleSets: sets.map((s) => s.id), errors, warnings };
}

function uncheckedItem(spec: string, sets: readonly RuleSet[], location: string): ValidationItem {
  const ran = sets.map((s) => `${s.title} (${s.id})`).join(", ");
  return {
    rule: UNCHECKED_RULES,
    message: `The CustomizationID says the document follows ${spec}, whose own rules einvoice does not have: it was checked against ${ran} only, and the rules of ${spec} were not checked. Check them with that specification's validator before sending.`,
    location,
  };
}

function item(f: Finding): ValidationItem {
  return { rule: f.rule, message: f.message, location: f.location };
}
