// @einvoice/core: submit UBL invoices to Peppol and KSeF, track them, read invoices and clients.
export { ApiError, ERROR_STATUS, hasCodeBody, isApiError, badRequest, quoteId, type ErrorCode, type RuleError } from "./domain/errors.js";
export { validateDocument, validateDocumentBody, validateDocumentJson, validateDocumentAsync } from "./use-cases/validate.js";
export { validateInvoice, validateAnyDocument, type DocumentReport } from "./document/validate.js";
export { SYNTAXES, syntaxOf, syntaxById, type Syntax, type DocumentSyntax, type InvoiceKind, type WriteOptions } from "./document/syntaxes/index.js";
export { readAnyDocument, readAnyDocumentAsync, convertCiiToUbl, readDocumentData, type ConvertedCii } from "./document/any.js";
export { ciiPathOf } from "./document/syntaxes/cii/paths.js";
export { writeCii, ciiLosses, type CiiWriteOptions } from "./document/syntaxes/cii/write.js";
export { rulesError, MAX_REPORTED_ERRORS } from "./document/rules-error.js";
export {
  validateModel,
  MAX_ITEM_CHARS,
  UNCHECKED_RULES,
  type ValidationReport,
  type ValidationItem,
} from "./validation/validate.js";
export { MAX_INTEGER_DIGITS, MAX_FRACTION_DIGITS } from "./validation/decimal.js";
export { MAX_IDENTIFIER_LENGTH } from "./document/fields.js";
export { RULE_SETS, type RuleSet } from "./validation/rulesets/index.js";
export { ruleSetsApplying, ruleSetIdsFor, familiesOf } from "./validation/rulesets/select.js";
export { CEN_FAMILIES, PEPPOL_FAMILIES, CEN_RULESET, PEPPOL_RULESET } from "./validation/rulesets/legacy.js";
export type { DocumentNode, UblNode, Finding, RuleFamily, RuleContext } from "./document/model.js";
export * from "./domain/types.js";
export {
  InvoiceDataSchema,
  VAT_CATEGORIES,
  buildUbl,
  buildInvoice,
  dataRulesError,
  rootElementOfData,
  documentTypeOfData,
  parseInvoiceData,
  readInvoiceData,
  invoiceDataOf,
  normaliseInvoiceData,
  CREDIT_NOTE_TYPE_CODES,
  PEPPOL_BIS3_CUSTOMIZATION,
  PEPPOL_BIS3_PROFILE,
  type InvoiceData,
  type InvoiceDataInput,
  type InvoiceLine,
  type VatCategory,
  type BuildOptions,
  type BuiltInvoice,
  type DataValidationItem,
} from "./document/invoice-data/index.js";
export * from "./domain/schemas.js";
export type {
  Store,
  DeliveryStore,
  DeliveryJob,
  WebhookStore,
  WebhookJob,
  ClaimInput,
  IdempotencyStore,
  IdempotencyBegin,
  AttemptRecord,
  Routing,
  RoutingDecision,
  Keyset,
  NewSubmission,
  ClientUpsert,
  InsertSubmissionResult,
  CreateAccountResult,
  RevokeApiKeyResult,
  StoredEvidence,
} from "./ports/store.js";
export { StoreUnavailableError, isStoreUnavailable } from "./ports/store.js";
export type { NetworkPort, SendRequest, SendOutcome, DeliveryEvidence, ModelNode, TransmittedDocument } from "./ports/network.js";
export { DELIVERY_STATE_MAX_BYTES, EVIDENCE_MAX_BYTES, TRANSMITTED_MAX_BYTES } from "./ports/network.js";
export { documentModel } from "./workers/send-request.js";
export { sandboxNetwork } from "./adapters/sandbox-network.js";
export {
  createDispatcher,
  parseEndpointId,
  DEFAULT_RETRY,
  type Dispatcher,
  type DispatcherOptions,
  type DispatcherLogger,
} from "./workers/dispatcher.js";
export { backoffDelay, type RetryPolicy } from "./domain/backoff.js";
export {
  isDue,
  isLeaseFree,
  isClaimable,
  holdsLease,
  claimOrder,
  pickClaims,
  firstAttemptAt,
  keepsDeliveryState,
  WEBHOOK_LOG_LENGTH,
  appendToLog,
  previousSecretSigns,
  companyShare,
  leasedBy,
  circuitAt,
  circuitAfter,
  type QueueItem,
  type ClaimFairness,
  type EndpointCircuit,
  type CircuitUpdate,
} from "./ports/queue.js";
export { causeOf, type WorkerLogger, type WorkerStatus } from "./workers/polling-loop.js";
export { noMetrics, safeMetrics, type MetricNetwork, type MetricsPort } from "./ports/metrics.js";
export { readinessCheck, type Readiness, type ReadinessOptions } from "./use-cases/readiness.js";
export {
  idempotent,
  keepsIdempotencyKeys,
  requestFingerprint,
  IDEMPOTENCY_LOCK_MS,
  IDEMPOTENCY_TTL_MS,
  type IdempotentAnswer,
} from "./use-cases/idempotency.js";
export type { CoreOptions } from "./use-cases/options.js";
export { getInvoiceDocument, getInvoiceDocumentData, getInvoiceFa3, getInvoiceOriginal, getInvoiceCii, documentFormat, documentQuery, type DocumentReadOptions } from "./use-cases/document.js";
export { submitCreditNote, submitCreditNoteBody, submitCreditNoteJson, submitInvoice, submitInvoiceBody, submitInvoiceJson, type SubmitBody, type SubmitOptions } from "./use-cases/submit.js";
export { listInvoices, getInvoice, getInvoiceEvidence, listClients, listSuppliers, getSupplier, encodeCursor, decodeCursor, type Page } from "./use-cases/reads.js";
export { getVerificationQr, verificationQrSvg, type VerificationQr } from "./use-cases/verification-qr.js";
export { getInvoiceRenderInput, readRenderRequest, type RenderInput } from "./use-cases/render.js";
export { invoiceView, clientView } from "./domain/views.js";
export {
  createAccount,
  authenticate,
  authenticateRequest,
  createApiKey,
  MAX_ACTIVE_API_KEYS,
  listApiKeys,
  revokeApiKey,
  getCompany,
  updateCompany,
  companyView,
  participantKey,
} from "./use-cases/accounts.js";
export { ksefCredentials, ksefCorrectedInvoices, KsefCorrectionPendingError, type KsefCredential } from "./use-cases/ksef.js";
export { tokenCipher, parseTokenKey, readKsefCredential, KsefCredentialsError, type TokenCipher } from "./domain/token-cipher.js";
export { isValidNip, normaliseNip } from "./domain/nip.js";
export { defaultEligibility, PEPPOL_COUNTRIES, KSEF_COUNTRIES, type EligibilityPolicy, type EligibilityRefusal, type EligibilityCode } from "./domain/eligibility.js";
export { defaultRouting, POLISH_VAT_SCHEME } from "./routing/routing.js";
export { memoryStore } from "./adapters/memory-store.js";
export { isIsoCountry } from "./domain/countries.js";
export { isPeppolParticipantScheme, PARTICIPANT_SCHEMES, PARTICIPANT_SCHEMES_VERSION } from "./document/codelists/index.js";
export {
  readInvoice,
  readInvoiceAsync,
  readRequestAsync,
  parseJsonBody,
  type ReadRequest,
  configureInvoiceWorkers,
  closeInvoiceWorkers,
  judgeReceivedAsync,
  DEFAULT_WORKER_THRESHOLD,
  type InvoiceWorkerOptions,
  createInvoiceWorkers,
  type InvoiceWorkers,
  decodeBase64Strict,
  parseXml,
  XmlNode,
  xmlTrim,
  type XmlDocument,
  requireInvoiceRoot,
  requireUblRoot,
  type UblRoot,
  type UblDocumentType,
  extractRecipient,
  extractFields,
  isZip,
  DEFAULT_XML_LIMITS,
  UBL_INVOICE_NS,
  type ReadInvoice,
  type InvoiceFields,
  type XmlLimits,
  extractInvoiceXml,
  closePdfWorkers,
  isPdf,
  DEFAULT_PDF_LIMITS,
  INVOICE_ATTACHMENT_NAMES,
  type ExtractedInvoice,
  type PdfLimits,
} from "./document/index.js";
export {
  createWebhook,
  listWebhooks,
  deleteWebhook,
  rotateWebhookSecret,
  listWebhookDeliveries,
  MAX_WEBHOOKS,
  WEBHOOK_SECRET_OVERLAP_MS,
  type WebhookOptions,
} from "./use-cases/webhooks.js";
export { webhookBody } from "./domain/webhook-events.js";
export { createWebhookSender, DEFAULT_WEBHOOK_RETRY, type WebhookSender, type WebhookSenderOptions } from "./workers/webhook-sender.js";
export { signWebhook, verifyWebhookSignature, type VerifyOptions } from "./domain/webhook-signature.js";
export { readBoundedText, DEFAULT_MAX_ANSWER_BYTES } from "./domain/bounded-read.js";
export { checkWebhookTarget, guardedLookup, isGlobalUnicast, isPrivateAddress, systemResolver, TargetRefusedError, type HostResolver, type TargetPolicy } from "./domain/webhook-target.js";
export {
  DiscoveryError,
  DOCTYPE_SCHEME,
  PROCESS_SCHEME,
  PARTICIPANT_ID_SCHEME,
  type DiscoveryPort,
  type DiscoveryEndpoint,
  type DiscoveryFailure,
  type ParticipantLookup,
} from "./ports/discovery.js";
export {
  cachedDiscovery,
  isCachedDiscovery,
  DEFAULT_DISCOVERY_TIMEOUT_MS,
  DEFAULT_DISCOVERY_TTL_MS,
  type CachedDiscovery,
  type DiscoveryCacheOptions,
} from "./adapters/cached-discovery.js";
export { sandboxDiscovery, SANDBOX_DOCUMENT_TYPES, SANDBOX_OTHER_DOCUMENT_TYPES } from "./adapters/sandbox-discovery.js";
export { checkRecipient, type RecipientCheck } from "./routing/routing.js";
export { ParticipantQuerySchema, ParticipantSchema, DiscoveryEndpointSchema, type Participant, type ParticipantQuery } from "./domain/participant-schemas.js";
export { lookupParticipant, parseParticipantId, normalizeDocumentType } from "./use-cases/participants.js";
export { documentTypeId, documentTypeOf, extractDocumentType, processId, UBL_SYNTAX_VERSION, type PeppolDocumentType, type DocumentType } from "./document/doctype.js";
export {
  networkReferenceKey,
  INBOUND_DOCUMENT_MAX_BYTES,
  INBOUND_ERRORS_MAX,
  INBOUND_STATE_MAX_BYTES,
  type NewInbound,
  type InsertInboundResult,
  type UnmatchedDocument,
  type InboundSync,
  type BackfillRequest,
  type InboxStore,
  type ReceivedDocument,
  type StoredOutcome,
  type InboundRun,
  type InboundRunResult,
  type InboundSource,
} from "./ports/inbound.js";
export { receivedEventData } from "./domain/webhook-events.js";
export { receiveDocument, sandboxInbox, supplierUpsert, type ReceiveOptions, type ReceiveInput, type ReceiveSettings, type ReceiveSyntax, type SandboxInbox } from "./use-cases/receive.js";
export { storeReceivedDocument } from "./workers/receive.js";
export { judgeReceived, readReceivedData, fieldsOfData, mediaTypeOf, UNREADABLE_RULE, TOO_LARGE_RULE, type JudgedDocument } from "./document/received.js";
export { inboxOf, isInboxStore } from "./use-cases/inbox.js";
export {
  createInboundPoller,
  InboundLeaseLostError,
  InboundStateTooLargeError,
  type InboundPoller,
  type InboundPollerOptions,
  type InboundSourceEntry,
} from "./workers/inbound-poller.js";
