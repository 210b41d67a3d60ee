// validateInvoice and validateDocument: which rule sets apply, the report's shape, the input forms,
// and the errors of documents the rules cannot read (the codes of submit).
import { describe, expect, it } from "vitest";
import { ApiError, getInvoice, CEN_RULESET, PEPPOL_RULESET, submitInvoice, validateDocument, validateInvoice, memoryStore, MAX_REPORTED_ERRORS, UNCHECKED_RULES } from "../src/index.js";
import { eligibleCompany } from "./support/company.js";
import { b64, invoiceXml } from "./support/ubl.js";

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e.code;
    throw e;
  }
  return undefined;
}

const valid = invoiceXml();
/** The payable amount no longer equals the amount due (BR-CO-16) and the tax total is wrong (BR-CO-14/15). */
const wrongTotals = valid.replace('<cbc:PayableAmount currencyID="EUR">121.00</cbc:PayableAmount>', '<cbc:PayableAmount currencyID="EUR">125.00</cbc:PayableAmount>');

describe("messages a bookkeeper can act on", () => {
  it("locates a missing element at the element it belongs in (BR-07 at the buyer's party, not at the root)", () => {
    const r = validateInvoice(valid.replace(/(<cac:AccountingCustomerParty>[^]*?)<cac:PartyLegalEntity>[^]*?<\/cac:PartyLegalEntity>/, "$1"));
    expect(r.errors).toContainEqual(expect.objectContaining({ rule: "BR-07", location: "/Invoice/cac:AccountingCustomerParty[1]/cac:Party[1]" }));
  });

  it("names the lines, allowances and charges a VAT breakdown's taxable amount is the sum of (BR-S-08)", () => {
    const twoLines = invoiceXml({ lines: 2 });
    const r = validateInvoice(twoLines.replace(/<cbc:TaxableAmount currencyID="EUR">[^<]*</, '<cbc:TaxableAmount currencyID="EUR">90.00<'));
    const s08 = r.errors.find((e) => e.rule === "BR-S-08");
    expect(s08?.message).toContain("add up to 200.00 (line 1: 100.00, line 2: 100.00)");
  });

  it("puts the wrong code first and says in the errors it causes which item they follow from", () => {
    const r = validateInvoice(valid.replace("<cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID>", "<cac:ClassifiedTaxCategory><cbc:ID>SX</cbc:ID>"));
    expect(r.errors[0]).toMatchObject({ rule: "BR-CL-18", location: "/Invoice/cac:InvoiceLine[1]/cac:Item[1]/cac:ClassifiedTaxCategory[1]/cbc:ID[1]" });
    const followOns = r.errors.slice(1);
    expect(followOns.map((e) => e.rule)).toEqual(expect.arrayContaining(["BR-S-08"]));
    for (const e of followOns) expect(e.message).toContain("This may follow from item 1 (BR-CL-18 at /Invoice/cac:InvoiceLine[1]");
  });

  it("leaves a report without such a cause in the order the rules report it", () => {
    const r = validateInvoice(wrongTotals);
    expect(r.errors.every((e) => !e.message.includes("may follow from"))).toBe(true);
  });
});

describe("validateInvoice", () => {
  it("reports a valid Peppol BIS 3 invoice with both rule sets and no errors", () => {
    expect(validateInvoice(Buffer.from(valid))).toEqual({
      valid: true,
      syntax: "ubl",
      rootElement: "Invoice",
      documentType: "Invoice",
      customizationId: "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0",
      ruleSets: [CEN_RULESET, PEPPOL_RULESET],
      errors: [],
      warnings: [],
      errorCount: 0,
      warningCount: 0,
      ruleCounts: [],
      truncated: false,
    });
  });

  it("reports a broken rule with its id, a message naming the values, and where", () => {
    const r = validateInvoice(wrongTotals);
    expect(r.valid).toBe(false);
    const br = r.errors.find((e) => e.rule === "BR-CO-16");
    expect(br).toEqual({ rule: "BR-CO-16", message: expect.stringMatching(/125/), location: expect.stringMatching(/^\/Invoice/) });
  });

  it("takes bytes, XML text or base64, with the same report", () => {
    const a = validateInvoice(Buffer.from(wrongTotals));
    expect(validateInvoice(wrongTotals)).toEqual(a);
    expect(validateInvoice(b64(wrongTotals))).toEqual(a);
    expect(validateInvoice(new Uint8Array(Buffer.from(wrongTotals)))).toEqual(a);
  });

  it("applies only the CEN rules to a specification it has no rules for, and says in a warning which rules were not checked", () => {
    const cius = "urn:cen.eu:en16931:2017#compliant#urn:example.org:cius:1.0";
    const r = validateInvoice(valid.replace("urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0", cius));
    expect(r).toMatchObject({ ruleSets: [CEN_RULESET], customizationId: cius, valid: true });
    expect(r.warnings[0]).toMatchObject({ rule: UNCHECKED_RULES, location: "/Invoice/cbc:CustomizationID[1]" });
    expect(r.warnings[0]!.message).toContain("the rules of urn:example.org:cius:1.0 were not checked");
    expect(r.warnings[0]!.message).toContain(CEN_RULESET);
  });

  it("applies only the CEN rules, with no such warning, to plain EN 16931 and to a document without CustomizationID", () => {
    const plain = validateInvoice(valid.replace("urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0", "urn:cen.eu:en16931:2017"));
    expect(plain).toMatchObject({ ruleSets: [CEN_RULESET], valid: true });
    expect(plain.warnings.map((w) => w.rule)).not.toContain(UNCHECKED_RULES);
    const none = valid.replace(/<cbc:CustomizationID>[^<]*<\/cbc:CustomizationID>/, "");
    const r = validateInvoice(none);
    expect(r).toMatchObject({ ruleSets: [CEN_RULESET], customizationId: null, valid: false });
    expect(r.errors.map((e) => e.rule)).toContain("BR-01");
    expect(r.warnings.map((w) => w.rule)).not.toContain(UNCHECKED_RULES);
  });

  it("accepts a CreditNote root", () => {
    const cn = valid
      .replace(/Invoice-2/g, "CreditNote-2")
      .replace(/<Invoice /, "<CreditNote ")
      .replace("</Invoice>", "</CreditNote>")
      .replace(/<cbc:InvoiceTypeCode>380<\/cbc:InvoiceTypeCode>/, "<cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>")
      .replace(/InvoiceLine>/g, "CreditNoteLine>")
      .replace(/InvoicedQuantity/g, "CreditedQuantity");
    expect(validateInvoice(cn)).toMatchObject({ rootElement: "CreditNote", documentType: "CreditNote", valid: true });
  });

  it("refuses what the rules cannot read with the codes of submit", () => {
    expect(code(() => validateInvoice("not base64!"))).toBe("invalid_base64_xml");
    expect(code(() => validateInvoice(Buffer.from([0x3c, 0x61, 0xff, 0x3e])))).toBe("invalid_base64_xml");
    expect(code(() => validateInvoice(valid + valid))).toBe("single_xml_only");
    expect(code(() => validateInvoice("<Invoice><broken></Invoice>"))).toBe("invalid_ubl_xml");
    expect(code(() => validateInvoice('<Order xmlns="urn:oasis:names:specification:ubl:schema:xsd:Order-2"/>'))).toBe("invalid_ubl_xml");
    expect(code(() => validateInvoice('<?xml version="1.1"?><Invoice/>'))).toBe("invalid_ubl_xml");
  });
});

describe("validateDocument (POST /v1/validate)", () => {
  it("takes the submit body's base64 and nothing else", () => {
    expect(validateDocument({ xml: b64(valid) }).valid).toBe(true);
    expect(code(() => validateDocument({ xml: valid }))).toBe("invalid_base64_xml");
    expect(code(() => validateDocument({ xml: b64(valid), targetNetwork: "auto" }))).toBe("bad_request");
    expect(code(() => validateDocument({}))).toBe("bad_request");
  });
});

describe("submit refuses a document that breaks fatal rules (contract row 9a)", () => {
  it("answers invalid_ubl_xml with the count and first rule ids in the message, and the items in errors", async () => {
    const store = memoryStore();
    const auth = await eligibleCompany(store);
    const e = await submitInvoice(store, auth, { xml: b64(wrongTotals) }).then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(ApiError);
    const err = e as ApiError;
    expect(err.code).toBe("invalid_ubl_xml");
    expect(err.status).toBe(422);
    expect(err.message).toMatch(/breaks \d+ fatal rules? .*BR-CO-16/);
    expect(err.errors!.map((x) => x.rule)).toContain("BR-CO-16");
    expect(err.errors!.length).toBeLessThanOrEqual(MAX_REPORTED_ERRORS);
    // Nothing stored.
    expect((await store.listInvoices(auth.companyId, { limit: 10, after: null, status: null, clientId: null })).length).toBe(0);
  });

  it("accepts a document that breaks only warning rules, and keeps the warnings with the invoice", async () => {
    const store = memoryStore();
    const auth = await eligibleCompany(store);
    const xml = invoiceXml().replace("<cbc:CustomizationID>", "<cbc:UBLVersionID>2.0</cbc:UBLVersionID><cbc:CustomizationID>");
    const r = await submitInvoice(store, auth, { xml: b64(xml) });
    expect(r).toMatchObject({ success: true, status: "sending" });
    const inv = await getInvoice(store, auth, r.submissionId);
    expect(inv.warnings).toEqual([{ rule: "UBL-CR-002", message: expect.stringMatching(/2\.0/), location: "/Invoice/cbc:UBLVersionID[1]" }]);
    const clean = await submitInvoice(store, auth, { xml: b64(invoiceXml({ id: "CLEAN" })) });
    expect((await getInvoice(store, auth, clean.submissionId)).warnings).toEqual([]);
  });

  it("lists at most 100 broken rules", async () => {
    const lines = invoiceXml({ lines: 150 }).replace(/<cbc:PriceAmount currencyID="EUR">100.00</g, '<cbc:PriceAmount currencyID="EUR">-1<');
    const store = memoryStore();
    const auth = await eligibleCompany(store);
    const err = (await submitInvoice(store, auth, { xml: b64(lines) }).catch((x: unknown) => x)) as ApiError;
    expect(err.code).toBe("invalid_ubl_xml");
    expect(err.errors).toHaveLength(MAX_REPORTED_ERRORS);
    expect(err.message).toMatch(/breaks (\d{3}) fatal rules/);
  });
});

describe("reports of documents that break rules many times (issue 26, finding 2)", () => {
  const emptyLines = (n: number) => invoiceXml().replace(/<cac:InvoiceLine>[\s\S]*<\/cac:InvoiceLine>/, "<cac:InvoiceLine/>".repeat(n));
  const xml = emptyLines(3_000);

  it("validateInvoice lists every finding by default, and counts them per rule", () => {
    const r = validateInvoice(xml);
    expect(r.errors).toHaveLength(r.errorCount);
    expect(r.truncated).toBe(false);
    expect(r.ruleCounts.find((c) => c.rule === "BR-21")).toEqual({ rule: "BR-21", flag: "fatal", count: 3_000 });
  });

  it("validateDocument (POST /v1/validate) keeps the first 100 of each list and counts them all", () => {
    const full = validateInvoice(xml);
    const r = validateDocument({ xml: b64(xml) });
    expect(r.errors).toEqual(full.errors.slice(0, MAX_REPORTED_ERRORS));
    expect(r).toMatchObject({ valid: false, truncated: true, errorCount: full.errorCount, warningCount: full.warningCount, ruleCounts: full.ruleCounts });
  });

  it("submit names the count of all fatal findings and lists the first 100", async () => {
    const store = memoryStore();
    const auth = await eligibleCompany(store);
    const full = validateInvoice(xml);
    const err = await submitInvoice(store, auth, { xml: b64(xml) }).then(() => null, (e: ApiError) => e);
    expect(err?.message).toMatch(new RegExp(`^The invoice breaks ${full.errorCount} fatal rules .*\\(BR-`));
    expect(err?.errors).toHaveLength(MAX_REPORTED_ERRORS);
  });
});

describe("a document declared US-ASCII (issue 26, finding 6)", () => {
  it("is validated and submitted as the UTF-8 document it is", async () => {
    const ascii = invoiceXml().replace('encoding="UTF-8"', 'encoding="US-ASCII"').replace("Consulting &amp; co", "Consulting and co");
    expect(ascii).toContain('encoding="US-ASCII"');
    expect(validateInvoice(ascii)).toMatchObject({ valid: true, errors: [] });
    const store = memoryStore();
    const auth = await eligibleCompany(store);
    expect(await submitInvoice(store, auth, { xml: b64(ascii) })).toMatchObject({ success: true, status: "sending" });
  });
});

