import Big from "big.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isApiError } from "../../../src/domain/errors.js";
import { parseXml } from "../../../src/document/xml.js";
import { expectIndexMatchesWalk } from "../../support/qname-index.js";
import { validateInvoice } from "../../../src/document/validate.js";
import { invoiceDataArb } from "../../support/invoice-data-arb.js";
import { buildInvoice, buildUbl, normaliseInvoiceData, parseInvoiceData, readInvoiceData, type InvoiceDataInput } from "../../../src/document/invoice-data/index.js";
import { round2 } from "../../../src/domain/invoice-totals.js";

const BASE: InvoiceDataInput = {
  number: "INV-1",
  issueDate: "2026-03-01",
  dueDate: "2026-03-31",
  currency: "EUR",
  buyerReference: "PO-1",
  seller: {
    name: "Seller SA",
    vatId: "FR12345678901",
    endpoint: { scheme: "0009", id: "12345678900011" },
    address: { lines: ["1 rue de Paris"], city: "Paris", postalCode: "75001", country: "FR" },
  },
  buyer: {
    name: "Buyer NV",
    vatId: "BE0123456749",
    endpoint: { scheme: "0208", id: "0123456749" },
    address: { city: "Brussels", country: "BE" },
  },
  lines: [{ id: "1", name: "Widget", quantity: "3", unitCode: "C62", price: "10.005", vat: { category: "S", rate: "20" } }],
};
const DUTCH_SELLER: InvoiceDataInput["seller"] = {
  name: "Verkoper BV",
  vatId: "NL123456789B01",
  legalId: { id: "12345678", scheme: "0106" },
  endpoint: { scheme: "0106", id: "12345678" },
  address: { lines: ["Hoofdstraat 1"], city: "Amsterdam", postalCode: "1011 AA", country: "NL" },
};
const GERMAN_SELLER: InvoiceDataInput["seller"] = {
  name: "Verkäufer GmbH",
  vatId: "DE123456789",
  endpoint: { scheme: "9930", id: "DE123456789" },
  address: { lines: ["Hauptstraße 1"], city: "Berlin", postalCode: "10115", country: "DE" },
  contact: { name: "Anna", phone: "030 123456", email: "anna@example.de" },
};
const GERMAN_BUYER: InvoiceDataInput["buyer"] = {
  name: "Käufer AG",
  vatId: "DE987654321",
  endpoint: { scheme: "9930", id: "DE987654321" },
  address: { lines: ["Marktplatz 2"], city: "München", postalCode: "80331", country: "DE" },
};
const withData = (patch: Partial<InvoiceDataInput>): InvoiceDataInput => ({ ...BASE, ...patch });

/** The ApiError `fn` throws (fails the test when it throws nothing or something else). */
function thrown(fn: () => unknown) {
  try {
    fn();
  } catch (e) {
    if (isApiError(e)) return e;
    throw e;
  }
  throw new Error("expected an ApiError");
}

describe("totals", () => {
  it("round half away from zero to 2 decimals, never as floats", () => {
    expect(round2(new Big("0.125")).toFixed(2)).toBe("0.13");
    expect(round2(new Big("-0.125")).toFixed(2)).toBe("-0.13");
    expect(round2(new Big("1.005")).toFixed(2)).toBe("1.01"); // 1.005 as a float rounds to 1.00
    expect(round2(new Big("2.675")).toFixed(2)).toBe("2.68");
  });

  it("compute line net amounts, the VAT per category and rate, and the payable amount exactly", () => {
    const b = buildInvoice(
      withData({
        lines: [
          { id: "1", name: "A", quantity: "3", unitCode: "C62", price: "10.005", vat: { category: "S", rate: "20" } },
          { id: "2", name: "B", quantity: "2", unitCode: "C62", price: "99.99", priceBaseQuantity: "10", vat: { category: "S", rate: "5.5" }, allowances: [{ percent: "10", baseAmount: "20.00", reason: "Promo" }] },
        ],
        charges: [{ amount: "5.00", reason: "Freight", vat: { category: "S", rate: "20" } }],
        paidAmount: "10.00",
      }),
    );
    expect(b.report.errors).toEqual([]);
    const t = readInvoiceData(b.xml).totals!;
    // 3 x 10.005 = 30.015 -> 30.02; 2 x 99.99 / 10 = 19.998 - 2.00 = 17.998 -> 18.00
    expect(readInvoiceData(b.xml).lines.map((l) => l.netAmount)).toEqual(["30.02", "18.00"]);
    expect(t.vatBreakdown).toEqual([
      { category: "S", rate: "20", taxableAmount: "35.02", taxAmount: "7.00" }, // 35.02 x 20 % = 7.004
      { category: "S", rate: "5.5", taxableAmount: "18.00", taxAmount: "0.99" },
    ]);
    expect(t).toMatchObject({ lineTotal: "48.02", chargeTotal: "5.00", taxExclusive: "53.02", vatTotal: "7.99", taxInclusive: "61.01", payable: "51.01" });
  });

  it("refuse totals the caller sent that differ from ours, naming both values", () => {
    const e = thrown(() => buildInvoice(withData({ totals: { payable: "36.03", vatTotal: "6.00" } }), { prefix: "/invoice" }));
    expect(e.code).toBe("bad_request");
    // 3 x 10.005 = 30.015 -> 30.02, VAT 6.004 -> 6.00: the VAT total agrees, the payable amount does not.
    expect(e.details).toEqual(["/invoice/totals/payable: is 36.03, but taxInclusive - paidAmount + roundingAmount gives 36.02"]);
  });
});

describe("buildUbl", () => {
  it("writes a Peppol BIS Billing 3.0 invoice our rules accept, with the schema's element order", () => {
    const xml = buildUbl(BASE);
    expect(validateInvoice(xml).errors).toEqual([]);
    const names = parseXml(xml).root.children.map((c) => c.qname);
    expect(names.slice(0, 8)).toEqual(["cbc:CustomizationID", "cbc:ProfileID", "cbc:ID", "cbc:IssueDate", "cbc:DueDate", "cbc:InvoiceTypeCode", "cbc:DocumentCurrencyCode", "cbc:BuyerReference"]);
    expect(names.slice(-4)).toEqual(["cac:AccountingCustomerParty", "cac:TaxTotal", "cac:LegalMonetaryTotal", "cac:InvoiceLine"]);
  });

  it("writes a credit note: CreditNote root, 381, the due date on the payment means, the project in a type 50 reference", () => {
    const xml = buildUbl(withData({ projectReference: "PRJ-9", precedingInvoices: [{ number: "INV-0", issueDate: "2026-01-01" }] }), { documentType: "CreditNote" });
    const root = parseXml(xml).root;
    expect(root.name).toBe("CreditNote");
    expect(validateInvoice(xml).errors).toEqual([]);
    expect(xml).toContain("<cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>");
    expect(xml).not.toContain("<cbc:DueDate>");
    expect(xml).toContain("<cac:PaymentMeans><cbc:PaymentMeansCode>1</cbc:PaymentMeansCode><cbc:PaymentDueDate>2026-03-31</cbc:PaymentDueDate></cac:PaymentMeans>");
    expect(xml).toContain("<cac:AdditionalDocumentReference><cbc:ID>PRJ-9</cbc:ID><cbc:DocumentTypeCode>50</cbc:DocumentTypeCode></cac:AdditionalDocumentReference>");
    expect(readInvoiceData(xml)).toMatchObject({ rootElement: "CreditNote", dueDate: "2026-03-31", projectReference: "PRJ-9", precedingInvoices: [{ number: "INV-0", issueDate: "2026-01-01" }] });
  });

  it("escapes markup in every text and attribute, and reads it back unchanged", () => {
    const name = `Smith & Sons <"Ltd"> 'x'`;
    const data = withData({ seller: { ...BASE.seller, name, endpoint: { scheme: "0009", id: "A&B<1>" } } });
    const xml = buildUbl(data);
    expect(xml).toContain("Smith &amp; Sons &lt;\"Ltd\"&gt; 'x'");
    expect(xml).toContain('schemeID="0009">A&amp;B&lt;1&gt;<');
    expect(readInvoiceData(xml).seller).toMatchObject({ name, endpoint: { id: "A&B<1>" } });
  });

  it("writes a document past 64 KiB in pieces that join into the same XML: non-ASCII text intact, every amount with its currency, read back to the same data", () => {
    const lines = Array.from({ length: 400 }, (_, i) => ({
      id: String(i + 1),
      name: `Überlänge ${i} – ƒ€ 😀`,
      quantity: "2",
      unitCode: "C62",
      price: "1.25",
      vat: { category: "S" as const, rate: "21" },
    }));
    const data = withData({ lines });
    const xml = buildUbl(data);
    expect(Buffer.byteLength(xml)).toBeGreaterThan(128 * 1024);
    expect(xml).toContain("<cbc:Name>Überlänge 399 – ƒ€ 😀</cbc:Name>");
    expect(xml.endsWith("</Invoice>\n")).toBe(true);
    // The model the rules read and the bytes sent agree: a fresh read of the bytes gives the same elements.
    const count = (s: string, re: RegExp) => (s.match(re) ?? []).length;
    expect(count(xml, /<cac:InvoiceLine>/g)).toBe(400);
    expect(count(xml, /currencyID="EUR"/g)).toBeGreaterThan(800);
    expect(parseXml(xml).root.children.filter((c) => c.qname === "cac:InvoiceLine")).toHaveLength(400);
    const { rootElement, documentType, ...back } = readInvoiceData(xml);
    expect(rootElement).toBe("Invoice");
    expect(documentType).toBe("Invoice");
    expect(back).toEqual(normaliseInvoiceData(data));
  });

  it("writes several accounts as several payment means with the once-only parts once, and the SEPA creditor id where UBL puts BT-90", () => {
    const data = withData({
      payment: {
        meansCode: "58",
        meansText: "SEPA",
        reference: "REF-1",
        accounts: [{ iban: "BE71096123456769" }, { iban: "FR7630006000011234567890189", bic: "AGRIFRPP" }],
        directDebit: { creditorId: "FR12ZZZ123456" },
      },
    });
    const b = buildInvoice(data);
    expect(b.report.errors).toEqual([]);
    const means = parseXml(b.xml).root.children.filter((c) => c.qname === "cac:PaymentMeans");
    expect(means).toHaveLength(2);
    expect(means[0]!.children.map((c) => c.qname)).toEqual(["cbc:PaymentMeansCode", "cbc:PaymentID", "cac:PayeeFinancialAccount"]);
    expect(means[1]!.children.map((c) => c.qname)).toEqual(["cbc:PaymentMeansCode", "cac:PayeeFinancialAccount"]);
    expect(b.xml).toContain('<cac:PartyIdentification><cbc:ID schemeID="SEPA">FR12ZZZ123456</cbc:ID></cac:PartyIdentification>');
    expect(readInvoiceData(b.xml).payment).toEqual({ ...data.payment, directDebit: { creditorId: "FR12ZZZ123456" } });
  });

  it("joins several notes into one unless seller and buyer are both German (PEPPOL-EN16931-R002)", () => {
    expect(readInvoiceData(buildUbl(withData({ notes: ["a", "b"] }))).notes).toEqual(["a\nb"]);
    const de = { country: "DE", city: "Berlin" };
    const german = withData({ notes: ["a", "b"], seller: { ...BASE.seller, vatId: "DE123456789", address: de }, buyer: { ...BASE.buyer, vatId: "DE987654321", address: de } });
    expect(readInvoiceData(buildUbl(german)).notes).toEqual(["a", "b"]);
  });

  it("keeps the closing line break of German cash discount terms, which DE-R-018 requires, and names /paymentTerms without it", () => {
    const germans = { seller: GERMAN_SELLER, buyer: GERMAN_BUYER, payment: { meansCode: "58", accounts: [{ iban: "DE89370400440532013000" }] } };
    const skonto = "#SKONTO#TAGE=14#PROZENT=2.00#\n";
    const b = buildInvoice(withData({ ...germans, paymentTerms: `  ${skonto}  ` }));
    expect(b.report.errors).toEqual([]);
    expect(b.xml).toContain(`<cbc:Note>${skonto}</cbc:Note>`);
    expect(readInvoiceData(b.xml).paymentTerms).toBe(skonto);
    const without = buildInvoice(withData({ ...germans, paymentTerms: "#SKONTO#TAGE=14#PROZENT=2.00#" }));
    expect(without.report.errors.map((e) => `${e.rule} ${e.path}`)).toEqual(["DE-R-018 /paymentTerms"]);
    // Other terms lose the whitespace around them as every text does.
    expect(readInvoiceData(buildUbl(withData({ paymentTerms: " 30 days net " }))).paymentTerms).toBe("30 days net");
  });
});

describe("built bytes", () => {
  it("are the UTF-8 of the built xml, byte for byte, for a small invoice and for one written in 64 KiB pieces, with text outside ASCII", () => {
    const line = (i: number) => ({ id: String(i), name: `Ware ${i} Größe € 😀`, quantity: "1", unitCode: "C62", price: "2.50", vat: { category: "S" as const, rate: "20" } });
    for (const count of [1, 400]) {
      const built = buildInvoice(withData({ lines: Array.from({ length: count }, (_, i) => line(i + 1)) }));
      expect(built.report.valid).toBe(true);
      expect(Buffer.compare(built.bytes, Buffer.from(built.xml, "utf8"))).toBe(0);
      // Read back from the bytes: every line is there, in order, with its text.
      const back = readInvoiceData(built.bytes);
      expect(back.lines.map((l) => l.name)).toEqual(Array.from({ length: count }, (_, i) => `Ware ${i + 1} Größe € 😀`));
      if (count === 400) expect(built.bytes.length).toBeGreaterThan(128 * 1024);
    }
  });
});

describe("bad data", () => {
  const required: Array<[string, (d: Record<string, any>) => void]> = [
    ["/number", (d) => delete d.number],
    ["/issueDate", (d) => delete d.issueDate],
    ["/currency", (d) => delete d.currency],
    ["/seller", (d) => delete d.seller],
    ["/seller/name", (d) => delete d.seller.name],
    ["/seller/endpoint", (d) => delete d.seller.endpoint],
    ["/seller/endpoint/id", (d) => delete d.seller.endpoint.id],
    ["/seller/address/country", (d) => delete d.seller.address.country],
    ["/buyer", (d) => delete d.buyer],
    ["/buyer/name", (d) => delete d.buyer.name],
    ["/buyer/endpoint/scheme", (d) => delete d.buyer.endpoint.scheme],
    ["/lines", (d) => delete d.lines],
    ["/lines", (d) => (d.lines = [])],
    ["/lines/0/id", (d) => delete d.lines[0].id],
    ["/lines/0/name", (d) => delete d.lines[0].name],
    ["/lines/0/quantity", (d) => delete d.lines[0].quantity],
    ["/lines/0/unitCode", (d) => delete d.lines[0].unitCode],
    ["/lines/0/price", (d) => delete d.lines[0].price],
    ["/lines/0/vat", (d) => delete d.lines[0].vat],
    ["/lines/0/vat/rate", (d) => delete d.lines[0].vat.rate],
    ["/lines/0/vat/category", (d) => delete d.lines[0].vat.category],
  ];
  it.each(required)("a missing required field is a 400 naming %s", (path, mutate) => {
    const d = structuredClone(BASE) as Record<string, any>;
    mutate(d);
    const e = thrown(() => parseInvoiceData(d, "/invoice"));
    expect(e.code).toBe("bad_request");
    expect(e.details!.some((m) => m.startsWith(`/invoice${path}: `))).toBe(true);
  });

  it("wrong shapes and codes the schema knows are a 400 naming the field", () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ currency: "euro" }, "/currency: must be an ISO 4217 currency code"],
      [{ issueDate: "2026-02-30" }, "/issueDate: must be a real calendar date"],
      [{ lines: [{ ...BASE.lines[0]!, quantity: 3 }] }, "/lines/0/quantity: must be a string"],
      [{ lines: [{ ...BASE.lines[0]!, price: "1e3" }] }, "/lines/0/price: must be a non-negative decimal string"],
      [{ lines: [{ ...BASE.lines[0]!, vat: { category: "X", rate: "20" } }] }, "/lines/0/vat/category: must be one of"],
      [{ lines: [{ ...BASE.lines[0]!, vat: { category: "O", rate: "0" } }] }, "/lines/0/vat/rate: must be absent for category O"],
      [{ lines: [{ ...BASE.lines[0]!, vat: { category: "E", rate: "5" } }] }, "/lines/0/vat/rate: must be 0 for category E"],
      [{ lines: [{ ...BASE.lines[0]!, vatt: {} }] }, "/lines/0/vatt: is not a field of InvoiceData"],
      [{ allowances: [{ percent: "10", reason: "x", vat: { category: "S", rate: "20" } }] }, "/allowances/0/baseAmount: percent and baseAmount go together"],
      [{ seller: { ...BASE.seller, contact: {} } }, "/seller/contact: needs at least one field"],
      // A price with no decimals at all was told "at most 8 decimals"; the limit it broke is the 15 digits before the point.
      [{ lines: [{ ...BASE.lines[0]!, price: "9999999999999999" }] }, "/lines/0/price: must be a non-negative decimal string of at most 15 digits before the point and 8 after"],
      [{ lines: [{ ...BASE.lines[0]!, quantity: "1234567890123456" }] }, "/lines/0/quantity: must be a decimal string of at most 15 digits before the point and 6 after"],
      // Half of a surrogate pair became U+FFFD in the document: refused, as a control character is.
      [{ lines: [{ ...BASE.lines[0]!, name: "a\ud800b" }] }, "/lines/0/name: must be valid Unicode text: it holds half of a character"],
      [{ seller: { ...BASE.seller, name: "\udc00Acme" } }, "/seller/name: must be valid Unicode text"],
    ];
    for (const [patch, message] of cases) {
      const e = thrown(() => buildInvoice({ ...BASE, ...patch }));
      expect(e.code, message).toBe("bad_request");
      expect(e.message, message).toContain(message);
    }
  });

  it("codes the rules refuse and impossible combinations come back as fatal items naming the JSON path", () => {
    const cases: Array<[InvoiceDataInput, string, string]> = [
      [withData({ lines: [{ ...BASE.lines[0]!, unitCode: "ZZ9" }] }), "BR-CL-23", "/lines/0/quantity"],
      [withData({ currency: "EUX" }), "BR-CL-04", "/currency"],
      [withData({ seller: { ...BASE.seller, address: { country: "XX" } } }), "BR-CL-14", "/seller/address/country"],
      [withData({ lines: [{ ...BASE.lines[0]!, vat: { category: "E", rate: "0" } }] }), "BR-E-10", "/vatExemptions/E"],
      [withData({ buyer: { ...BASE.buyer, vatId: undefined }, lines: [{ ...BASE.lines[0]!, vat: { category: "K", rate: "0" } }], vatExemptions: { K: { code: "VATEX-EU-IC" } }, delivery: { date: "2026-03-01", address: { country: "BE" } } }), "BR-IC-02", "/buyer/vatId"],
      [withData({ buyerReference: undefined }), "PEPPOL-EN16931-R003", "/buyerReference"],
      [withData({ seller: { ...BASE.seller, vatId: undefined } }), "BR-S-02", "/seller/vatId"],
      [withData({ lines: [{ ...BASE.lines[0]!, vat: { category: "S", rate: "20" } }, { ...BASE.lines[0]!, id: "2", vat: { category: "O" } }] }), "BR-O-11", "/lines"],
      // National rules of Peppol BIS on a missing field: the field, not the totals (/lines) or the document.
      [withData({ seller: DUTCH_SELLER }), "NL-R-007", "/payment"],
      // A Dutch credit note without the invoice it corrects: the missing field, not the type code the rule's context is.
      [withData({ seller: DUTCH_SELLER, typeCode: "381" }), "NL-R-001", "/precedingInvoices"],
      [withData({ seller: GERMAN_SELLER, buyer: GERMAN_BUYER, buyerReference: undefined, orderReference: "PO-9" }), "DE-R-015", "/buyerReference"],
      [withData({ seller: GERMAN_SELLER, buyer: GERMAN_BUYER }), "DE-R-001", "/payment"],
    ];
    for (const [data, rule, path] of cases) {
      const b = buildInvoice(data);
      expect(b.report.valid, `${rule}: ${JSON.stringify(b.report.errors.map((e) => `${e.rule} ${e.path}`))}`).toBe(false);
      expect(b.report.errors.map((e) => `${e.rule} ${e.path}`), rule).toContain(`${rule} ${path}`);
    }
  });
});

describe("round trip", () => {
  it("readInvoiceData(buildUbl(x)) equals normalised x, and our rules find no fatal error (generated invoices and credit notes)", () => {
    fc.assert(
      fc.property(invoiceDataArb, ({ rootElement, data }) => {
        const b = buildInvoice(data, { rootElement });
        expect(b.report.errors).toEqual([]);
        const { rootElement: read, documentType: formerName, ...back } = readInvoiceData(b.xml);
        expect([read, formerName]).toEqual([rootElement, rootElement]);
        expect(back).toEqual(normaliseInvoiceData(b.data, rootElement));
        // The model the rules read is the one the bytes give: validating the bytes says the same.
        expect(validateInvoice(b.xml).errors).toEqual([]);
      }),
      { numRuns: 150, seed: 20261125 },
    );
  }, 120_000);
});

describe("the builder's index of elements by qname (what the rules' //qname reads)", () => {
  it("holds every built element under its qname in document order, as a walk of the built model finds them (generated invoices and credit notes)", () => {
    fc.assert(
      fc.property(invoiceDataArb, ({ rootElement, data }) => {
        expectIndexMatchesWalk(buildInvoice(data, { rootElement }).root);
      }),
      { numRuns: 60, seed: 20261127 },
    );
  }, 120_000);
});
