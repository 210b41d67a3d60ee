import {
  AccountCreatedSchema,
  ApiKeyCreatedSchema,
  ApiKeySchema,
  ClientSchema,
  CompanySchema,
  InvoiceSchema,
  SubmissionSchema,
  memoryStore,
} from "@einvoice/core";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { b64, invoiceXml } from "../../core/test/support/ubl.js";
import { ADMIN_TOKEN, answers, eligibleAccount, makeApp, makeEligible, signUp } from "./support/app.js";
import { undocumentedAnswers } from "./support/openapi-check.js";

afterAll(() => {
  // Every answer these tests received is described by the OpenAPI document, status and body.
  expect(answers.length).toBeGreaterThan(100);
  expect(undocumentedAnswers(answers)).toEqual([]);
});

const SUBMIT = "/v1/peppol/invoice";
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
const CodeBody = z.strictObject({ code: z.string(), message: z.string().min(10) });
const BadRequestBody = z.strictObject({ statusCode: z.literal(400), message: z.array(z.string()), error: z.literal("Bad Request"), code: z.literal("invalid_request") });

describe("POST /v1/accounts", () => {
  it("creates an account: 201 with accountId, companyId and a key shown once", async () => {
    const { app } = makeApp();
    const res = await request(app).post("/v1/accounts").send({ email: "ap@acme.example", companyName: "Acme", country: "NL" });
    expect(res.status).toBe(201);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    AccountCreatedSchema.strict().parse(res.body.data);
  });

  it("answers 409 email_taken for a taken email in any case", async () => {
    const { app } = makeApp();
    await signUp(app, "ap@acme.example");
    const res = await request(app).post("/v1/accounts").send({ email: "AP@acme.EXAMPLE", companyName: "Other", country: "BE" });
    expect(res.status).toBe(409);
    expect(CodeBody.parse(res.body).code).toBe("email_taken");
  });

  it("answers 400 for a bad shape, with one message per problem", async () => {
    const { app } = makeApp();
    const res = await request(app).post("/v1/accounts").send({ email: "x", companyName: 3, country: "Netherlands", vip: true });
    expect(res.status).toBe(400);
    const body = BadRequestBody.parse(res.body);
    expect(body.message).toEqual(
      expect.arrayContaining(["email must be an email", "companyName must be a string", "property vip should not exist"]),
    );
  });
});

describe("control characters in a company's names", () => {
  // A NUL in companyName or legalEntityId was a 500 on PGlite and PostgreSQL (a database refuses NUL in
  // text), and a line break or a tab was stored as it came.
  it("answers 400 naming the field for companyName at sign-up and legalEntityId in the admin patch, and stores nothing", async () => {
    const { app, store } = makeApp();
    for (const companyName of ["A\u0000B", "Acme\nB.V.", "Acme\tB.V.", "Acme\u007f"]) {
      const res = await request(app).post("/v1/accounts").send({ email: "ctl@acme.example", companyName, country: "NL" });
      expect([res.status, res.body.code, res.body.message]).toEqual([400, "invalid_request", ["companyName must not contain control characters (line breaks, tabs, NUL)"]]);
    }
    // None of them made an account: the email is still free.
    const { companyId } = await signUp(app, "ctl@acme.example");
    for (const legalEntityId of ["LE\u0000", "LE-1\u0001", "LE\r\n1"]) {
      const res = await request(app).patch(`/admin/companies/${companyId}`).set("Authorization", `Bearer ${ADMIN_TOKEN}`).send({ legalEntityId });
      expect([res.status, res.body.code, res.body.message]).toEqual([400, "invalid_request", ["legalEntityId must not contain control characters (line breaks, tabs, NUL)"]]);
    }
    expect((await store.getCompany(companyId))?.legalEntityId).toBeNull();
  });

  it("answers 400 for half of a surrogate pair in companyName or an API key's name (it became U+FFFD in storage)", async () => {
    const { app } = makeApp();
    const unicode = (field: string) => `${field} must be valid Unicode text: it holds half of a character (an unpaired surrogate such as \\ud800)`;
    const account = await request(app).post("/v1/accounts").send({ email: "half@acme.example", companyName: "Acme\ud800", country: "NL" });
    expect([account.status, account.body.message]).toEqual([400, [unicode("companyName")]]);
    const { apiKey } = await signUp(app, "half@acme.example");
    const key = await request(app).post("/v1/api-keys").set("Authorization", `Bearer ${apiKey}`).send({ name: "a\udc00b" });
    expect([key.status, key.body.message]).toEqual([400, [unicode("name")]]);
    // A whole pair (an emoji) is text like any other.
    expect((await request(app).post("/v1/api-keys").set("Authorization", `Bearer ${apiKey}`).send({ name: "CI \ud83d\ude80" })).status).toBe(201);
  });
});

describe("POST /v1/peppol/invoice", () => {
  describe("401 invalid_api_key", () => {
    it("for a missing header, another scheme, an unknown key and a revoked key", async () => {
      const { app } = makeApp();
      const acct = await eligibleAccount(app);
      const body = { xml: b64(invoiceXml()) };
      const second = await request(app).post("/v1/api-keys").set(bearer(acct.apiKey)).send();
      await request(app).delete(`/v1/api-keys/${second.body.data.id}`).set(bearer(acct.apiKey)).expect(204);
      for (const headers of [{}, { Authorization: `Basic ${acct.apiKey}` }, { Authorization: "Bearer" }, bearer("einv_nope"), bearer(second.body.data.apiKey)]) {
        const res = await request(app).post(SUBMIT).set(headers).send(body);
        expect(res.status).toBe(401);
        expect(CodeBody.parse(res.body).code).toBe("invalid_api_key");
      }
    });

    it("comes before the body is looked at: a bad key with a broken body is 401", async () => {
      const { app } = makeApp();
      for (const send of [() => request(app).post(SUBMIT).set(bearer("bad")).set("Content-Type", "application/json").send("{nope"), () => request(app).post(SUBMIT).set(bearer("bad")).send({ foo: 1 })]) {
        const res = await send();
        expect(res.status).toBe(401);
        expect(res.body.code).toBe("invalid_api_key");
      }
    });
  });

  describe("400 body shape", () => {
    it("answers each shape problem in class-validator wording", async () => {
      const { app } = makeApp();
      const { apiKey } = await eligibleAccount(app);
      const cases: Array<[unknown, string[]]> = [
        [{ xml: b64(invoiceXml()), foo: 1 }, ["property foo should not exist"]],
        [{ xml: b64(invoiceXml()), targetNetwork: "email" }, ["targetNetwork must be one of the following values: auto, peppol, ksef"]],
        [{ xml: 42 }, ["xml must be a string"]],
        [{ xml: "" }, ["xml should not be empty"]],
        [{}, ["xml should not be empty"]],
        [[1, 2], ["body must be a JSON object"]],
      ];
      for (const [body, messages] of cases) {
        const res = await request(app).post(SUBMIT).set(bearer(apiKey)).send(body as object);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(BadRequestBody.parse(res.body).message).toEqual(messages);
      }
    });

    it("answers unparseable JSON with one message in the array, code invalid_request", async () => {
      const { app } = makeApp();
      const { apiKey } = await eligibleAccount(app);
      const res = await request(app).post(SUBMIT).set(bearer(apiKey)).set("Content-Type", "application/json").send('{"xml": "abc",}');
      expect(res.status).toBe(400);
      expect(BadRequestBody.parse(res.body).message).toHaveLength(1);
    });

    it("refuses a body sent without a content type instead of ignoring it", async () => {
      const { app } = makeApp();
      const { apiKey } = await eligibleAccount(app);
      const res = await request(app).post(SUBMIT).set(bearer(apiKey)).set("Content-Type", "").send(JSON.stringify({ xml: b64(invoiceXml()) }));
      expect(res.status).toBe(400);
      expect(res.body.message).toEqual(["Content-Type must be application/json."]);
    });

    it("says where unparseable JSON breaks without echoing the body", async () => {
      const { app } = makeApp();
      const { apiKey } = await eligibleAccount(app);
      const res = await request(app).post(SUBMIT).set(bearer(apiKey)).set("Content-Type", "application/json").send('xml=SECRETPAYLOAD');
      expect(res.status).toBe(400);
      expect(res.body.message[0]).toMatch(/^Request body is not valid JSON/);
      expect(JSON.stringify(res.body)).not.toContain("SECRETPAYLOAD");
    });

    it("refuses a body that is not JSON", async () => {
      const { app } = makeApp();
      const { apiKey } = await eligibleAccount(app);
      const res = await request(app).post(SUBMIT).set(bearer(apiKey)).set("Content-Type", "application/xml").send(invoiceXml());
      expect(res.status).toBe(400);
      expect(res.body.message[0]).toMatch(/application\/json/);
    });

    it("comes before eligibility: a non-eligible company with a bad body gets 400", async () => {
      const { app } = makeApp();
      const { apiKey } = await signUp(app);
      expect((await request(app).post(SUBMIT).set(bearer(apiKey)).send({ nope: true })).status).toBe(400);
    });
  });

  it("answers 403 for each eligibility refusal, in order", async () => {
    const { app } = makeApp();
    const { apiKey, companyId } = await signUp(app);
    const body = { xml: b64(invoiceXml()) };
    const expectCode = async (code: string) => {
      const res = await request(app).post(SUBMIT).set(bearer(apiKey)).send(body);
      expect([res.status, CodeBody.parse(res.body).code]).toEqual([403, code]);
    };
    await expectCode("enterprise_required");
    await makeEligible(app, companyId, { subscription: "basic" });
    await expectCode("subscription_upgrade_required");
    await makeEligible(app, companyId, { country: "FR" });
    await expectCode("peppol_country_not_supported");
    // The network decides the country check: KSeF is for companies in PL, Peppol for NL, BE, DE.
    const ksef = await request(app).post(SUBMIT).set(bearer(apiKey)).send({ ...body, targetNetwork: "ksef" });
    expect([ksef.status, ksef.body.code]).toEqual([403, "ksef_country_not_supported"]);
    await makeEligible(app, companyId, { country: "PL" });
    const peppol = await request(app).post(SUBMIT).set(bearer(apiKey)).send({ ...body, targetNetwork: "peppol" });
    expect([peppol.status, peppol.body.code]).toEqual([403, "peppol_country_not_supported"]);
  });

  it("answers 422 for the account preconditions", async () => {
    const { app } = makeApp();
    const { apiKey, companyId } = await signUp(app);
    const body = { xml: b64(invoiceXml()) };
    await makeEligible(app, companyId, { legalEntityId: null });
    let res = await request(app).post(SUBMIT).set(bearer(apiKey)).send(body);
    expect([res.status, res.body.code]).toEqual([422, "no_legal_entity"]);
    await makeEligible(app, companyId, { peppolSendingEnabled: false });
    res = await request(app).post(SUBMIT).set(bearer(apiKey)).send(body);
    expect([res.status, res.body.code]).toEqual([422, "peppol_sending_not_enabled"]);
  });

  it("answers 422 for each document problem", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app);
    const cases: Array<[string, string]> = [
      ["not base64 at all!", "invalid_base64_xml"],
      [b64(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0])), "single_xml_only"],
      [b64(invoiceXml() + invoiceXml({ declaration: false })), "single_xml_only"],
      [b64("plain text"), "invalid_base64_xml"],
      [b64("<Invoice><open></Invoice>"), "invalid_ubl_xml"],
      [b64(invoiceXml().replace(/Invoice-2/, "CreditNote-2").replace(/<Invoice /, "<CreditNote ").replace("</Invoice>", "</CreditNote>")), "invalid_ubl_xml"],
      [b64(invoiceXml({ scheme: "EM", endpoint: "buyer@example.com" })), "missing_recipient"],
    ];
    for (const [xml, code] of cases) {
      const res = await request(app).post(SUBMIT).set(bearer(apiKey)).send({ xml });
      expect(res.status, code).toBe(422);
      expect(CodeBody.parse(res.body).code).toBe(code);
    }
  });

  it("answers 200 sending, then 200 failed for the same XML, then 403 for the KSeF route of a company outside PL", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app);
    const xml = b64(invoiceXml());
    const first = await request(app).post(SUBMIT).set(bearer(apiKey)).send({ xml, targetNetwork: "auto" });
    expect(first.status).toBe(200);
    expect(SubmissionSchema.strict().parse(first.body.data)).toEqual({ submissionId: expect.any(String), success: true, status: "sending" });
    const dup = await request(app).post(SUBMIT).set(bearer(apiKey)).send({ xml });
    expect(dup.status).toBe(200);
    expect(dup.body.data).toMatchObject({ success: false, status: "failed", errorMessage: expect.stringContaining(first.body.data.submissionId) });
    const ksef = await request(app).post(SUBMIT).set(bearer(apiKey)).send({ xml: b64(invoiceXml({ id: "K" })), targetNetwork: "ksef" });
    expect([ksef.status, ksef.body.code]).toEqual([403, "ksef_country_not_supported"]);
  });

  it("answers 413 for a body over 10 MiB, even before authentication", async () => {
    const { app } = makeApp();
    const big = JSON.stringify({ xml: "A".repeat(10 * 1024 * 1024) });
    const res = await request(app).post(SUBMIT).set("Content-Type", "application/json").send(big);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ statusCode: 413, message: expect.stringMatching(/10 MiB/), error: "Payload Too Large" });
  });

  it("answers 500 with a generic body when the store fails, and logs once without secrets", async () => {
    const store = memoryStore();
    const { app, logs } = makeApp({ store });
    const { apiKey } = await eligibleAccount(app);
    store.insertSubmission = async () => {
      throw Object.assign(new Error("INSERT INTO invoices VALUES ('secret')"), { code: "57P01" });
    };
    const res = await request(app).post(SUBMIT).set(bearer(apiKey)).send({ xml: b64(invoiceXml()) });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ statusCode: 500, message: "Internal server error" });
    expect(logs).toHaveLength(1);
    const line = JSON.stringify(logs[0]);
    expect(line).toContain("57P01");
    expect(line).not.toMatch(/INSERT|secret|einv_/);
  });

  it("reads the API key and the company in one store call for a submission, and the key alone for other routes; a change of the company counts from the next request", async () => {
    const store = memoryStore();
    const calls: Record<string, number> = {};
    for (const method of ["getApiKey", "getApiKeyWithCompany", "getCompany"] as const) {
      const original = store[method]!.bind(store) as (id: string) => Promise<unknown>;
      (store as unknown as Record<string, unknown>)[method] = (id: string) => {
        calls[method] = (calls[method] ?? 0) + 1;
        return original(id);
      };
    }
    const { app } = makeApp({ store });
    const { apiKey, companyId } = await eligibleAccount(app);
    const count = () => ({ ...calls });
    const before = count();
    const res = await request(app).post(SUBMIT).set(bearer(apiKey)).send({ xml: b64(invoiceXml()) });
    expect(res.status).toBe(200);
    const afterSubmit = count();
    expect((afterSubmit.getApiKeyWithCompany ?? 0) - (before.getApiKeyWithCompany ?? 0)).toBe(1);
    expect((afterSubmit.getCompany ?? 0) - (before.getCompany ?? 0)).toBe(0);
    expect((afterSubmit.getApiKey ?? 0) - (before.getApiKey ?? 0)).toBe(0);
    expect((await request(app).get("/v1/invoices").set(bearer(apiKey))).status).toBe(200);
    const afterList = count();
    expect((afterList.getApiKey ?? 0) - (afterSubmit.getApiKey ?? 0)).toBe(1);
    expect(afterList.getApiKeyWithCompany).toBe(afterSubmit.getApiKeyWithCompany);
    // Each request reads the company anew: sending turned off answers the next submission with a 422.
    await makeEligible(app, companyId, { peppolSendingEnabled: false });
    const refused = await request(app).post(SUBMIT).set(bearer(apiKey)).send({ xml: b64(invoiceXml({ id: "INV-2" })) });
    expect([refused.status, refused.body.code]).toEqual([422, "peppol_sending_not_enabled"]);
  });
});

describe("reads", () => {
  async function withInvoices() {
    const made = makeApp();
    const acct = await eligibleAccount(made.app);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await request(made.app).post(SUBMIT).set(bearer(acct.apiKey)).send({ xml: b64(invoiceXml({ id: `R-${i}`, endpoint: `EP${i}`, scheme: "0106" })) });
      ids.push(r.body.data.submissionId);
    }
    return { ...made, ...acct, ids };
  }

  it("GET /v1/invoices lists the company's invoices with the documented fields and a cursor", async () => {
    const { app, apiKey, ids } = await withInvoices();
    const res = await request(app).get("/v1/invoices?limit=2").set(bearer(apiKey));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["data", "nextCursor"]);
    for (const inv of res.body.data) InvoiceSchema.strict().parse(inv);
    expect(res.body.data.map((i: { id: string }) => i.id)).toEqual([ids[2], ids[1]]);
    const next = await request(app).get(`/v1/invoices?limit=2&cursor=${res.body.nextCursor}`).set(bearer(apiKey));
    expect(next.body).toMatchObject({ data: [{ id: ids[0] }], nextCursor: null });
  });

  it("GET /v1/invoices refuses bad queries with 400", async () => {
    const { app, apiKey } = await withInvoices();
    for (const q of ["limit=1&limit=2", "limit=0", "limit=", "status=sent", "clientId=x", "cursor=abc", "sort=asc"]) {
      const res = await request(app).get(`/v1/invoices?${q}`).set(bearer(apiKey));
      expect(res.status, q).toBe(400);
      BadRequestBody.parse(res.body);
    }
  });

  it("GET /v1/invoices/{id} returns one invoice; unknown, malformed and other companies' ids are 404", async () => {
    const { app, apiKey, ids } = await withInvoices();
    const ok = await request(app).get(`/v1/invoices/${ids[0]}`).set(bearer(apiKey));
    expect(ok.status).toBe(200);
    expect(InvoiceSchema.strict().parse(ok.body.data).invoiceNumber).toBe("R-0");
    const other = await eligibleAccount(app);
    for (const [key, id] of [[apiKey, "00000000-0000-4000-8000-000000000000"], [apiKey, "nope"], [other.apiKey, ids[0]!]] as const) {
      const res = await request(app).get(`/v1/invoices/${id}`).set(bearer(key));
      expect(res.status).toBe(404);
      expect(CodeBody.parse(res.body).code).toBe("invoice_not_found");
    }
  });

  it("GET /v1/clients lists clients with the documented fields", async () => {
    const { app, apiKey } = await withInvoices();
    const res = await request(app).get("/v1/clients").set(bearer(apiKey));
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(3);
    for (const c of res.body.data) ClientSchema.strict().parse(c);
    expect(res.body.nextCursor).toBeNull();
    expect((await request(app).get("/v1/clients?limit=abc").set(bearer(apiKey))).status).toBe(400);
  });

  it("every read answers 401 without a valid key", async () => {
    const { app } = await withInvoices();
    for (const path of ["/v1/invoices", "/v1/invoices/00000000-0000-4000-8000-000000000000", "/v1/clients", "/v1/company", "/v1/api-keys"]) {
      const res = await request(app).get(path).set(bearer("einv_wrong"));
      expect([res.status, res.body.code], path).toEqual([401, "invalid_api_key"]);
    }
  });
});

describe("company and API keys", () => {
  it("GET /v1/company shows the caller's company and its eligibility fields", async () => {
    const { app } = makeApp();
    const { apiKey, companyId } = await signUp(app);
    const res = await request(app).get("/v1/company").set(bearer(apiKey));
    expect(res.status).toBe(200);
    expect(CompanySchema.strict().parse(res.body.data)).toMatchObject({ id: companyId, enterprise: false, subscription: "free" });
  });

  it("creates (201), lists (200) and revokes (204) keys; a revoked key gets 401 at once; unknown ids 404", async () => {
    const { app } = makeApp();
    const { apiKey } = await signUp(app);
    const created = await request(app).post("/v1/api-keys").set(bearer(apiKey));
    expect(created.status).toBe(201);
    const k = ApiKeyCreatedSchema.strict().parse(created.body.data);
    const list = await request(app).get("/v1/api-keys").set(bearer(apiKey));
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(2);
    for (const row of list.body.data) ApiKeySchema.strict().parse(row);
    expect(JSON.stringify(list.body)).not.toContain(k.apiKey);
    expect((await request(app).get("/v1/company").set(bearer(k.apiKey))).status).toBe(200);
    expect((await request(app).delete(`/v1/api-keys/${k.id}`).set(bearer(apiKey))).status).toBe(204);
    expect((await request(app).get("/v1/company").set(bearer(k.apiKey))).status).toBe(401);
    const again = await request(app).delete(`/v1/api-keys/${k.id}`).set(bearer(apiKey));
    expect([again.status, again.body.code]).toEqual([404, "api_key_not_found"]);
    expect((await request(app).post("/v1/api-keys").set(bearer(apiKey)).send({ label: "x" })).status).toBe(400);
  });

  it("a key may get a name (1 to 100 characters), shown when it is made and in the list; a bad name is 400", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app);
    const named = await request(app).post("/v1/api-keys").set(bearer(apiKey)).send({ name: "  ERP production " });
    expect(named.status).toBe(201);
    expect(named.body.data.name).toBe("ERP production");
    const unnamed = await request(app).post("/v1/api-keys").set(bearer(apiKey)).send({});
    expect(unnamed.body.data.name).toBeNull();
    const list = await request(app).get("/v1/api-keys").set(bearer(apiKey));
    expect(list.body.data.map((k: { id: string; name: string | null }) => [k.id, k.name]).slice(-2)).toEqual([
      [named.body.data.id, "ERP production"],
      [unnamed.body.data.id, null],
    ]);
    expect(list.body.data[0].name).toBeNull(); // the sign-up's key
    for (const [name, message] of [
      ["", "name should not be empty"],
      ["x".repeat(101), "name must be at most 100 characters"],
      [7, "name must be a string"],
      ["a\u0007b", "name must not contain control characters"],
    ] as const) {
      const r = await request(app).post("/v1/api-keys").set(bearer(apiKey)).send({ name });
      expect([r.status, r.body.code, r.body.message]).toEqual([400, "invalid_request", [message]]);
    }
  });

  it("refuses to revoke the company's last key with 409 last_api_key, so nobody is locked out", async () => {
    const { app } = makeApp();
    const { apiKey } = await signUp(app);
    const [only] = (await request(app).get("/v1/api-keys").set(bearer(apiKey))).body.data;
    const res = await request(app).delete(`/v1/api-keys/${only.id}`).set(bearer(apiKey));
    expect([res.status, CodeBody.parse(res.body).code]).toEqual([409, "last_api_key"]);
    expect((await request(app).get("/v1/company").set(bearer(apiKey))).status).toBe(200);
  });

  it("refuses query parameters on endpoints that take none", async () => {
    const { app } = makeApp();
    const { apiKey } = await signUp(app);
    const k = (await request(app).post("/v1/api-keys").set(bearer(apiKey))).body.data;
    const res = await request(app).delete(`/v1/api-keys/${k.id}?force=1`).set(bearer(apiKey));
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual(["property force should not exist"]);
    expect((await request(app).get(`/v1/company?x=1`).set(bearer(apiKey))).status).toBe(400);
  });
});

describe("the rest of the HTTP surface", () => {
  it("answers unknown routes with a JSON 404 route_not_found, under /v1, /admin and elsewhere", async () => {
    const { app } = makeApp();
    const res = await request(app).get("/v1/nothing-here");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: "route_not_found", message: "Cannot GET /v1/nothing-here" });
    const admin = await request(app).delete("/admin/companies/x").set("Authorization", `Bearer ${ADMIN_TOKEN}`);
    expect(admin.status).toBe(404);
    expect(admin.body).toEqual({ code: "route_not_found", message: "Cannot DELETE /admin/companies/x" });
    const outside = await request(app).post("/nowhere?x=1");
    expect(outside.status).toBe(404);
    expect(outside.body).toEqual({ code: "route_not_found", message: "Cannot POST /nowhere" });
  });

  it("answers /health, hides x-powered-by and marks answers no-store and nosniff", async () => {
    const { app } = makeApp();
    const health = await request(app).get("/health");
    expect([health.status, health.body]).toEqual([200, { status: "ok" }]);
    const res = await request(app).get("/v1/invoices");
    expect(res.headers["x-powered-by"]).toBeUndefined();
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
  });
});

describe("/admin", () => {
  it("answers 401 invalid_admin_token without the operator token", async () => {
    const { app } = makeApp();
    const { companyId } = await signUp(app);
    for (const headers of [{}, { Authorization: "Bearer wrong-token-wrong-token" }, { Authorization: `Basic ${ADMIN_TOKEN}` }]) {
      const res = await request(app).get(`/admin/companies/${companyId}`).set(headers);
      expect([res.status, CodeBody.parse(res.body).code]).toEqual([401, "invalid_admin_token"]);
    }
  });

  it("reads and patches a company; unknown companies are 404 company_not_found; bad patches 400", async () => {
    const { app } = makeApp();
    const { companyId, apiKey } = await signUp(app);
    const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
    const got = await request(app).get(`/admin/companies/${companyId}`).set(admin);
    expect(CompanySchema.strict().parse(got.body.data).id).toBe(companyId);
    const patched = await request(app).patch(`/admin/companies/${companyId}`).set(admin).send({ enterprise: true, subscription: "pro" });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ enterprise: true, subscription: "pro", legalEntityId: null });
    for (const id of ["00000000-0000-4000-8000-000000000000", "nope"]) {
      const res = await request(app).get(`/admin/companies/${id}`).set(admin);
      expect([res.status, res.body.code]).toEqual([404, "company_not_found"]);
      const p = await request(app).patch(`/admin/companies/${id}`).set(admin).send({ enterprise: true });
      expect([p.status, p.body.code]).toEqual([404, "company_not_found"]);
    }
    const bad = await request(app).patch(`/admin/companies/${companyId}`).set(admin).send({ subscription: "gold", id: "x", country: "nl" });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toEqual(
      expect.arrayContaining(["subscription must be one of the following values: free, basic, pro", "property id should not exist"]),
    );
    // The body is checked before the id, and an empty patch changes nothing (not even updatedAt).
    const badBody = await request(app).patch(`/admin/companies/nope`).set(admin).send({ vip: true });
    expect(badBody.status).toBe(400);
    const before = (await request(app).get(`/admin/companies/${companyId}`).set(admin)).body.data;
    const empty = await request(app).patch(`/admin/companies/${companyId}`).set(admin).send({});
    expect(empty.body.data).toEqual(before);
    // The API key of a company is not an admin token.
    expect((await request(app).get(`/admin/companies/${companyId}`).set(bearer(apiKey))).status).toBe(401);
  });
});

describe("GET /v1/invoices by date", () => {
  it("filters by issueDateFrom/issueDateTo (inclusive) and createdFrom/createdTo (to exclusive); a bad value is 400 naming it", async () => {
    const { app } = makeApp();
    const { apiKey } = await eligibleAccount(app);
    const ids: Record<string, string> = {};
    for (const day of ["05", "15", "25"]) {
      const xml = invoiceXml({ id: `DATE-${day}` }).replace("<cbc:IssueDate>2026-01-15</cbc:IssueDate>", `<cbc:IssueDate>2026-01-${day}</cbc:IssueDate>`);
      const r = await request(app).post(SUBMIT).set(bearer(apiKey)).send({ xml: b64(xml) });
      expect(r.body.data.status).toBe("sending");
      ids[day] = r.body.data.submissionId;
    }
    const list = async (q: string) => {
      const r = await request(app).get(`/v1/invoices?${q}`).set(bearer(apiKey));
      expect(r.status).toBe(200);
      return r.body.data.map((i: { id: string }) => i.id);
    };
    expect(await list("issueDateFrom=2026-01-15")).toEqual([ids["25"], ids["15"]]);
    expect(await list("issueDateTo=2026-01-15")).toEqual([ids["15"], ids["05"]]);
    expect(await list("issueDateFrom=2026-01-06&issueDateTo=2026-01-24")).toEqual([ids["15"]]);
    const created = (await request(app).get(`/v1/invoices/${ids["15"]}`).set(bearer(apiKey))).body.data.createdAt as string;
    const all = await list("createdFrom=2000-01-01");
    expect(all).toHaveLength(3);
    expect(await list(`createdFrom=${encodeURIComponent(created)}&createdTo=${encodeURIComponent(created)}`)).toEqual([]);
    expect(await list(`createdTo=${encodeURIComponent(created)}`)).not.toContain(ids["15"]);
    expect(await list(`createdFrom=${encodeURIComponent(created)}`)).toContain(ids["15"]);
    expect(await list("createdTo=2000-01-01T00:00:00%2B02:00")).toEqual([]);
    expect(await list("issueDateTo=2024-02-29")).toEqual([]);
    expect(await list("createdTo=9999-12-31T23:59:59.999%2B14:00")).toHaveLength(3);
    expect(await list("createdFrom=0001-01-01")).toHaveLength(3);
    const date = (name: string) => `${name} must be a date that exists (YYYY-MM-DD, years 0001 to 9999)`;
    const time = (name: string) =>
      `${name} must be an ISO 8601 date-time with a time zone (such as 2026-01-31T00:00:00Z) or a date (YYYY-MM-DD), on a date that exists in the years 0001 to 9999; in a URL, write the + of an offset as %2B`;
    // Each a 400 with its message: 2026-13-01 and 2026-01-32 were a 500 (a Date that is no date), year 0 a
    // 500 on PostgreSQL, and createdFrom=2026-02-30 was taken as March the 2nd.
    for (const [q, message] of [
      ["issueDateFrom=2026-02-30", date("issueDateFrom")],
      ["issueDateFrom=2026-13-01", date("issueDateFrom")],
      ["issueDateTo=2026-01-32", date("issueDateTo")],
      ["issueDateTo=2026-00-10", date("issueDateTo")],
      ["issueDateFrom=0000-01-01", date("issueDateFrom")],
      ["issueDateTo=15.01.2026", date("issueDateTo")],
      ["createdFrom=2026-01-01T00:00:00", time("createdFrom")],
      ["createdFrom=2026-02-30", time("createdFrom")],
      ["createdFrom=2026-13-01T00:00:00Z", time("createdFrom")],
      ["createdFrom=0000-01-01", time("createdFrom")],
      ["createdTo=2026-01-01T00:00:00+02:00", time("createdTo")],
      ["createdTo=yesterday", time("createdTo")],
    ]) {
      const r = await request(app).get(`/v1/invoices?${q}`).set(bearer(apiKey));
      expect([r.status, r.body.code, r.body.message]).toEqual([400, "invalid_request", [message]]);
    }
  });
});
