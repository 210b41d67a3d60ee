// Secrets stay out of the logs, each request is one short line (method, path, status, duration, request
// id; /health at debug), every answer carries a request id, and the security headers are on.
// In-process: the app with a pino logger writing into memory, driven with API keys and the admin
// token (in headers, by mistake in a query string, inside a failing store's error); then the same
// against the real server process, whose whole output is searched for the secrets.
import { memoryStore, type Store } from "@einvoice/core";
import request, { type Response } from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, createLogger, scrubUrl } from "../src/app.js";
import { invoiceB64, waitFor } from "./support/helpers.js";
import { json, type RunningServer } from "./support/server-process.js";
import { serverSuite } from "./support/server-suite.js";

const ADMIN_TOKEN = "logging-test-admin-token-SECRET-0123456789";
const WRONG_ADMIN_TOKEN = "a-mistyped-admin-token-SECRET-98765";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The secret part of a key (`einv_<id>_<secret>`): what must never be seen, whole or with its id. */
const secretOf = (apiKey: string) => apiKey.split("_").slice(2).join("_");

describe("logs and answers (in-process, pino into memory)", () => {
  const lines: string[] = [];
  const log = createLogger({ level: "debug", destination: { write: (s: string) => void lines.push(s) } });
  let failing = false;
  const memory = memoryStore();
  // A store that fails on demand, with a secret in its error message (as a driver error might quote a connection string).
  let leakyMessage = "";
  const store = new Proxy(memory, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (prop === "listClients" && typeof v === "function") {
        return (...args: unknown[]) => (failing ? Promise.reject(new Error(leakyMessage)) : (v as (...a: unknown[]) => unknown).apply(target, args));
      }
      return v;
    },
  }) as Store;
  const app = createApp({ store, adminToken: ADMIN_TOKEN, logger: log, requestLogger: log });
  const responses: Response[] = [];
  const keep = async (r: Promise<Response> | request.Test) => {
    const res = await r;
    responses.push(res);
    return res;
  };
  const keys: string[] = [];

  beforeAll(async () => {
    const signUp = await keep(request(app).post("/v1/accounts").send({ email: "log@test.example", companyName: "Log BV", country: "NL" }));
    expect(signUp.status).toBe(201);
    keys.push(signUp.body.data.apiKey);
    const companyId = signUp.body.data.companyId;
    const second = await keep(request(app).post("/v1/api-keys").set("Authorization", `Bearer ${keys[0]}`).send({}));
    expect(second.status).toBe(201);
    keys.push(second.body.data.apiKey);
    const patched = await keep(
      request(app)
        .patch(`/admin/companies/${companyId}`)
        .set("Authorization", `Bearer ${ADMIN_TOKEN}`)
        .send({ enterprise: true, subscription: "pro", legalEntityId: "LE-1", peppolSendingEnabled: true }),
    );
    expect(patched.status).toBe(200);
    await keep(request(app).get(`/admin/companies/${companyId}`).set("Authorization", `Bearer ${WRONG_ADMIN_TOKEN}`));
    await keep(request(app).get(`/admin/companies/${companyId}`).set("Authorization", `bearer ${ADMIN_TOKEN}`));
    for (const key of keys) {
      await keep(request(app).post("/v1/peppol/invoice").set("Authorization", `Bearer ${key}`).send({ xml: invoiceB64(`LOG-${key.slice(-6)}`) }));
      await keep(request(app).get("/v1/invoices").set("Authorization", `Bearer ${key}`));
      await keep(request(app).get("/v1/company").set("Authorization", `bearer   ${key}  `));
      await keep(request(app).get("/v1/company").set("Authorization", `Basic ${Buffer.from(`user:${key}`).toString("base64")}`));
      await keep(request(app).get("/v1/company").set("X-Api-Key", key).set("Cookie", `session=${key}`));
      // A key in the query string by mistake: the API refuses the parameter, the log hides its value.
      await keep(request(app).get(`/v1/invoices?api_key=${encodeURIComponent(key)}`).set("Authorization", `Bearer ${key}`));
      await keep(request(app).get(`/v1/company?token=${encodeURIComponent(key)}`));
    }
    // A revoked key, then a 500 whose cause quotes a key and the admin token.
    await keep(request(app).delete(`/v1/api-keys/${second.body.data.id}`).set("Authorization", `Bearer ${keys[0]}`));
    await keep(request(app).get("/v1/company").set("Authorization", `Bearer ${keys[1]}`));
    failing = true;
    leakyMessage = `connect failed: postgres://app:${keys[0]}@db/einvoice ${ADMIN_TOKEN}`;
    const boom = await keep(request(app).get("/v1/clients").set("Authorization", `Bearer ${keys[0]}`));
    failing = false;
    expect(boom.status).toBe(500);
    // Answers without a router: /health, /docs, an unknown path, a 413 refused before authentication.
    await keep(request(app).get("/health"));
    await keep(request(app).get("/docs/"));
    await keep(request(app).get("/nowhere").set("Authorization", `Bearer ${keys[0]}`));
    await keep(request(app).post("/v1/peppol/invoice").set("Authorization", `Bearer ${keys[0]}`).set("Content-Type", "application/json").set("Content-Length", String(11 * 1024 * 1024)).send("{}"));
    await keep(request(app).get("/v1/openapi.json"));
  });

  it("the log holds one JSON line per request, none with an API key, its secret, or the admin token (right or wrong)", () => {
    expect(responses.length).toBeGreaterThan(20);
    const text = lines.join("");
    for (const key of keys) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(secretOf(key));
      expect(text).not.toContain(encodeURIComponent(secretOf(key)));
      expect(text).not.toContain(Buffer.from(`user:${key}`).toString("base64"));
    }
    expect(text).not.toContain(ADMIN_TOKEN);
    expect(text).not.toContain(WRONG_ADMIN_TOKEN);
    expect(text).not.toContain("SECRET");
    // Each request once: its id is on exactly one request line.
    const requestLines = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => "status" in l);
    for (const r of responses) expect(requestLines.filter((l) => l.requestId === r.headers["x-request-id"])).toHaveLength(1);
    expect(requestLines).toHaveLength(responses.length);
    // A credential sent by mistake in the query is redacted in the logged path.
    expect(requestLines.some((l) => l.path === "/v1/invoices?api_key=%5Bredacted%5D")).toBe(true);
  });

  it("a request line is method, path, status, duration and request id, at info (debug for /health, error for a 5xx), with no headers", () => {
    const requestLines = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => "status" in l);
    for (const l of requestLines) {
      expect(Object.keys(l).sort()).toEqual(["durationMs", "level", "method", "msg", "path", "requestId", "service", "status", "time"]);
      expect(l).toMatchObject({ service: "einvoice-example-server", method: expect.stringMatching(/^[A-Z]+$/), path: expect.stringMatching(/^\//), status: expect.any(Number) });
      expect(l.durationMs).toEqual(expect.any(Number));
      expect(l.msg).toBe(`${l.method} ${String(l.path).split("?")[0]} ${l.status}`);
      expect(l.level).toBe(l.status === 500 ? 50 : l.path === "/health" ? 20 : 30);
      expect(JSON.stringify(l).length).toBeLessThan(400);
    }
    expect(requestLines.filter((l) => l.path === "/health")).toHaveLength(1);
    expect(requestLines.filter((l) => l.status === 500)).toHaveLength(1);
    expect(lines.some((l) => /"headers"|"authorization"|"user-agent"/i.test(l))).toBe(false);
  });

  it("the 500 is logged once, with its request id and the error's name, never its message", () => {
    const failures = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === "request failed");
    expect(failures).toHaveLength(1);
    const boom = responses.find((r) => r.status === 500)!;
    expect(failures[0]).toMatchObject({ level: 50, code: "internal_error", requestId: boom.headers["x-request-id"] });
    expect(boom.body).toEqual({ statusCode: 500, message: "Internal server error" });
  });

  it("no error body, and no answer but the two that create a key, holds a key or the admin token", () => {
    const creators = responses.filter((r) => r.status === 201);
    expect(creators).toHaveLength(2);
    for (const r of responses) {
      if (creators.includes(r)) continue;
      for (const key of keys) expect(r.text).not.toContain(secretOf(key));
      expect(r.text).not.toContain(ADMIN_TOKEN);
    }
  });

  it("every answer has an X-Request-Id, each its own, and the log line of the request carries the same id", () => {
    const ids = responses.map((r) => r.headers["x-request-id"]);
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
    const logged = new Set(lines.map((l) => JSON.parse(l)).filter((l) => "status" in l).map((l) => l.requestId));
    for (const id of ids) expect(logged.has(id), `no log line for request ${id}`).toBe(true);
  });

  it("a well-formed X-Request-Id from a proxy is kept; anything else is replaced", async () => {
    const kept = await request(app).get("/health").set("X-Request-Id", "edge-7f3a.42:1");
    expect(kept.headers["x-request-id"]).toBe("edge-7f3a.42:1");
    for (const bad of ["", "x".repeat(65), "a b", 'a"b', "a\u00e9"]) {
      const res = await request(app).get("/v1/company").set("X-Request-Id", bad);
      expect(res.headers["x-request-id"]).toMatch(UUID);
    }
  });

  it("scrubUrl hides credential-like query values only", () => {
    expect(scrubUrl("/v1/invoices?limit=2&cursor=abc")).toBe("/v1/invoices?limit=2&cursor=abc");
    expect(scrubUrl("/v1/x?access_token=t&limit=1&apiKey=k&Authorization=a")).toBe("/v1/x?access_token=%5Bredacted%5D&limit=1&apiKey=%5Bredacted%5D&Authorization=%5Bredacted%5D");
  });

  it("security headers on API answers: a CSP that allows nothing, nosniff, no framing, no referrer, HSTS, no X-Powered-By", async () => {
    for (const path of ["/health", "/v1/company", "/v1/openapi.json", "/admin/companies/x", "/nowhere"]) {
      const res = await request(app).get(path);
      expect(res.headers["content-security-policy"]).toBe("default-src 'none';frame-ancestors 'none';base-uri 'none';form-action 'none'");
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
      expect(res.headers["x-frame-options"]).toBe("SAMEORIGIN");
      expect(res.headers["referrer-policy"]).toBe("no-referrer");
      expect(res.headers["strict-transport-security"]).toMatch(/^max-age=\d+/);
      expect(res.headers["cross-origin-opener-policy"]).toBe("same-origin");
      expect(res.headers["x-powered-by"]).toBeUndefined();
    }
  });

  it("the /docs page gets its own CSP: scripts and styles from this server only (the page itself renders in docs-page.test.ts)", async () => {
    const res = await request(app).get("/docs/");
    expect(res.status).toBe(200);
    const csp = res.headers["content-security-policy"] as string;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-eval");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers["x-request-id"]).toMatch(UUID);
  });
});

describe("logs of the server process", () => {
  const TOKEN = "process-admin-token-SECRET-0123456789";
  const suite = serverSuite("logging", { ADMIN_TOKEN: TOKEN, DISPATCHER: "off", LOG_LEVEL: "info" });
  let server: RunningServer;

  beforeAll(async () => {
    server = await suite.start();
  });

  it("logs one short JSON line per request (not /health at info), without headers, and never prints a key or the admin token", async () => {
    const signUp = await json(server.base, "POST", "/v1/accounts", { email: "proc@log.example", companyName: "Proc", country: "NL" });
    const key = signUp.body.data.apiKey as string;
    await json(server.base, "PATCH", `/admin/companies/${signUp.body.data.companyId}`, { enterprise: true, subscription: "pro", legalEntityId: "LE", peppolSendingEnabled: true }, TOKEN);
    await json(server.base, "GET", `/admin/companies/${signUp.body.data.companyId}`, undefined, "wrong-SECRET-token-0123456789");
    await json(server.base, "GET", "/health");
    await json(server.base, "POST", "/v1/peppol/invoice", { xml: invoiceB64("PROC-1") }, key);
    await json(server.base, "GET", "/v1/invoices", undefined, key);
    await json(server.base, "GET", "/v1/company", undefined, key.slice(0, -1) + "x");
    // pino writes synchronously, but the pipe to this process may lag: wait for the six request lines.
    const requestLines = () => server.output().split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l)).filter((l) => "status" in l);
    await waitFor("the request log lines", async () => (requestLines().length >= 6 ? true : undefined));
    const out = server.output();
    expect(out).not.toContain(secretOf(key));
    expect(out).not.toContain(TOKEN);
    expect(out).not.toContain("SECRET");
    const logged = requestLines();
    expect(logged.map((l) => `${l.method} ${l.path} ${l.status}`)).toEqual([
      "POST /v1/accounts 201",
      `PATCH /admin/companies/${signUp.body.data.companyId} 200`,
      `GET /admin/companies/${signUp.body.data.companyId} 401`,
      "POST /v1/peppol/invoice 200",
      "GET /v1/invoices 200",
      "GET /v1/company 401",
    ]);
    for (const l of logged) {
      expect(l).toMatchObject({ level: 30, requestId: expect.stringMatching(UUID), durationMs: expect.any(Number) });
      expect(l.req).toBeUndefined();
      expect(l.res).toBeUndefined();
      expect(JSON.stringify(l).length).toBeLessThan(400);
    }
  });
});
