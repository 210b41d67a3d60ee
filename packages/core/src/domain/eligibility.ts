// Who may use the API, and each network: the default policy, replaceable through the options.
import type { Company, Network } from "./types.js";

export type EligibilityCode = "enterprise_required" | "subscription_upgrade_required" | "peppol_country_not_supported" | "ksef_country_not_supported";

export interface EligibilityRefusal {
  code: EligibilityCode;
  message: string;
}

/**
 * Decides whether a company may submit on `network` (the one the routing chose for the submission,
 * before its document is read; null when the routing chose none); null means yes.
 */
export type EligibilityPolicy = (company: Company, network: Network | null) => EligibilityRefusal | null | Promise<EligibilityRefusal | null>;

export const PEPPOL_COUNTRIES: readonly string[] = ["NL", "BE", "DE"];

/** Where a company may issue invoices through KSeF: Poland (KSeF is the Polish taxpayers' system). */
export const KSEF_COUNTRIES: readonly string[] = ["PL"];

/**
 * The default policy, checked in this order: an enterprise customer, on the `pro` subscription,
 * in a country of the network: NL, BE or DE for Peppol, PL for KSeF.
 */
export const defaultEligibility: EligibilityPolicy = (company, network) => {
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
  if (network === "ksef" && !KSEF_COUNTRIES.includes(company.country)) {
    return {
      code: "ksef_country_not_supported",
      message: `KSeF is where Polish taxpayers issue their invoices: sending through KSeF is offered to companies in ${KSEF_COUNTRIES.join(", ")}; this company is in ${company.country}. Send it with targetNetwork "auto" or "peppol".`,
    };
  }
  if (network !== "ksef" && !PEPPOL_COUNTRIES.includes(company.country)) {
    const pl = KSEF_COUNTRIES.includes(company.country) ? ` A company in ${company.country} issues its invoices through KSeF: send it with targetNetwork "auto" or "ksef".` : "";
    return {
      code: "peppol_country_not_supported",
      message: `Peppol sending is offered to companies in ${PEPPOL_COUNTRIES.join(", ")}; this company is in ${company.country}.${pl}`,
    };
  }
  return null;
};
