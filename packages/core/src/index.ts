// @einvoice/core: submit UBL invoices to Peppol and KSeF, track them, read invoices and clients.
export { ApiError, ERROR_STATUS, hasCodeBody, isApiError, badRequest, type ErrorCode } from "./errors.js";
export * from "./types.js";
export * from "./schemas.js";
export type {
  Store,
  DeliveryStore,
  DeliveryJob,
  WebhookStore,
  WebhookJob,
  AttemptRecord,
  Routing,
  RoutingDecision,
  Keyset,
  NewSubmission,
  ClientUpsert,
  InsertSubmissionResult,
  CreateAccountResult,
} from "./ports.js";
export { sandboxNetwork, type NetworkPort, type SendRequest, type SendOutcome } from "./network.js";
export {
  createDispatcher,
  backoffDelay,
  parseEndpointId,
  DEFAULT_RETRY,
  type Dispatcher,
  type DispatcherOptions,
  type DispatcherLogger,
  type RetryPolicy,
} from "./dispatcher.js";
export type { CoreOptions } from "./options.js";
export { submitInvoice, submitInvoiceJson } from "./submit.js";
export { listInvoices, getInvoice, listClients, invoiceView, clientView, encodeCursor, decodeCursor, type Page } from "./reads.js";
export {
  createAccount,
  authenticate,
  createApiKey,
  listApiKeys,
  revokeApiKey,
  getCompany,
  updateCompany,
  companyView,
} from "./accounts.js";
export { defaultEligibility, PEPPOL_COUNTRIES, type EligibilityPolicy, type EligibilityRefusal, type EligibilityCode } from "./eligibility.js";
export { defaultRouting, POLISH_VAT_SCHEME } from "./routing.js";
export { memoryStore } from "./memory-store.js";
export { isIsoCountry } from "./countries.js";
export { isPeppolParticipantScheme, PARTICIPANT_SCHEMES, PARTICIPANT_SCHEMES_VERSION } from "./codelists/index.js";
export {
  readInvoice,
  readInvoiceAsync,
  readRequestAsync,
  parseJsonBody,
  type ReadRequest,
  configureInvoiceWorkers,
  closeInvoiceWorkers,
  DEFAULT_WORKER_THRESHOLD,
  type InvoiceWorkerOptions,
  decodeBase64Strict,
  scanXml,
  parseXml,
  XmlElement,
  type XmlDocument,
  type XmlKeep,
  INVOICE_KEEP,
  requireInvoiceRoot,
  extractRecipient,
  extractFields,
  isZip,
  DEFAULT_XML_LIMITS,
  UBL_INVOICE_NS,
  type ReadInvoice,
  type InvoiceFields,
  type XmlLimits,
  type ScanResult,
} from "./pipeline/index.js";
export { createWebhook, listWebhooks, deleteWebhook, listWebhookDeliveries, webhookBody, MAX_WEBHOOKS, type WebhookOptions } from "./webhooks.js";
export { createWebhookSender, DEFAULT_WEBHOOK_RETRY, type WebhookSender, type WebhookSenderOptions } from "./webhook-sender.js";
export { signWebhook, verifyWebhookSignature, type VerifyOptions } from "./webhook-signature.js";
export { checkWebhookTarget, isPrivateAddress, systemResolver, type HostResolver, type TargetPolicy } from "./webhook-target.js";
