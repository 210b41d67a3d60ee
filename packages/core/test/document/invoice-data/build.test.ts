// The builder (build.ts) and InvoiceData's `specification` (BT-24): peppol (the default, Peppol BIS Billing 3.0 UBL),
// xrechnung (XRechnung 3.0 UBL, checked with the XRechnung UBL rules, each BR-DE rule a built document breaks reported at the JSON field that breaks
// it) and en16931 (plain EN 16931 UBL). The verdicts of built documents are compared with the official rules
// (test/support/official.ts: CEN, plus XRechnung UBL with KoSIT's levels by CustomizationID, under SaxonJS).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isApiError } from "../../../src/domain/errors.js";
import {
  buildInvoice, buildUbl, normaliseInvoiceData, readInvoiceData, EN16931_CUSTOMIZATION, PEPPOL_BIS3_CUSTOMIZATION, PEPPOL_BIS3_PROFILE,
  XRECHNUNG_3_CUSTOMIZATION, type InvoiceDataInput,
} from "../../../src/document/invoice-data/index.js";
import { InvoiceDataSchema } from "../../../src/domain/invoice-data.js";
import { parseXml } from "../../../src/document/xml.js";
import { child, stringValue } from "../../../src/document/model.js";
import { invoiceDataArb } from "../../support/invoice-data-arb.js";
import { officialVerdict } from "../../support/official.js";

const SELLER: InvoiceDataInput["seller"] = {
  name: "Verkäufer GmbH",
  vatId: "DE123456789",
  endpoint: { scheme: "9930", id: "DE123456789" },
  address: { lines: ["Hauptstraße 1"], city: "Berlin", postalCode: "10115", country: "DE" },
  contact: { name: "Anna Schmidt", phone: "030 123456", email: "anna@verkaeufer.de" },
};
const BUYER: InvoiceDataInput["buyer"] = {
  name: "Stadt Musterhausen",
  endpoint: { scheme: "0204", id: "04011000-12345-03" },
  address: { lines: ["Marktplatz 2"], city: "München", postalCode: "80331", country: "DE" },
};
/** A valid XRechnung invoice as data: the Leitweg-ID as buyer reference, the seller's contact, a SEPA transfer, a delivery date. */
const XRECHNUNG: InvoiceDataInput = {
  specification: "xrechnung",
  number: "R-2026-1",
  issueDate: "2026-03-01",
  dueDate: "2026-03-31",
  currency: "EUR",
  buyerReference: "04011000-12345-03",
  seller: SELLER,
  buyer: BUYER,
  payment: { meansCode: "58", accounts: [{ iban: "DE02120300000000202051" }] },
  delivery: { date: "2026-02-27" },
  lines: [{ id: "1", name: "Beratung", quantity: "3", unitCode: "HUR", price: "100", vat: { category: "S", rate: "19" } }],
};
const xr = (patch: Partial<InvoiceDataInput>): InvoiceDataInput => ({ ...XRECHNUNG, ...patch });
const seller = (patch: Partial<NonNullable<InvoiceDataInput["seller"]>>) => xr({ seller: { ...SELLER, ...patch } });
const contact = (c: NonNullable<InvoiceDataInput["seller"]["contact"]>) => seller({ contact: c });

const cid = (xml: string) => stringValue(child(parseXml(xml).root, "cbc:CustomizationID"));
const profile = (xml: string) => stringValue(child(parseXml(xml).root, "cbc:ProfileID"));
const ids = (items: Array<{ rule: string }>) => [...new Set(items.map((i) => i.rule))].sort();

/** Each XRechnung invoice as data that breaks a BR-DE rule: the rule and the JSON field it is reported at. */
const BROKEN: Array<[string, InvoiceDataInput, string, string]> = [
  ["no buyer reference (the Leitweg-ID)", xr({ buyerReference: undefined }), "BR-DE-15", "/buyerReference"],
  ["no seller contact", seller({ contact: undefined }), "BR-DE-2", "/seller/contact"],
  ["no contact name", contact({ phone: "030 123456", email: "anna@verkaeufer.de" }), "BR-DE-5", "/seller/contact/name"],
  ["no contact telephone", contact({ name: "Anna", email: "anna@verkaeufer.de" }), "BR-DE-6", "/seller/contact/phone"],
  ["no contact e-mail", contact({ name: "Anna", phone: "030 123456" }), "BR-DE-7", "/seller/contact/email"],
  ["a telephone without three digits", contact({ name: "Anna", phone: "call us", email: "anna@verkaeufer.de" }), "BR-DE-27", "/seller/contact/phone"],
  ["an e-mail that is none", contact({ name: "Anna", phone: "030 123456", email: "anna at verkaeufer" }), "BR-DE-28", "/seller/contact/email"],
  ["no seller city", seller({ address: { lines: ["Hauptstraße 1"], postalCode: "10115", country: "DE" } }), "BR-DE-3", "/seller/address/city"],
  ["no seller post code", seller({ address: { lines: ["Hauptstraße 1"], city: "Berlin", country: "DE" } }), "BR-DE-4", "/seller/address/postalCode"],
  ["no buyer city", xr({ buyer: { ...BUYER, address: { postalCode: "80331", country: "DE" } } }), "BR-DE-8", "/buyer/address/city"],
  ["no buyer post code", xr({ buyer: { ...BUYER, address: { city: "München", country: "DE" } } }), "BR-DE-9", "/buyer/address/postalCode"],
  ["a deliver-to address without city", xr({ delivery: { date: "2026-02-27", address: { postalCode: "80331", country: "DE" } } }), "BR-DE-10", "/delivery/address/city"],
  ["a deliver-to address without post code", xr({ delivery: { date: "2026-02-27", address: { city: "München", country: "DE" } } }), "BR-DE-11", "/delivery/address/postalCode"],
  ["no payment instructions", xr({ payment: undefined }), "BR-DE-1", "/payment"],
  ["a SEPA transfer without account", xr({ payment: { meansCode: "58" } }), "BR-DE-23-a", "/payment/accounts"],
  // Not an IBAN by its form (a wrong check digit alone would do for us, but SaxonJS, the oracle here, computes a long IBAN's
  // number as a double and may find it right: see docs/validation-xrechnung.md).
  ["an account that is no IBAN", xr({ payment: { meansCode: "58", accounts: [{ iban: "DE02-1203-0000-0000-2020-51" }] } }), "BR-DE-19", "/payment/accounts/0/iban"],
  ["a card payment without card", xr({ payment: { meansCode: "48" } }), "BR-DE-24-a", "/payment/card"],
  ["a direct debit without creditor identifier", xr({ payment: { meansCode: "59", directDebit: { mandate: "M-1", debitedAccount: "DE02120300000000202051" } } }), "BR-DE-30", "/payment/directDebit/creditorId"],
  ["a direct debit without debited account", xr({ payment: { meansCode: "59", directDebit: { mandate: "M-1", creditorId: "DE98ZZZ09999999999" } } }), "BR-DE-31", "/payment/directDebit/debitedAccount"],
  ["no seller VAT identifier", seller({ vatId: undefined }), "BR-DE-16", "/seller/vatId"],
  ["an unusual type code", xr({ typeCode: "383" }), "BR-DE-17", "/typeCode"],
  ["a corrected invoice without the invoice it corrects", xr({ typeCode: "384" }), "BR-DE-26", "/precedingInvoices"],
  ["a malformed cash discount", xr({ paymentTerms: "#SKONTO#TAGE=14#PROZENT=2#\n" }), "BR-DE-18", "/paymentTerms"],
  ["two attachments with one file name", xr({ attachments: [{ id: "A-1", filename: "anlage.pdf", mimeCode: "application/pdf", content: "JVBERi0=" }, { id: "A-2", filename: "anlage.pdf", mimeCode: "application/pdf", content: "JVBERi0=" }] }), "BR-DE-22", "/attachments/1"],
];

describe("specification: which UBL the builder writes", () => {
  it("writes Peppol BIS Billing 3.0 by default, as before, and checks it with the Peppol rules", () => {
    const { xml, report } = buildInvoice({ ...XRECHNUNG, specification: undefined });
    expect([cid(xml), profile(xml)]).toEqual([PEPPOL_BIS3_CUSTOMIZATION, PEPPOL_BIS3_PROFILE]);
    expect(report.ruleSets).toEqual(["CEN-EN16931-UBL-2026.5", "PEPPOL-EN16931-UBL-2026.5"]);
    expect(cid(buildUbl({ ...XRECHNUNG, specification: "peppol" }))).toBe(PEPPOL_BIS3_CUSTOMIZATION);
  });

  it("writes XRechnung 3.0 (its CustomizationID, the business process KoSIT's examples carry) and checks it with the XRechnung rules", () => {
    const { xml, report } = buildInvoice(XRECHNUNG);
    expect([cid(xml), profile(xml)]).toEqual([XRECHNUNG_3_CUSTOMIZATION, PEPPOL_BIS3_PROFILE]);
    expect(report.ruleSets).toEqual(["CEN-EN16931-UBL-2026.5", "XRECHNUNG-UBL-3.0.2"]);
    expect([report.errors, report.warnings]).toEqual([[], []]);
  });

  it("writes plain EN 16931 and checks it with the EN 16931 rules only (no buyer reference or seller contact needed)", () => {
    const { xml, report } = buildInvoice(xr({ specification: "en16931", buyerReference: undefined, seller: { ...SELLER, contact: undefined } }));
    expect(cid(xml)).toBe(EN16931_CUSTOMIZATION);
    expect(report.ruleSets).toEqual(["CEN-EN16931-UBL-2026.5"]);
    expect([report.errors, report.warnings]).toEqual([[], []]);
  });

  it("refuses a specification it does not know, naming the field", () => {
    const result = InvoiceDataSchema.safeParse({ ...XRECHNUNG, specification: "zugferd" });
    expect(result.success).toBe(false);
    try {
      buildInvoice({ ...XRECHNUNG, specification: "zugferd" });
      expect.unreachable();
    } catch (e) {
      expect(isApiError(e) && e.code).toBe("bad_request");
      expect(String((e as Error).message)).toContain("/specification: must be one of peppol, xrechnung, en16931");
    }
  });

  it("keeps several notes apart outside Peppol (one note is PEPPOL-EN16931-R002's rule, not EN 16931's)", () => {
    const notes = ["Erste Notiz", "Zweite Notiz"];
    const foreign = { buyer: { ...BUYER, address: { ...BUYER.address, country: "AT" } }, notes };
    expect(readInvoiceData(buildUbl(xr({ ...foreign, specification: "en16931" }))).notes).toEqual(notes);
    expect(readInvoiceData(buildUbl(xr({ ...foreign, specification: "peppol" }))).notes).toEqual(["Erste Notiz\nZweite Notiz"]);
  });
});

describe("specification xrechnung: each BR-DE rule a built document breaks is reported at the field that breaks it", () => {
  it.each(BROKEN.map(([name, data, rule, path]) => ({ name, data, rule, path })))("$name: $rule at $path", ({ data, rule, path }) => {
    const { report } = buildInvoice(data);
    const found = [...report.errors, ...report.warnings].filter((i) => i.rule === rule);
    expect(found.map((i) => i.path), `${rule} in ${JSON.stringify(ids([...report.errors, ...report.warnings]))}`).toEqual([path]);
  });

  it("names XRechnung in the 422 of a document that breaks its rules", async () => {
    const { dataRulesError } = await import("../../../src/document/invoice-data/index.js");
    const error = dataRulesError(buildInvoice(xr({ buyerReference: undefined })));
    expect(error.message).toContain("of EN 16931 / XRechnung 3.0.2 (BR-DE-15) at /buyerReference");
  });
});

describe("specification xrechnung and en16931 against the official rules (SaxonJS)", () => {
  it("gives every built document the official verdict: CEN + XRechnung UBL with KoSIT's levels, or CEN alone", () => {
    const docs: Array<[string, InvoiceDataInput]> = [
      ["valid XRechnung", XRECHNUNG],
      ["valid XRechnung credit note", xr({ typeCode: "381", precedingInvoices: [{ number: "R-2026-0", issueDate: "2026-01-15" }] })],
      ["EN 16931", xr({ specification: "en16931" })],
      ["EN 16931 without buyer reference and contact", xr({ specification: "en16931", buyerReference: undefined, seller: { ...SELLER, contact: undefined } })],
      ...BROKEN.map(([name, data]) => [name, data] as [string, InvoiceDataInput]),
    ];
    for (const [name, data] of docs) {
      const { xml, report } = buildInvoice(data);
      const official = officialVerdict(xml);
      expect({ name, fatal: ids(report.errors), warning: ids(report.warnings) }).toEqual({ name, fatal: official.fatal, warning: official.warning });
    }
    expect(officialVerdict(buildInvoice(XRECHNUNG).xml)).toMatchObject({ fatal: [], warning: [] });
  }, 120_000);
});

describe("specification: the round trip", () => {
  it("reads the specification back from the CustomizationID, and normalises it to peppol when not given", () => {
    for (const specification of ["peppol", "xrechnung", "en16931"] as const) {
      const data = xr({ specification });
      const { rootElement: _r, documentType: _d, ...back } = readInvoiceData(buildUbl(data));
      expect(back.specification).toBe(specification);
      expect(back).toEqual(normaliseInvoiceData(InvoiceDataSchema.parse(data)));
    }
    expect(normaliseInvoiceData(InvoiceDataSchema.parse({ ...XRECHNUNG, specification: undefined })).specification).toBe("peppol");
  });

  it("leaves specification out for a CustomizationID it has no name for", () => {
    const xml = buildUbl(XRECHNUNG).replace(XRECHNUNG_3_CUSTOMIZATION, "urn:cen.eu:en16931:2017#compliant#urn:fdc:nen.nl:nlcius:v1.0");
    expect(readInvoiceData(xml)).not.toHaveProperty("specification");
  });

  it("holds for generated invoices and credit notes as XRechnung and as EN 16931", () => {
    fc.assert(
      fc.property(invoiceDataArb, fc.constantFrom("xrechnung" as const, "en16931" as const), ({ rootElement, data }, specification) => {
        const b = buildInvoice({ ...data, specification }, { rootElement });
        const { rootElement: _r, documentType: _d, ...back } = readInvoiceData(b.xml);
        expect(back).toEqual(normaliseInvoiceData(b.data, rootElement));
      }),
      { numRuns: 60, seed: 20261129 },
    );
  }, 120_000);
});
