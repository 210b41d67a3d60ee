import { describe, expect, it } from "vitest";
import { ApiError } from "../domain/errors.js";
import { scanXml } from "./scan.js";
import { CBC, child, requireInvoiceRoot, text, UBL_INVOICE_NS } from "./ubl.js";
import { parseXml } from "./xml.js";

const doc = (s: string) => parseXml(s, scanXml(s));

function codeAndMessage(fn: () => unknown): [string, string] | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return [e.code, e.message];
    throw e;
  }
  return undefined;
}

describe("requireInvoiceRoot", () => {
  it("accepts an Invoice in the UBL Invoice-2 namespace, with or without a prefix", () => {
    expect(requireInvoiceRoot(doc(`<Invoice xmlns="${UBL_INVOICE_NS}"/>`)).localName).toBe("Invoice");
    expect(requireInvoiceRoot(doc(`<inv:Invoice xmlns:inv="${UBL_INVOICE_NS}"/>`)).localName).toBe("Invoice");
  });

  it("rejects a CreditNote, an Order, a CII invoice and an Invoice in another namespace, naming what it found", () => {
    expect(codeAndMessage(() => requireInvoiceRoot(doc('<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"/>')))).toEqual([
      "invalid_ubl_xml",
      expect.stringMatching(/root element is CreditNote/),
    ]);
    expect(codeAndMessage(() => requireInvoiceRoot(doc('<Order xmlns="urn:oasis:names:specification:ubl:schema:xsd:Order-2"/>')))?.[0]).toBe("invalid_ubl_xml");
    expect(
      codeAndMessage(() =>
        requireInvoiceRoot(doc('<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"/>')),
      )?.[0],
    ).toBe("invalid_ubl_xml");
    expect(codeAndMessage(() => requireInvoiceRoot(doc("<Invoice/>")))?.[1]).toMatch(/in no namespace/);
    expect(codeAndMessage(() => requireInvoiceRoot(doc('<Invoice xmlns="urn:example"/>')))?.[0]).toBe("invalid_ubl_xml");
  });
});

describe("kept-element helpers", () => {
  it("find direct children by namespace only, and trim text", () => {
    const s = `<r xmlns:cbc="${CBC}"><x><cbc:ID>deep</cbc:ID></x><ID>wrong ns</ID><cbc:ID>  42 </cbc:ID></r>`;
    const root = parseXml(s, scanXml(s), { ID: [CBC, "text"], x: ["", { ID: [CBC, "text"] }] }).documentElement;
    expect(text(child(root, CBC, "ID"))).toBe("42");
    expect(text(null)).toBeNull();
  });
});
