// @einvoice/render: an invoice for people, from InvoiceData (any syntax's invoice, sent or received): HTML, PDF and
// Factur-X. The core pulls in no PDF writer; this package does.
export {};
export * from "./pdf.js";
export * from "./facturx.js";
