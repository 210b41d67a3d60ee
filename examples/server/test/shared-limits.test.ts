// Issue 16, findings 1 to 3 across processes: two example servers on one PostgreSQL database share
// one rate budget per company (rate-limiter-flexible's PostgreSQL store), and the store's atomic
// rules hold between them: two keys revoking each other on different servers never both succeed,
// and concurrent webhook registrations on both stop at 10.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eligibleAccount } from "./support/helpers.js";
import { json, startServer, type RunningServer } from "./support/server-process.js";

const ADMIN = "shared-limits-test-admin-token";
const DATABASE_URL = process.env.DATABASE_URL;

describe.skipIf(!DATABASE_URL)("two servers on one PostgreSQL database (DATABASE_URL)", () => {
  const schema = `einvoice_shared_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  let a: RunningServer;
  let b: RunningServer;
  beforeAll(async () => {
    const env = { DATABASE_URL, DATABASE_SCHEMA: schema, ADMIN_TOKEN: ADMIN, DISPATCHER: "off", RATE_LIMIT_PER_MINUTE: "40", WEBHOOK_ALLOW_PRIVATE: "true" };
    a = await startServer(env);
    b = await startServer(env); // the second finds the schema and the rate-limit table made
  }, 90_000);
  afterAll(async () => {
    await Promise.all([a?.kill(), b?.kill()]);
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  });

  it("every request of a company on either server counts against one budget (40 a minute): what is left of it is answered, the 20 beyond get 429", async () => {
    const { apiKey } = await eligibleAccount(a.base, ADMIN);
    // Give the rate-limit table time to exist on both (until then each counts in memory): poll until B counts what A took.
    const deadline = Date.now() + 15_000;
    let remainingSeen: string | null = null;
    for (;;) {
      const ra = await fetch(`${a.base}/v1/company`, { headers: { authorization: `Bearer ${apiKey}` } });
      const rb = await fetch(`${b.base}/v1/company`, { headers: { authorization: `Bearer ${apiKey}` } });
      remainingSeen = rb.headers.get("ratelimit-remaining");
      if (Number(ra.headers.get("ratelimit-remaining")) - Number(remainingSeen) === 1 || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const left = Number(remainingSeen);
    expect(left).toBeLessThan(39);
    const answers = await Promise.all(
      Array.from({ length: left + 20 }, (_, i) => fetch(`${(i % 2 ? a : b).base}/v1/company`, { headers: { authorization: `Bearer ${apiKey}` } }).then((r) => r.status)),
    );
    expect(answers.filter((s) => s === 200)).toHaveLength(left);
    expect(answers.filter((s) => s === 429)).toHaveLength(20);
  }, 60_000);

  it("two keys revoking each other on different servers at once never both succeed (10 rounds)", async () => {
    for (let round = 0; round < 10; round++) {
      const { apiKey: k1 } = await eligibleAccount(a.base, ADMIN);
      const made = await json(b.base, "POST", "/v1/api-keys", {}, k1);
      expect(made.status).toBe(201);
      const k2 = made.body.data.apiKey as string;
      const keys = (await json(a.base, "GET", "/v1/api-keys", undefined, k1)).body.data as Array<{ id: string; prefix: string }>;
      const idOf = (key: string) => keys.find((k) => key.startsWith(k.prefix))!.id;
      const [r1, r2] = await Promise.all([json(a.base, "DELETE", `/v1/api-keys/${idOf(k2)}`, undefined, k1), json(b.base, "DELETE", `/v1/api-keys/${idOf(k1)}`, undefined, k2)]);
      expect([r1.status, r2.status].sort(), `round ${round}`).not.toEqual([204, 204]);
      const alive = await Promise.all([k1, k2].map((k) => json(a.base, "GET", "/v1/company", undefined, k)));
      expect(alive.filter((r) => r.status === 200)).toHaveLength(1);
    }
  }, 90_000);

  it("30 concurrent webhook registrations on both servers create exactly 10", async () => {
    const { apiKey } = await eligibleAccount(a.base, ADMIN);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => json(i % 2 ? a.base : b.base, "POST", "/v1/webhooks", { url: `http://127.0.0.1:9/h${i}` }, apiKey)));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(10);
    expect((await json(b.base, "GET", "/v1/webhooks", undefined, apiKey)).body.data).toHaveLength(10);
  }, 60_000);
});
