// readInvoiceData: any EN 16931 UBL Invoice or CreditNote (not only ours) to InvoiceData, from the model
// the reader builds in one pass. The inverse of buildUbl: readInvoiceData(buildUbl(x)) = normaliseInvoiceData(x).
import { decodeUtf8, requireMarkupStart } from "../text.js";
import { requireUblRoot } from "../ubl.js";
import { DEFAULT_XML_LIMITS, parseXml, xmlTrim, type XmlLimits } from "../xml.js";
import { ApiError } from "../../domain/errors.js";
import { child, children, first, select, stringValue, type DocumentNode } from "../model.js";
import { specificationOf } from "./build.js";
import { termsText, type InvoiceData, type InvoiceLine, type VatCategory } from "../../domain/invoice-data.js";
import { at, attr, compact, idOf, nonEmpty, val } from "./read-values.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };


/**
 * Reads a UBL 2.1 Invoice or CreditNote (XML text or UTF-8 bytes) into InvoiceData. The document is
 * read as it is: its amounts and totals as written (`totals`, `netAmount`), not recomputed. Throws
 * `invalid_ubl_xml` when it is not a well-formed UBL Invoice or CreditNote. It does not run the rules:
 * `validateInvoice` does.
 *
 * @example const data = readInvoiceData(readFileSync("invoice.xml")); console.log(data.totals?.payable)
 */
export function readInvoiceData(document: Uint8Array | string, limits: XmlLimits = DEFAULT_XML_LIMITS): InvoiceData & { rootElement: "Invoice" | "CreditNote"; /** @deprecated The same as `rootElement`. */ documentType: "Invoice" | "CreditNote" } {
  let text: string;
  if (typeof document === "string") text = document.charCodeAt(0) === 0xfeff ? document.slice(1) : document;
  else {
    const decoded = decodeUtf8(document);
    if (decoded === null) throw new ApiError("invalid_ubl_xml", "The document is not UTF-8 text.");
    text = decoded;
  }
  requireMarkupStart(text);
  const root = requireUblRoot(parseXml(text, limits), ["Invoice", "CreditNote"]);
  return { ...invoiceDataOf(root), rootElement: root.name, documentType: root.name };
}

/** InvoiceData from the model of a UBL Invoice or CreditNote (see readInvoiceData). */
export function invoiceDataOf(root: DocumentNode): InvoiceData {
  const isCredit = root.name === "CreditNote";
  const notes = children(root, "cbc:Note").map((n) => val(n)).filter((s): s is string => s !== undefined);
  const periodNode = child(root, "cac:InvoicePeriod");
  const adrs = children(root, "cac:AdditionalDocumentReference");
  const objectRef = adrs.find((a) => at(a, "cbc:DocumentTypeCode") === "130");
  const projectRef = isCredit ? adrs.find((a) => at(a, "cbc:DocumentTypeCode") === "50") : undefined;
  const attachments = adrs.filter((a) => a !== objectRef && a !== projectRef);
  const sellerNode = first(root, "cac:AccountingSupplierParty/cac:Party");
  const payeeNode = child(root, "cac:PayeeParty");
  const means = children(root, "cac:PaymentMeans");
  const dueDate = isCredit ? at(root, "cac:PaymentMeans/cbc:PaymentDueDate") : at(root, "cbc:DueDate");
  const lmt = child(root, "cac:LegalMonetaryTotal");
  const currency = at(root, "cbc:DocumentCurrencyCode") ?? "";
  const taxCurrency = at(root, "cbc:TaxCurrencyCode");
  const taxTotals = children(root, "cac:TaxTotal");
  const withSubtotals = taxTotals.find((t) => child(t, "cac:TaxSubtotal")) ?? taxTotals.find((t) => child(t, "cbc:TaxAmount")?.attrs["currencyID"] === currency);
  const accountingTotal = taxCurrency ? taxTotals.find((t) => t !== withSubtotals && child(t, "cbc:TaxAmount")?.attrs["currencyID"] === taxCurrency) : undefined;

  // SEPA creditor identifier (BT-90): the payee's or the seller's identifier with scheme SEPA.
  const isSepa = (n: DocumentNode) => attr(first(n, "cbc:ID"), "schemeID") === "SEPA";
  const sepaNode = [...children(payeeNode, "cac:PartyIdentification"), ...children(sellerNode, "cac:PartyIdentification")].find(isSepa);

  const exemptions: NonNullable<Mutable<InvoiceData["vatExemptions"]>> = {};
  const breakdown = select(withSubtotals, "cac:TaxSubtotal").map((st) => {
    const tc = child(st, "cac:TaxCategory");
    const category = (at(tc, "cbc:ID") ?? "") as VatCategory;
    const reason = at(tc, "cbc:TaxExemptionReason");
    const code = at(tc, "cbc:TaxExemptionReasonCode");
    if ((reason !== undefined || code !== undefined) && ["E", "AE", "K", "G", "O"].includes(category) && !(category in exemptions))
      (exemptions as Record<string, unknown>)[category] = compact({ reason, code });
    return compact({
      category,
      rate: at(tc, "cbc:Percent"),
      taxableAmount: at(st, "cbc:TaxableAmount") ?? "",
      taxAmount: at(st, "cbc:TaxAmount") ?? "",
    });
  });

  const payment = (() => {
    if (means.length === 0) return undefined;
    const firstWith = (path: string) => means.map((m) => first(m, path)).find((n) => n !== null) ?? null;
    const code = child(means[0]!, "cbc:PaymentMeansCode");
    const card = firstWith("cac:CardAccount");
    const mandate = firstWith("cac:PaymentMandate");
    const accounts = means
      .map((m) => child(m, "cac:PayeeFinancialAccount"))
      .filter((a): a is DocumentNode => a !== null && at(a, "cbc:ID") !== undefined)
      .map((a) => compact({ iban: at(a, "cbc:ID")!, name: at(a, "cbc:Name"), bic: at(a, "cac:FinancialInstitutionBranch/cbc:ID") }));
    const directDebit =
      mandate || sepaNode
        ? compact({ mandate: at(mandate, "cbc:ID"), creditorId: val(first(sepaNode, "cbc:ID")), debitedAccount: at(mandate, "cac:PayerFinancialAccount/cbc:ID") })
        : undefined;
    return compact({
      meansCode: val(code) ?? "",
      meansText: attr(code, "name"),
      reference: val(firstWith("cbc:PaymentID")),
      accounts: nonEmpty(accounts),
      card: card ? compact({ last4: at(card, "cbc:PrimaryAccountNumberID") ?? "", holder: at(card, "cbc:HolderName"), network: at(card, "cbc:NetworkID") }) : undefined,
      directDebit,
    });
  })();

  const docAc = (charge: boolean) =>
    children(root, "cac:AllowanceCharge")
      .filter((n) => (at(n, "cbc:ChargeIndicator") === "true") === charge)
      .map((n) => compact({ ...allowanceCharge(n), vat: vat(child(n, "cac:TaxCategory")) }));

  const accountingCurrency = taxCurrency !== undefined ? { code: taxCurrency, vatTotal: at(accountingTotal, "cbc:TaxAmount") ?? "0" } : undefined;

  const data = compact({
    number: at(root, "cbc:ID") ?? "",
    issueDate: at(root, "cbc:IssueDate") ?? "",
    typeCode: at(root, isCredit ? "cbc:CreditNoteTypeCode" : "cbc:InvoiceTypeCode"),
    currency,
    // BT-24 as the specification InvoiceData names (absent for a CustomizationID it has no name for).
    specification: specificationOf(at(root, "cbc:CustomizationID")),
    profileId: at(root, "cbc:ProfileID"),
    vatAccountingCurrency: accountingCurrency,
    taxPointDate: at(root, "cbc:TaxPointDate"),
    dueDate,
    buyerReference: at(root, "cbc:BuyerReference"),
    projectReference: isCredit ? at(projectRef, "cbc:ID") : at(root, "cac:ProjectReference/cbc:ID"),
    contractReference: at(root, "cac:ContractDocumentReference/cbc:ID"),
    orderReference: at(root, "cac:OrderReference/cbc:ID"),
    salesOrderReference: at(root, "cac:OrderReference/cbc:SalesOrderID"),
    receivingAdviceReference: at(root, "cac:ReceiptDocumentReference/cbc:ID"),
    despatchAdviceReference: at(root, "cac:DespatchDocumentReference/cbc:ID"),
    tenderReference: at(root, "cac:OriginatorDocumentReference/cbc:ID"),
    objectId: objectRef ? idOf(child(objectRef, "cbc:ID")) : undefined,
    accountingCost: at(root, "cbc:AccountingCost"),
    // One closing line break stays, as in the schema (DE-R-018's syntax).
    paymentTerms: val(first(root, "cac:PaymentTerms/cbc:Note"), termsText),
    notes: nonEmpty(notes),
    period: periodNode
      ? compact({
          start: at(periodNode, "cbc:StartDate"),
          end: at(periodNode, "cbc:EndDate"),
          descriptionCode: at(periodNode, "cbc:DescriptionCode") as "3" | "35" | "432" | undefined,
        })
      : undefined,
    precedingInvoices: nonEmpty(
      select(root, "cac:BillingReference/cac:InvoiceDocumentReference").map((r) => compact({ number: at(r, "cbc:ID") ?? "", issueDate: at(r, "cbc:IssueDate") })),
    ),
    seller: party(sellerNode, true),
    buyer: party(first(root, "cac:AccountingCustomerParty/cac:Party"), false),
    payee: payeeNode
      ? compact({
          name: at(payeeNode, "cac:PartyName/cbc:Name") ?? "",
          identifier: idOf(children(payeeNode, "cac:PartyIdentification").filter((n) => !isSepa(n)).map((n) => child(n, "cbc:ID"))[0] ?? null),
          legalId: idOf(first(payeeNode, "cac:PartyLegalEntity/cbc:CompanyID")),
        })
      : undefined,
    taxRepresentative: (() => {
      const tr = child(root, "cac:TaxRepresentativeParty");
      return tr
        ? { name: at(tr, "cac:PartyName/cbc:Name") ?? "", vatId: at(tr, "cac:PartyTaxScheme/cbc:CompanyID") ?? "", address: address(child(tr, "cac:PostalAddress")) }
        : undefined;
    })(),
    delivery: (() => {
      const d = child(root, "cac:Delivery");
      if (!d) return undefined;
      const addr = first(d, "cac:DeliveryLocation/cac:Address");
      return compact({
        partyName: at(d, "cac:DeliveryParty/cac:PartyName/cbc:Name"),
        location: idOf(first(d, "cac:DeliveryLocation/cbc:ID")),
        date: at(d, "cbc:ActualDeliveryDate"),
        address: addr ? address(addr) : undefined,
      });
    })(),
    payment,
    allowances: nonEmpty(docAc(false)),
    charges: nonEmpty(docAc(true)),
    lines: children(root, isCredit ? "cac:CreditNoteLine" : "cac:InvoiceLine").map((l) => line(l, isCredit)),
    vatExemptions: Object.keys(exemptions).length > 0 ? exemptions : undefined,
    paidAmount: at(lmt, "cbc:PrepaidAmount"),
    roundingAmount: at(lmt, "cbc:PayableRoundingAmount"),
    attachments: nonEmpty(
      attachments.map((a) => {
        const bin = first(a, "cac:Attachment/cbc:EmbeddedDocumentBinaryObject");
        return compact({
          id: at(a, "cbc:ID") ?? "",
          description: at(a, "cbc:DocumentDescription"),
          url: at(a, "cac:Attachment/cac:ExternalReference/cbc:URI"),
          filename: attr(bin, "filename"),
          mimeCode: attr(bin, "mimeCode") as NonNullable<InvoiceData["attachments"]>[number]["mimeCode"],
          content: bin ? stringValue(bin).replace(/[ \t\r\n]+/g, "") || undefined : undefined,
        });
      }),
    ),
    totals: compact({
      lineTotal: at(lmt, "cbc:LineExtensionAmount"),
      allowanceTotal: at(lmt, "cbc:AllowanceTotalAmount"),
      chargeTotal: at(lmt, "cbc:ChargeTotalAmount"),
      taxExclusive: at(lmt, "cbc:TaxExclusiveAmount"),
      vatTotal: at(withSubtotals, "cbc:TaxAmount"),
      taxInclusive: at(lmt, "cbc:TaxInclusiveAmount"),
      payable: at(lmt, "cbc:PayableAmount"),
      vatBreakdown: nonEmpty(breakdown),
    }),
  });
  return data as InvoiceData;

  function party(p: DocumentNode | null, seller: boolean): InvoiceData["seller"] {
    const schemes = children(p, "cac:PartyTaxScheme");
    const vatScheme = schemes.find((s) => at(s, "cac:TaxScheme/cbc:ID") === "VAT");
    const otherScheme = schemes.find((s) => s !== vatScheme);
    const ids = children(p, "cac:PartyIdentification")
      .filter((n) => !isSepa(n))
      .map((n) => idOf(child(n, "cbc:ID")))
      .filter((x) => x !== undefined);
    const endpoint = child(p, "cbc:EndpointID");
    const contact = child(p, "cac:Contact");
    return compact({
      name: at(p, "cac:PartyLegalEntity/cbc:RegistrationName") ?? "",
      tradingName: at(p, "cac:PartyName/cbc:Name"),
      identifiers: nonEmpty(ids),
      vatId: at(vatScheme, "cbc:CompanyID"),
      taxRegistrationId: seller ? at(otherScheme, "cbc:CompanyID") : undefined,
      legalId: idOf(first(p, "cac:PartyLegalEntity/cbc:CompanyID")),
      legalInfo: seller ? at(p, "cac:PartyLegalEntity/cbc:CompanyLegalForm") : undefined,
      endpoint: { scheme: attr(endpoint, "schemeID") ?? "", id: val(endpoint) ?? "" },
      address: address(child(p, "cac:PostalAddress")),
      contact: contact
        ? compact({ name: at(contact, "cbc:Name"), phone: at(contact, "cbc:Telephone"), email: at(contact, "cbc:ElectronicMail") })
        : undefined,
    });
  }

  function address(a: DocumentNode | null): InvoiceData["seller"]["address"] {
    const lines = [at(a, "cbc:StreetName"), at(a, "cbc:AdditionalStreetName"), at(a, "cac:AddressLine/cbc:Line")].filter((l): l is string => l !== undefined);
    return compact({
      lines: nonEmpty(lines),
      city: at(a, "cbc:CityName"),
      postalCode: at(a, "cbc:PostalZone"),
      subdivision: at(a, "cbc:CountrySubentity"),
      country: at(a, "cac:Country/cbc:IdentificationCode") ?? "",
    });
  }

  function vat(tc: DocumentNode | null): { category: VatCategory; rate?: string } {
    const category = (at(tc, "cbc:ID") ?? "") as VatCategory;
    return compact({ category, rate: at(tc, "cbc:Percent") });
  }

  function allowanceCharge(n: DocumentNode) {
    return compact({
      amount: at(n, "cbc:Amount"),
      percent: at(n, "cbc:MultiplierFactorNumeric"),
      baseAmount: at(n, "cbc:BaseAmount"),
      reason: at(n, "cbc:AllowanceChargeReason"),
      reasonCode: at(n, "cbc:AllowanceChargeReasonCode"),
    });
  }

  function line(l: DocumentNode, credit: boolean): InvoiceLine {
    const qty = child(l, credit ? "cbc:CreditedQuantity" : "cbc:InvoicedQuantity");
    const item = child(l, "cac:Item");
    const price = child(l, "cac:Price");
    const base = child(price, "cbc:BaseQuantity");
    const unitCode = attr(qty, "unitCode") ?? "";
    const baseUnit = attr(base, "unitCode");
    const priceAc = child(price, "cac:AllowanceCharge");
    const docRef = children(l, "cac:DocumentReference").find((d) => at(d, "cbc:DocumentTypeCode") === "130");
    const period = child(l, "cac:InvoicePeriod");
    const std = first(item, "cac:StandardItemIdentification/cbc:ID");
    const acs = children(l, "cac:AllowanceCharge");
    return compact({
      id: at(l, "cbc:ID") ?? "",
      note: at(l, "cbc:Note"),
      objectId: docRef ? idOf(child(docRef, "cbc:ID")) : undefined,
      quantity: val(qty) ?? "",
      unitCode,
      netAmount: at(l, "cbc:LineExtensionAmount"),
      orderLineReference: at(l, "cac:OrderLineReference/cbc:LineID"),
      accountingCost: at(l, "cbc:AccountingCost"),
      period: period ? compact({ start: at(period, "cbc:StartDate"), end: at(period, "cbc:EndDate") }) : undefined,
      allowances: nonEmpty(acs.filter((n) => at(n, "cbc:ChargeIndicator") !== "true").map(allowanceCharge)),
      charges: nonEmpty(acs.filter((n) => at(n, "cbc:ChargeIndicator") === "true").map(allowanceCharge)),
      price: at(price, "cbc:PriceAmount") ?? "",
      grossPrice: at(priceAc, "cbc:BaseAmount"),
      priceBaseQuantity: val(base),
      priceBaseUnitCode: baseUnit !== undefined && baseUnit !== unitCode ? baseUnit : undefined,
      vat: vat(child(item, "cac:ClassifiedTaxCategory")),
      name: at(item, "cbc:Name") ?? "",
      description: at(item, "cbc:Description"),
      sellerItemId: at(item, "cac:SellersItemIdentification/cbc:ID"),
      buyerItemId: at(item, "cac:BuyersItemIdentification/cbc:ID"),
      standardItemId: std && val(std) !== undefined ? { scheme: attr(std, "schemeID") ?? "", id: val(std)! } : undefined,
      classifications: nonEmpty(
        select(item, "cac:CommodityClassification/cbc:ItemClassificationCode").map((c) =>
          compact({ code: val(c) ?? "", listId: attr(c, "listID") ?? "", listVersion: attr(c, "listVersionID") }),
        ),
      ),
      originCountry: at(item, "cac:OriginCountry/cbc:IdentificationCode"),
      attributes: nonEmpty(children(item, "cac:AdditionalItemProperty").map((p) => ({ name: at(p, "cbc:Name") ?? "", value: at(p, "cbc:Value") ?? "" }))),
    }) as InvoiceLine;
  }
}
