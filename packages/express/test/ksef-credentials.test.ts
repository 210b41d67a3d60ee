// The KSeF credential over HTTP: PATCH /admin/companies/{id} with ksef, and the submit refusal
// where KSeF is delivered to directly. Every answer is checked against the OpenAPI document.
import { randomBytes } from "node:crypto";
import { tokenCipher } from "@einvoice/core";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { b64, invoiceXml } from "../../core/test/support/ubl.js";
import { ADMIN_TOKEN, answers, eligibleAccount, makeApp } from "./support/app.js";
import { undocumentedAnswers } from "./support/openapi-check.js";

afterAll(() => {
  expect(answers.length).toBeGreaterThan(8);
  expect(undocumentedAnswers(answers)).toEqual([]);
  for (const a of answers) expect(JSON.stringify(a)).not.toContain(TOKEN);
});

const TOKEN = `20261122-EC-${randomBytes(8).toString("hex")}|nip-5260250995|${randomBytes(16).toString("hex")}`;
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

describe("KSeF credentials over HTTP", () => {
  it("PATCH sets the NIP and token (the answer says tokenSet, never the token), GET shows the same, null removes it", async () => {
    const { app } = makeApp({ ksef: { tokenCipher: tokenCipher(randomBytes(32)) } });
    const { companyId, apiKey } = await eligibleAccount(app);
    const set = await request(app).patch(`/admin/companies/${companyId}`).set(admin).send({ ksef: { nip: "PL5260250995", token: TOKEN } });
    expect(set.status).toBe(200);
    expect(set.body.data.ksef).toEqual({ nip: "5260250995", tokenSet: true, updatedAt: set.body.data.updatedAt });
    expect((await request(app).get(`/admin/companies/${companyId}`).set(admin)).body.data.ksef).toEqual(set.body.data.ksef);
    expect((await request(app).get("/v1/company").set({ Authorization: `Bearer ${apiKey}` })).body.data.ksef).toEqual(set.body.data.ksef);
    const bad = await request(app).patch(`/admin/companies/${companyId}`).set(admin).send({ ksef: { nip: "5260250994", token: TOKEN } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toEqual(["ksef.nip must be a Polish NIP: 10 digits with a valid check digit (a PL prefix, spaces and dashes are allowed)"]);
    const cleared = await request(app).patch(`/admin/companies/${companyId}`).set(admin).send({ ksef: null });
    expect([cleared.status, cleared.body.data.ksef]).toEqual([200, null]);
  });

  it("refuses a token on a server without a key: 422 ksef_token_key_not_configured; an unknown company is still a 404", async () => {
    const { app } = makeApp();
    const { companyId } = await eligibleAccount(app);
    const res = await request(app).patch(`/admin/companies/${companyId}`).set(admin).send({ ksef: { nip: "5260250995", token: TOKEN } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ code: "ksef_token_key_not_configured", message: expect.stringContaining("KSEF_TOKEN_KEY") });
    const unknown = await request(app).patch("/admin/companies/00000000-0000-4000-8000-000000000000").set(admin).send({ ksef: { nip: "5260250995", token: TOKEN } });
    expect([unknown.status, unknown.body.code]).toEqual([404, "company_not_found"]);
  });

  it("answers a KSeF submission of a company without a credential with 422 ksef_not_configured where KSeF is direct, and accepts it once set", async () => {
    const { app } = makeApp({ ksef: { tokenCipher: tokenCipher(randomBytes(32)), ksefCredentialsRequired: true } });
    const { companyId, apiKey } = await eligibleAccount(app, { country: "PL" });
    const submit = (id: string) =>
      request(app).post("/v1/peppol/invoice").set({ Authorization: `Bearer ${apiKey}` }).send({ xml: b64(invoiceXml({ id, scheme: "9945", endpoint: `PL${id}`, sellerVat: "PL5260250995", sellerCountry: "PL" })) });
    const refused = await submit("1");
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ code: "ksef_not_configured", message: expect.stringContaining("no KSeF credential") });
    await request(app).patch(`/admin/companies/${companyId}`).set(admin).send({ ksef: { nip: "5260250995", token: TOKEN } }).expect(200);
    const accepted = await submit("2");
    expect([accepted.status, accepted.body.data.status]).toEqual([200, "sending"]);
  });
});
