// The invoice status of KSeF 2.0 (GET /sessions/{ref}/invoices/{invoiceRef}, InvoiceStatusInfo, codes
// as documented in the OpenAPI document) mapped onto the network port's outcomes.
import type { SendOutcome } from "@einvoice/core";

export interface KsefInvoiceStatus {
  code: number;
  description: string;
  details?: string[] | null;
  extensions?: Record<string, string | null> | null;
}

/** The outcome of an invoice status, or "pending" while KSeF still processes it (100, 150). */
export function invoiceOutcome(status: KsefInvoiceStatus, ksefNumber?: string | null): SendOutcome | "pending" {
  const said = [status.description, ...(status.details ?? [])].filter(Boolean).join(": ");
  switch (status.code) {
    case 100:
    case 150:
      return "pending";
    case 200:
      if (!ksefNumber) return { outcome: "retry", reason: "KSeF reported success (200) without a KSeF number; asking again" };
      return { outcome: "delivered", detail: `KSeF number ${ksefNumber}` };
    case 440: {
      const earlier = status.extensions?.["originalKsefNumber"];
      return { outcome: "failed", reason: `KSeF 440 ${status.description}: the invoice was already accepted${earlier ? ` as KSeF number ${earlier}` : ""}` };
    }
    // Session or system trouble, not the invoice: a new attempt (in a new session) may pass.
    case 405:
    case 435:
    case 500:
    case 550:
      return { outcome: "retry", reason: `KSeF ${status.code} ${said}` };
    default:
      // 410 permissions, 415 attachments not allowed, 430 file verification, 450 semantic verification, and any other code.
      return { outcome: "failed", reason: `KSeF ${status.code} ${said}` };
  }
}
