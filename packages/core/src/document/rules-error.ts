// The error of a document that breaks fatal rules, as submit answers it (contract row 9a).
import { ApiError } from "../domain/errors.js";
import { RULE_SETS } from "../validation/rulesets/index.js";
import type { ValidationItem, ValidationReport } from "../validation/validate.js";

/** At most this many items in the `errors` of a submit refused for broken rules, and in each list of `POST /v1/validate`'s report. */
export const MAX_REPORTED_ERRORS = 100;

/**
 * The `invalid_ubl_xml` error of a document that breaks fatal rules: the count, the rule sets (by their
 * titles; `ruleSets` are the report's ids, EN 16931 / Peppol BIS Billing 3.0 when not given) and the
 * first rule ids, and the items. `totals` (the report's counts) when `errors` lists only the first.
 */
export function rulesError(
  errors: readonly ValidationItem[],
  documentName: "invoice" | "credit note" = "invoice",
  ruleSets: readonly string[] = ["CEN-EN16931-UBL-2026.5", "PEPPOL-EN16931-UBL-2026.5"],
  totals?: Pick<ValidationReport, "errorCount" | "ruleCounts">,
): ApiError {
  const titles = ruleSets.map((id) => RULE_SETS.find((s) => s.id === id)?.title ?? id).join(" / ");
  const all = totals ? totals.ruleCounts.filter((c) => c.flag === "fatal").map((c) => c.rule) : [...new Set(errors.map((e) => e.rule))];
  const ids = all.slice(0, 5);
  const n = totals?.errorCount ?? errors.length;
  const more = all.length > ids.length ? ", ..." : "";
  return new ApiError(
    "invalid_ubl_xml",
    `The ${documentName} breaks ${n} fatal rule${n === 1 ? "" : "s"} of ${titles} (${ids.join(", ")}${more}); a receiving access point would reject it. See errors for each rule, its message and location.`,
    { errors: errors.slice(0, MAX_REPORTED_ERRORS) },
  );
}
