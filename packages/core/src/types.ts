// Domain records shared by the core, its ports and its adapters.

export const TARGET_NETWORKS = ["auto", "peppol", "ksef"] as const;
export type TargetNetwork = (typeof TARGET_NETWORKS)[number];

export const NETWORKS = ["peppol", "ksef"] as const;
export type Network = (typeof NETWORKS)[number];

export const INVOICE_STATUSES = ["sending", "delivered", "failed"] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export const SUBSCRIPTIONS = ["free", "basic", "pro"] as const;
export type Subscription = (typeof SUBSCRIPTIONS)[number];

/** A company: the tenant. Every invoice, client and key belongs to exactly one. */
export interface Company {
  id: string;
  name: string;
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
  enterprise: boolean;
  subscription: Subscription;
  /** The company's legal entity id at the access point; null until an operator registers one. */
  legalEntityId: string | null;
  peppolSendingEnabled: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface Account {
  id: string;
  /** Lower-cased; unique across the store. */
  email: string;
  companyId: string;
  createdAt: string;
}

export interface ApiKeyRecord {
  id: string;
  companyId: string;
  /** The first characters of the key, safe to show. */
  prefix: string;
  /** Hex SHA-256 of the key's secret part. The key itself is never stored. */
  hash: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** A Peppol participant identifier: ISO 6523 ICD / EAS scheme and value. */
export interface ParticipantId {
  scheme: string;
  value: string;
}

export interface Party {
  name: string | null;
  /** `scheme:value` as written in cbc:EndpointID, or null. */
  endpointId: string | null;
  vatId: string | null;
  country: string | null;
}

export interface Totals {
  /** Decimal strings exactly as written in cac:LegalMonetaryTotal; null when absent. */
  taxExclusive: string | null;
  taxInclusive: string | null;
  payable: string | null;
}

export interface InvoiceEvent {
  status: InvoiceStatus;
  at: string;
  detail: string;
}

/** A submission and the invoice it carries, as stored. `id` is the submissionId. */
export interface InvoiceRecord {
  id: string;
  companyId: string;
  status: InvoiceStatus;
  targetNetwork: TargetNetwork;
  network: Network | null;
  errorMessage: string | null;
  invoiceNumber: string | null;
  issueDate: string | null;
  dueDate: string | null;
  currency: string | null;
  totals: Totals;
  supplier: Party;
  recipient: Party;
  clientId: string | null;
  sha256: string;
  size: number;
  createdAt: string;
  updatedAt: string;
  events: InvoiceEvent[];
}

/** One per recipient identifier of a company (value compared case-insensitively). */
export interface ClientRecord {
  id: string;
  companyId: string;
  /** `scheme:lower-cased value`: the identity of the client within its company. */
  key: string;
  name: string | null;
  endpointId: string;
  vatId: string | null;
  country: string | null;
  invoiceCount: number;
  firstInvoiceAt: string;
  lastInvoiceAt: string;
}

/** Who is calling: the result of `authenticate`. */
export interface AuthContext {
  companyId: string;
  apiKeyId: string;
}
