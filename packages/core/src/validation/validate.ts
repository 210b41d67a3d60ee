// validateModel: the official verdict of the registered rule sets that apply to the document
// (rulesets/: EN 16931 always, Peppol BIS Billing 3.0 and national CIUS when the CustomizationID says
// so), on the model the reader builds in one pass (document/model.ts, the only thing of document/ the
// rules read; document/validate.ts reads the document and calls this). Pure: no store.
import { requireBoundedDecimals } from "./bounds.js";
import { orderByCause } from "./causes.js";
import { runRulesCounted, type RuleCount } from "./engine.js";
import { normalizeSpace, stringValue, child, first, locationOf, rootElementOf, type Finding, type RuleFamily, type DocumentNode } from "../document/model.js";
import { familiesOf, levelsOf, ruleSetsApplying, uncheckedSpecification } from "./rulesets/select.js";
import type { DocumentRoot, RuleLevel, RuleSet, RuleSyntax } from "./rulesets/types.js";

/** One broken rule, as the report and the submit error list it. */
export interface ValidationItem {
  /** The official rule id, such as "BR-CO-10" or "PEPPOL-EN16931-R001". */
  rule: string;
  /** What is wrong, naming the values involved. */
  message: string;
  /** Where, such as `/Invoice/cac:InvoiceLine[3]/cbc:LineExtensionAmount`. */
  location: string;
}

/** A UBL document's root element. */
export type UblRoot = "Invoice" | "CreditNote";

/** Where BT-24 (the specification identifier) is in a CII document. */
export const CII_GUIDELINE_PATH = "rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID";

/** What `validateInvoice` returns. */
export interface ValidationReport {
  /** True when no fatal rule is broken (warnings do not count). */
  valid: boolean;
  /** The document's syntax: "ubl" or "cii" (the syntax whose rule sets judged it). */
  syntax: RuleSyntax;
  /** The document's root element: a UBL Invoice or CreditNote, or a CII CrossIndustryInvoice. */
  rootElement: DocumentRoot;
  /** @deprecated The same as `rootElement`, under its former name (kept in the API's answers for existing clients). */
  documentType: DocumentRoot;
  /** The document's specification identifier (BT-24: UBL's cbc:CustomizationID, CII's guideline id), whitespace-normalised, or null when it has none. */
  customizationId: string | null;
  /** The ids of the rule sets that were applied, in run order: the CEN one always, then those the CustomizationID selects. */
  ruleSets: string[];
  /** Broken fatal rules, in the order the rule sets report them. */
  errors: ValidationItem[];
  /** Broken warning rules. */
  warnings: ValidationItem[];
  /** How many fatal findings there are in all (`errors` may list only the first: see `truncated`). */
  errorCount: number;
  /** How many warnings there are in all. */
  warningCount: number;
  /** Every broken rule with its flag and how many times it is broken, in the order first reported. */
  ruleCounts: RuleCount[];
  /** True when `errors` or `warnings` lists fewer items than there are (the report was capped). */
  truncated: boolean;
}

/** The rule id of the warning that says a specification's own rules were not checked. */
export const UNCHECKED_RULES = "EINVOICE-RULESET-MISSING";

/**
 * Runs the registered rule sets that apply (rulesets/index.ts) on the model of a UBL Invoice or
 * CreditNote: each set whose `appliesTo` matches cbc:CustomizationID, with the sets it is basedOn,
 * each once, bases first. A CustomizationID naming a specification none of them covers gets a
 * warning (`EINVOICE-RULESET-MISSING`) saying which rules were not checked. A number longer than the rules
 * read (`MAX_INTEGER_DIGITS`, `MAX_FRACTION_DIGITS`) is `invalid_ubl_xml`, thrown before any rule runs.
 * `maxItems` keeps the first n findings of each flag (all are counted); by default every one is listed.
 */
export function validateModel(root: DocumentNode, options: { maxItems?: number } = {}): ValidationReport {
  requireBoundedDecimals(root);
  const maxItems = options.maxItems ?? Infinity;
  const rootElement = rootElementOf(root);
  const syntax: RuleSyntax = rootElement === "CrossIndustryInvoice" ? "cii" : "ubl";
  const cid = syntax === "cii" ? first(root, CII_GUIDELINE_PATH) : child(root, "cbc:CustomizationID");
  const customizationId = cid === null ? null : normalizeSpace(stringValue(cid));
  const { sets, unchecked, families, levels } = planFor(customizationId, rootElement, syntax);
  const run = runRulesCounted(root, families, maxItems, levels);
  const errors: ValidationItem[] = [];
  const warnings: ValidationItem[] = [];
  // The warning that rules were not checked comes first: it takes one of the warnings' places.
  if (unchecked !== null) {
    warnings.push(uncheckedItem(unchecked, sets, locationOf(cid ?? root)));
    run.warningCount++;
    run.counts.unshift({ rule: UNCHECKED_RULES, flag: "warning", count: 1 });
  }
  for (const f of run.findings) {
    const list = f.flag === "fatal" ? errors : warnings;
    if (list.length < maxItems) list.push(item(f));
  }
  return {
    valid: run.errorCount === 0,
    syntax,
    rootElement,
    documentType: rootElement,
    customizationId,
    ruleSets: sets.map((s) => s.id),
    errors: orderByCause(errors, MAX_ITEM_CHARS),
    warnings,
    errorCount: run.errorCount,
    warningCount: run.warningCount,
    ruleCounts: run.counts,
    truncated: errors.length < run.errorCount || warnings.length < run.warningCount,
  };
}

/** What runs on a document with this CustomizationID and root: the same for every such document. */
interface Plan {
  sets: RuleSet[];
  unchecked: string | null;
  families: RuleFamily[];
  levels: Readonly<Record<string, RuleLevel>> | null;
}

// The plans of the CustomizationIDs seen, made once each (a few are in use; past PLANS_KEPT, they are made per document).
const plans = new Map<string, Plan>();
const PLANS_KEPT = 256;

function planFor(customizationId: string | null, rootElement: DocumentRoot, syntax: RuleSyntax): Plan {
  const key = `${rootElement} ${customizationId ?? "\u0000none"}`;
  let plan = plans.get(key);
  if (plan === undefined) {
    const sets = ruleSetsApplying(customizationId, undefined, syntax);
    plan = {
      sets,
      unchecked: uncheckedSpecification(customizationId, sets),
      families: familiesOf(sets),
      levels: levelsOf(sets, { rootElement, customizationId }),
    };
    if (plans.size < PLANS_KEPT) plans.set(key, plan);
  }
  return plan;
}

function uncheckedItem(spec: string, sets: readonly RuleSet[], location: string): ValidationItem {
  const ran = sets.map((s) => `${s.title} (${s.id})`).join(", ");
  return {
    rule: UNCHECKED_RULES,
    message: `The CustomizationID says the document follows ${spec}, whose own rules einvoice does not have: it was checked against ${ran} only, and the rules of ${spec} were not checked. Check them with that specification's validator before sending.`,
    location,
  };
}

/** A message or location longer than this is cut (a rule may quote a value of the document). */
export const MAX_ITEM_CHARS = 1000;

const cut = (s: string): string => (s.length > MAX_ITEM_CHARS ? s.slice(0, MAX_ITEM_CHARS - 3) + "..." : s);

function item(f: Finding): ValidationItem {
  return { rule: f.rule, message: cut(f.message), location: cut(f.location) };
}
