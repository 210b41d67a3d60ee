// Idempotency-Key against the example server on PostgreSQL: a retry is replayed by another instance
// on the same database and after a restart; concurrent requests with one key on two instances make one record.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { eligibleAccount, invoiceB64 } from "./support/helpers.js";
import { startServer } from "./support/server-process.js";

const DATABASE_URL = process.env.DATABASE_URL;
const ADMIN = "idempotency-test-admin-token-0123456789";

async function submit(base: string, apiKey: string, payload: string, key: string) {
  const res = await fetch(`${base}/v1/peppol/invoice`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", "idempotency-key": key },
    body: payload,
  });
  return { status: res.status, replayed: res.headers.get("idempotent-replayed"), body: (await res.json()) as Record<string, any> };
}

describe.skipIf(!DATABASE_URL)("Idempotency-Key on the example server (PostgreSQL, two instances)", () => {
  const schema = `einvoice_idem_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const env = { DATABASE_URL, DATABASE_SCHEMA: schema, ADMIN_TOKEN: ADMIN, DISPATCHER: "off", RATE_LIMIT_PER_MINUTE: "0" };
  afterAll(async () => {
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  });

  it("replays on another instance and after a restart; concurrent requests with one key on both instances store one submission", async () => {
    let [a, b] = await Promise.all([startServer(env), startServer(env)]);
    try {
      const { apiKey } = await eligibleAccount(a.base, ADMIN);
      const payload = JSON.stringify({ xml: invoiceB64(`IDEM-${randomUUID()}`) });
      const first = await submit(a.base, apiKey, payload, "order-1");
      expect(first.status).toBe(200);
      expect(first.body.data.status).toBe("sending");
      const onB = await submit(b.base, apiKey, payload, "order-1");
      expect(onB).toEqual({ status: 200, replayed: "true", body: first.body });

      await a.stop();
      a = await startServer(env);
      expect(await submit(a.base, apiKey, payload, "order-1")).toEqual({ status: 200, replayed: "true", body: first.body });
      expect((await submit(a.base, apiKey, JSON.stringify({ xml: invoiceB64(`IDEM-${randomUUID()}`) }), "order-1")).body.code).toBe("idempotency_key_reused");

      // Ten at once with one new key, alternating between the instances.
      const payload2 = JSON.stringify({ xml: invoiceB64(`IDEM-${randomUUID()}`) });
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => submit(i % 2 ? a.base : b.base, apiKey, payload2, "order-2")));
      const processed = results.filter((r) => r.status === 200 && r.replayed === null);
      expect(processed).toHaveLength(1);
      for (const r of results) if (r !== processed[0]) expect(r.status === 409 ? r.body.code : r.body).toEqual(r.status === 409 ? "idempotency_in_progress" : processed[0]!.body);
      const client = new pg.Client({ connectionString: DATABASE_URL });
      await client.connect();
      const { rows } = await client.query(`SELECT count(*)::int AS n FROM ${schema}.invoices`);
      await client.end();
      expect(rows[0].n).toBe(2);
    } finally {
      await Promise.all([a.kill(), b.kill()]);
    }
  }, 180_000);
});
