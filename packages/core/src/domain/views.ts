// The public views of stored records: what the API, the webhooks and the library hand out.
import type { Client, Invoice } from "./schemas.js";
import type { ClientRecord, InvoiceRecord } from "./types.js";

/** The public view of a stored invoice. */
export function invoiceView(r: InvoiceRecord): Invoice {
  return {
    id: r.id,
    status: r.status,
    targetNetwork: r.targetNetwork,
    network: r.network,
    errorMessage: r.errorMessage,
    kind: r.kind,
    documentType: r.kind,
    billingReference: r.billingReference,
    invoiceNumber: r.invoiceNumber,
    issueDate: r.issueDate,
    dueDate: r.dueDate,
    currency: r.currency,
    totals: { ...r.totals },
    supplier: { ...r.supplier },
    recipient: { ...r.recipient },
    clientId: r.clientId,
    ksefNumber: r.ksefNumber ?? null,
    verificationUrl: r.verificationUrl ?? null,
    sha256: r.sha256,
    size: r.size,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    events: r.events.map((e) => ({ ...e })),
    warnings: (r.warnings ?? []).map((w) => ({ ...w })),
    duplicateOf: r.duplicateOf ?? null,
    direction: r.direction ?? "outbound",
    receivedAt: r.inbound?.receivedAt ?? null,
    syntax: r.inbound ? r.inbound.syntax : (r.facts?.syntax ?? (r.facts ? "ubl" : null)),
    valid: r.inbound ? r.inbound.valid : null,
    errors: r.inbound ? r.inbound.errors.map((e) => ({ ...e })) : [],
    networkReference: r.inbound ? { ...r.inbound.networkReference } : null,
    supplierId: r.supplierId ?? null,
  };
}

/** The public view of a stored client. */
export function clientView(r: ClientRecord): Client {
  return {
    id: r.id,
    name: r.name,
    endpointId: r.endpointId,
    vatId: r.vatId,
    country: r.country,
    invoiceCount: r.invoiceCount,
    firstInvoiceAt: r.firstInvoiceAt,
    lastInvoiceAt: r.lastInvoiceAt,
  };
}
