// POST /v1/validate: any authenticated account, the rules' report in data, the submit codes for unreadable documents.
import { ValidationReportSchema } from "@einvoice/core";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { b64, invoiceXml } from "../../core/test/support/ubl.js";
import { answers, eligibleAccount, makeApp, signUp } from "./support.js";
import { undocumentedAnswers } from "./support/openapi-check.js";

afterAll(() => {
  expect(undocumentedAnswers(answers)).toEqual([]);
});

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
const CodeBody = z.strictObject({ code: z.string(), message: z.string().min(10) });
const broken = invoiceXml().replace('<cbc:PayableAmount currencyID="EUR">121.00</cbc:PayableAmount>', '<cbc:PayableAmount currencyID="EUR">125.00</cbc:PayableAmount>');

describe("POST /v1/validate", () => {
  it("answers 200 with the report for any authenticated account, eligible or not, and stores nothing", async () => {
    const { app } = makeApp();
    const account = await signUp(app); // not eligible: no enterprise plan, no legal entity
    const ok = await request(app).post("/v1/validate").set(bearer(account.apiKey)).send({ xml: b64(invoiceXml()) });
    expect(ok.status).toBe(200);
    expect(ValidationReportSchema.strict().parse(ok.body.data)).toMatchObject({ valid: true, documentType: "Invoice", errors: [] });
    const bad = await request(app).post("/v1/validate").set(bearer(account.apiKey)).send({ xml: b64(broken) });
    expect(bad.status).toBe(200);
    expect(bad.body.data.valid).toBe(false);
    expect(bad.body.data.errors).toContainEqual({ rule: "BR-CO-16", message: expect.any(String), location: "/Invoice/cac:LegalMonetaryTotal[1]" });
    const list = await request(app).get("/v1/invoices").set(bearer(account.apiKey));
    expect(list.body.data).toEqual([]);
  });

  it("answers 422 with the submit codes for bad base64, not XML, two documents, not well-formed and another root", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app);
    const cases: Array<[string, string]> = [
      ["not base64!", "invalid_base64_xml"],
      [b64("plain text"), "invalid_base64_xml"],
      [b64(invoiceXml() + invoiceXml()), "single_xml_only"],
      [b64("<Invoice><broken></Invoice>"), "invalid_ubl_xml"],
      [b64('<Order xmlns="urn:oasis:names:specification:ubl:schema:xsd:Order-2"/>'), "invalid_ubl_xml"],
    ];
    for (const [xml, code] of cases) {
      const res = await request(app).post("/v1/validate").set(bearer(apiKey)).send({ xml });
      expect(res.status, xml.slice(0, 40)).toBe(422);
      expect(CodeBody.parse(res.body).code).toBe(code);
    }
  });

  it("answers 401 without a valid key and 400 for a body of another shape", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app);
    expect((await request(app).post("/v1/validate").send({ xml: b64(invoiceXml()) })).status).toBe(401);
    const res = await request(app).post("/v1/validate").set(bearer(apiKey)).send({ xml: b64(invoiceXml()), targetNetwork: "auto" });
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual(["property targetNetwork should not exist"]);
  });
});

describe("POST /v1/peppol/invoice with a document that breaks the rules", () => {
  it("answers 422 invalid_ubl_xml with errors: each broken fatal rule", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app);
    const res = await request(app).post("/v1/peppol/invoice").set(bearer(apiKey)).send({ xml: b64(broken) });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      code: "invalid_ubl_xml",
      message: expect.stringMatching(/^The invoice breaks 1 fatal rule .*\(BR-CO-16\)/),
      errors: [{ rule: "BR-CO-16", message: expect.stringMatching(/125/), location: "/Invoice/cac:LegalMonetaryTotal[1]" }],
    });
  });
});
