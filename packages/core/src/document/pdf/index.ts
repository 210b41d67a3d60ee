// Factur-X / ZUGFeRD: the invoice XML out of a PDF, read under limits on a worker thread.
export { extractInvoiceXml, closePdfWorkers } from "./extract.js";
export { isPdf } from "./scan.js";
export { DEFAULT_PDF_LIMITS, INVOICE_ATTACHMENT_NAMES, type ExtractedInvoice, type PdfLimits } from "./limits.js";
