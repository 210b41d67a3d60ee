// The document pipeline: base64 text in, a checked UBL invoice out. Each step is its own module.
export { decodeBase64Strict } from "./base64.js";
export { extractFields, INVOICE_KEEP, type InvoiceFields } from "./fields.js";
export { extractRecipient } from "./recipient.js";
export { documentTypeId, documentTypeOf, extractDocumentType, processId, UBL_SYNTAX_VERSION, type DocumentType } from "./doctype.js";
export { DEFAULT_XML_LIMITS, scanXml, type ScanResult, type XmlLimits } from "./scan.js";
export { isZip } from "./text.js";
export { CAC, CBC, UBL_INVOICE_NS, requireInvoiceRoot } from "./ubl.js";
export { parseXml, XmlElement, type XmlDocument, type XmlKeep } from "./xml.js";
export { readInvoice, decodeDocument, readDocument, type ReadInvoice } from "./read.js";
export {
  readInvoiceAsync,
  readRequestAsync,
  type ReadRequest,
  closeInvoiceWorkers,
  configureInvoiceWorkers,
  DEFAULT_WORKER_THRESHOLD,
  type InvoiceWorkerOptions,
  createInvoiceWorkers,
  type InvoiceWorkers,
} from "./pool.js";
export { parseJsonBody, parseSubmitBody } from "./request.js";
