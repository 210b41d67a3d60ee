import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/domain/errors.js";
import { child } from "../../src/document/model.js";
import { requireInvoiceRoot, requireUblRoot, text, UBL_CREDIT_NOTE_NS, UBL_INVOICE_NS } from "../../src/document/ubl.js";
import { parseXml } from "../../src/document/xml.js";

const doc = (s: string) => parseXml(s);

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
    expect(requireInvoiceRoot(doc(`<Invoice xmlns="${UBL_INVOICE_NS}"/>`)).name).toBe("Invoice");
    expect(requireInvoiceRoot(doc(`<inv:Invoice xmlns:inv="${UBL_INVOICE_NS}"/>`)).qname).toBe("Invoice");
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

  it("accepts a CreditNote where asked, and names both when refusing", () => {
    expect(requireUblRoot(doc(`<CreditNote xmlns="${UBL_CREDIT_NOTE_NS}"/>`), ["Invoice", "CreditNote"]).name).toBe("CreditNote");
    expect(codeAndMessage(() => requireUblRoot(doc("<Order/>"), ["Invoice", "CreditNote"]))?.[1]).toMatch(/not a UBL Invoice or CreditNote/);
  });
});

describe("text", () => {
  it("trims XML whitespace only (not U+3000 or U+FEFF, which JavaScript's trim() would remove)", () => {
    const s = `<r xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"><cbc:ID> \t\r\n 42 \n</cbc:ID><cbc:Note>\u3000x\uFEFF</cbc:Note><cbc:Blank> \n </cbc:Blank></r>`;
    const root = doc(s).root;
    expect(text(child(root, "cbc:ID"))).toBe("42");
    expect(text(child(root, "cbc:Note"))).toBe("\u3000x\uFEFF");
    expect(text(child(root, "cbc:Blank"))).toBeNull();
    expect(text(null)).toBeNull();
  });
});
