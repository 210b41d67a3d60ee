// Domain records shared by the core, its ports and its adapters. Those that the API shows as they
// are (Company, Party, InvoiceRecord without its companyId) are derived from the zod schemas.
import type { z } from "zod";
import type { CompanySchema, Invoice, InvoiceEventSchema, PartySchema } from "./schemas.js";

export const TARGET_NETWORKS = ["auto", "peppol", "ksef"] as const;
export type TargetNetwork = (typeof TARGET_NETWORKS)[number];

export const NETWORKS = ["peppol", "ksef"] as const;
export type Network = (typeof NETWORKS)[number];

/** `sending`, `delivered`, `failed`: an outbound submission's; `received`: an inbound document's (always). */
export const INVOICE_STATUSES = ["sending", "delivered", "failed", "received"] as const;

/** `outbound`: a submission of the company; `inbound`: a document a network delivered to the company. */
export const DIRECTIONS = ["outbound", "inbound"] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** What a record holds: a UBL Invoice or a UBL CreditNote. */
/** What a record holds: a UBL Invoice or a UBL CreditNote (its `kind`). */
export const DOCUMENT_KINDS = ["invoice", "creditNote"] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export const SUBSCRIPTIONS = ["free", "basic", "pro"] as const;
export type Subscription = (typeof SUBSCRIPTIONS)[number];

/**
 * A company: the tenant. Every invoice, client and key belongs to exactly one. Its shape is
 * `CompanySchema`'s, but for `ksef`, which holds the encrypted token.
 */
export type Company = Omit<z.output<typeof CompanySchema>, "ksef" | "participantIds"> & {
  ksef: KsefCredentialRecord | null;
  /**
   * The Peppol participant identifiers on which the company receives in the sandbox, `scheme:value` as the operator
   * set them (compared as recipients are: the scheme exactly, the value without case); absent: none.
   */
  participantIds?: string[];
};

/** A company's KSeF credential as stored: the NIP and the token encrypted by a `TokenCipher` (never the token itself). */
export interface KsefCredentialRecord {
  nip: string;
  /** `TokenCipher.encrypt(token, companyId)`: versioned text. */
  tokenCiphertext: string;
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
  /** The company's label for the key ("ERP production"), shown in the list; absent or null: none. */
  name?: string | null;
}

/** A Peppol participant identifier: ISO 6523 ICD / EAS scheme and value. */
export interface ParticipantId {
  scheme: string;
  value: string;
}

/** A party of an invoice (supplier or recipient), as `PartySchema` describes it. */
export type Party = z.output<typeof PartySchema>;

/** The totals of an invoice: decimal strings exactly as written in cac:LegalMonetaryTotal; null when absent. */
export type Totals = Invoice["totals"];

export type InvoiceEvent = z.output<typeof InvoiceEventSchema>;

/**
 * What the document pipeline computed at submit, stored with the submission so that nothing later (the
 * dispatcher before each Peppol attempt) has to read the document again. Not part of the public view.
 */
export interface DocumentFacts {
  /** The Peppol document type identifier and process of the document (root, CustomizationID, ProfileID); null without a CustomizationID. */
  peppolDocumentType: { id: string; processId: string | null } | null;
  /** The rule sets applied to it (the validation report's `ruleSets`). */
  ruleSets: string[];
  /** The syntax the document was submitted in when it was converted to the UBL sent: `cii`, or `pdf` (Factur-X); absent for UBL. */
  syntax?: "cii" | "pdf";
}

/** A submission and the invoice it carries, as stored: the public `Invoice` (`InvoiceSchema`) and its company. `id` is the submissionId. */
/** `documentType` is not stored: the public view repeats `kind` under it for compatibility. */
export interface InvoiceRecord
  extends Omit<Invoice, "duplicateOf" | "documentType" | "direction" | "receivedAt" | "syntax" | "valid" | "errors" | "networkReference" | "supplierId"> {
  companyId: string;
  /** Absent or `outbound`: a submission; `inbound`: a received document (status `received`, `inbound` set). */
  direction?: Direction;
  /** For an inbound record: what was received, how, and the rules' verdict on it. Absent or null on outbound records. */
  inbound?: InboundFacts | null;
  /** For an inbound record: the company's supplier record (`Store.listSuppliers`) of the document's seller; null when the document names none. */
  supplierId?: string | null;
  /** For a duplicate (always `failed`): the earlier submission it repeats. Absent or null otherwise. */
  duplicateOf?: string | null;
  /** The pipeline's facts (submissions stored before they were kept have none: the dispatcher then reads the document). */
  facts?: DocumentFacts;
  /**
   * True when the document was built by the service from the invoice as data (`invoice` or
   * `creditNote`), not sent as `xml`; absent or false otherwise. Such a submission is held to the
   * number rule too (`Store.insertSubmission`): its number is new among the company's documents of its kind.
   */
  fromData?: boolean;
}

/** The network's reference of a received document: the key by which receiving it again adds nothing. Exactly one field is set. */
export type NetworkReference = { ksefNumber: string } | { storecoveGuid: string } | { submissionId: string };

/** The syntax of a received document as read: `unknown` when it could not be told (not XML, not an invoice). */
export type ReceivedSyntax = "ubl" | "cii" | "fa3" | "pdf" | "unknown";

/** What an inbound record keeps besides the public invoice fields. */
export interface InboundFacts {
  /** When the service stored it (port timestamp). */
  receivedAt: string;
  syntax: ReceivedSyntax;
  /** Whether the document passed the rules that apply to it (false also when it could not be read). */
  valid: boolean;
  /** The broken fatal rules (or the reading error as one finding), at most 100. */
  errors: { rule: string; message: string; location: string }[];
  networkReference: NetworkReference;
  /** The media type of the bytes as received: `application/xml`, `application/pdf`, or `application/octet-stream`. */
  mediaType: string;
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
  /**
   * The company as `authenticateRequest` read it with the key, for the request being served: a
   * submission takes it from here instead of reading it again. Absent from `authenticate`'s context
   * (the company is then read at each submission); null when the key's company is gone.
   */
  company?: Company | null;
}

export const WEBHOOK_EVENT_TYPES = ["invoice.status_changed", "invoice.received"] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** A company's webhook: where status changes are POSTed, signed with `secret`. */
export interface WebhookRecord {
  id: string;
  companyId: string;
  url: string;
  events: WebhookEventType[];
  /** The signing secret; shown to the company once, at creation (and at each rotation). */
  secret: string;
  createdAt: string;
  deletedAt: string | null;
  /** After a rotation: the secret before it, which still signs until `previousSecretExpiresAt`. */
  previousSecret?: string | null;
  previousSecretExpiresAt?: string | null;
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
