// What a rule set declares to the registry (index.ts): its identity, the documents it applies to,
// the sets it builds on, and its rule families. One module per set; see docs/validation.md.
import type { RuleFamily } from "../../document/model.js";

/** The XML syntaxes rule sets are written for. */
export type RuleSyntax = "ubl" | "cii";

/** The root element of a document the rules judge: a UBL Invoice or CreditNote, or a CII CrossIndustryInvoice. */
export type DocumentRoot = "Invoice" | "CreditNote" | "CrossIndustryInvoice";

/** A rule's severity: "information" is reported neither as an error nor as a warning. */
export type RuleLevel = "fatal" | "warning" | "information";

export interface RuleSet {
  /** The id reported in `ruleSets`, e.g. "CEN-EN16931-UBL-2026.5", "NLCIUS-SI-UBL-2.0.3.13". */
  readonly id: string;
  /** Human name for docs and reports. */
  readonly title: string;
  readonly version: string;
  /**
   * The syntax whose tree the set's rules read (document/syntaxes/: "ubl" or "cii"), as the official Schematron
   * of that syntax does: a set runs only on documents of its syntax.
   */
  readonly syntax: RuleSyntax;
  /** Licence of the official source the rules were written from. */
  readonly licence: string;
  /** The CustomizationIDs the set is documented for. */
  readonly customizationIds: readonly string[];
  /** Whether the set applies to a document with this (whitespace-normalised) CustomizationID, null for none. */
  appliesTo(customizationId: string | null): boolean;
  /** Ids of the sets that run before this one and always run with it, e.g. ["CEN-EN16931-UBL-2026.5"]. */
  readonly basedOn: readonly string[];
  /** The rule families by name (names are for reports and the per-family benchmark). */
  readonly families: Readonly<Record<string, RuleFamily>>;
  /**
   * Severities this set's official validator configuration gives, overriding the rules' own flags, also for rules
   * of the sets it is based on (KoSIT's scenarios.xml `customLevel` for XRechnung), for one document.
   */
  levels?(document: { rootElement: DocumentRoot; customizationId: string | null }): Readonly<Record<string, RuleLevel>>;
}
