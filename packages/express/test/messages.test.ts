// Messages that say what to do for the two most common client mistakes: the XML text sent in `xml`
// instead of its base64, and an API key (or the admin token) sent without the Bearer scheme. The
// codes and statuses are those of the contract; only the messages are specific.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { invoiceXml } from "../../core/test/support/ubl.js";
import { ADMIN_TOKEN, answers, eligibleAccount, makeApp } from "./support/app.js";
import { undocumentedAnswers } from "./support/openapi-check.js";

const exampleInvoice = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "examples", "invoice.xml"), "utf8");
const RAW_XML_MESSAGE =
  'xml holds XML text, not base64: the document must be base64-encoded (for example base64 -w0 invoice.xml, or Buffer.from(xml).toString("base64")).';
const NOT_BASE64_MESSAGE = "xml is not valid base64: use the standard alphabet (A-Z, a-z, 0-9, +, /) with optional = padding.";

afterAll(() => {
  expect(undocumentedAnswers(answers)).toEqual([]);
});

describe("clear messages for common client mistakes", () => {
  const { app, store } = makeApp();
  let apiKey: string;
  let companyId: string;
  beforeAll(async () => {
    ({ apiKey, companyId } = await eligibleAccount(app));
  });
  const submit = (xml: string) => request(app).post("/v1/peppol/invoice").set("Authorization", `Bearer ${apiKey}`).send({ xml });

  it.each([
    ["the example invoice as text", exampleInvoice],
    ["an invoice as text after blank lines and spaces", `\n\n   ${invoiceXml({ id: "RAW-1" })}`],
    ["XML text after a byte order mark", `\uFEFF${invoiceXml({ id: "RAW-2" })}`],
    ["a bare element", "<Invoice/>"],
  ])("raw XML in xml (%s) → 422 invalid_base64_xml saying the document must be base64-encoded", async (_name, xml) => {
    const res = await submit(xml);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ code: "invalid_base64_xml", message: RAW_XML_MESSAGE });
  });

  it("other text that is not base64 keeps the alphabet message, and nothing is stored", async () => {
    for (const xml of ["not base64!", "PEludm9pY2Uv-_", "text with a < inside"]) {
      const res = await submit(xml);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ code: "invalid_base64_xml", message: NOT_BASE64_MESSAGE });
    }
    expect(await store.listInvoices(companyId, { limit: 10, after: null, status: null, clientId: null })).toEqual([]);
  });

  it("the same invoice base64-encoded → 200 sending", async () => {
    const res = await submit(Buffer.from(exampleInvoice).toString("base64"));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ success: true, status: "sending" });
  });

  it.each([
    ["the API key alone", (key: string) => key],
    ["another scheme (Basic)", (key: string) => `Basic ${Buffer.from(`user:${key}`).toString("base64")}`],
    ["a Token scheme", (key: string) => `Token ${key}`],
  ])("Authorization with %s → 401 invalid_api_key saying the Bearer scheme is missing, without repeating the key", async (_name, header) => {
    const res = await request(app).get("/v1/company").set("Authorization", header(apiKey));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      code: "invalid_api_key",
      message: "The Authorization header is missing the Bearer scheme: send Authorization: Bearer <API key>.",
    });
    expect(res.text).not.toContain(apiKey.split("_").at(-1));
  });

  it("no Authorization header, or Bearer without a key → 401 invalid_api_key 'Missing API key' as before; a wrong key is 'not valid'", async () => {
    const missing = { code: "invalid_api_key", message: "Missing API key: send the header Authorization: Bearer <API key>." };
    expect((await request(app).get("/v1/company")).body).toEqual(missing);
    expect((await request(app).get("/v1/company").set("Authorization", "Bearer")).body).toEqual(missing);
    expect((await request(app).get("/v1/company").set("Authorization", "bearer   ")).body).toEqual(missing);
    const wrong = await request(app).get("/v1/company").set("Authorization", `Bearer ${apiKey}x`);
    expect(wrong.status).toBe(401);
    expect(wrong.body.message).toBe("The API key is not valid: it is unknown or has been revoked.");
    expect((await request(app).get("/v1/company").set("Authorization", `bearer ${apiKey}`)).status).toBe(200);
  });

  it.each([
    ["a second token after the key", (key: string) => `Bearer ${key} extra`],
    ["a tab after the scheme", (key: string) => `Bearer\t${key}`],
    ["words after the scheme", () => "Bearer einv_' OR 1=1--"],
  ])("Authorization: Bearer with %s → 401 saying the header is malformed (not that the key is missing), without repeating it", async (_name, header) => {
    const res = await request(app).get("/v1/company").set("Authorization", header(apiKey));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      code: "invalid_api_key",
      message: "The Authorization header is malformed: send Authorization: Bearer <API key>, the scheme, one space and the API key alone.",
    });
    expect(res.text).not.toContain(apiKey.split("_").at(-1));
    const admin = await request(app).get(`/admin/companies/${companyId}`).set("Authorization", header(ADMIN_TOKEN));
    expect(admin.body).toEqual({
      code: "invalid_admin_token",
      message: "The Authorization header is malformed: send Authorization: Bearer <ADMIN_TOKEN>, the scheme, one space and the ADMIN_TOKEN alone.",
    });
    expect(admin.text).not.toContain(ADMIN_TOKEN);
  });

  it("the admin token without the Bearer scheme → 401 invalid_admin_token saying so; the right header → 200", async () => {
    const res = await request(app).get(`/admin/companies/${companyId}`).set("Authorization", ADMIN_TOKEN);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      code: "invalid_admin_token",
      message: "The Authorization header is missing the Bearer scheme: send Authorization: Bearer <ADMIN_TOKEN>.",
    });
    expect(res.text).not.toContain(ADMIN_TOKEN);
    expect((await request(app).get(`/admin/companies/${companyId}`)).body.message).toBe("Missing admin token: send Authorization: Bearer <ADMIN_TOKEN>.");
    expect((await request(app).get(`/admin/companies/${companyId}`).set("Authorization", `Bearer ${ADMIN_TOKEN}`)).status).toBe(200);
  });
});
