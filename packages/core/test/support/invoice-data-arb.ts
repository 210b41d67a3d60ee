// fast-check arbitraries for InvoiceData: invoices and credit notes the rules must accept, over every VAT
// category, several rates, line and document allowances and charges (amount and percent), price base
// quantities, gross prices, other currencies with a VAT accounting currency, preceding invoices, every
// payment means family and attachments. What EN 16931 and Peppol force is built in (an O invoice has
// no VAT ids and no other category; AE and K need the buyer's VAT id; K a delivery country and date).
import fc from "fast-check";
import type { InvoiceDataInput } from "../../src/index.js";

type Cat = "S" | "Z" | "E" | "AE" | "K" | "G" | "O" | "L" | "M";
const RATES: Record<Cat, string[]> = {
  S: ["21", "19", "25", "5.5", "12", "7.7"],
  Z: ["0"],
  E: ["0"],
  AE: ["0"],
  K: ["0"],
  G: ["0"],
  O: [],
  L: ["7", "3", "0"],
  M: ["4", "10"],
};
const VATEX: Partial<Record<Cat, string>> = { E: "VATEX-EU-132", AE: "VATEX-EU-AE", K: "VATEX-EU-IC", G: "VATEX-EU-G", O: "VATEX-EU-O" };
// Countries without Peppol national rules (those add requirements of their own).
const COUNTRIES = ["BE", "FR", "AT", "ES", "FI", "PL", "LU", "IE", "PT"];
const UNITS = ["C62", "HUR", "KGM", "EA", "DAY", "MTR"];

/** Text with what escaping must survive: markup characters, quotes, accents, CJK. */
const word = fc.constantFrom("Acme", "Müller & Söhne", "<b>bold</b>", 'say "hi"', "O'Brien", "Łódź", "東京", "a > b", "x&y", "Café", "Nr. 12");
const text = fc.array(word, { minLength: 1, maxLength: 3 }).map((w) => w.join(" "));
const ident = fc.stringMatching(/^[A-Z]{2,4}-[0-9]{1,6}$/);

const money = (min: number, max: number) => fc.integer({ min: min * 100, max: max * 100 }).map((c) => (c / 100).toFixed(2));
const decimal = (maxInt: number, decimals: number) =>
  fc.tuple(fc.integer({ min: 0, max: maxInt }), fc.integer({ min: 0, max: 10 ** decimals - 1 })).map(([i, f]) => (decimals === 0 || f === 0 ? `${i}` : `${i}.${String(f).padStart(decimals, "0")}`));
const date = fc.date({ min: new Date("2024-01-01T00:00:00Z"), max: new Date("2027-12-28T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));

/** A valid IBAN for a country (mod 97 check digits). */
function iban(country: string, digits: string): string {
  const bban = digits.padStart(16, "0");
  const num = (bban + country + "00").replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let r = 0;
  for (const ch of num) r = (r * 10 + Number(ch)) % 97;
  return `${country}${String(98 - r).padStart(2, "0")}${bban}`;
}

const address = (country: fc.Arbitrary<string>) =>
  fc.record(
    {
      lines: fc.array(text, { minLength: 1, maxLength: 3 }),
      city: text,
      postalCode: fc.stringMatching(/^[0-9]{4,5}$/),
      subdivision: text,
      country,
    },
    { requiredKeys: ["country", "city"] },
  );

const vatFor = (cats: Cat[]): fc.Arbitrary<{ category: Cat; rate?: string }> =>
  fc.constantFrom(...cats).chain((category): fc.Arbitrary<{ category: Cat; rate?: string }> =>
    category === "O" ? fc.constant({ category }) : fc.constantFrom(...RATES[category]).map((rate) => ({ category, rate })),
  );

const acFields = {
  reason: text,
  reasonCode: fc.constantFrom("95", "100", "41"),
};
const allowanceOrCharge = (charge: boolean) =>
  fc.oneof(
    fc.record({ amount: money(0, 200) }),
    fc.record({ percent: fc.constantFrom("5", "10", "2.5", "12.75"), baseAmount: money(0, 2000) }),
  ).chain((a) =>
    fc
      .record({ reason: acFields.reason, reasonCode: charge ? fc.constantFrom("FC", "ABK", "ABL") : acFields.reasonCode }, { requiredKeys: [] })
      .map((r) => ({ ...a, ...(r.reason === undefined && r.reasonCode === undefined ? { reason: "Adjustment" } : r) })),
  );

const line = (cats: Cat[], i: number) =>
  fc
    .record(
      {
        quantity: fc.oneof({ weight: 5, arbitrary: decimal(500, 2).filter((q) => q !== "0") }, { weight: 1, arbitrary: decimal(20, 0).filter((q) => q !== "0").map((q) => `-${q}`) }),
        unitCode: fc.constantFrom(...UNITS),
        price: decimal(2000, 4),
        discount: fc.option(decimal(50, 2), { nil: undefined }),
        priceBaseQuantity: fc.option(fc.constantFrom("1", "10", "100", "2.5"), { nil: undefined }),
        vat: vatFor(cats),
        name: text,
        description: fc.option(text, { nil: undefined }),
        note: fc.option(text, { nil: undefined }),
        sellerItemId: fc.option(ident, { nil: undefined }),
        buyerItemId: fc.option(ident, { nil: undefined }),
        standardItemId: fc.option(fc.constant({ scheme: "0160", id: "10986700" }), { nil: undefined }),
        classifications: fc.option(fc.array(fc.record({ code: fc.stringMatching(/^[0-9]{6,8}$/), listId: fc.constantFrom("STI", "CV", "MP") }), { minLength: 1, maxLength: 2 }), { nil: undefined }),
        originCountry: fc.option(fc.constantFrom(...COUNTRIES, "CN", "US"), { nil: undefined }),
        attributes: fc.option(fc.array(fc.record({ name: text, value: text }), { minLength: 1, maxLength: 2 }), { nil: undefined }),
        period: fc.option(date.map((d) => ({ start: d })), { nil: undefined }),
        orderLineReference: fc.option(fc.stringMatching(/^[0-9]{1,3}$/), { nil: undefined }),
        accountingCost: fc.option(ident, { nil: undefined }),
        allowances: fc.option(fc.array(allowanceOrCharge(false), { minLength: 1, maxLength: 2 }), { nil: undefined }),
        charges: fc.option(fc.array(allowanceOrCharge(true), { minLength: 1, maxLength: 1 }), { nil: undefined }),
      },
      { requiredKeys: ["quantity", "unitCode", "price", "vat", "name"] },
    )
    .map(({ discount, ...l }) => ({
      id: String(i + 1),
      ...l,
      ...(discount !== undefined ? { grossPrice: (Number(l.price) + Number(discount)).toFixed(4) } : {}),
    }));

const payment = (country: string) =>
  fc.constantFrom("30", "31", "42", "48", "49", "58", "59").chain((meansCode) => {
    const accounts = fc.array(
      fc.record({ iban: fc.stringMatching(/^[0-9]{8,16}$/).map((d) => iban(country === "PT" ? "PT" : "BE", d)), name: fc.option(text, { nil: undefined }), bic: fc.option(fc.constant("GEBABEBB"), { nil: undefined }) }),
      { minLength: 1, maxLength: 2 },
    );
    const base = fc.record({ meansText: fc.option(fc.constantFrom("Credit transfer", "Card"), { nil: undefined }), reference: fc.option(ident, { nil: undefined }) }, { requiredKeys: [] });
    const extra =
      meansCode === "48"
        ? fc.record({ card: fc.record({ last4: fc.stringMatching(/^[0-9]{4}$/), holder: fc.option(text, { nil: undefined }) }, { requiredKeys: ["last4"] }) })
        : meansCode === "49" || meansCode === "59"
          ? fc.record({
              directDebit: fc.record(
                { mandate: ident, creditorId: fc.option(fc.constant("BE54ZZZ0123456789"), { nil: undefined }), debitedAccount: fc.option(fc.constant(iban("BE", "539007547034")), { nil: undefined }) },
                { requiredKeys: ["mandate"] },
              ),
            })
          : fc.record({ accounts });
    return fc.tuple(base, extra).map(([b, e]) => strip({ meansCode, ...b, ...e }));
  });

function strip<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}

/** The categories of one document: O alone, or one to four of the others. */
const categories: fc.Arbitrary<Cat[]> = fc.oneof(
  { weight: 1, arbitrary: fc.constant<Cat[]>(["O"]) },
  { weight: 8, arbitrary: fc.uniqueArray(fc.constantFrom<Cat>("S", "Z", "E", "AE", "K", "G", "L", "M"), { minLength: 1, maxLength: 4 }) },
);

/** A generated invoice or credit note that EN 16931 and Peppol BIS 3 accept, and its document type. */
export const invoiceDataArb: fc.Arbitrary<{ rootElement: "Invoice" | "CreditNote"; data: InvoiceDataInput }> = fc
  .tuple(categories, fc.constantFrom(...COUNTRIES), fc.constantFrom(...COUNTRIES), fc.boolean(), fc.integer({ min: 1, max: 4 }))
  .chain(([cats, sellerCountry, buyerCountry, credit, nLines]) => {
    const o = cats.includes("O");
    const needsBuyerVat = cats.includes("AE") || cats.includes("K");
    const exemptCats = cats.filter((c) => c in VATEX);
    return fc
      .record(
        {
          number: ident,
          issueDate: date,
          dueDate: date,
          currency: fc.constantFrom("EUR", "EUR", "USD", "SEK", "PLN"),
          accounting: fc.boolean(),
          buyerReference: fc.option(ident, { nil: undefined }),
          orderReference: ident,
          salesOrderReference: fc.option(ident, { nil: undefined }),
          contractReference: fc.option(ident, { nil: undefined }),
          projectReference: fc.option(ident, { nil: undefined }),
          despatchAdviceReference: fc.option(ident, { nil: undefined }),
          receivingAdviceReference: fc.option(ident, { nil: undefined }),
          tenderReference: fc.option(ident, { nil: undefined }),
          accountingCost: fc.option(ident, { nil: undefined }),
          paymentTerms: fc.option(text, { nil: undefined }),
          notes: fc.option(fc.array(text, { minLength: 1, maxLength: 2 }), { nil: undefined }),
          period: fc.option(fc.tuple(date, date).map(([a, b]) => (a <= b ? { start: a, end: b } : { start: b, end: a })), { nil: undefined }),
          preceding: fc.array(fc.record({ number: ident, issueDate: date }), { minLength: credit ? 1 : 0, maxLength: 2 }),
          sellerName: text,
          sellerTrading: fc.option(text, { nil: undefined }),
          sellerLegal: fc.option(fc.stringMatching(/^[0-9]{9}$/).map((id) => ({ id, scheme: "0002" })), { nil: undefined }),
          sellerLegalInfo: fc.option(text, { nil: undefined }),
          sellerAddress: address(fc.constant(sellerCountry)),
          contact: fc.option(fc.record({ name: text, phone: fc.constant("+32 2 123 45 67"), email: fc.constant("billing@example.com") }, { requiredKeys: ["name"] }), { nil: undefined }),
          buyerName: text,
          buyerAddress: address(fc.constant(buyerCountry)),
          buyerId: fc.option(fc.stringMatching(/^[0-9]{9}$/).map((id) => ({ id, scheme: "0060" })), { nil: undefined }),
          payee: fc.option(fc.record({ name: text, identifier: fc.option(fc.constant({ id: "123456789", scheme: "0060" }), { nil: undefined }) }, { requiredKeys: ["name"] }), { nil: undefined }),
          taxRep: fc.option(fc.record({ name: text, address: address(fc.constantFrom(...COUNTRIES)) }), { nil: undefined }),
          delivery: fc.option(fc.record({ date, partyName: text, address: address(fc.constantFrom(...COUNTRIES)) }, { requiredKeys: ["date"] }), { nil: undefined }),
          payment: fc.option(payment(sellerCountry), { nil: undefined }),
          lines: fc.tuple(...Array.from({ length: nLines }, (_, i) => line(cats, i))),
          allowances: fc.option(fc.array(fc.tuple(allowanceOrCharge(false), vatFor(cats)).map(([a, vat]) => ({ ...a, vat })), { minLength: 1, maxLength: 2 }), { nil: undefined }),
          charges: fc.option(fc.array(fc.tuple(allowanceOrCharge(true), vatFor(cats)).map(([a, vat]) => ({ ...a, vat })), { minLength: 1, maxLength: 2 }), { nil: undefined }),
          exemptionStyle: fc.constantFrom("reason", "code", "both"),
          paid: fc.option(money(0, 50), { nil: undefined }),
          rounding: fc.option(fc.constantFrom("0.01", "-0.02", "0.00"), { nil: undefined }),
          attachments: fc.option(
            fc.array(
              fc.oneof(
                fc.record({ id: ident, description: text, filename: fc.constant("timesheet.pdf"), mimeCode: fc.constant("application/pdf" as const), content: fc.constant("JVBERi0xLjQKJcfsj6IK") }),
                fc.record({ id: ident, url: fc.constant("https://example.com/docs/contract.pdf") }),
              ),
              { minLength: 1, maxLength: 2 },
            ),
            { nil: undefined },
          ),
        },
      )
      .map((r) => {
        const vatId = (c: string, n: string) => `${c}${n}`;
        const data: InvoiceDataInput = strip({
          number: r.number!,
          issueDate: r.issueDate!,
          typeCode: credit ? "381" : undefined,
          currency: r.currency!,
          vatAccountingCurrency: r.accounting && r.currency !== "EUR" ? { code: "EUR", rate: "0.0912" } : undefined,
          dueDate: r.dueDate,
          buyerReference: r.buyerReference,
          orderReference: r.orderReference,
          salesOrderReference: r.salesOrderReference,
          contractReference: r.contractReference,
          projectReference: r.projectReference,
          despatchAdviceReference: r.despatchAdviceReference,
          receivingAdviceReference: r.receivingAdviceReference,
          tenderReference: r.tenderReference,
          accountingCost: r.accountingCost,
          paymentTerms: r.paymentTerms,
          notes: r.notes,
          period: r.period,
          precedingInvoices: r.preceding && r.preceding.length > 0 ? r.preceding : undefined,
          seller: strip({
            name: r.sellerName!,
            tradingName: r.sellerTrading,
            vatId: o ? undefined : vatId(sellerCountry, "123456789"),
            // BR-CO-26: without a VAT id (category O) the seller needs a legal or other identifier.
            legalId: r.sellerLegal ?? (o ? { id: "552100554", scheme: "0002" } : undefined),
            legalInfo: r.sellerLegalInfo,
            endpoint: { scheme: "0060", id: "987654321" },
            address: r.sellerAddress!,
            contact: r.contact,
          }),
          buyer: strip({
            name: r.buyerName!,
            identifiers: r.buyerId ? [r.buyerId] : undefined,
            vatId: o ? undefined : needsBuyerVat || buyerCountry !== sellerCountry ? vatId(buyerCountry, "987654321") : undefined,
            endpoint: { scheme: "0060", id: "123456789" },
            address: r.buyerAddress!,
          }),
          payee: r.payee ? strip({ ...r.payee, name: `Factoring ${r.payee.name}` }) : undefined,
          taxRepresentative: !o && r.taxRep ? { name: r.taxRep.name, vatId: vatId(r.taxRep.address.country, "555666777"), address: r.taxRep.address } : undefined,
          delivery: cats.includes("K")
            ? { ...(r.delivery ?? {}), date: r.delivery?.date ?? r.issueDate!, address: r.delivery?.address ?? { country: buyerCountry } }
            : r.delivery && Object.keys(r.delivery).length > 0
              ? r.delivery
              : undefined,
          payment: r.payment,
          allowances: r.allowances,
          charges: r.charges,
          // A line period lies within the invoice period (PEPPOL-EN16931-R110, R111).
          lines: r.lines!.map((l) => (l.period && r.period ? { ...l, period: { start: r.period.start } } : l)),
          vatExemptions:
            exemptCats.length > 0
              ? Object.fromEntries(
                  exemptCats.map((c) => [
                    c,
                    r.exemptionStyle === "reason" ? { reason: `Exempt (${c})` } : r.exemptionStyle === "code" ? { code: VATEX[c] } : { reason: `Exempt (${c})`, code: VATEX[c] },
                  ]),
                )
              : undefined,
          paidAmount: r.paid,
          roundingAmount: r.rounding,
          attachments: r.attachments,
        });
        return { rootElement: credit ? ("CreditNote" as const) : ("Invoice" as const), data };
      });
  });
