// Who may use the Peppol API: the default policy, replaceable through the options.
import type { Company } from "./types.js";

export type EligibilityCode = "enterprise_required" | "subscription_upgrade_required" | "peppol_country_not_supported";

export interface EligibilityRefusal {
  code: EligibilityCode;
  message: string;
}

/** Decides whether a company may submit; null means yes. */
export type EligibilityPolicy = (company: Company) => EligibilityRefusal | null | Promise<EligibilityRefusal | null>;

export const PEPPOL_COUNTRIES: readonly string[] = ["NL", "BE", "DE"];

/**
 * The default policy, checked in this order: an enterprise customer, on the `pro` subscription,
 * in NL, BE or DE.
 */
export const defaultEligibility: EligibilityPolicy = (company) => {
  if (!company.enterprise) {
    return {
      code: "enterprise_required",
      message: "The Peppol API is for enterprise customers only; ask your account manager to make this company an enterprise customer.",
    };
  }
  if (company.subscription !== "pro") {
    return {
      code: "subscription_upgrade_required",
      message: `The Peppol API needs the pro subscription; this company is on ${company.subscription}. Upgrade the subscription to submit invoices.`,
    };
  }
  if (!PEPPOL_COUNTRIES.includes(company.country)) {
    return {
      code: "peppol_country_not_supported",
      message: `Peppol sending is offered to companies in ${PEPPOL_COUNTRIES.join(", ")}; this company is in ${company.country}.`,
    };
  }
  return null;
};
