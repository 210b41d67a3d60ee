// The national rules carried by Peppol BIS Billing 3.0 release 2026.5 for UBL: Norway (NO-R-*), Denmark
// (DK-R-*), Italy (IT-R-*), Sweden (SE-R-*), Greece (GR-R-*, GR-S-*), Iceland (IS-R-*), the Netherlands
// (NL-R-*) and Germany (DE-R-*). One visitor per Schematron pattern, in the official rule order (an element is
// checked by the first rule of a pattern whose context it matches).
import { child, children, exists, first, norm, normalizeSpace, select, stringValue, textAt, type DocumentNode } from "../../document/model.js";
import { dec } from "../decimal.js";
import { germanRulesIbanValid, greekTinValid, mod11Valid, swedishOrgNumberValid, isXsInteger } from "./peppol-checkdigits.js";
import { filled, isNumber, normOne, q, xlength, xnumber, xsDate, xsubstring, type PeppolFacts } from "./peppol-support.js";

/** What the national patterns compute once per document. */
export interface NationalFacts {
  readonly dkSupplier: boolean;
  readonly dkBoth: boolean;
  readonly isSupplier: boolean;
  readonly isBoth: boolean;
  readonly greekSender: boolean;
  readonly greekBoth: boolean;
  readonly greekSenderInGreece: boolean;
  readonly accountingSupplierGreek: boolean;
  readonly seSupplier: boolean;
  readonly seSupplierWithSeVat: boolean;
  readonly seCustomer: boolean;
  readonly nlSupplier: boolean;
  readonly nlBoth: boolean;
  readonly nlTaxRep: boolean;
  readonly deBoth: boolean;
  /** Some national rule may apply to an element below the root. */
  readonly any: boolean;
}

const vatSchemes = (party: DocumentNode | null, exact: boolean): DocumentNode[] =>
  children(party, "cac:PartyTaxScheme").filter((pts) => select(pts, "cac:TaxScheme/cbc:ID").some((id) => (exact ? stringValue(id) : norm(id)) === "VAT"));

const countryCodes = (party: DocumentNode | null): string[] => select(party, "cac:PostalAddress/cac:Country/cbc:IdentificationCode").map(stringValue);


/** A party with a postal address in Sweden. */
function seAddress(node: DocumentNode): boolean {
  return countryCodes(node).includes("SE");
}

/** normalize-space(path) of the root, upper-cased, is `code` (one element only). */
function countryIs(root: DocumentNode, path: string, code: string): boolean {
  return normOne(select(root, path))?.toUpperCase() === code;
}

export function nationalFacts(facts: PeppolFacts): NationalFacts {
  const root = facts.root;
  const suppliers = select(root, "cac:AccountingSupplierParty/cac:Party");
  const customers = select(root, "cac:AccountingCustomerParty/cac:Party");
  const dkSupplier = facts.supplierAddressCountryRaw === "DK", isSupplier = facts.supplierAddressCountryRaw === "IS";
  const greekSender = facts.supplierCountry === "GR" || facts.supplierCountry === "EL";
  const greekReceiver = facts.customerCountry === "GR" || facts.customerCountry === "EL";
  const nlSupplier = countryIs(root, "cac:AccountingSupplierParty/cac:Party/cac:PostalAddress/cac:Country/cbc:IdentificationCode", "NL");
  const nlCustomer = countryIs(root, "cac:AccountingCustomerParty/cac:Party/cac:PostalAddress/cac:Country/cbc:IdentificationCode", "NL");
  const national = {
    dkSupplier,
    dkBoth: dkSupplier && facts.customerAddressCountryRaw === "DK",
    isSupplier,
    isBoth: isSupplier && facts.customerAddressCountryRaw === "IS",
    greekSender,
    greekBoth: greekSender && greekReceiver,
    greekSenderInGreece: greekSender && suppliers.some((party) => countryCodes(party).includes("GR")),
    accountingSupplierGreek: facts.accountingSupplierCountry === "GR" || facts.accountingSupplierCountry === "EL",
    seSupplier: suppliers.some(seAddress),
    seSupplierWithSeVat: suppliers.some((party) => seAddress(party) && vatSchemes(party, true).some((pts) => xsubstring(stringValue(child(pts, "cbc:CompanyID")), 1, 2) === "SE")),
    seCustomer: customers.some(seAddress),
    nlSupplier,
    nlBoth: nlSupplier && nlCustomer,
    nlTaxRep: nlSupplier && countryIs(root, "cac:TaxRepresentativeParty/cac:PostalAddress/cac:Country/cbc:IdentificationCode", "NL"),
    deBoth: facts.supplierIsDE && facts.customerIsDE,
    any: false,
  };
  // One object, with `any` set once the facts it reads are there (a spread into a second one cost a copy of all of them).
  national.any = facts.supplierCountry === "NO" || facts.supplierCountry === "IT" || national.dkBoth || national.seSupplier || national.greekSender || national.accountingSupplierGreek || national.isBoth || national.nlSupplier || national.deBoth;
  return national;
}

/** The rules whose context is the document element. */
export function nationalDocumentRules(facts: PeppolFacts, national: NationalFacts): void {
  if (!facts.isInvoice && !facts.isCreditNote) return;
  if (national.dkSupplier) denmarkDocument(facts, national);
  if (national.greekSender) greekInvoiceId(facts);
  if (national.greekSenderInGreece) greekDocument(facts);
  if (national.isSupplier) icelandDocument(facts);
  if (national.deBoth) germanyDocument(facts);
}

/** Every other national rule, for one element. */
export function nationalRules(facts: PeppolFacts, national: NationalFacts, node: DocumentNode): void {
  if (facts.supplierCountry === "NO") norway(facts, node);
  if (national.dkBoth) denmark(facts, node);
  if (facts.supplierCountry === "IT") italy(facts, node);
  if (national.seSupplier) sweden(facts, national, node);
  if (national.greekSender || national.accountingSupplierGreek) greece(facts, national, node);
  if (national.greekBoth) greeceBoth(facts, node);
  if (national.isBoth) iceland(facts, node);
  if (national.nlSupplier) netherlands(facts, national, node);
  if (national.deBoth) germany(facts, node);
}

const isSupplierParty = (node: DocumentNode) => node.qname === "cac:Party" && node.parent?.qname === "cac:AccountingSupplierParty";
const isCustomerParty = (node: DocumentNode) => node.qname === "cac:Party" && node.parent?.qname === "cac:AccountingCustomerParty";

// ---------------------------------------------------------------------------------------------- Norway

function norway(facts: PeppolFacts, node: DocumentNode): void {
  if (!isSupplierParty(node)) return;
  const tax = children(node, "cac:PartyTaxScheme").find((pts) => norm(first(pts, "cac:TaxScheme/cbc:ID")) === "TAX");
  if (norm(child(tax, "cbc:CompanyID")) !== "Foretaksregisteret") {
    facts.report("NO-R-002", "warning", "Most Norwegian sellers must state 'Foretaksregisteret' on the invoice (a tax scheme 'TAX' with company ID 'Foretaksregisteret'), see foretaksregisterloven § 10-2.", node);
  }
  const vat = vatSchemes(node, false);
  const ids = vat.map((pts) => stringValue(child(pts, "cbc:CompanyID")));
  if (ids.some((id) => xsubstring(id, 1, 2) === "NO")) {
    const id = ids[0]!;
    if (!(/^[0-9]{9}MVA$/.test(xsubstring(id, 3)) && mod11Valid(xsubstring(id, 3, 9)))) {
      facts.report("NO-R-001", "fatal", `The Norwegian seller's VAT number ${q(id)} must be NO, a valid nine-digit organisation number and MVA (like NO999999999MVA).`, node);
    }
  }
}

// --------------------------------------------------------------------------------------------- Denmark

function denmarkDocument(facts: PeppolFacts, national: NationalFacts): void {
  const root = facts.root;
  const legal = first(root, "cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity/cbc:CompanyID");
  if (normalizeSpace(legal?.text ?? "") === "") facts.report("DK-R-002", "fatal", "A Danish seller must give its legal registration number (the CVR number) in PartyLegalEntity/CompanyID.", root);
  if (legal && normalizeSpace(legal.attrs.schemeID ?? "") !== "0184") {
    facts.report("DK-R-014", "fatal", `The Danish seller's legal registration number ${q(norm(legal))} must have scheme 0184 (DK CVR number), not ${q(legal.attrs.schemeID)}.`, root);
  }
  if (facts.isCreditNote && national.dkBoth) {
    const payable = first(root, "cac:LegalMonetaryTotal/cbc:PayableAmount");
    const amount = xnumber(payable?.text);
    if (amount && amount.lt(0)) facts.report("DK-R-016", "fatal", `A Danish credit note cannot have a negative amount due (${norm(payable)}).`, root);
  }
}

function denmark(facts: PeppolFacts, node: DocumentNode): void {
  const root = facts.root, parent = node.parent;
  switch (node.qname) {
    case "cac:PartyIdentification": {
      const party = parent, role = party?.parent;
      if (party?.qname !== "cac:Party" || role?.parent !== root || (role.qname !== "cac:AccountingSupplierParty" && role.qname !== "cac:AccountingCustomerParty")) return;
      const id = child(node, "cbc:ID");
      if (id && normalizeSpace(id.attrs.schemeID ?? "") === "") facts.report("DK-R-013", "fatal", `The party identifier ${q(norm(id))} needs a scheme (schemeID) when seller and buyer are Danish.`, node);
      return;
    }
    case "cac:PaymentMeans":
      if (facts.isInvoice && parent === root) denmarkPayment(facts, node);
      return;
    case "cac:Party":
      if (parent?.qname === "cac:AccountingCustomerParty" && parent.parent === root) {
        const legal = first(node, "cac:PartyLegalEntity/cbc:CompanyID");
        if (legal && normalizeSpace(legal.attrs.schemeID ?? "") !== "0184") facts.report("DK-R-017", "fatal", `The Danish buyer's legal registration number ${q(norm(legal))} must have scheme 0184 (DK CVR number), not ${q(legal.attrs.schemeID)}.`, node);
      }
      return;
    case "cac:InvoiceLine": case "cac:CreditNoteLine": {
      if (parent !== root || node.qname !== (facts.isInvoice ? "cac:InvoiceLine" : "cac:CreditNoteLine")) return;
      const codes = select(node, "cac:Item/cac:CommodityClassification/cbc:ItemClassificationCode");
      if (codes.some((itemClassificationCode) => itemClassificationCode.attrs.listID === "TST") && !codes.some((itemClassificationCode) => ["19.05.01", "19.0501", "26.08.01", "26.0801"].includes(itemClassificationCode.attrs.listVersionID ?? "\u0000"))) {
        facts.report("DK-R-003", "fatal", `Line ${textAt(node, "cbc:ID")}: an UNSPSC item classification (listID TST) must give version 19.05.01 or 26.08.01 (listVersionID).`, node);
      }
      return;
    }
    case "cac:AllowanceCharge": {
      if (!children(node, "cbc:AllowanceChargeReasonCode").some((allowanceChargeReasonCode) => stringValue(allowanceChargeReasonCode) === "ZZZ")) return;
      const reasonNode = child(node, "cbc:AllowanceChargeReason");
      const reason = stringValue(reasonNode);
      const amount = xnumber(reasonNode ? reason : null);
      const taxCategory = xlength(normalizeSpace(reasonNode?.text ?? "")) === 4 && amount !== null && amount.gte(0) && amount.lte(9999);
      const hashed = reasonNode !== null && reason.includes("#") && !reason.startsWith("#") && !reason.endsWith("#");
      if (!taxCategory && !hashed) facts.report("DK-R-004", "fatal", `A non-VAT tax (reason code ZZZ) must give in the reason either the 4-digit tax category or a text with a # that neither starts nor ends it; the reason is ${q(reason)}.`, node);
      return;
    }
  }
}

function denmarkPayment(facts: PeppolFacts, pm: DocumentNode): void {
  const codes = children(pm, "cbc:PaymentMeansCode").map(stringValue);
  const has = (text: string) => codes.includes(text);
  const code = codes[0];
  if (!" 1 10 31 42 48 49 50 58 59 93 97 ".includes(` ${code ?? ""} `)) facts.report("DK-R-005", "fatal", `Payment means code ${q(code)} is not allowed for a Danish seller; use 1, 10, 31, 42, 48, 49, 50, 58, 59, 93 or 97.`, pm);
  const accountText = (path: string) => normalizeSpace(first(pm, path)?.text ?? "");
  if ((has("31") || has("42")) && !(accountText("cac:PayeeFinancialAccount/cbc:ID") !== "" && accountText("cac:PayeeFinancialAccount/cac:FinancialInstitutionBranch/cbc:ID") !== "")) {
    facts.report("DK-R-006", "fatal", "For payment means 31 or 42 a Danish seller must give the bank account number and the registration number (branch ID).", pm);
  }
  if (has("49") && !(accountText("cac:PaymentMandate/cbc:ID") !== "" && accountText("cac:PaymentMandate/cac:PayerFinancialAccount/cbc:ID") !== "")) {
    facts.report("DK-R-007", "fatal", "For direct debit (payment means 49) a Danish seller must give the mandate ID and the payer's account.", pm);
  }
  const paymentId = stringValue(child(pm, "cbc:PaymentID"));
  const prefix = xsubstring(paymentId, 1, 3);
  const payee = stringValue(first(pm, "cac:PayeeFinancialAccount/cbc:ID"));
  if (has("50") && !(["01#", "04#", "15#"].includes(prefix) && /^[0-9]{7,8}$/.test(payee))) {
    facts.report("DK-R-008", "fatal", `For giro payment (50) the payment ID ${q(paymentId)} must start with 01#, 04# or 15#, and the giro account ${q(payee)} must be 7 or 8 digits.`, pm);
  }
  if (has("50") && (prefix === "04#" || prefix === "15#") && xlength(paymentId) !== 19) {
    facts.report("DK-R-009", "fatal", `For giro payment (50) with ${prefix} the payment ID ${q(paymentId)} must carry the 16-digit instruction ID (like 04#1234567890123456).`, pm);
  }
  const payeeText = first(pm, "cac:PayeeFinancialAccount/cbc:ID")?.text ?? "";
  if (has("93") && !(["71#", "73#", "75#"].includes(prefix) && xlength(payeeText) === 8)) {
    facts.report("DK-R-010", "fatal", `For FIK payment (93) the payment ID ${q(paymentId)} must start with 71#, 73# or 75#, and the account ${q(payee)} must be exactly 8 characters.`, pm);
  }
  if (has("93") && (prefix === "71#" || prefix === "75#") && xlength(paymentId) !== 18 && xlength(paymentId) !== 19) {
    facts.report("DK-R-011", "fatal", `For FIK payment (93) with ${prefix} the payment ID ${q(paymentId)} must carry the 15 or 16-digit instruction ID.`, pm);
  }
}

// ----------------------------------------------------------------------------------------------- Italy

function italy(facts: PeppolFacts, node: DocumentNode): void {
  if (node.qname === "cac:PartyTaxScheme" && node.parent && isSupplierParty(node.parent)) {
    const scheme = normOne(select(node, "cac:TaxScheme/cbc:ID"));
    if (scheme !== null && scheme !== "VAT" && !/^[A-Z0-9]{11,16}$/.test(textAt(node, "cbc:CompanyID"))) {
      facts.report("IT-R-001", "fatal", `The Italian seller's tax registration identifier ${q(textAt(node, "cbc:CompanyID"))} must be 11 to 16 capital letters or digits.`, node);
    }
  } else if (isSupplierParty(node)) {
    const address = child(node, "cac:PostalAddress");
    if (!child(address, "cbc:StreetName")) facts.report("IT-R-002", "fatal", "An Italian seller must give the street of its address (I fornitori italiani devono indicare l'indirizzo postale).", node);
    if (!child(address, "cbc:CityName")) facts.report("IT-R-003", "fatal", "An Italian seller must give the city of its address (I fornitori italiani devono indicare la città).", node);
    if (!child(address, "cbc:PostalZone")) facts.report("IT-R-004", "fatal", "An Italian seller must give the post code of its address (I fornitori italiani devono indicare il CAP).", node);
  }
}

// ---------------------------------------------------------------------------------------------- Sweden

function sweden(facts: PeppolFacts, national: NationalFacts, node: DocumentNode): void {
  const parent = node.parent;
  if (isSupplierParty(node)) {
    const vat = vatSchemes(node, true);
    if (countryCodes(node).includes("SE") && vat.some((pts) => xsubstring(stringValue(child(pts, "cbc:CompanyID")), 1, 2) === "SE")) {
      const id = stringValue(child(vat[0]!, "cbc:CompanyID"));
      if (xlength(normalizeSpace(id)) !== 14) facts.report("SE-R-001", "fatal", `The Swedish VAT number ${q(normalizeSpace(id))} must have 14 characters (SE, ten digits of the organisation number, 01).`, node);
      if (!isNumber(xsubstring(id, 3, 12))) facts.report("SE-R-002", "fatal", `The Swedish VAT number ${q(normalizeSpace(id))} must end with 12 digits after SE.`, node);
    }
    return;
  }
  if (node.qname === "cac:PartyLegalEntity" && parent && isSupplierParty(parent)) {
    const id = child(node, "cbc:CompanyID");
    if (id && countryCodes(parent).includes("SE")) {
      const text = norm(id);
      if (!isNumber(stringValue(id))) facts.report("SE-R-003", "fatal", `The Swedish organisation number ${q(text)} must be numeric.`, node);
      if (xlength(text) !== 10) facts.report("SE-R-004", "fatal", `The Swedish organisation number ${q(text)} must have 10 digits.`, node);
      if (!swedishOrgNumberValid(text)) facts.report("SE-R-013", "fatal", `The Swedish organisation number ${q(text)} has a wrong check digit (the last digit, by the Luhn algorithm).`, node);
    }
    return;
  }
  if (node.qname === "cbc:CompanyID" && parent?.qname === "cac:PartyTaxScheme" && parent.parent && isSupplierParty(parent.parent)) {
    const party = parent.parent;
    const scheme = normOne(select(parent, "cac:TaxScheme/cbc:ID"));
    if (countryCodes(party).includes("SE") && exists(party, "cac:PartyLegalEntity/cbc:CompanyID") && scheme !== null && scheme.toUpperCase() !== "VAT") {
      if (normalizeSpace(stringValue(node).toUpperCase()) !== "GODKÄND FÖR F-SKATT") facts.report("SE-R-005", "fatal", `A Swedish seller's tax registration must state 'Godkänd för F-skatt', not ${q(norm(node))}.`, node);
    }
    return;
  }
  if ((node.qname === "cac:TaxCategory" || node.qname === "cac:ClassifiedTaxCategory") && national.seSupplierWithSeVat && children(node, "cbc:ID").some((id) => stringValue(id) === "S")) {
    const percent = child(node, "cbc:Percent");
    const amount = xnumber(percent ? stringValue(percent) : null);
    if (!(amount && (amount.eq(25) || amount.eq(12) || amount.eq(6)))) facts.report("SE-R-006", "fatal", `A Swedish seller's standard VAT rate must be 25, 12 or 6 percent, not ${q(norm(percent))}.`, node);
    return;
  }
  if (node.qname === "cbc:ID" && parent?.qname === "cac:PayeeFinancialAccount" && parent.parent?.qname === "cac:PaymentMeans") {
    const pm = parent.parent;
    if (normOne(children(pm, "cbc:PaymentMeansCode")) !== "30") return;
    const branch = normOne(select(parent, "cac:FinancialInstitutionBranch/cbc:ID"));
    const text = norm(node);
    if (branch === "SE:PLUSGIRO") {
      if (!isNumber(text)) facts.report("SE-R-007", "warning", `The Plusgiro account ${q(text)} should be numeric.`, node);
      if (xlength(text) < 2 || xlength(text) > 8) facts.report("SE-R-010", "warning", `The Plusgiro account ${q(text)} should have 2 to 8 digits.`, node);
    } else if (branch === "SE:BANKGIRO") {
      if (!isNumber(text)) facts.report("SE-R-008", "warning", `The Bankgiro account ${q(text)} should be numeric.`, node);
      if (xlength(text) !== 7 && xlength(text) !== 8) facts.report("SE-R-009", "warning", `The Bankgiro account ${q(text)} should have 7 or 8 digits.`, node);
    }
    return;
  }
  if (node.qname === "cac:PaymentMeans") {
    const codes = children(node, "cbc:PaymentMeansCode").map(stringValue);
    if (codes.includes("50") || codes.includes("56")) {
      facts.report("SE-R-011", "warning", "A Swedish seller using Bankgiro or Plusgiro should use payment means code 30 with branch ID SE:BANKGIRO or SE:PLUSGIRO.", node);
    } else if (national.seCustomer && codes.includes("31")) {
      facts.report("SE-R-012", "warning", "Between Swedish trading partners a credit transfer should use payment means code 30, not 31.", node);
    }
  }
}

// ---------------------------------------------------------------------------------------------- Greece

const tokenize = (text: string, sep: string): string[] => (text === "" ? [] : text.split(sep));
const GREEK_DOCUMENT_TYPES = ["1.1", "1.6", "2.1", "2.4", "5.1", "5.2", ""];
const GREEK_DATE = /^(0?[1-9]|[12][0-9]|3[01])[-\\/ ]?(0?[1-9]|1[0-2])[-\\/ ]?(19|20)[0-9]{2}/;

function greekInvoiceId(facts: PeppolFacts): void {
  const idNode = child(facts.root, "cbc:ID");
  if (!idNode) return;
  const id = stringValue(idNode);
  const seg = tokenize(id, "|");
  const fail = (rule: string, msg: string) => facts.report(rule, "fatal", `The Greek invoice number ${q(id)}: ${msg}`, idNode);
  if (seg.length !== 6) fail("GR-R-001-1", `it must have 6 segments separated by |, not ${seg.length}.`);
  const tin = seg[0];
  const vatTins = [...vatSchemes(first(facts.root, "cac:AccountingSupplierParty/cac:Party"), true), ...vatSchemes(child(facts.root, "cac:TaxRepresentativeParty"), true)]
    .map((pts) => xsubstring(stringValue(child(pts, "cbc:CompanyID")), 3, 9));
  if (!(tin !== undefined && xlength(normalizeSpace(tin)) === 9 && greekTinValid(tin) && vatTins.includes(tin))) {
    fail("GR-R-001-2", `the first segment ${q(tin)} must be a valid Greek tax number (AFM) equal to the seller's or the tax representative's VAT number.`);
  }
  const date = seg[1];
  const issue = tokenize(stringValue(child(facts.root, "cbc:IssueDate")), "-");
  const idDate = date === undefined ? [] : tokenize(date, "/");
  if (!(date !== undefined && normalizeSpace(date) !== "" && GREEK_DATE.test(date) && idDate[0] !== undefined && idDate[0] === issue[2] && idDate[1] !== undefined && idDate[1] === issue[1] && idDate[2] !== undefined && idDate[2] === issue[0])) {
    fail("GR-R-001-3", `the second segment ${q(date)} must be the issue date written DD/MM/YYYY.`);
  }
  const serial = seg[2];
  if (!(serial !== undefined && normalizeSpace(serial) !== "" && isNumber(serial) && isXsInteger(serial) && BigInt(serial.trim()) >= 0n)) fail("GR-R-001-4", `the third segment ${q(serial)} must be a positive whole number.`);
  const type = seg[3];
  if (!(type !== undefined && normalizeSpace(type) !== "" && GREEK_DOCUMENT_TYPES.includes(type))) fail("GR-R-001-5", `the fourth segment ${q(type)} must be a Greek document type (1.1, 1.6, 2.1, 2.4, 5.1 or 5.2).`);
  if (!(seg[4] !== undefined && seg[4] !== "")) fail("GR-R-001-6", "the fifth segment must not be empty.");
  if (!(seg[5] !== undefined && seg[5] !== "")) fail("GR-R-001-7", "the sixth segment must not be empty.");
}

function greekDocument(facts: PeppolFacts): void {
  const refs = children(facts.root, "cac:AdditionalDocumentReference");
  const described = (text: string) => refs.filter((additionalDocumentReference) => children(additionalDocumentReference, "cbc:DocumentDescription").some((documentDescription) => stringValue(documentDescription) === text)).length;
  const marks = described("##M.AR.K##"), urls = described("##INVOICE|URL##");
  if (marks !== 1) facts.report("GR-R-004-1", "fatal", `A Greek seller's invoice must carry exactly one MARK number (a document reference described '##M.AR.K##'); it has ${marks}.`, facts.root);
  if (urls !== 1) facts.report("GR-S-008-1", "warning", `A Greek seller's invoice should carry one invoice URL (a document reference described '##INVOICE|URL##'); it has ${urls}.`, facts.root);
  if (urls > 1) facts.report("GR-R-008-2", "fatal", `A Greek seller's invoice may carry at most one invoice URL; it has ${urls}.`, facts.root);
}

function greekVat(party: DocumentNode): { ok: boolean; value: string } {
  const ids = vatSchemes(party, false).flatMap((pts) => children(pts, "cbc:CompanyID"));
  const value = stringValue(ids[0]);
  return { ok: ids.length === 1 && xsubstring(value, 1, 2) === "EL" && greekTinValid(xsubstring(value, 3)), value };
}

function greece(facts: PeppolFacts, national: NationalFacts, node: DocumentNode): void {
  const parent = node.parent;
  if (national.greekSender) {
    if (isSupplierParty(node)) {
      if (xlength(stringValue(first(node, "cac:PartyName/cbc:Name"))) === 0) facts.report("GR-R-002", "fatal", "A Greek seller must give its full registered name (PartyName).", node);
      const vat = greekVat(node);
      if (!vat.ok) facts.report("GR-S-011", "warning", `A Greek seller should give one VAT number of the form EL followed by a valid tax number (AFM); it has ${q(vat.value)}.`, node);
      return;
    }
    if (node.qname === "cbc:CompanyID" && parent?.qname === "cac:PartyTaxScheme" && parent.parent && isSupplierParty(parent.parent) && normOne(select(parent, "cac:TaxScheme/cbc:ID")) === "VAT") {
      const text = stringValue(node);
      if (!(xsubstring(text, 1, 2) === "EL" && greekTinValid(xsubstring(text, 3)))) facts.report("GR-R-003", "fatal", `The Greek seller's VAT number ${q(text)} must start with EL followed by a valid tax number (AFM).`, node);
      return;
    }
    if (node.qname === "cbc:ID" && parent?.qname === "cac:AdditionalDocumentReference" && national.greekSenderInGreece && children(parent, "cbc:DocumentDescription").some((documentDescription) => stringValue(documentDescription) === "##M.AR.K##")) {
      if (!/^[1-9]([0-9]*)/.test(stringValue(node))) facts.report("GR-R-004-2", "fatal", `The MARK number ${q(stringValue(node))} must be a positive whole number.`, node);
      return;
    }
    if (node.qname === "cac:AdditionalDocumentReference" && children(node, "cbc:DocumentDescription").some((documentDescription) => stringValue(documentDescription) === "##INVOICE|URL##")) {
      if (normalizeSpace(stringValue(first(node, "cac:Attachment/cac:ExternalReference/cbc:URI"))) === "") facts.report("GR-R-008-3", "fatal", "The invoice URL reference of a Greek seller must give the URL (Attachment/ExternalReference/URI).", node);
      return;
    }
    if (isCustomerParty(node)) {
      if (xlength(stringValue(first(node, "cac:PartyName/cbc:Name"))) === 0) facts.report("GR-R-005", "fatal", "A Greek seller must give the buyer's full name (PartyName).", node);
      return;
    }
  }
  if (national.accountingSupplierGreek && node.qname === "cbc:EndpointID" && parent && isSupplierParty(parent)) {
    if (!(node.attrs.schemeID === "9933" && greekTinValid(stringValue(node)))) facts.report("GR-R-009", "fatal", `A Greek seller's electronic address must be its tax number (AFM) with scheme 9933; it is ${q(stringValue(node))} with scheme ${q(node.attrs.schemeID)}.`, node);
  }
}

function greeceBoth(facts: PeppolFacts, node: DocumentNode): void {
  if (isCustomerParty(node)) {
    const vat = greekVat(node);
    if (!vat.ok) facts.report("GR-R-006", "fatal", `A Greek buyer's VAT number must be given once, as EL followed by a valid tax number (AFM); it is ${q(vat.value)}.`, node);
  } else if (node.qname === "cbc:EndpointID" && node.parent && isCustomerParty(node.parent)) {
    if (!(node.attrs.schemeID === "9933" && greekTinValid(stringValue(node)))) facts.report("GR-R-010", "fatal", `A Greek buyer's electronic address must be its tax number (AFM) with scheme 9933; it is ${q(stringValue(node))} with scheme ${q(node.attrs.schemeID)}.`, node);
  }
}

// --------------------------------------------------------------------------------------------- Iceland

function icelandDocument(facts: PeppolFacts): void {
  const root = facts.root;
  const typeOk = (node: DocumentNode | null) => { const text = normalizeSpace(stringValue(node)); return !text.includes(" ") && " 380 381 ".includes(` ${text} `); };
  if (!typeOk(child(root, "cbc:InvoiceTypeCode")) && !typeOk(child(root, "cbc:CreditNoteTypeCode"))) {
    facts.report("IS-R-001", "warning", `An Icelandic seller's invoice type should be 380 or 381 (Ef seljandi er íslenskur þá ætti gerð reiknings að vera 380 eða 381), not ${q(textAt(root, "cbc:InvoiceTypeCode") || textAt(root, "cbc:CreditNoteTypeCode"))}.`, root);
  }
  const legal = select(root, "cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity/cbc:CompanyID");
  if (!(legal.length > 0 && legal.some((companyId) => companyId.attrs.schemeID === "0196"))) facts.report("IS-R-002", "fatal", "An Icelandic seller must give its kennitala as legal registration number with scheme 0196.", root);
  if (!(exists(root, "cac:AccountingSupplierParty/cac:Party/cac:PostalAddress/cbc:StreetName") && exists(root, "cac:AccountingSupplierParty/cac:Party/cac:PostalAddress/cbc:PostalZone"))) {
    facts.report("IS-R-003", "fatal", "An Icelandic seller must give the street and post code of its address.", root);
  }
  for (const [rule, code] of [["IS-R-006", "9"], ["IS-R-007", "42"]] as const) {
    const means = children(root, "cac:PaymentMeans").filter((pm) => children(pm, "cbc:PaymentMeansCode").some((paymentMeansCode) => stringValue(paymentMeansCode) === code));
    if (means.length === 0) continue;
    const accounts = means.flatMap((pm) => select(pm, "cac:PayeeFinancialAccount/cbc:ID"));
    if (!(accounts.length > 0 && xlength(norm(accounts[0])) === 12)) facts.report(rule, "fatal", `An Icelandic seller using payment means ${code} must give a 12-digit account number, not ${q(norm(accounts[0]))}.`, root);
  }
  const eindagi = children(root, "cac:AdditionalDocumentReference").filter((additionalDocumentReference) => children(additionalDocumentReference, "cbc:DocumentDescription").some((documentDescription) => stringValue(documentDescription) === "EINDAGI"));
  if (eindagi.length > 0) {
    const ids = eindagi.flatMap((additionalDocumentReference) => children(additionalDocumentReference, "cbc:ID"));
    const id = stringValue(ids[0]);
    if (!(xlength(id) === 10 && xsDate(id) !== null)) facts.report("IS-R-008", "fatal", `The EINDAGI date ${q(id)} must be written YYYY-MM-DD.`, root);
    const due = children(root, "cbc:DueDate");
    if (due.length === 0) facts.report("IS-R-009", "fatal", "An invoice with an EINDAGI (final due date) must also have a due date.", root);
    if (!due.some((dueDate) => ids.some((i) => stringValue(dueDate) <= stringValue(i)))) facts.report("IS-R-010", "fatal", `The EINDAGI date ${q(id)} must be the same as or later than the due date ${q(textAt(root, "cbc:DueDate"))}.`, root);
  }
}

function iceland(facts: PeppolFacts, node: DocumentNode): void {
  if (node.qname !== "cac:AccountingCustomerParty" || node.parent !== facts.root) return;
  const legal = select(node, "cac:Party/cac:PartyLegalEntity/cbc:CompanyID");
  if (!(legal.length > 0 && legal.some((companyId) => companyId.attrs.schemeID === "0196"))) facts.report("IS-R-004", "fatal", "When seller and buyer are Icelandic, the buyer's kennitala must be given as legal registration number with scheme 0196.", node);
  if (!(exists(node, "cac:Party/cac:PostalAddress/cbc:StreetName") && exists(node, "cac:Party/cac:PostalAddress/cbc:PostalZone"))) facts.report("IS-R-005", "fatal", "When seller and buyer are Icelandic, the buyer's address must give the street and post code.", node);
}

// ----------------------------------------------------------------------------------------- Netherlands

const KVK_OR_OIN = (node: DocumentNode) => { const message = ` ${node.attrs.schemeID ?? ""} `; return (node.attrs.schemeID !== undefined && (message.includes(" 0106 ") || message.includes(" 0190 "))) && norm(node) !== ""; };
const fullAddress = (node: DocumentNode) => !!(child(node, "cbc:StreetName") && child(node, "cbc:CityName") && child(node, "cbc:PostalZone"));

function netherlands(facts: PeppolFacts, national: NationalFacts, node: DocumentNode): void {
  const parent = node.parent;
  switch (node.qname) {
    case "cbc:CreditNoteTypeCode":
      if (!exists(facts.root, "cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID")) facts.report("NL-R-001", "fatal", "A Dutch seller's credit note must refer to the invoice it credits (BillingReference/InvoiceDocumentReference/ID).", node);
      return;
    case "cac:PostalAddress":
      if (parent && isSupplierParty(parent)) {
        if (!fullAddress(node)) facts.report("NL-R-002", "fatal", "A Dutch seller's address must give street, city and post code.", node);
      } else if (parent && isCustomerParty(parent)) {
        if (national.nlBoth && !fullAddress(node)) facts.report("NL-R-004", "fatal", "When seller and buyer are Dutch, the buyer's address must give street, city and post code.", node);
      } else if (parent?.qname === "cac:TaxRepresentativeParty") {
        if (national.nlTaxRep && !fullAddress(node)) facts.report("NL-R-006", "fatal", "A Dutch tax representative's address must give street, city and post code.", node);
      }
      return;
    case "cbc:CompanyID":
      if (parent?.qname !== "cac:PartyLegalEntity" || !parent.parent) return;
      if (isSupplierParty(parent.parent)) {
        if (!KVK_OR_OIN(node)) facts.report("NL-R-003", "fatal", `A Dutch seller's legal registration number ${q(norm(node))} must be a KVK or OIN number (scheme 0106 or 0190), not scheme ${q(node.attrs.schemeID)}.`, node);
      } else if (isCustomerParty(parent.parent) && national.nlBoth) {
        if (!KVK_OR_OIN(node)) facts.report("NL-R-005", "fatal", `A Dutch buyer's legal registration number ${q(norm(node))} must be a KVK or OIN number (scheme 0106 or 0190), not scheme ${q(node.attrs.schemeID)}.`, node);
      }
      return;
    case "cac:LegalMonetaryTotal": {
      const payable = dec(stringValue(child(node, "cbc:PayableAmount")));
      const noPayment = (facts.isInvoice && payable !== null && payable.lte(0)) || (facts.isCreditNote && payable !== null && payable.gte(0));
      if (!noPayment && !child(facts.root, "cac:PaymentMeans")) facts.report("NL-R-007", "fatal", `A Dutch seller must give payment instructions (PaymentMeans) when the buyer has to pay (amount due ${textAt(node, "cbc:PayableAmount")}).`, node);
      return;
    }
    case "cac:PaymentMeans": {
      const code = textAt(node, "cbc:PaymentMeansCode");
      if (national.nlBoth && !["30", "48", "49", "57", "58", "59"].includes(code)) facts.report("NL-R-008", "fatal", `Between Dutch parties the payment means code must be 30, 48, 49, 57, 58 or 59, not ${q(code)}.`, node);
      return;
    }
    case "cbc:LineID":
      if (parent?.qname === "cac:OrderLineReference" && !exists(facts.root, "cac:OrderReference/cbc:ID")) facts.report("NL-R-009", "fatal", `A Dutch seller's invoice refers to order line ${q(norm(node))}, so it must also give the order reference (OrderReference/ID).`, node);
      return;
  }
}

// --------------------------------------------------------------------------------------------- Germany

const SUPPORTED_VAT = ["S", "Z", "E", "AE", "K", "G", "L", "M"];
const SKONTO = /(^|\r?\n)#(SKONTO)#TAGE=([0-9]+#PROZENT=[0-9]+\.[0-9]{2})(#BASISBETRAG=-?[0-9]+\.[0-9]{2})?#$/;
const EMAIL = /^[^@ \t\r\n]+@([^@. \t\r\n]+\.)+[^@. \t\r\n]+$/;
// '.*([0-9].*){3,}.*' on a one-line (normalized) text: at least three digits, counted without backtracking.
const hasThreeDigits = (text: string) => (text.match(/[0-9]/g)?.length ?? 0) >= 3;
const URL = /^([a-zA-Z])([a-zA-Z0-9+.-])+:/;

function germanyDocument(facts: PeppolFacts): void {
  const root = facts.root;
  if (!child(root, "cac:PaymentMeans")) facts.report("DE-R-001", "fatal", "Between German parties the invoice must give payment instructions (PaymentMeans, BG-16).", root);
  if (!children(root, "cbc:BuyerReference").some(filled)) facts.report("DE-R-015", "fatal", "Between German parties the buyer reference (BT-10, the Leitweg-ID for public buyers) is required.", root);
  const acCodes = (indicator: string) => children(root, "cac:AllowanceCharge").filter((ac) => children(ac, "cbc:ChargeIndicator").some((chargeIndicator) => stringValue(chargeIndicator) === indicator)).flatMap((ac) => select(ac, "cac:TaxCategory/cbc:ID")).map(stringValue);
  const lineCodes = [...select(root, "cac:InvoiceLine/cac:Item/cac:ClassifiedTaxCategory/cbc:ID"), ...select(root, "cac:CreditNoteLine/cac:Item/cac:ClassifiedTaxCategory/cbc:ID")].map(stringValue);
  const usesVat = [...acCodes("false"), ...acCodes("true"), ...lineCodes].some((text) => SUPPORTED_VAT.includes(text));
  if (usesVat && !child(root, "cac:TaxRepresentativeParty") && !select(root, "cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID").some(filled)) {
    facts.report("DE-R-016", "fatal", "Between German parties an invoice with VAT must give the seller's VAT identifier, the seller's tax number or a tax representative.", root);
  }
  const type = textAt(root, "cbc:InvoiceTypeCode"), cnType = textAt(root, "cbc:CreditNoteTypeCode");
  const types = ["326", "380", "384", "389", "381", "875", "876", "877"];
  if (!types.includes(type) && !types.includes(cnType)) facts.report("DE-R-017", "warning", `Between German parties the invoice type code should be one of 326, 380, 384, 389, 381, 875, 876, 877, not ${q(type || cnType)}.`, root);
  if (!germanSkontoOk(root)) facts.report("DE-R-018", "fatal", "Between German parties cash discount terms in the payment terms must be written like '#SKONTO#TAGE=14#PROZENT=2.00#' (optionally '#BASISBETRAG=100.00'), one per line, each line ending with a line break.", root);
  const refs = children(root, "cac:AdditionalDocumentReference");
  const names = refs.map((additionalDocumentReference) => select(additionalDocumentReference, "cac:Attachment/cbc:EmbeddedDocumentBinaryObject").map((embeddedDocumentBinaryObject) => embeddedDocumentBinaryObject.attrs.filename).filter((text): text is string => text !== undefined));
  const duplicate = names.findIndex((own, i) => own.some((text) => names.slice(0, i).some((earlier) => earlier.includes(text))));
  if (duplicate >= 0) facts.report("DE-R-022", "fatal", `Between German parties attached documents must have unique file names; ${q(names[duplicate]![0])} is used twice.`, root);
  if ((type === "384" || cnType === "384") && !exists(root, "cac:BillingReference/cac:InvoiceDocumentReference")) facts.report("DE-R-026", "warning", "A corrected invoice (type 384) between German parties should refer to the invoice it corrects (BillingReference).", root);
  const mandate = exists(root, "cac:PaymentMeans/cac:PaymentMandate");
  if (mandate) {
    const sepa = (path: string) => select(root, path).some((id) => id.attrs.schemeID === "SEPA");
    if (!sepa("cac:AccountingSupplierParty/cac:Party/cac:PartyIdentification/cbc:ID") && !sepa("cac:PayeeParty/cac:PartyIdentification/cbc:ID")) facts.report("DE-R-030", "fatal", "Between German parties a direct debit needs the creditor identifier (a seller or payee identifier with scheme SEPA).", root);
    if (!exists(root, "cac:PaymentMeans/cac:PaymentMandate/cac:PayerFinancialAccount/cbc:ID")) facts.report("DE-R-031", "fatal", "Between German parties a direct debit needs the debited account (PaymentMandate/PayerFinancialAccount/ID).", root);
  }
}

function germanSkontoOk(root: DocumentNode): boolean {
  const notes = children(root, "cac:PaymentTerms").map((pt) => child(pt, "cbc:Note")).filter((node): node is DocumentNode => node !== null).map(stringValue);
  const lines = notes.flatMap((note) => (note === "" ? [] : note.split(/\r?\n/))).filter((text) => normalizeSpace(text).startsWith("#"));
  if (lines.length === 0) return true;
  const tails = notes.map((note) => { const items = note === "" ? [] : note.split(/#.+#/); return items[items.length - 1]; }).filter((text): text is string => text !== undefined);
  const tailOk = tails.length === 1 && /^[ \t\r\n]*\n/.test(tails[0]!);
  return lines.every((line) => SKONTO.test(normalizeSpace(line))) && tailOk;
}

function germany(facts: PeppolFacts, node: DocumentNode): void {
  const root = facts.root, parent = node.parent;
  switch (node.qname) {
    case "cac:ExternalReference":
      if (parent?.qname === "cac:Attachment" && parent.parent?.qname === "cac:AdditionalDocumentReference" && parent.parent.parent === root) {
        if (!URL.test(stringValue(child(node, "cbc:URI")))) facts.report("DE-R-T02", "warning", `The external document location ${q(textAt(node, "cbc:URI"))} should be an absolute URL with a scheme (like https://).`, node);
      }
      return;
    case "cac:AccountingSupplierParty":
      if (parent === root && !exists(node, "cac:Party/cac:Contact")) facts.report("DE-R-002", "fatal", "Between German parties the seller's contact (BG-6) is required.", node);
      return;
    case "cac:PostalAddress": {
      const role = parent?.parent;
      if (parent?.qname !== "cac:Party" || role?.parent !== root) return;
      const [cityRule, zipRule, who] = role.qname === "cac:AccountingSupplierParty" ? ["DE-R-003", "DE-R-004", "seller"] : role.qname === "cac:AccountingCustomerParty" ? ["DE-R-008", "DE-R-009", "buyer"] : [];
      if (!cityRule) return;
      if (!children(node, "cbc:CityName").some(filled)) facts.report(cityRule, "fatal", `Between German parties the ${who}'s city is required.`, node);
      if (!children(node, "cbc:PostalZone").some(filled)) facts.report(zipRule!, "fatal", `Between German parties the ${who}'s post code is required.`, node);
      return;
    }
    case "cac:Address":
      if (parent?.qname === "cac:DeliveryLocation" && parent.parent?.qname === "cac:Delivery" && parent.parent.parent === root) {
        if (!children(node, "cbc:CityName").some(filled)) facts.report("DE-R-010", "fatal", "Between German parties a delivery address must give the city.", node);
        if (!children(node, "cbc:PostalZone").some(filled)) facts.report("DE-R-011", "fatal", "Between German parties a delivery address must give the post code.", node);
      }
      return;
    case "cac:Contact":
      if (parent?.qname === "cac:Party" && parent.parent?.qname === "cac:AccountingSupplierParty" && parent.parent.parent === root) {
        if (!children(node, "cbc:Name").some(filled)) facts.report("DE-R-005", "fatal", "Between German parties the seller's contact point (name) is required.", node);
        if (!children(node, "cbc:Telephone").some(filled)) facts.report("DE-R-006", "fatal", "Between German parties the seller's contact telephone number is required.", node);
        if (!children(node, "cbc:ElectronicMail").some(filled)) facts.report("DE-R-007", "fatal", "Between German parties the seller's contact email address is required.", node);
        const phone = textAt(node, "cbc:Telephone"), mail = textAt(node, "cbc:ElectronicMail");
        if (!hasThreeDigits(phone)) facts.report("DE-R-027", "warning", `The seller's telephone number ${q(phone)} should have at least 3 digits.`, node);
        if (!EMAIL.test(mail)) facts.report("DE-R-028", "warning", `The seller's email address ${q(mail)} does not look valid.`, node);
      }
      return;
    case "cac:PaymentMeans": {
      if (parent !== root) return;
      const codes = children(node, "cbc:PaymentMeansCode").map(norm);
      if (codes.length > 1) return; // normalize-space() of two codes: an error, so no rule of this pattern applies
      const code = codes[0] ?? "";
      if (codes.some((code) => code === "30" || code === "58")) {
        if (code === "58") {
          const iban = stringValue(first(node, "cac:PayeeFinancialAccount/cbc:ID"));
          if (!germanRulesIbanValid(iban)) facts.report("DE-R-019", "warning", `For SEPA credit transfer (58) the payee account ${q(normalizeSpace(iban))} should be a valid IBAN.`, node);
        }
        if (!child(node, "cac:PayeeFinancialAccount")) facts.report("DE-R-023-1", "fatal", `For credit transfer (${code}) between German parties the payee account (BG-17) is required.`, node);
        if (child(node, "cac:CardAccount") || child(node, "cac:PaymentMandate")) facts.report("DE-R-023-2", "fatal", `For credit transfer (${code}) between German parties no card or direct debit details may be given.`, node);
      } else if (codes.some((code) => code === "48" || code === "54" || code === "55")) {
        if (!child(node, "cac:CardAccount")) facts.report("DE-R-024-1", "fatal", `For card payment (${code}) between German parties the card information (BG-18) is required.`, node);
        if (child(node, "cac:PayeeFinancialAccount") || child(node, "cac:PaymentMandate")) facts.report("DE-R-024-2", "fatal", `For card payment (${code}) between German parties no credit transfer or direct debit details may be given.`, node);
      } else if (codes.includes("59")) {
        if (code === "59") {
          const iban = stringValue(first(node, "cac:PaymentMandate/cac:PayerFinancialAccount/cbc:ID"));
          if (!germanRulesIbanValid(iban)) facts.report("DE-R-020", "warning", `For SEPA direct debit (59) the debited account ${q(normalizeSpace(iban))} should be a valid IBAN.`, node);
        }
        if (!child(node, "cac:PaymentMandate")) facts.report("DE-R-025-1", "fatal", "For direct debit (59) between German parties the direct debit details (BG-19) are required.", node);
        if (child(node, "cac:PayeeFinancialAccount") || child(node, "cac:CardAccount")) facts.report("DE-R-025-2", "fatal", "For direct debit (59) between German parties no credit transfer or card details may be given.", node);
      }
      return;
    }
    case "cac:TaxSubtotal":
      if (parent?.qname === "cac:TaxTotal" && parent.parent === root && !select(node, "cac:TaxCategory/cbc:Percent").some(filled)) {
        facts.report("DE-R-014", "fatal", `Between German parties each VAT breakdown must give the VAT rate (category ${q(textAt(node, "cac:TaxCategory/cbc:ID"))}).`, node);
      }
      return;
  }
}
