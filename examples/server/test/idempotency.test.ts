// Idempotency-Key against the example server on PostgreSQL: a retry is replayed by another instance
// on the same database and after a restart; concurrent requests with one key on two instances make one record;
// after kill -9 (on PostgreSQL and on the embedded PGlite) a retry gets the submission its request made.
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eligibleAccount, invoiceB64, waitFor } from "./support/helpers.js";
import { startServer } from "./support/server-process.js";
import { seedDataDir } from "./support/pglite-template.js";
import { tempDir } from "./support/server-suite.js";

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

  it("kill -9 mid-burst: every request sent again with its key and bytes after the lock gets its one submission, none is told failed, nothing new is stored", async () => {
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    try {
      await killBurstAndRetry(env, schema, async (run) => run(async (sql, params) => (await client.query(sql, params)).rows), { n: 200, rounds: 4 });
    } finally {
      await client.end();
    }
  }, 300_000);
});

describe("Idempotency-Key on the embedded store (PGlite) after kill -9", () => {
  const dataDir = tempDir("idem-kill");
  beforeAll(() => seedDataDir(dataDir)); // made and migrated, as after a first start (support/pglite-template.ts)
  const env = { DATA_DIR: dataDir, DATABASE_URL: undefined, ADMIN_TOKEN: ADMIN, DISPATCHER: "off", RATE_LIMIT_PER_MINUTE: "0" };

  it("kill -9 mid-burst: every request sent again with its key and bytes after the lock gets its one submission, none is told failed, nothing new is stored", async () => {
    // The data folder is opened between the server processes (the killed one holds nothing any more).
    await killBurstAndRetry(env, "einvoice", async (run) => {
      const pglite = await PGlite.create(join(dataDir, "pglite"));
      try {
        return await run(async (sql, params) => (await pglite.query<Record<string, unknown>>(sql, params)).rows);
      } finally {
        await pglite.close();
      }
    }, { n: 80, rounds: 1 });
  }, 300_000);
});

type Sql = (sql: string, params: unknown[]) => Promise<any[]>;

/**
 * Bursts 200 submissions, each with its own Idempotency-Key, at a server; kills it (SIGKILL) once a
 * quarter is answered; ends the keys' 60-second lock in the database (as if the retries came a
 * minute later); starts the server again and sends every request again with its key and bytes.
 * Each answered request is replayed; each cut-off one gets the submission it made before the kill
 * (or a new one if it made none), never a "failed" duplicate; one submission per request in the end.
 * A kill lands between storing a submission and keeping its key's answer only for some keys: with
 * `rounds` above 1, burst again until one did (and fail if none did). On PGlite, which runs one
 * statement at a time, the requests go through one by one and the window is one statement wide: one
 * round, the kill at a random moment of a request, and the window not required (the crash between
 * the two steps is simulated exactly in packages/express/test/idempotency.test.ts).
 */
async function killBurstAndRetry(
  env: Record<string, string | undefined>,
  schema: string,
  database: <T>(run: (sql: Sql) => Promise<T>) => Promise<T>,
  { n, rounds }: { n: number; rounds: number },
) {
  let cutAfterInsert = 0;
  for (let round = 0; round < rounds && cutAfterInsert === 0; round++) {
    const first = await startServer(env);
    const { apiKey, companyId } = await eligibleAccount(first.base, ADMIN);
    const requests = Array.from({ length: n }, (_, i) => {
      const number = `KILL-${round}-${i}-${randomUUID()}`;
      return { key: randomUUID(), number, payload: JSON.stringify({ xml: invoiceB64(number, `BUYER${i}`) }) };
    });
    const answers = new Map<string, Awaited<ReturnType<typeof submit>>>();
    const answeredAt: number[] = [];
    const burst = requests.map((r) =>
      submit(first.base, apiKey, r.payload, r.key)
        .then((a) => void (answers.set(r.key, a), answeredAt.push(performance.now())))
        .catch(() => undefined), // cut off by the kill
    );
    await waitFor("a part of the burst to be answered", async () => (answers.size >= n / 4 ? true : undefined), 60_000, 5);
    // At a random moment of the requests under way: up to the mean time between two answers.
    const gap = (answeredAt.at(-1)! - answeredAt[0]!) / Math.max(1, answeredAt.length - 1);
    await new Promise((r) => setTimeout(r, Math.random() * gap));
    await first.kill();
    await Promise.all(burst);

    // What the kill left: submissions stored (by invoice number) and keys never answered. Then the locks end.
    const { stored, open } = await database(async (sql) => {
      const invoices = await sql(`SELECT invoice_number, id::text AS id FROM ${schema}.invoices WHERE company_id = $1`, [companyId]);
      const keys = await sql(`SELECT key FROM ${schema}.idempotency_keys WHERE company_id = $1 AND response_status IS NULL`, [companyId]);
      await sql(`UPDATE ${schema}.idempotency_keys SET locked_until = created_at WHERE company_id = $1 AND response_status IS NULL`, [companyId]);
      return { stored: new Map(invoices.map((r) => [r.invoice_number as string, r.id as string])), open: new Set(keys.map((r) => r.key as string)) };
    });
    cutAfterInsert += requests.filter((r) => open.has(r.key) && stored.has(r.number)).length;

    const second = await startServer(env);
    try {
      for (let i = 0; i < requests.length; i += 20) {
        await Promise.all(
          requests.slice(i, i + 20).map(async (r) => {
            const again = await submit(second.base, apiKey, r.payload, r.key);
            const before = answers.get(r.key);
            if (before?.status === 200) {
              expect(again).toEqual({ status: 200, replayed: "true", body: before.body });
            } else {
              // Cut off: the submission made before the kill, or a new one if none was; never a duplicate.
              expect([r.number, again.status, again.body.data?.status]).toEqual([r.number, 200, "sending"]);
              if (stored.has(r.number)) expect(again.body.data.submissionId).toBe(stored.get(r.number));
            }
          }),
        );
      }
    } finally {
      await second.kill();
    }
    // One submission per request, none failed.
    const counts = await database((sql) =>
      sql(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'failed')::int AS failed, count(DISTINCT invoice_number)::int AS numbers FROM ${schema}.invoices WHERE company_id = $1`,
        [companyId],
      ),
    );
    expect(counts[0]).toEqual({ n, failed: 0, numbers: n });
  }
  if (rounds > 1) expect(cutAfterInsert).toBeGreaterThan(0);
}
