// Builders of valid records for the conformance suites and adapter tests.
import { randomUUID } from "node:crypto";
import type { Account, ApiKeyRecord, Company, InboundFacts, InvoiceRecord, NetworkReference } from "../domain/types.js";

export function sampleCompany(overrides: Partial<Company> = {}): Company {
  const at = "2026-01-01T00:00:00.000Z";
  return {
    id: randomUUID(),
    name: "Acme B.V.",
    country: "NL",
    enterprise: false,
    subscription: "free",
    legalEntityId: null,
    peppolSendingEnabled: false,
    ksef: null,
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}

export function sampleAccount(company: Company, email = `${randomUUID()}@example.com`): Account {
  return { id: randomUUID(), email, companyId: company.id, createdAt: company.createdAt };
}

export function sampleApiKey(companyId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  const id = randomUUID();
  return {
    id,
    companyId,
    prefix: `einv_${id.slice(0, 8)}`,
    hash: "ab".repeat(32),
    createdAt: "2026-01-01T00:00:00.000Z",
    lastUsedAt: null,
    revokedAt: null,
    name: null,
    ...overrides,
  };
}

export function sampleInvoiceRecord(companyId: string, overrides: Partial<InvoiceRecord> = {}): InvoiceRecord {
  const at = overrides.createdAt ?? "2026-02-03T04:05:06.789Z";
  return {
    id: randomUUID(),
    companyId,
    status: "sending",
    targetNetwork: "auto",
    network: "peppol",
    errorMessage: null,
    kind: "invoice",
    billingReference: null,
    invoiceNumber: "INV-1",
    issueDate: "2026-02-01",
    dueDate: null,
    currency: "EUR",
    totals: { taxExclusive: "100.00", taxInclusive: "121.00", payable: "121.0000" },
    supplier: { name: "Seller", endpointId: "0106:12345678", vatId: "NL001234567B01", country: "NL" },
    recipient: { name: "Buyer", endpointId: "0208:0123456789", vatId: null, country: "BE" },
    clientId: null,
    ksefNumber: null,
    verificationUrl: null,
    sha256: randomUUID().replace(/-/g, "").repeat(2),
    size: 1234,
    createdAt: at,
    updatedAt: at,
    events: [{ status: "sending", at, detail: "Accepted." }],
    warnings: [],
    duplicateOf: null,
    ...overrides,
  };
}

/**
 * A valid inbound record (a received document) of the company: `direction` `inbound`, `status` `received`, `inbound`
 * set with the given network reference (a fresh sandbox submission id by default), `createdAt` = `updatedAt` =
 * `inbound.receivedAt`, `clientId` and `supplierId` null.
 */
export function sampleInboundRecord(companyId: string, overrides: Partial<InvoiceRecord> = {}, reference: NetworkReference = { submissionId: randomUUID() }): InvoiceRecord {
  const at = overrides.createdAt ?? "2026-02-03T04:05:06.789Z";
  const inbound: InboundFacts = { receivedAt: at, syntax: "ubl", valid: true, errors: [], networkReference: reference, mediaType: "application/xml" };
  return sampleInvoiceRecord(companyId, {
    status: "received",
    targetNetwork: "peppol",
    network: "peppol",
    direction: "inbound",
    inbound,
    supplierId: null,
    supplier: { name: "Supplier Ltd", endpointId: "0208:0987654321", vatId: "BE0987654321", country: "BE" },
    recipient: { name: "Acme B.V.", endpointId: "0106:12345678", vatId: null, country: "NL" },
    events: [{ status: "received", at, detail: "Received on Peppol." }],
    updatedAt: at,
    ...overrides,
  });
}
