// The document pipeline: base64 text in, a checked UBL invoice out. Each step is its own module.
export { decodeBase64Strict } from "./base64.js";
export { extractFields, type InvoiceFields } from "./fields.js";
export { extractRecipient } from "./recipient.js";
export { documentTypeId, documentTypeOf, extractDocumentType, processId, UBL_SYNTAX_VERSION, type PeppolDocumentType, type DocumentType } from "./doctype.js";
export { isZip } from "./text.js";
export { CAC, CBC, UBL_INVOICE_NS, UBL_CREDIT_NOTE_NS, requireInvoiceRoot, requireUblRoot, type UblRoot, type UblDocumentType } from "./ubl.js";
export { parseXml, XmlNode, xmlTrim, DEFAULT_XML_LIMITS, type XmlDocument, type XmlLimits } from "./xml.js";
export { readInvoice, decodeDocument, readDocument, readXml, type ReadInvoice } from "./read.js";
export { readInvoiceAsync, readRequestAsync, closeInvoiceWorkers, configureInvoiceWorkers, judgeReceivedAsync } from "./default-pool.js";
export { DEFAULT_WORKER_THRESHOLD, type InvoiceWorkerOptions, createInvoiceWorkers, type InvoiceWorkers } from "./pool.js";
export type { ReadRequest } from "./pool.js";
export { parseJsonBody, parseSubmitBody } from "./request.js";
export { extractInvoiceXml, closePdfWorkers, isPdf, DEFAULT_PDF_LIMITS, INVOICE_ATTACHMENT_NAMES, type ExtractedInvoice, type PdfLimits } from "./pdf/index.js";
