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

export const WEBHOOK_EVENT_TYPES = ["invoice.status_changed"] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** A company's webhook: where status changes are POSTed, signed with `secret`. */
export interface WebhookRecord {
  id: string;
  companyId: string;
  url: string;
  events: WebhookEventType[];
  /** The signing secret; shown to the company once, at creation. */
  secret: string;
  createdAt: string;
  deletedAt: string | null;
}

/** One attempt to deliver a webhook event. */
export interface WebhookAttempt {
  at: string;
  /** The receiver's HTTP status, or null when there was no answer. */
  statusCode: number | null;
  /** Why the attempt failed, or null on success. */
  error: string | null;
  durationMs: number;
}

export type WebhookEventStatus = "pending" | "delivered" | "failed";

/** One event for one webhook, and its delivery. */
export interface WebhookEventRecord {
  id: string;
  webhookId: string;
  companyId: string;
  type: WebhookEventType;
  createdAt: string;
  /** The JSON text of the event's `data` (for status changes: `{"invoice":{…}}`), fixed at creation. */
  data: string;
  status: WebhookEventStatus;
  attempts: number;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  /** The attempts, oldest first (the last 20). */
  log: WebhookAttempt[];
}
