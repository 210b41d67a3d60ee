// Issue 16, the answers an attacker could turn into 500s: ids that do not decode, bodies that do
// not inflate, `__proto__` as a query parameter, a cursor date PostgreSQL has no room for. Each gets
// its documented 4xx, nothing is logged as an unexpected error.
import { gzipSync } from "node:zlib";
import type { AddressInfo } from "node:net";
import type { Express } from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { closeInvoiceWorkers } from "@einvoice/core";
import { invoiceWorkerCount } from "../../core/src/document/default-pool.js";
import { ADMIN_TOKEN, makeApp, makeEligible, signUp } from "./support/app.js";

/** One request on a real socket (supertest re-encodes a Buffer body sent with a Content-Encoding). */
async function raw(app: Express, method: string, path: string, headers: Record<string, string>, body: Uint8Array): Promise<{ status: number; body: Record<string, unknown> }> {
  const server = app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, { method, headers: { "content-type": "application/json", ...headers }, body });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  } finally {
    server.close();
    server.closeAllConnections();
  }
}

const corruptGzip = () => Buffer.concat([gzipSync(Buffer.from('{"email":"a@b.example"}')).subarray(0, 10), Buffer.from("this is not deflate data at all")]);

describe("ids that do not decode (a stray %, bytes that are not UTF-8) are not found: 404 before authentication and rate limits, nothing logged", () => {
  const cases: Array<[string, string, string]> = [
    ["get", "/v1/invoices/%", "invoice_not_found"],
    ["get", "/v1/invoices/%ff", "invoice_not_found"],
    ["get", "/v1/invoices/%e0%80", "invoice_not_found"],
    ["get", "/v1/webhooks/%c0/deliveries", "webhook_not_found"],
    ["delete", "/v1/webhooks/%", "webhook_not_found"],
    ["delete", "/v1/api-keys/%", "api_key_not_found"],
    ["get", "/admin/companies/%", "company_not_found"],
    ["patch", "/admin/companies/%zz", "company_not_found"],
  ];
  for (const [method, path, code] of cases) {
    it(`${method.toUpperCase()} ${path} without a key → 404 ${code}`, async () => {
      const { app, logs } = makeApp();
      const res = await request(app)[method as "get"](path);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code });
      expect(typeof res.body.message).toBe("string");
      expect(res.headers["ratelimit-limit"]).toBeUndefined(); // answered before the rate limit counts it
      expect(logs).toEqual([]);
    });
  }

  it("a path that does not decode on no route of ours → the plain 404, nothing logged", async () => {
    const { app, logs } = makeApp();
    const res = await request(app).get("/v1/%zz/x");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: "route_not_found", message: "Cannot GET /v1/%zz/x" });
    expect(logs).toEqual([]);
  });

  it("with a valid key the same malformed id is the same 404 (a well-formed unknown id answers alike)", async () => {
    const { app } = makeApp();
    const { apiKey } = await signUp(app);
    const bad = await request(app).get("/v1/invoices/%ff").set("Authorization", `Bearer ${apiKey}`);
    const unknown = await request(app).get("/v1/invoices/00000000-0000-4000-8000-000000000000").set("Authorization", `Bearer ${apiKey}`);
    expect([bad.status, unknown.status]).toEqual([404, 404]);
    expect(bad.body.code).toBe(unknown.body.code);
  });
});

describe("a compressed body that does not inflate → 400, nothing logged", () => {
  it("POST /v1/accounts (no key) with Content-Encoding: gzip over bytes that are not gzip → 400 naming the encoding", async () => {
    const { app, logs } = makeApp();
    const res = await raw(app, "POST", "/v1/accounts", { "content-encoding": "gzip" }, corruptGzip());
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error: "Bad Request" });
    expect((res.body.message as string[])[0]).toMatch(/decompress/);
    expect(logs).toEqual([]);
  });

  it("every body route: submit, API keys, webhooks, the admin patch → 400 (deflate and br too)", async () => {
    const { app, logs } = makeApp();
    const { apiKey, companyId } = await signUp(app);
    const routes: Array<["post" | "patch", string, string]> = [
      ["post", "/v1/peppol/invoice", apiKey],
      ["post", "/v1/api-keys", apiKey],
      ["post", "/v1/webhooks", apiKey],
      ["patch", `/admin/companies/${companyId}`, ADMIN_TOKEN],
    ];
    for (const [method, path, token] of routes) {
      for (const encoding of ["gzip", "deflate", "br"]) {
        const res = await raw(app, method.toUpperCase(), path, { authorization: `Bearer ${token}`, "content-encoding": encoding }, corruptGzip());
        expect(res.status, `${method} ${path} ${encoding}: ${JSON.stringify(res.body)}`).toBe(400);
        expect((res.body.message as string[])[0]).toMatch(/decompress/);
      }
    }
    expect(logs).toEqual([]);
  });

  it("an unsupported Content-Encoding (compress, or gzip twice) → 400 naming the Content-Encoding, not the charset", async () => {
    const { app, logs } = makeApp();
    for (const encoding of ["compress", "gzip, gzip"]) {
      const res = await raw(app, "POST", "/v1/accounts", { "content-encoding": encoding }, corruptGzip());
      expect([res.status, res.body.code, res.body.message], encoding).toEqual([
        400,
        "invalid_request",
        ["Request body's Content-Encoding is not supported: send the body uncompressed, or compressed once with gzip, deflate or br."],
      ]);
    }
    expect(logs).toEqual([]);
  });

  it("a valid gzip body is still read (control)", async () => {
    const { app } = makeApp();
    const body = gzipSync(Buffer.from(JSON.stringify({ email: "gz@example.com", companyName: "Gz", country: "NL" })));
    const res = await raw(app, "POST", "/v1/accounts", { "content-encoding": "gzip" }, body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });
});

describe("an answer stays small whatever the request held", () => {
  it("a body with 2,000 unknown keys → 400 listing the first 49 and how many more; a 10,000-character key is cut", async () => {
    const { app } = makeApp();
    const body: Record<string, unknown> = { email: "many@example.com", companyName: "Many", country: "NL" };
    for (let i = 0; i < 2000; i++) body[`k${i}`] = i;
    const res = await request(app).post("/v1/accounts").send(body);
    expect([res.status, res.body.code]).toEqual([400, "invalid_request"]);
    expect(res.body.message).toHaveLength(50);
    expect(res.body.message.slice(0, 2)).toEqual(["property k0 should not exist", "property k1 should not exist"]);
    expect(res.body.message[49]).toBe("and 1951 more problems (the first 49 are listed)");
    const long = await request(app).post("/v1/accounts").send({ email: "long@example.com", companyName: "Long", country: "NL", ["x".repeat(10_000)]: 1 });
    expect(long.status).toBe(400);
    expect(long.body.message[0]).toHaveLength(500);
    expect(long.body.message[0]).toMatch(/^property x+…$/);
  });

  it("a 404 quotes at most 100 characters of the id in the path (200 of a path no route takes), and says how long it was", async () => {
    const { app } = makeApp();
    const { apiKey, companyId } = await signUp(app);
    const id = "x".repeat(15_000);
    for (const [method, path] of [["get", `/v1/invoices/${id}`], ["delete", `/v1/webhooks/${id}`], ["delete", `/v1/api-keys/${id}`]] as const) {
      const res = await request(app)[method](path).set("Authorization", `Bearer ${apiKey}`);
      expect(res.status, path).toBe(404);
      expect(res.body.message).toContain(`"${"x".repeat(100)}"… (15000 characters)`);
      expect(res.text.length).toBeLessThan(400);
    }
    const admin = await request(app).get(`/admin/companies/${id}`).set("Authorization", `Bearer ${ADMIN_TOKEN}`);
    expect([admin.status, admin.body.message]).toEqual([404, `No company with id "${"x".repeat(100)}"… (15000 characters).`]);
    // No route: the path is cut after 200 characters.
    const route = await request(app).get(`/v1/nothing/${id}`).set("Authorization", `Bearer ${apiKey}`);
    expect([route.status, route.body]).toEqual([404, { code: "route_not_found", message: `Cannot GET /v1/nothing/${"x".repeat(188)}… (15012 characters)` }]);
    // A short id is quoted whole, as before.
    const short = await request(app).get(`/admin/companies/${companyId}x`).set("Authorization", `Bearer ${ADMIN_TOKEN}`);
    expect(short.body.message).toBe(`No company with id ${JSON.stringify(`${companyId}x`)}.`);
  });
});

describe("query parameters named like Object's own properties are parameters like any other", () => {
  it("GET /v1/invoices?__proto__=1 → 400 'property __proto__ should not exist'", async () => {
    const { app } = makeApp();
    const { apiKey } = await signUp(app);
    for (const path of ["/v1/invoices?__proto__=1", "/v1/clients?__proto__=1", "/v1/company?__proto__=1", "/v1/invoices?__proto__=1&__proto__=2"]) {
      const res = await request(app).get(path).set("Authorization", `Bearer ${apiKey}`);
      expect(res.status, path).toBe(400);
      expect(res.body.message, path).toEqual(["property __proto__ should not exist"]);
    }
    const ctor = await request(app).get("/v1/invoices?constructor=x").set("Authorization", `Bearer ${apiKey}`);
    expect(ctor.body.message).toEqual(["property constructor should not exist"]);
  });
});

describe("a well-formed cursor whose date no database can hold", () => {
  it("year 0 (PostgreSQL has none) → 400 bad cursor on /v1/invoices and /v1/clients", async () => {
    const { app } = makeApp();
    const { apiKey } = await signUp(app);
    for (const [path, kind] of [["/v1/invoices", "i"], ["/v1/clients", "c"]] as const) {
      const cursor = Buffer.from(JSON.stringify([kind, "0000-01-01T00:00:00.000Z", "00000000-0000-4000-8000-000000000000"])).toString("base64url");
      const res = await request(app).get(`${path}?cursor=${cursor}`).set("Authorization", `Bearer ${apiKey}`);
      expect(res.status).toBe(400);
      expect(res.body.message[0]).toMatch(/^cursor must be a valid pagination cursor/);
      const year1 = Buffer.from(JSON.stringify([kind, "0001-01-01T00:00:00.000Z", "00000000-0000-4000-8000-000000000000"])).toString("base64url");
      expect((await request(app).get(`${path}?cursor=${year1}`).set("Authorization", `Bearer ${apiKey}`)).status).toBe(200);
    }
  });
});

describe("a company that may not submit makes the server do no document work (finding 6)", () => {
  it("a free company's 7 MiB submission → 403 enterprise_required, no worker reads the document; once eligible the same body is read (control)", async () => {
    await closeInvoiceWorkers();
    const { app } = makeApp();
    const { apiKey, companyId } = await signUp(app);
    const body = Buffer.from(JSON.stringify({ xml: Buffer.alloc(5 * 1024 * 1024, 7).toString("base64") }));
    expect(body.length).toBeGreaterThan(6.5 * 1024 * 1024);
    const refused = await raw(app, "POST", "/v1/peppol/invoice", { authorization: `Bearer ${apiKey}` }, body);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("enterprise_required");
    expect(invoiceWorkerCount()).toBe(0);
    // The shape still comes first: the same company with a bad body gets the 400.
    const badShape = await raw(app, "POST", "/v1/peppol/invoice", { authorization: `Bearer ${apiKey}` }, Buffer.from(`{"xml":"${"A".repeat(1_000_000)}","x":1}`));
    expect(badShape.status).toBe(400);
    await makeEligible(app, companyId);
    const read = await raw(app, "POST", "/v1/peppol/invoice", { authorization: `Bearer ${apiKey}` }, body);
    expect(read.status).toBe(422);
    expect(read.body.code).toBe("invalid_base64_xml");
    expect(invoiceWorkerCount()).toBeGreaterThan(0);
    await closeInvoiceWorkers();
  });
});

describe("races and caps over HTTP (findings 1, 2, 3)", () => {
  it("two keys revoking each other at once: never both 204 (20 rounds), the company keeps one working key", async () => {
    const { app } = makeApp();
    for (let round = 0; round < 20; round++) {
      const { apiKey: a } = await signUp(app);
      const made = await request(app).post("/v1/api-keys").set("Authorization", `Bearer ${a}`).send({});
      const b = made.body.data.apiKey as string;
      const keys = (await request(app).get("/v1/api-keys").set("Authorization", `Bearer ${a}`)).body.data as Array<{ id: string; prefix: string }>;
      const idOf = (key: string) => keys.find((k) => key.startsWith(k.prefix))!.id;
      const [ra, rb] = await Promise.all([
        request(app).delete(`/v1/api-keys/${idOf(b)}`).set("Authorization", `Bearer ${a}`),
        request(app).delete(`/v1/api-keys/${idOf(a)}`).set("Authorization", `Bearer ${b}`),
      ]);
      expect([ra.status, rb.status].sort(), `round ${round}`).not.toEqual([204, 204]);
      const alive = await Promise.all([a, b].map((k) => request(app).get("/v1/company").set("Authorization", `Bearer ${k}`)));
      expect(alive.filter((r) => r.status === 200)).toHaveLength(1);
    }
  });

  it("60 concurrent webhook registrations create exactly 10", async () => {
    const { app } = makeApp({ webhookTargets: { allowPrivate: true } });
    const { apiKey } = await signUp(app);
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => request(app).post("/v1/webhooks").set("Authorization", `Bearer ${apiKey}`).send({ url: `http://127.0.0.1:9/h${i}` })),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(10);
    expect(answers.filter((r) => r.status === 400).every((r) => /at most 10 webhooks/.test(r.body.message[0]))).toBe(true);
    expect((await request(app).get("/v1/webhooks").set("Authorization", `Bearer ${apiKey}`)).body.data).toHaveLength(10);
  });

  it("a company has at most 20 active keys: 40 concurrent creations make 19 more, the others get 409 too_many_api_keys", async () => {
    const { app } = makeApp();
    const { apiKey } = await signUp(app);
    const answers = await Promise.all(Array.from({ length: 40 }, () => request(app).post("/v1/api-keys").set("Authorization", `Bearer ${apiKey}`).send({})));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(19);
    const refused = answers.filter((r) => r.status === 409);
    expect(refused).toHaveLength(21);
    expect(refused[0]!.body).toEqual({ code: "too_many_api_keys", message: expect.stringMatching(/already has 20 active API keys/) });
    expect((await request(app).get("/v1/api-keys").set("Authorization", `Bearer ${apiKey}`)).body.data).toHaveLength(20);
  });
});
