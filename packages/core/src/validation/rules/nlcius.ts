// Rule family: NLCIUS / SI-UBL 2.0 (SimplerInvoicing, release 2.0.3.13), the BR-NL-* rules and SI-UBL-2,
// written from the official si-ubl-2.0-nlcius.sch (peppolautoriteit-nl/validation, MIT).
//
// The Schematron is one pattern, so an element is checked by the FIRST of its rules whose context matches
// it, as the official rules do: an allowance or charge reason code on a line is BR-NL-32-1 (the rules
// meant for lines, BR-NL-32-2/-3 and the BR-NL-34 copies, never match first), and SI-UBL-2 (an empty
// element) only sees the empty elements no earlier rule matched. Most rules apply only when the supplier's
// country (BT-40) is NL ("$s" in the Schematron); BR-NL-13 and SI-UBL-2 apply to every supplier.
// One pass over the document; the few document-wide facts are computed once, when first needed.
import { child, children, descendants, first, norm, normalizeSpace, select, stringValue, type RuleContext, type RuleFamily, type DocumentNode } from "../../document/model.js";
import { dec } from "../decimal.js";
import { NL_DOCUMENT_TYPE_CODES, NL_LEGAL_ID_SCHEMES, NL_PAYMENT_MEANS_CODES } from "../codelists/nlcius.js";

const SUPPLIER = "cac:AccountingSupplierParty";
const CUSTOMER = "cac:AccountingCustomerParty";
const TAX_REP = "cac:TaxRepresentativeParty";

/** True when `node`'s ancestors, nearest first, have these qnames (the XPath step pattern `a/b/node`). */
function under(node: DocumentNode, ...qnames: string[]): boolean {
  let element = node.parent;
  for (const text of qnames) {
    if (!element || element.qname !== text) return false;
    element = element.parent;
  }
  return true;
}

/** `contains(concat(' ', string-join(@schemeID, ' '), ' '), ' X ')` for the KVK and OIN schemes. */
function hasDutchLegalScheme(companyIds: readonly DocumentNode[]): boolean {
  const joined = companyIds.map((companyId) => companyId.attrs.schemeID).filter((text) => text !== undefined).join(" ");
  return joined.split(" ").some((text) => NL_LEGAL_ID_SCHEMES.has(text));
}

const dutchSchemes = [...NL_LEGAL_ID_SCHEMES].join(" (KVK) or ") + " (OIN)";
const documentTypeCodes = [...NL_DOCUMENT_TYPE_CODES].join(", ");
const paymentMeansCodes = [...NL_PAYMENT_MEANS_CODES].join(", ");

const missing = (node: DocumentNode, qnames: ReadonlyArray<readonly [string, string]>): string[] =>
  qnames.filter(([path]) => child(node, path) === null).map(([, label]) => label);
const ADDRESS_PARTS = [
  ["cbc:StreetName", "street name"],
  ["cbc:CityName", "city"],
  ["cbc:PostalZone", "postal code"],
] as const;
const countries = (address: DocumentNode) => select(address, "cac:Country/cbc:IdentificationCode").map(stringValue);

interface Env {
  ctx: RuleContext;
  root: DocumentNode;
  /** The supplier's country is NL: most rules apply only then ("$s"). */
  s: boolean;
  lazy: { customerNl?: boolean; customerScheme?: boolean; paymentMeans?: boolean; currencies?: Set<string> };
}

export const nlciusRules: RuleFamily = (ctx) => {
  const root = ctx.root;
  const code = first(root, `${SUPPLIER}/cac:Party/cac:PostalAddress/cac:Country/cbc:IdentificationCode`);
  const supplierCountry = code === null ? "XX" : norm(code).toUpperCase();
  const env: Env = { ctx, root, s: supplierCountry === "NL", lazy: {} };
  visit(env, root);
};

function visit(env: Env, node: DocumentNode): void {
  check(env, node);
  for (const element of node.children) visit(env, element);
}

const fatal = (env: Env, rule: string, message: string, node: DocumentNode) => env.ctx.report(rule, "fatal", message, node);
const warning = (env: Env, rule: string, message: string, node: DocumentNode) => env.ctx.report(rule, "warning", message, node);

/** The first rule whose context matches `node`, in the official order; returns once one matched. */
function check(env: Env, node: DocumentNode): void {
  const value = node.qname;
  const holds = env.s;
  if (holds) {
    if (value === "cac:Party" && under(node, SUPPLIER)) return supplierParty(env, node);
    if (node === env.root) return documentLevel(env, node);
    if (value === "cac:PostalAddress") {
      if (under(node, "cac:Party", SUPPLIER)) return supplierAddress(env, node);
      if (under(node, "cac:Party", CUSTOMER)) return dutchAddress(env, node, "BR-NL-4", "customer (buyer)");
      if (under(node, TAX_REP)) return dutchAddress(env, node, "BR-NL-5", "fiscal representative");
    }
    if (value === "cbc:InvoiceTypeCode" || value === "cbc:CreditNoteTypeCode") return typeCode(env, node);
    if (value === "cac:PartyLegalEntity" && under(node, "cac:Party", CUSTOMER)) return customerLegalEntity(env, node);
    if (value === "cac:LegalMonetaryTotal" && node.parent === env.root && env.root.qname === "Invoice") return paymentDue(env, node);
    if (value === "cac:PaymentMeans") return paymentMeans(env, node);
  }
  if (value === "cbc:LineID" && under(node, "cac:OrderLineReference")) {
    if (first(env.root, "cac:OrderReference/cbc:ID") === null) {
      fatal(env, "BR-NL-13", "This line refers to a line of the buyer's purchase order (BT-132), but the document gives no purchase order reference (BT-13, cac:OrderReference/cbc:ID): add the order number, or remove the order line reference.", node);
    }
    return;
  }
  if (holds && notRecommended(env, node)) return;
  if (node.children.length === 0 && normalizeSpace(node.text) === "") {
    warning(env, "SI-UBL-2", `The element ${value} is empty: leave out elements that have no value.`, node);
  }
}

function supplierParty(env: Env, party: DocumentNode): void {
  const ids = select(party, "cac:PartyLegalEntity/cbc:CompanyID");
  if (!(hasDutchLegalScheme(ids) && ids.some((companyId) => norm(companyId) !== ""))) {
    const given = ids.length === 0 ? "none" : ids.map((companyId) => `"${norm(companyId)}"${companyId.attrs.schemeID === undefined ? " without scheme" : ` with scheme ${companyId.attrs.schemeID}`}`).join(", ");
    fatal(env, "BR-NL-1", `A supplier in the Netherlands must identify itself with its KVK number or OIN (legal registration identifier BT-30, cac:PartyLegalEntity/cbc:CompanyID with schemeID ${dutchSchemes}); the document gives ${given}.`, party);
  }
}

function documentLevel(env: Env, root: DocumentNode): void {
  if (child(root, "cbc:BuyerReference") === null && first(root, "cac:OrderReference/cbc:ID") === null) {
    fatal(env, "BR-NL-2", "A supplier in the Netherlands must give either the buyer's reference (BT-10, cbc:BuyerReference) or the buyer's purchase order number (BT-13, cac:OrderReference/cbc:ID); the document has neither. Ask the buyer which reference to quote.", root);
  }
}

function supplierAddress(env: Env, address: DocumentNode): void {
  const absent = missing(address, ADDRESS_PARTS);
  if (absent.length > 0) {
    fatal(env, "BR-NL-3", `A supplier in the Netherlands must give its full address: street name (cbc:StreetName), city (cbc:CityName) and postal code (cbc:PostalZone); the ${absent.join(" and ")} ${absent.length === 1 ? "is" : "are"} missing.`, address);
  }
}

function dutchAddress(env: Env, address: DocumentNode, rule: string, who: string): void {
  if (countries(address).some((text) => text !== "NL")) return;
  const absent = missing(address, ADDRESS_PARTS);
  if (absent.length > 0) {
    fatal(env, rule, `When the supplier and the ${who} are both in the Netherlands, the ${who}'s address must give street name (cbc:StreetName), city (cbc:CityName) and postal code (cbc:PostalZone); the ${absent.join(" and ")} ${absent.length === 1 ? "is" : "are"} missing.`, address);
  }
}

function typeCode(env: Env, node: DocumentNode): void {
  const value = stringValue(node);
  if (!NL_DOCUMENT_TYPE_CODES.has(value)) {
    fatal(env, "BR-NL-7", `The document type code (BT-3) is "${value}"; a Dutch supplier may only send ${documentTypeCodes} (invoice, credit note, corrective invoice, self-billed invoice).`, node);
  }
  const invoice = env.root.qname === "Invoice";
  if (value === "381" && env.root.qname !== "CreditNote") {
    fatal(env, "BR-NL-8", "The document type code (BT-3) is 381, a credit note, but the document is an Invoice: send a credit note as a UBL CreditNote document.", node);
  }
  if (value !== "381" && !invoice) {
    fatal(env, "BR-NL-8", `The credit note's type code (BT-3) is "${value}"; a Dutch CreditNote document must have type code 381 (send other document types as a UBL Invoice).`, node);
  }
  if (value === "384" && first(env.root, "cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID") === null) {
    fatal(env, "BR-NL-9", "This is a corrective invoice (type code 384), so it must name the invoice it corrects (BT-25, cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID).", node);
  }
}

function customerLegalEntity(env: Env, entity: DocumentNode): void {
  const lazy = env.lazy;
  if (lazy.customerNl === undefined) {
    const parties = descendants(env.root, CUSTOMER).flatMap((node) => children(node, "cac:Party"));
    lazy.customerNl = parties.some((party) => select(party, "cac:PostalAddress/cac:Country/cbc:IdentificationCode").some((identificationCode) => stringValue(identificationCode) === "NL"));
    lazy.customerScheme = hasDutchLegalScheme(parties.flatMap((party) => select(party, "cac:PartyLegalEntity/cbc:CompanyID")));
  }
  const ids = children(entity, "cbc:CompanyID");
  const schemeOk = !lazy.customerNl || lazy.customerScheme!;
  const valueOk = ids.length === 0 || ids.some((companyId) => norm(companyId) !== "");
  if (!(schemeOk && valueOk)) {
    const what = !valueOk
      ? "is empty"
      : `has scheme ${ids.map((companyId) => companyId.attrs.schemeID ?? "(none)").join(", ") || "(none)"}`;
    fatal(env, "BR-NL-10", `When the supplier and the buyer are both in the Netherlands, the buyer's legal registration identifier (BT-47, cac:PartyLegalEntity/cbc:CompanyID) must be its KVK number or OIN (schemeID ${dutchSchemes}); it ${what}.`, entity);
  }
}

function paymentDue(env: Env, total: DocumentNode): void {
  const amount = dec(stringValue(child(total, "cbc:PayableAmount")));
  if (amount !== null && amount.lte(0)) return;
  if (env.lazy.paymentMeans === undefined) env.lazy.paymentMeans = descendants(env.root, "cac:PaymentMeans").length > 0;
  if (!env.lazy.paymentMeans) {
    fatal(env, "BR-NL-11", `The buyer has ${amount === null ? "an amount" : amount.toString()} to pay (BT-115), so a supplier in the Netherlands must say how to pay it (cac:PaymentMeans, e.g. code 58 with the IBAN).`, total);
  }
}

function paymentMeans(env: Env, means: DocumentNode): void {
  const code = norm(child(means, "cbc:PaymentMeansCode"));
  if (!NL_PAYMENT_MEANS_CODES.has(code)) {
    fatal(env, "BR-NL-12", `The payment means code (BT-81) is "${code}"; a supplier in the Netherlands may only use ${paymentMeansCodes} (58 is a SEPA credit transfer, 59 a SEPA direct debit).`, means);
  }
  if ((code === "58" || code === "59") && first(means, "cac:PayeeFinancialAccount/cac:FinancialInstitutionBranch/cbc:ID") !== null) {
    warning(env, "BR-NL-31", "A SEPA payment (code 58 or 59) needs no payment service provider identifier (BIC, cac:PayeeFinancialAccount/cac:FinancialInstitutionBranch/cbc:ID); it is not recommended.", means);
  }
}

/** The "not recommended" rules (warnings, Dutch suppliers only), in the official order; true when one matched. */
function notRecommended(env: Env, node: DocumentNode): boolean {
  const text = node.qname;
  const say = (rule: string, message: string) => {
    warning(env, rule, message, node);
    return true;
  };
  switch (text) {
    case "cbc:TaxCurrencyCode":
      return say("BR-NL-19", "A VAT accounting currency (BT-6, cbc:TaxCurrencyCode) is not recommended for Dutch invoices.");
    case "cbc:TaxPointDate":
      return say("BR-NL-20", "A VAT point date (BT-7, cbc:TaxPointDate) is not recommended for Dutch invoices; the receiver ignores it.");
    case "cbc:DescriptionCode":
      if (under(node, "cac:InvoicePeriod")) return say("BR-NL-21", "A VAT point date code (BT-8, cac:InvoicePeriod/cbc:DescriptionCode) is not recommended for Dutch invoices; the receiver ignores it.");
      break;
    case "cbc:IssueDate":
      if (under(node, "cac:InvoiceDocumentReference", "cac:BillingReference")) return say("BR-NL-24", "The issue date of the preceding invoice (BT-26) is not recommended for Dutch invoices.");
      break;
    case "cac:PartyTaxScheme":
      if (under(node, "cac:Party", SUPPLIER)) {
        if (child(node, "cbc:CompanyID") !== null && !select(node, "cac:TaxScheme/cbc:ID").some((id) => stringValue(id) === "VAT")) {
          warning(env, "BR-NL-25", "A seller tax registration identifier under a tax scheme other than VAT (BT-32) is not recommended: it does not apply to suppliers in the Netherlands.", node);
        }
        return true;
      }
      break;
    case "cbc:CompanyLegalForm":
      if (under(node, "cac:PartyLegalEntity", "cac:Party", SUPPLIER)) return say("BR-NL-26", "The seller's additional legal information (BT-33, cbc:CompanyLegalForm) is not recommended: it does not apply to suppliers in the Netherlands.");
      break;
    case "cbc:Line":
      if (under(node, "cac:AddressLine", "cac:PostalAddress", "cac:Party", SUPPLIER)) return say("BR-NL-27-1", "A third address line for the seller (BT-162, cac:AddressLine/cbc:Line) is not recommended for Dutch invoices.");
      if (under(node, "cac:AddressLine", "cac:PostalAddress", "cac:Party", CUSTOMER)) return say("BR-NL-27-2", "A third address line for the buyer (BT-163, cac:AddressLine/cbc:Line) is not recommended for Dutch invoices.");
      if (under(node, "cac:AddressLine", "cac:PostalAddress", TAX_REP)) return say("BR-NL-27-3", "A third address line for the fiscal representative (BT-164, cac:AddressLine/cbc:Line) is not recommended for Dutch invoices.");
      if (under(node, "cac:AddressLine", "cac:Address", "cac:DeliveryLocation", "cac:Delivery")) return say("BR-NL-27-4", "A third address line for the delivery address (BT-165, cac:AddressLine/cbc:Line) is not recommended for Dutch invoices.");
      break;
    case "cbc:CountrySubentity":
      if (under(node, "cac:PostalAddress", "cac:Party", SUPPLIER)) return say("BR-NL-28-1", "A country subdivision (province) for the seller (BT-39, cbc:CountrySubentity) is not recommended for Dutch invoices.");
      if (under(node, "cac:PostalAddress", "cac:Party", CUSTOMER)) return say("BR-NL-28-2", "A country subdivision (province) for the buyer (BT-54, cbc:CountrySubentity) is not recommended for Dutch invoices.");
      if (under(node, "cac:PostalAddress", TAX_REP)) return say("BR-NL-28-3", "A country subdivision (province) for the fiscal representative (BT-68, cbc:CountrySubentity) is not recommended for Dutch invoices.");
      if (under(node, "cac:Address", "cac:DeliveryLocation", "cac:Delivery")) return say("BR-NL-28-4", "A country subdivision (province) for the delivery address (BT-79, cbc:CountrySubentity) is not recommended for Dutch invoices.");
      break;
    case "cbc:PaymentMeansCode":
      if (under(node, "cac:PaymentMeans")) {
        if (node.attrs.name !== undefined) warning(env, "BR-NL-29", `A payment means text (BT-82, the name attribute "${node.attrs.name}" of cbc:PaymentMeansCode) is not recommended for Dutch invoices.`, node);
        return true;
      }
      break;
    case "cbc:Name":
      if (under(node, "cac:PayeeFinancialAccount", "cac:PaymentMeans")) return say("BR-NL-30", "A payment account name (BT-85, cac:PayeeFinancialAccount/cbc:Name) is not recommended for Dutch invoices.");
      break;
    case "cbc:AllowanceChargeReasonCode":
      // The official rule for document-level reason codes also matches those on lines (its context has no anchor).
      if (under(node, "cac:AllowanceCharge")) return say("BR-NL-32-1", "An allowance or charge reason code (BT-98, BT-105, BT-140, BT-145, cbc:AllowanceChargeReasonCode) is not recommended for Dutch invoices; give the reason as text (cbc:AllowanceChargeReason).");
      break;
    case "cbc:TaxAmount":
      if (under(node, "cac:TaxTotal")) {
        const currencies = (env.lazy.currencies ??= new Set(descendants(env.root, "cbc:DocumentCurrencyCode").map(stringValue)));
        const currency = node.attrs.currencyID;
        if (currency === undefined || !currencies.has(currency)) {
          warning(env, "BR-NL-33", `A VAT total in a currency (${currency ?? "none"}) other than the invoice currency (BT-5, cbc:DocumentCurrencyCode) is not recommended for Dutch invoices.`, node);
        }
        return true;
      }
      break;
    case "cbc:TaxExemptionReasonCode":
      if (under(node, "cac:TaxCategory", "cac:TaxSubtotal", "cac:TaxTotal")) return say("BR-NL-35", "A VAT exemption reason code (BT-121, cbc:TaxExemptionReasonCode) is not recommended for Dutch invoices; give the reason as text (cbc:TaxExemptionReason).");
      break;
  }
  return false;
}
