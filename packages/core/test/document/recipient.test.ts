import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/domain/errors.js";
import { extractRecipient } from "../../src/document/recipient.js";
import { requireInvoiceRoot } from "../../src/document/ubl.js";
import { parseXml } from "../../src/document/xml.js";

const NS = `xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"`;

function invoice(buyerParty: string, sellerParty = '<cbc:EndpointID schemeID="0088">1234567890123</cbc:EndpointID>') {
  const s = `<Invoice ${NS}><cac:AccountingSupplierParty><cac:Party>${sellerParty}</cac:Party></cac:AccountingSupplierParty><cac:AccountingCustomerParty><cac:Party>${buyerParty}</cac:Party></cac:AccountingCustomerParty></Invoice>`;
  return requireInvoiceRoot(parseXml(s));
}

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e.code;
    throw e;
  }
  return undefined;
}

describe("extractRecipient", () => {
  it("reads the buyer's EndpointID and scheme, trimmed", () => {
    expect(extractRecipient(invoice('<cbc:EndpointID schemeID=" 0208 "> 0123456789 </cbc:EndpointID>'))).toEqual({ scheme: "0208", value: "0123456789" });
  });

  it("accepts active and deprecated schemes of the Peppol list", () => {
    expect(extractRecipient(invoice('<cbc:EndpointID schemeID="9945">PL1234567890</cbc:EndpointID>')).scheme).toBe("9945");
    expect(extractRecipient(invoice('<cbc:EndpointID schemeID="0193">PKE_1</cbc:EndpointID>')).scheme).toBe("0193"); // deprecated
  });

  it("refuses removed schemes, non-Peppol schemes and made-up ones with missing_recipient", () => {
    expect(code(() => extractRecipient(invoice('<cbc:EndpointID schemeID="9956">x</cbc:EndpointID>')))).toBe("missing_recipient"); // removed
    expect(code(() => extractRecipient(invoice('<cbc:EndpointID schemeID="EM">a@b.de</cbc:EndpointID>')))).toBe("missing_recipient");
    expect(code(() => extractRecipient(invoice('<cbc:EndpointID schemeID="iso6523-actorid-upis">0088:1</cbc:EndpointID>')))).toBe("missing_recipient");
  });

  it("refuses a missing, empty or scheme-less EndpointID", () => {
    expect(code(() => extractRecipient(invoice("<cac:PartyName><cbc:Name>B</cbc:Name></cac:PartyName>")))).toBe("missing_recipient");
    expect(code(() => extractRecipient(invoice('<cbc:EndpointID schemeID="0088">   </cbc:EndpointID>')))).toBe("missing_recipient");
    expect(code(() => extractRecipient(invoice("<cbc:EndpointID>123</cbc:EndpointID>")))).toBe("missing_recipient");
  });

  it("does not take the seller's endpoint for the buyer's", () => {
    expect(code(() => extractRecipient(invoice("", '<cbc:EndpointID schemeID="0088">1</cbc:EndpointID>')))).toBe("missing_recipient");
  });
});
