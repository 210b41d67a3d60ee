export { toFa3, correctedInvoices, Fa3MappingError, FA3_NAMESPACE, FA3_SCHEMA_VERSION, FA3_SYSTEM_CODE, type Fa3Options, type BuyerUnit, type CorrectedInvoice } from "./fa3.js";
export type { Fa3Node } from "./model.js";
export { certificateKey, encryptKsefToken, newSessionKey, encryptInvoice, type SessionKey, type SendInvoiceBody } from "./crypto.js";
export { invoiceOutcome, type KsefInvoiceStatus } from "./status.js";
export { ksefNetwork, type KsefNetworkOptions, type KsefCredentials } from "./network.js";
export type { KsefState, KsefUpload } from "./state.js";
export { readUbl } from "./read.js";
export { KSEF_ENVIRONMENTS, ksefQrBase, verificationUrl, verificationFacts, fa3Sha256, type VerificationParts } from "./verification.js";
