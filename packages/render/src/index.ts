// @einvoice/render: an invoice for people, from InvoiceData (any syntax's invoice, sent or received): HTML, PDF and
// Factur-X. The core pulls in no PDF writer; this package does.
export {
  LANGUAGES,
  isLanguage,
  labelsFor,
  languageFor,
  formatNumber,
  formatAmount,
  formatPercent,
  formatDate,
  unitName,
  vatCategoryName,
  paymentMeansName,
  documentKind,
  type Language,
  type Labels,
} from "./labels.js";
export { renderHtml, escapeHtml, type RenderOptions, type KsefMarks } from "./html.js";
// PDF and Factur-X: see pdf.ts and facturx.ts (exported below by their author)
export * from "./pdf.js";
export * from "./facturx.js";
