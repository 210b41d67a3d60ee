// POST /v1/validate: any authenticated account, the rules' report in data, the submit codes for unreadable documents.
import { memoryStore, ValidationReportSchema } from "@einvoice/core";
import type { AddressInfo } from "node:net";
import express from "express";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { b64, invoiceXml } from "../../core/test/support/ubl.js";
import { createApp } from "../../../examples/server/src/app.js";
import { answers, eligibleAccount, makeApp, signUp } from "./support/app.js";
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
    expect(ValidationReportSchema.strict().parse(ok.body.data)).toMatchObject({ valid: true, rootElement: "Invoice", documentType: "Invoice", errors: [] });
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

/** The valid invoice with its lines replaced by n empty ones: each breaks about ten rules. */
const emptyLines = (n: number) => invoiceXml().replace(/<cac:InvoiceLine>[\s\S]*<\/cac:InvoiceLine>/, "<cac:InvoiceLine/>".repeat(n));

describe("POST /v1/validate with a document that breaks rules many times (issue 26, finding 2)", () => {
  it("30,000 empty lines: at most 100 errors and 100 warnings, every rule counted, a small answer", async () => {
    const { app } = makeApp();
    const { apiKey } = await signUp(app);
    const res = await request(app).post("/v1/validate").set(bearer(apiKey)).send({ xml: b64(emptyLines(30_000)) });
    expect(res.status).toBe(200);
    // Before: a 44.7 MiB answer listing 300,003 errors.
    expect(res.text.length).toBeLessThan(100 * 1024);
    const report = ValidationReportSchema.strict().parse(res.body.data);
    expect(report.errors).toHaveLength(100);
    expect(report.warnings.length).toBeLessThanOrEqual(100);
    expect(report.truncated).toBe(true);
    expect(report.errorCount).toBeGreaterThan(300_000);
    const fatal = report.ruleCounts.filter((c) => c.flag === "fatal");
    expect(fatal.reduce((n, c) => n + c.count, 0)).toBe(report.errorCount);
    expect(fatal.find((c) => c.rule === "BR-21")?.count).toBe(30_000); // every line without an identifier
  });

  it("cuts a message that quotes a long value at 1,000 characters", async () => {
    const { app } = makeApp();
    const { apiKey } = await signUp(app);
    const long = "Q".repeat(100_000);
    const xml = invoiceXml().replace("<cbc:DocumentCurrencyCode>", `<cbc:TaxCurrencyCode>${long}</cbc:TaxCurrencyCode><cbc:DocumentCurrencyCode>`);
    const res = await request(app).post("/v1/validate").set(bearer(apiKey)).send({ xml: b64(xml) });
    expect(res.status).toBe(200);
    const items = [...res.body.data.errors, ...res.body.data.warnings] as Array<{ message: string }>;
    expect(items.some((i) => i.message.includes("QQQQ"))).toBe(true);
    for (const i of items) expect(i.message.length).toBeLessThanOrEqual(1000);
    expect(res.text.length).toBeLessThan(100 * 1024);
  });

  it("is validated off the event loop: /health is answered while a large worst case runs on a worker", async () => {
    const { app: inner } = makeApp();
    const { apiKey } = await signUp(inner);
    const app = express();
    let bodyRead!: () => void;
    const read = new Promise<void>((resolve) => (bodyRead = resolve));
    // Resolves once the server has the whole validate body: what follows is the validation.
    app.use((req, _res, next) => {
      if (req.path === "/v1/validate") req.on("end", () => bodyRead());
      next();
    });
    app.use(inner);
    const server = app.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const order: string[] = [];
      // 150,000 empty lines (2.6 MiB): about 2 s of validation, over the worker threshold (512 KiB).
      const body = JSON.stringify({ xml: b64(emptyLines(150_000)) });
      const validation = fetch(`${base}/v1/validate`, { method: "POST", headers: { ...bearer(apiKey), "content-type": "application/json" }, body }).then(async (r) => {
        order.push("validate");
        return { status: r.status, data: ((await r.json()) as { data: unknown }).data };
      });
      await read;
      const health = await fetch(`${base}/health`);
      order.push("health");
      expect(health.status).toBe(200);
      const v = await validation;
      expect(v.status).toBe(200);
      expect(v.data).toMatchObject({ valid: false, truncated: true });
      // Before: the validation ran on the event loop, and /health waited for it.
      expect(order).toEqual(["health", "validate"]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it("falls under the per-company rate limit like submit: past it, 429 without reading the body", async () => {
    const limited = express().use(createApp({ store: memoryStore(), adminToken: "a".repeat(32), logger: { error: () => {} }, rateLimit: { requests: 2, windowMs: 60_000 } }));
    const { apiKey } = await signUp(limited); // the sign-up is not a company request
    const post = () => request(limited).post("/v1/validate").set(bearer(apiKey)).send({ xml: b64(invoiceXml()) });
    expect((await post()).status).toBe(200);
    expect((await post()).status).toBe(200);
    const res = await post();
    expect(res.status).toBe(429);
    expect(res.body.code).toBe("rate_limited");
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
