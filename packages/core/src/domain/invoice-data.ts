// InvoiceData: the invoice as JSON, the EN 16931 semantic model named for people. The single source of
// its TypeScript type, of request validation and of the OpenAPI schema; each field names its BT/BG id.
import { z } from "zod";
import { dayExists } from "./dates.js";
import { computeTotals, givenTotalsProblems } from "./invoice-totals.js";

// ---------- value types (decimal strings, bounded before any arithmetic) ----------

/** A text field: tidied (`tidy`, by default trimmed), then 1 to `max` characters, no control characters. */
const text = (description: string, max = 1000, tidy: (s: string) => string = (s) => s.trim()) =>
  z
    .string()
    .overwrite(tidy)
    .min(1, { error: "should not be empty" })
    .max(max, { error: `must be at most ${max} characters` })
    .refine((s) => !/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/.test(s), { error: "must not contain control characters" })
    .refine((s) => !UNPAIRED_SURROGATE.test(s), { error: "must be valid Unicode text: it holds half of a character (an unpaired surrogate such as \\ud800)" })
    .describe(description);

/** Half of a UTF-16 surrogate pair without its other half: UTF-8 cannot write it (it became U+FFFD in the document). */
export const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Payment terms as written: whitespace around the text is dropped, except one closing line break, which
 * is kept (a break at the end of a line is part of a term's syntax: German cash discount terms,
 * `#SKONTO#TAGE=14#PROZENT=2.00#` followed by a line break, DE-R-018 and BR-DE-18).
 */
export function termsText(s: string): string {
  return s.replace(/^\s+/, "").replace(/\s+$/, (tail) => (/[\r\n]/.test(tail) ? "\n" : ""));
}

/** A monetary amount: a decimal string with at most 2 decimals and 15 integer digits, such as "1234.50". */
const amount = (description: string) =>
  z
    .string()
    .regex(/^-?\d{1,15}(\.\d{1,2})?$/, { error: 'must be a decimal string of at most 15 digits before the point and 2 after, such as "1234.50"' })
    .describe(description);
/** A quantity: a decimal string with at most 6 decimals. */
const quantity = (description: string) =>
  z
    .string()
    .regex(/^-?\d{1,15}(\.\d{1,6})?$/, { error: 'must be a decimal string of at most 15 digits before the point and 6 after, such as "2" or "1.5"' })
    .describe(description);
/** A price: a non-negative decimal string with at most 8 decimals. */
const price = (description: string) =>
  z
    .string()
    .regex(/^\d{1,15}(\.\d{1,8})?$/, { error: 'must be a non-negative decimal string of at most 15 digits before the point and 8 after, such as "12.50"' })
    .describe(description);
/** A percentage: a non-negative decimal string such as "21" or "5.5". */
const percent = (description: string) =>
  z
    .string()
    .regex(/^\d{1,3}(\.\d{1,4})?$/, { error: 'must be a non-negative decimal string with at most 3 integer digits and 4 decimals, such as "21" or "5.5"' })
    .describe(description);
const date = (description: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, { error: "must be a date YYYY-MM-DD" })
    .refine(isCalendarDate, { error: "must be a real calendar date YYYY-MM-DD" })
    .describe(description);
/** A YYYY-MM-DD that names a day of the Gregorian calendar (the regex has checked the shape). */
function isCalendarDate(s: string): boolean {
  return dayExists(Number(s.slice(0, 4)), Number(s.slice(5, 7)), Number(s.slice(8, 10)));
}
const code = (description: string, pattern = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,39}$/) =>
  z.string().regex(pattern, { error: "must be a code (letters, digits, . _ : -)" }).describe(description);
const country = (description: string) => z.string().regex(/^[A-Z]{2}$/, { error: "must be an ISO 3166-1 alpha-2 country code, such as NL" }).describe(description);
const currency = (description: string) => z.string().regex(/^[A-Z]{3}$/, { error: "must be an ISO 4217 currency code, such as EUR" }).describe(description);

/** The VAT categories of EN 16931 (UNCL 5305 subset; B is the Italian split payment). */
export const VAT_CATEGORIES = ["S", "Z", "E", "AE", "K", "G", "O", "L", "M", "B"] as const;
export type VatCategory = (typeof VAT_CATEGORIES)[number];
/** The categories whose VAT breakdown carries an exemption reason (BT-120/121); the others must not. */
export const EXEMPT_CATEGORIES = ["E", "AE", "K", "G", "O"] as const;

/** An object with every field optional still needs one: an empty element breaks PEPPOL-EN16931-R008. */
const atLeastOne = (o: object) => Object.values(o).some((v) => v !== undefined);
const NEEDS_ONE = { error: "needs at least one field (an empty object would be an empty element)" };

// ---------- parts ----------

export const VatSchema = z
  .strictObject({
    category: z.enum(VAT_CATEGORIES, { error: `must be one of ${VAT_CATEGORIES.join(", ")}` }).describe("VAT category code (BT-95, BT-102, BT-151, UNCL 5305)."),
    rate: percent("VAT rate in percent (BT-96, BT-103, BT-152). Required except for category O, which has none; E, Z, AE, K and G carry 0.").optional(),
  })
  .superRefine((v, ctx) => {
    if (v.category === "O" && v.rate !== undefined) ctx.addIssue({ code: "custom", path: ["rate"], message: "must be absent for category O (not subject to VAT)" });
    if (v.category !== "O" && v.rate === undefined) ctx.addIssue({ code: "custom", path: ["rate"], message: `is required for category ${v.category}` });
    if (["E", "Z", "AE", "K", "G"].includes(v.category) && v.rate !== undefined && Number(v.rate) !== 0)
      ctx.addIssue({ code: "custom", path: ["rate"], message: `must be 0 for category ${v.category}` });
    if (v.category === "S" && v.rate !== undefined && Number(v.rate) === 0) ctx.addIssue({ code: "custom", path: ["rate"], message: "must be greater than 0 for category S (use Z for zero-rated)" });
  })
  .describe("VAT category and rate (BT-95/96, BT-102/103, BG-30).")
  .meta({ id: "InvoiceVat" });

export const IdSchema = z
  .strictObject({ id: text("The identifier.", 200), scheme: code("The identification scheme (ISO 6523 ICD or another code list; BT-29-1 etc.).").optional() })
  .describe("An identifier with an optional scheme.")
  .meta({ id: "InvoiceIdentifier" });

export const EndpointSchema = z
  .strictObject({
    scheme: z.string().regex(/^\d{4}$/, { error: "must be a 4-digit Peppol EAS code, such as 0208" }).describe("Electronic address scheme (BT-34-1, BT-49-1, EAS code list), such as 0208 or 9925."),
    id: text("Electronic address (BT-34, BT-49): the Peppol participant identifier.", 200),
  })
  .describe("The party's electronic address (BT-34 / BT-49).")
  .meta({ id: "InvoiceEndpoint" });

export const AddressSchema = z
  .strictObject({
    lines: z.array(text("An address line.", 300)).max(3, { error: "must have at most 3 lines" }).optional().describe("Address lines 1 to 3 (BT-35/36/162, BT-50/51/163, BT-64/65/164, BT-75/76/165)."),
    city: text("City (BT-37, BT-52, BT-66, BT-77).", 200).optional(),
    postalCode: text("Post code (BT-38, BT-53, BT-67, BT-78).", 50).optional(),
    subdivision: text("Country subdivision (BT-39, BT-54, BT-68, BT-79).", 200).optional(),
    country: country("Country code (BT-40, BT-55, BT-69, BT-80), ISO 3166-1 alpha-2."),
  })
  .describe("A postal address (BG-5, BG-8, BG-12, BG-15).")
  .meta({ id: "InvoiceAddress" });

export const ContactSchema = z
  .strictObject({
    name: text("Contact point (BT-41, BT-56).", 200).optional(),
    phone: text("Contact telephone number (BT-42, BT-57).", 100).optional(),
    email: text("Contact email address (BT-43, BT-58).", 200).optional(),
  })
  .refine(atLeastOne, NEEDS_ONE)
  .describe("Contact (BG-6, BG-9).")
  .meta({ id: "InvoiceContact" });

const partyFields = {
  name: text("Legal registration name (BT-27 seller, BT-44 buyer)."),
  tradingName: text("Trading name (BT-28 seller, BT-45 buyer).").optional(),
  identifiers: z.array(IdSchema).max(10).optional().describe("Party identifiers (BT-29 seller, several allowed; BT-46 buyer, at most one)."),
  vatId: text("VAT identifier with its country prefix (BT-31 seller, BT-48 buyer), such as NL123456789B01.", 100).optional(),
  taxRegistrationId: text("Seller's tax registration identifier other than VAT (BT-32).", 100).optional(),
  legalId: IdSchema.optional().describe("Legal registration identifier (BT-30 seller, BT-47 buyer) with its scheme (ISO 6523 ICD)."),
  legalInfo: text("Seller's additional legal information (BT-33).").optional(),
  endpoint: EndpointSchema,
  address: AddressSchema,
  contact: ContactSchema.optional(),
};

export const SellerSchema = z.strictObject(partyFields).describe("The seller (BG-4).")
  .meta({ id: "InvoiceSeller" });
export const BuyerSchema = z
  .strictObject({ ...partyFields, identifiers: z.array(IdSchema).max(1, { error: "the buyer has at most one identifier (BT-46)" }).optional().describe("Buyer identifier (BT-46), at most one.") })
  .describe("The buyer (BG-7).")
  .meta({ id: "InvoiceBuyer" });

export const PayeeSchema = z
  .strictObject({
    name: text("Payee name (BT-59)."),
    identifier: IdSchema.optional().describe("Payee identifier (BT-60)."),
    legalId: IdSchema.optional().describe("Payee legal registration identifier (BT-61)."),
  })
  .describe("The payee, when it is not the seller (BG-10).")
  .meta({ id: "InvoicePayee" });

export const TaxRepresentativeSchema = z
  .strictObject({
    name: text("Seller tax representative name (BT-62)."),
    vatId: text("Seller tax representative VAT identifier (BT-63).", 100),
    address: AddressSchema.describe("Seller tax representative postal address (BG-12)."),
  })
  .describe("The seller's tax representative (BG-11).")
  .meta({ id: "InvoiceTaxRepresentative" });

export const DeliverySchema = z
  .strictObject({
    partyName: text("Deliver to party name (BT-70).").optional(),
    location: IdSchema.optional().describe("Deliver to location identifier (BT-71) with its scheme."),
    date: date("Actual delivery date (BT-72).").optional(),
    address: AddressSchema.optional().describe("Deliver to address (BG-15)."),
  })
  .refine(atLeastOne, NEEDS_ONE)
  .describe("Delivery information (BG-13).")
  .meta({ id: "InvoiceDelivery" });

const periodFields = {
  start: date("Period start date (BT-73, BT-134).").optional(),
  end: date("Period end date (BT-74, BT-135).").optional(),
};
const checkPeriod = (p: { start?: string | undefined; end?: string | undefined }, ctx: z.RefinementCtx) => {
  if (p.start === undefined && p.end === undefined) ctx.addIssue({ code: "custom", path: ["start"], message: "a period needs a start or an end date" });
  if (p.start !== undefined && p.end !== undefined && p.start > p.end) ctx.addIssue({ code: "custom", path: ["end"], message: "must not be before start" });
};

export const PeriodSchema = z.strictObject(periodFields).superRefine(checkPeriod).describe("A period (BG-26).")
  .meta({ id: "InvoiceLinePeriod" });

export const InvoicePeriodSchema = z
  .strictObject({
    ...periodFields,
    descriptionCode: z.enum(["3", "35", "432"], { error: "must be 3, 35 or 432 (UNCL 2005)" }).optional().describe("Value added tax point date code (BT-8, UNCL 2005 subset)."),
  })
  .superRefine((p, ctx) => {
    if (p.start === undefined && p.end === undefined && p.descriptionCode === undefined)
      ctx.addIssue({ code: "custom", path: ["start"], message: "a period needs a start date, an end date or a descriptionCode" });
    if (p.start !== undefined && p.end !== undefined && p.start > p.end) ctx.addIssue({ code: "custom", path: ["end"], message: "must not be before start" });
  })
  .describe("The invoicing period (BG-14) and the VAT point date code (BT-8).")
  .meta({ id: "InvoicingPeriod" });

export const PaymentAccountSchema = z
  .strictObject({
    iban: text("Payment account identifier (BT-84): an IBAN for SEPA.", 100),
    name: text("Payment account name (BT-85).", 200).optional(),
    bic: text("Payment service provider identifier (BT-86): the BIC.", 20).optional(),
  })
  .describe("A credit transfer account (BG-17).")
  .meta({ id: "InvoicePaymentAccount" });

export const PaymentSchema = z
  .strictObject({
    meansCode: code("Payment means type code (BT-81, UNCL 4461), such as 30, 31, 42, 48, 49, 58, 59.", /^[A-Z0-9]{1,3}$/),
    meansText: text("Payment means text (BT-82).", 200).optional(),
    reference: text("Remittance information (BT-83): what the buyer quotes with the payment.", 200).optional(),
    accounts: z
      .array(PaymentAccountSchema)
      .max(10)
      .optional()
      .describe("Credit transfer accounts (BG-17); several become several PaymentMeans."),
    card: z
      .strictObject({
        last4: z.string().regex(/^\d{4,6}$/, { error: "must be the last 4 to 6 digits of the card number" }).describe("Payment card primary account number, last digits only (BT-87)."),
        holder: text("Payment card holder name (BT-88).", 200).optional(),
        network: code("The card network (cbc:NetworkID, required by UBL), such as VISA; \"NA\" when absent.").optional(),
      })
      .optional()
      .describe("Payment card information (BG-18)."),
    directDebit: z
      .strictObject({
        mandate: text("Mandate reference identifier (BT-89).", 200).optional(),
        creditorId: text("Bank assigned creditor identifier (BT-90), written as the seller's (or payee's) identifier with scheme SEPA.", 100).optional(),
        debitedAccount: text("Debited account identifier (BT-91).", 100).optional(),
      })
      .refine(atLeastOne, NEEDS_ONE)
      .optional()
      .describe("Direct debit (BG-19)."),
  })
  .describe("Payment instructions (BG-16).")
  .meta({ id: "InvoicePayment" });

const allowanceChargeFields = {
  amount: amount("Amount (BT-92, BT-99; BT-136, BT-141 on a line). Computed from percent and baseAmount when absent.").optional(),
  percent: percent("Percentage (BT-94, BT-101; BT-138, BT-143 on a line), applied to baseAmount.").optional(),
  baseAmount: amount("Base amount (BT-93, BT-100; BT-137, BT-142 on a line).").optional(),
  reason: text("Reason (BT-97, BT-104; BT-139, BT-144 on a line).", 500).optional(),
  reasonCode: code("Reason code (BT-98, BT-105; BT-140, BT-145; UNCL 5189 for allowances, UNCL 7161 for charges).", /^[A-Z0-9]{1,3}$/).optional(),
};
const amountOrPercent = <T extends { amount?: string | undefined; percent?: string | undefined; baseAmount?: string | undefined; reason?: string | undefined; reasonCode?: string | undefined }>(
  ac: T,
  ctx: z.RefinementCtx,
) => {
  if (ac.amount === undefined && (ac.percent === undefined || ac.baseAmount === undefined))
    ctx.addIssue({ code: "custom", path: ["amount"], message: "is required unless percent and baseAmount are given" });
  if ((ac.percent === undefined) !== (ac.baseAmount === undefined))
    ctx.addIssue({ code: "custom", path: [ac.percent === undefined ? "percent" : "baseAmount"], message: "percent and baseAmount go together" });
  if (ac.reason === undefined && ac.reasonCode === undefined) ctx.addIssue({ code: "custom", path: ["reason"], message: "a reason or a reasonCode is required" });
};

export const AllowanceChargeSchema = z
  .strictObject({ ...allowanceChargeFields, vat: VatSchema.describe("VAT category and rate of the allowance or charge (BT-95/96, BT-102/103).") })
  .superRefine(amountOrPercent)
  .describe("A document level allowance (BG-20) or charge (BG-21): {amount} or {percent, baseAmount}.")
  .meta({ id: "InvoiceAllowanceCharge" });

export const LineAllowanceChargeSchema = z
  .strictObject(allowanceChargeFields)
  .superRefine(amountOrPercent)
  .describe("A line allowance (BG-27) or charge (BG-28): it takes the line's VAT and has none of its own.")
  .meta({ id: "InvoiceLineAllowanceCharge" });

export const LineSchema = z
  .strictObject({
    id: text("Invoice line identifier (BT-126).", 100),
    note: text("Invoice line note (BT-127).").optional(),
    objectId: IdSchema.optional().describe("Invoice line object identifier (BT-128) with its scheme."),
    quantity: quantity("Invoiced quantity (BT-129)."),
    unitCode: code("Unit of measure code (BT-130, UN/ECE Rec 20 or 21), such as C62 (one) or HUR (hour).", /^[A-Z0-9]{1,3}$/),
    netAmount: amount("Invoice line net amount (BT-131): computed (quantity x price / priceBaseQuantity + charges - allowances); when given, it must be equal.").optional(),
    orderLineReference: text("Referenced purchase order line reference (BT-132).", 100).optional(),
    accountingCost: text("Invoice line buyer accounting reference (BT-133).", 200).optional(),
    period: PeriodSchema.optional().describe("Invoice line period (BG-26)."),
    allowances: z.array(LineAllowanceChargeSchema).max(100).optional().describe("Invoice line allowances (BG-27)."),
    charges: z.array(LineAllowanceChargeSchema).max(100).optional().describe("Invoice line charges (BG-28)."),
    price: price("Item net price (BT-146), without VAT, after any price discount."),
    grossPrice: price("Item gross price (BT-148); the price discount (BT-147) is grossPrice - price.").optional(),
    priceBaseQuantity: quantity("Item price base quantity (BT-149); the price is for this many units. Default 1.").optional(),
    priceBaseUnitCode: code("Item price base quantity unit of measure code (BT-150); defaults to unitCode.", /^[A-Z0-9]{1,3}$/).optional(),
    vat: VatSchema.describe("Line VAT information (BG-30)."),
    name: text("Item name (BT-153)."),
    description: text("Item description (BT-154).").optional(),
    sellerItemId: text("Item seller's identifier (BT-155).", 200).optional(),
    buyerItemId: text("Item buyer's identifier (BT-156).", 200).optional(),
    standardItemId: z
      .strictObject({ scheme: code("Scheme identifier (BT-157-1, ISO 6523 ICD), such as 0160 for GTIN."), id: text("Item standard identifier (BT-157).", 200) })
      .optional()
      .describe("Item standard identifier (BT-157)."),
    classifications: z
      .array(
        z
          .strictObject({
            code: text("Item classification identifier (BT-158).", 200),
            listId: code("Scheme identifier (BT-158-1, UNTDID 7143), such as STI or CPV."),
            listVersion: text("Scheme version identifier (BT-158-2).", 50).optional(),
          })
          .describe("An item classification (BT-158) with its scheme.")
          .meta({ id: "InvoiceItemClassification" }),
      )
      .max(20)
      .optional()
      .describe("Item classification identifiers (BT-158)."),
    originCountry: country("Item country of origin (BT-159).").optional(),
    attributes: z
      .array(
        z
          .strictObject({ name: text("Item attribute name (BT-160).", 200), value: text("Item attribute value (BT-161).", 500) })
          .describe("An item attribute (BG-32).")
          .meta({ id: "InvoiceItemAttribute" }),
      )
      .max(50)
      .optional()
      .describe("Item attributes (BG-32)."),
  })
  .superRefine((l, ctx) => {
    if (l.grossPrice !== undefined && Number(l.grossPrice) < Number(l.price))
      ctx.addIssue({ code: "custom", path: ["grossPrice"], message: "must not be below price (the price discount is grossPrice - price)" });
    if (l.priceBaseQuantity !== undefined && !(Number(l.priceBaseQuantity) > 0)) ctx.addIssue({ code: "custom", path: ["priceBaseQuantity"], message: "must be greater than 0" });
  })
  .describe("An invoice line (BG-25).")
  .meta({ id: "InvoiceLine" });

export const AttachmentSchema = z
  .strictObject({
    id: text("Supporting document reference (BT-122).", 200),
    description: text("Supporting document description (BT-123).").optional(),
    url: text("External document location (BT-124): a URL.", 2000).optional(),
    filename: text("Attached document filename (BT-125-2).", 200).optional(),
    mimeCode: z
      .enum(["application/pdf", "image/png", "image/jpeg", "text/csv", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "application/vnd.oasis.opendocument.spreadsheet"], {
        error: "must be one of the MIME types Peppol allows: application/pdf, image/png, image/jpeg, text/csv, application/vnd.openxmlformats-officedocument.spreadsheetml.sheet, application/vnd.oasis.opendocument.spreadsheet",
      })
      .optional()
      .describe("Attached document MIME code (BT-125-1)."),
    content: z
      .string()
      .regex(/^[A-Za-z0-9+/]+={0,2}$/, { error: "must be base64" })
      .optional()
      .describe("Attached document (BT-125), base64."),
  })
  .superRefine((a, ctx) => {
    if (a.content !== undefined && (a.mimeCode === undefined || a.filename === undefined))
      ctx.addIssue({ code: "custom", path: [a.mimeCode === undefined ? "mimeCode" : "filename"], message: "is required with content" });
    if (a.content === undefined && (a.mimeCode !== undefined || a.filename !== undefined))
      ctx.addIssue({ code: "custom", path: ["content"], message: "is required with mimeCode and filename" });
    if (a.content !== undefined && a.url !== undefined) ctx.addIssue({ code: "custom", path: ["url"], message: "give either content or url, not both" });
  })
  .describe("An additional supporting document (BG-24): {id, description, filename, mimeCode, content} or {id, url}.")
  .meta({ id: "InvoiceAttachment" });

export const VatBreakdownSchema = z
  .strictObject({
    category: z.enum(VAT_CATEGORIES).describe("VAT category code (BT-118)."),
    rate: percent("VAT category rate (BT-119); absent for O.").optional(),
    taxableAmount: amount("VAT category taxable amount (BT-116)."),
    taxAmount: amount("VAT category tax amount (BT-117) = taxableAmount x rate / 100, rounded half away from zero to 2 decimals."),
  })
  .describe("One VAT breakdown (BG-23).")
  .meta({ id: "InvoiceVatBreakdown" });

export const TotalsSchema = z
  .strictObject({
    lineTotal: amount("Sum of invoice line net amounts (BT-106).").optional(),
    allowanceTotal: amount("Sum of allowances on document level (BT-107).").optional(),
    chargeTotal: amount("Sum of charges on document level (BT-108).").optional(),
    taxExclusive: amount("Invoice total amount without VAT (BT-109).").optional(),
    vatTotal: amount("Invoice total VAT amount (BT-110).").optional(),
    taxInclusive: amount("Invoice total amount with VAT (BT-112).").optional(),
    payable: amount("Amount due for payment (BT-115).").optional(),
    vatBreakdown: z.array(VatBreakdownSchema).max(50).optional().describe("VAT breakdown (BG-23), one per category and rate."),
  })
  .describe("Document totals (BG-22) and VAT breakdown (BG-23). Computed by the service; when given, every value given must equal the computed one.")
  .meta({ id: "InvoiceTotals" });

export const PrecedingInvoiceSchema = z
  .strictObject({ number: text("Preceding invoice reference (BT-25).", 200), issueDate: date("Preceding invoice issue date (BT-26).").optional() })
  .describe("A preceding invoice reference (BG-3).")
  .meta({ id: "InvoicePrecedingInvoice" });

export const VatExemptionSchema = z
  .strictObject({
    reason: text("VAT exemption reason text (BT-120).").optional(),
    code: code("VAT exemption reason code (BT-121, VATEX), such as VATEX-EU-AE.", /^[A-Za-z0-9-]{1,40}$/).optional(),
  })
  .refine(atLeastOne, { error: "needs a reason or a code" })
  .describe("A VAT exemption reason (BT-120) and/or code (BT-121).")
  .meta({ id: "InvoiceVatExemption" });

/** The specifications (BT-24) an InvoiceData can be built for: see `specification`. */
export const SPECIFICATIONS = ["peppol", "xrechnung", "en16931"] as const;
export type Specification = (typeof SPECIFICATIONS)[number];

// ---------- the invoice ----------

export const InvoiceDataSchema = z
  .strictObject({
    number: text("Invoice number (BT-1).", 200),
    issueDate: date("Invoice issue date (BT-2)."),
    typeCode: z
      .string()
      .regex(/^\d{3}$/, { error: "must be a 3-digit UNCL 1001 code, such as 380" })
      .optional()
      .describe("Invoice type code (BT-3, UNCL 1001): default 380 for an invoice, 381 for a credit note."),
    currency: currency("Invoice currency code (BT-5), ISO 4217."),
    specification: z
      .enum(SPECIFICATIONS, { error: `must be one of ${SPECIFICATIONS.join(", ")}` })
      .optional()
      .describe(
        "Specification identifier (BT-24): which specification the document is built for and checked against. " +
          "peppol (default): Peppol BIS Billing 3.0 UBL (CustomizationID urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0), EN 16931 and Peppol rules. " +
          "xrechnung: XRechnung 3.0 UBL for German public buyers (urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0), EN 16931 and XRechnung 3.0.2 rules (BR-DE-*: buyerReference as the Leitweg-ID, seller contact with telephone and e-mail, payment instructions, ...). " +
          "en16931: plain EN 16931 UBL (urn:cen.eu:en16931:2017), EN 16931 rules only.",
      ),
    profileId: text("Business process type (BT-23): default urn:fdc:peppol.eu:2017:poacc:billing:01:1.0.", 200).optional(),
    vatAccountingCurrency: z
      .union([
        z.strictObject({
          code: currency("VAT accounting currency code (BT-6)."),
          rate: z.string().regex(/^\d{1,9}(\.\d{1,10})?$/, { error: "must be a positive decimal string, such as \"4.3\"" }).describe("Exchange rate: units of the VAT accounting currency per unit of the invoice currency; BT-111 = BT-110 x rate, rounded to 2 decimals."),
        }),
        z.strictObject({ code: currency("VAT accounting currency code (BT-6)."), vatTotal: amount("Invoice total VAT amount in accounting currency (BT-111).") }),
      ])
      .optional()
      .describe("VAT accounting currency (BT-6) with the total VAT in it (BT-111): {code, rate} or {code, vatTotal}."),
    taxPointDate: date("Value added tax point date (BT-7).").optional(),
    dueDate: date("Payment due date (BT-9). A credit note carries it on its payment means.").optional(),
    buyerReference: text("Buyer reference (BT-10). Peppol needs it or orderReference.", 200).optional(),
    projectReference: text("Project reference (BT-11).", 200).optional(),
    contractReference: text("Contract reference (BT-12).", 200).optional(),
    orderReference: text("Purchase order reference (BT-13).", 200).optional(),
    salesOrderReference: text("Sales order reference (BT-14); needs orderReference.", 200).optional(),
    receivingAdviceReference: text("Receiving advice reference (BT-15).", 200).optional(),
    despatchAdviceReference: text("Despatch advice reference (BT-16).", 200).optional(),
    tenderReference: text("Tender or lot reference (BT-17).", 200).optional(),
    objectId: IdSchema.optional().describe("Invoiced object identifier (BT-18) with its scheme."),
    accountingCost: text("Buyer accounting reference (BT-19).", 200).optional(),
    paymentTerms: text("Payment terms (BT-20), one term a line. Whitespace around it is dropped but for one closing line break, which German cash discount terms need (`#SKONTO#TAGE=14#PROZENT=2.00#` and a line break).", 1000, termsText).optional(),
    notes: z.array(text("Invoice note (BT-22).", 5000)).max(20).optional().describe("Invoice notes (BG-1, BT-22). Written as one note unless seller and buyer are both German."),
    period: InvoicePeriodSchema.optional().describe("Invoicing period (BG-14)."),
    precedingInvoices: z
      .array(PrecedingInvoiceSchema)
      .max(50)
      .optional()
      .describe("Preceding invoice references (BG-3): what a credit note corrects."),
    seller: SellerSchema,
    buyer: BuyerSchema,
    payee: PayeeSchema.optional(),
    taxRepresentative: TaxRepresentativeSchema.optional(),
    delivery: DeliverySchema.optional(),
    payment: PaymentSchema.optional(),
    allowances: z.array(AllowanceChargeSchema).max(100).optional().describe("Document level allowances (BG-20)."),
    charges: z.array(AllowanceChargeSchema).max(100).optional().describe("Document level charges (BG-21)."),
    lines: z.array(LineSchema).min(1, { error: "needs at least one line" }).max(100_000).describe("Invoice lines (BG-25), at least one."),
    vatExemptions: z
      .partialRecord(
        z.enum(EXEMPT_CATEGORIES),
        VatExemptionSchema,
      )
      .optional()
      .describe('VAT exemption reasons by category (BT-120/121), such as {"E": {"reason": "Exempt under article 132"}}; categories E, AE, K, G and O need one.'),
    paidAmount: amount("Paid amount (BT-113).").optional(),
    roundingAmount: amount("Rounding amount (BT-114).").optional(),
    attachments: z.array(AttachmentSchema).max(50).optional().describe("Additional supporting documents (BG-24)."),
    totals: TotalsSchema.optional(),
  })
  // The totals are ours: any the caller also sent must equal them (each difference names both values).
  .superRefine((data, ctx) => {
    // zod runs this even when a field failed; a value that is not a decimal has its own issue already.
    let problems: ReturnType<typeof givenTotalsProblems>;
    try {
      problems = givenTotalsProblems(data, computeTotals(data));
    } catch {
      return;
    }
    for (const p of problems) ctx.addIssue({ code: "custom", path: p.path, message: p.message });
  })
  .describe("An invoice or credit note as data: the EN 16931 semantic model. Amounts, quantities and rates are decimal strings.")
  .meta({ id: "InvoiceData" });

/** An invoice or credit note as data (the parsed, trimmed form). */
export type InvoiceData = z.output<typeof InvoiceDataSchema>;
/** What a caller may send (before trimming). */
export type InvoiceDataInput = z.input<typeof InvoiceDataSchema>;
export type InvoiceLine = InvoiceData["lines"][number];
export type InvoiceParty = z.output<typeof SellerSchema>;
export type InvoiceAddress = z.output<typeof AddressSchema>;
export type AllowanceCharge = z.output<typeof AllowanceChargeSchema>;
export type LineAllowanceCharge = z.output<typeof LineAllowanceChargeSchema>;
export type InvoiceTotals = z.output<typeof TotalsSchema>;

/**
 * Messages for the issues zod words for programmers: a missing field is "is required", a value of the
 * wrong JSON type "must be a string" (used as the per-parse error map of InvoiceData requests).
 */
export function dataIssueMessage(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code === "invalid_type") return issue.input === undefined ? "is required" : `must be ${issue.expected === "object" ? "an object" : issue.expected === "array" ? "an array" : `a ${issue.expected}`}`;
  if (issue.code === "invalid_union") return "matches none of the allowed forms";
  if (issue.code === "invalid_value") return `must be one of ${issue.values.map(String).join(", ")}`;
  return undefined;
}

/** The JSON pointer of a zod issue path, after `prefix`: ["lines", 2, "vat"] -> "/lines/2/vat". */
export function dataPointer(path: readonly PropertyKey[], prefix = ""): string {
  return prefix + path.map((p) => "/" + String(p).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

/** The 400 messages of a zod error on an InvoiceData (or a body holding one): "<pointer>: <what is wrong>". */
export function dataIssueMessages(issues: readonly z.core.$ZodIssue[], prefix = ""): string[] {
  const out: string[] = [];
  for (const issue of issues) {
    const at = dataPointer(issue.path, prefix);
    if (issue.code === "unrecognized_keys") for (const key of issue.keys) out.push(`${dataPointer([key], at)}: is not a field of InvoiceData (misspelt?)`);
    else out.push(`${at || "/"}: ${issue.message}`);
  }
  return [...new Set(out)];
}
