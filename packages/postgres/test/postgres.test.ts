// The store conformance suite and the regressions on a PostgreSQL server (DATABASE_URL), each run in its own schemas.
import { randomBytes } from "node:crypto";
import { sampleCompany, sampleInvoiceRecord, testDeliveryStore, testInboxStore, testStore, testWebhookStore, testWorkerFairness } from "@einvoice/core/testing";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Company } from "@einvoice/core";
import { fromPg, openPostgresStore, postgresStore, statementName, type PgPoolLike, type PostgresStore } from "../src/index.js";
import { testInbox } from "./support/inbox.js";
import { testRegressions } from "./support/regressions.js";

const DATABASE_URL = process.env.DATABASE_URL;

describe.skipIf(!DATABASE_URL)("PostgreSQL server (DATABASE_URL)", () => {
  const prefix = `einvoice_test_${randomBytes(5).toString("hex")}`;
  const schemas: string[] = [];
  /** Pools made by the test running now; ended after it. */
  let testPools: pg.Pool[] = [];
  let shared: pg.Pool;
  let reached = false;

  function newPool(max = 10): pg.Pool {
    // Far from UTC, so that a timestamp read in the session's zone would show.
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max, connectionTimeoutMillis: 5_000, options: "-c TimeZone=Pacific/Chatham" });
    pool.on("error", () => {});
    return pool;
  }
  function newSchema(): string {
    const s = `${prefix}_${schemas.length + 1}`;
    schemas.push(s);
    return s;
  }

  beforeAll(async () => {
    shared = newPool();
    // Fails the whole block (it never skips) when DATABASE_URL is set but the server cannot be reached.
    const { rows } = await shared.query("SELECT current_setting('TimeZone') AS tz");
    expect(rows[0].tz).toBe("Pacific/Chatham");
    reached = true;
  });
  afterEach(async () => {
    const pools = testPools;
    testPools = [];
    await Promise.all(pools.map((p) => p.end()));
  });
  afterAll(async () => {
    if (!reached) {
      await shared?.end();
      return;
    }
    for (const s of schemas) await shared.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    const left = await shared.query("SELECT count(*)::integer AS n FROM pg_namespace WHERE nspname LIKE $1", [`${prefix}%`]);
    await shared.end();
    expect(left.rows[0].n).toBe(0);
  });

  testStore("postgres on a server", () => postgresStore({ db: fromPg(shared as unknown as PgPoolLike), schema: newSchema() }));

  // The same suite with the accepted write as a named prepared statement, on the same pool as the one
  // above: the two suites' schemas (other texts, other names) share its connections.
  testStore("postgres on a server, prepared writes", () => postgresStore({ db: fromPg(shared as unknown as PgPoolLike, { prepare: true }), schema: newSchema() }));

  describe("prepared writes", () => {
    /** A new company (with its account and a key) in `store`. */
    async function companyIn(store: PostgresStore): Promise<Company> {
      const company = sampleCompany();
      const at = company.createdAt;
      const apiKey = { id: crypto.randomUUID(), companyId: company.id, prefix: "einv_x", hash: "ab".repeat(32), createdAt: at, lastUsedAt: null, revokedAt: null };
      await store.createAccount({ account: { id: crypto.randomUUID(), email: `${crypto.randomUUID()}@example.com`, companyId: company.id, createdAt: at }, company, apiKey });
      return company;
    }

    it("two stores in two schemas on one connection each prepare their own write, and the duplicate rule holds through it", async () => {
      const pool = newPool(1);
      testPools.push(pool);
      const stores = [];
      for (let i = 0; i < 2; i++) stores.push(await postgresStore({ db: fromPg(pool as unknown as PgPoolLike, { prepare: true }), schema: newSchema() }));
      for (const store of stores) {
        const company = await companyIn(store);
        const invoice = sampleInvoiceRecord(company.id);
        const first = await store.insertSubmission({ invoice, document: new Uint8Array([60, 97, 47, 62]), client: null });
        expect(first.inserted).toBe(true);
        const again = await store.insertSubmission({ invoice: { ...invoice, id: crypto.randomUUID() }, document: null, client: null });
        expect(again).toEqual({ inserted: false, duplicateOf: invoice.id });
        expect((await store.getInvoice(company.id, invoice.id))?.sha256).toBe(invoice.sha256);
      }
      // Both writes are prepared on the pool's one connection, under two names.
      const { rows } = await pool.query("SELECT name FROM pg_prepared_statements WHERE name LIKE 'einvoice%' ORDER BY name");
      expect(rows.map((r: { name: string }) => r.name)).toHaveLength(2);
      expect(new Set(rows.map((r: { name: string }) => r.name)).size).toBe(2);
    });

    it("a statement that fails (a duplicate submission's unique violation) gives its connection back to the pool: the same backend serves the next one", async () => {
      const pool = newPool(1);
      testPools.push(pool);
      const db = fromPg(pool as unknown as PgPoolLike);
      const store = await postgresStore({ db, schema: newSchema() });
      const company = await companyIn(store);
      const invoice = sampleInvoiceRecord(company.id);
      expect((await store.insertSubmission({ invoice, document: null, client: null })).inserted).toBe(true);
      const backend = async () => (await db.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
      const before = await backend();
      expect(await store.insertSubmission({ invoice: { ...invoice, id: crypto.randomUUID() }, document: null, client: null })).toEqual({ inserted: false, duplicateOf: invoice.id });
      await expect(db.query("SELECT 1/0")).rejects.toMatchObject({ name: "DbError", code: "22012" });
      expect(await backend()).toBe(before);
      expect(pool.totalCount).toBe(1);
    });

    it("a connection that dies while its statement runs fails that statement with its code, and the process goes on: the pool opens another for the next", async () => {
      // node-postgres's client emits "error" as well as failing the statement: with no listener while
      // the driver holds the client, that error ended the process (an outage cut the server's
      // database connections under a running statement). Vitest fails the run on such an uncaught error.
      const pool = newPool(1);
      testPools.push(pool);
      const db = fromPg(pool as unknown as PgPoolLike, { prepare: true });
      const backend = async () => (await db.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
      const before = await backend();
      await expect(db.query("SELECT pg_terminate_backend(pg_backend_pid())")).rejects.toMatchObject({ name: "DbError", code: "57P01" });
      const after = await backend();
      expect(after).not.toBe(before);
      expect(pool.totalCount).toBe(1);
    });

    it("a connection that dies inside a transaction, during a statement or between two, fails the transaction and the process goes on", async () => {
      const pool = newPool(1);
      testPools.push(pool);
      const db = fromPg(pool as unknown as PgPoolLike);
      await expect(db.transaction((tx) => tx.query("SELECT pg_terminate_backend(pg_backend_pid())"))).rejects.toMatchObject({ name: "DbError", code: "57P01" });
      await expect(
        db.transaction(async (tx) => {
          const pid = (await tx.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
          // Ended from another connection while this transaction holds its client, with no statement running.
          await shared.query("SELECT pg_terminate_backend($1)", [pid]);
          const gone = Date.now() + 10_000;
          while ((await shared.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [pid])).rows.length > 0 && Date.now() < gone) await new Promise((r) => setTimeout(r, 20));
          await new Promise((r) => setTimeout(r, 50));
          return tx.query("SELECT 1");
        }),
      ).rejects.toMatchObject({ name: "DbError" });
      expect((await db.query<{ one: number }>("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
      expect(pool.totalCount).toBe(1);
    });

    it("without prepare (the default) nothing is prepared", async () => {
      const pool = newPool(1);
      testPools.push(pool);
      const store = await postgresStore({ db: fromPg(pool as unknown as PgPoolLike), schema: newSchema() });
      const company = await companyIn(store);
      expect((await store.insertSubmission({ invoice: sampleInvoiceRecord(company.id), document: null, client: null })).inserted).toBe(true);
      expect((await pool.query("SELECT count(*)::integer AS n FROM pg_prepared_statements")).rows[0].n).toBe(0);
    });

    it("names a statement by its text: the same text one name, another text another, within PostgreSQL's 63 characters", () => {
      const a = statementName('SELECT "a".insert_accepted($1)::text');
      expect(a).toMatch(/^einvoice_[0-9a-f]{24}$/);
      expect(statementName('SELECT "a".insert_accepted($1)::text')).toBe(a);
      expect(statementName('SELECT "b".insert_accepted($1)::text')).not.toBe(a);
    });
  });

  testRegressions("PostgreSQL server", () => ({
    connect: () => {
      const pool = newPool();
      testPools.push(pool);
      return fromPg(pool as unknown as PgPoolLike);
    },
    schema: newSchema,
  }));

  testInbox(
    "PostgreSQL server",
    () => ({
      connect: () => {
        const pool = newPool();
        testPools.push(pool);
        return fromPg(pool as unknown as PgPoolLike);
      },
      schema: newSchema,
    }),
    { concurrent: true },
  );

  testInboxStore("PostgreSQL server", async () => {
    const pool = newPool();
    testPools.push(pool);
    return postgresStore({ db: fromPg(pool as unknown as PgPoolLike), schema: newSchema() });
  });

  testWebhookStore("PostgreSQL server", async () => {
    const pool = newPool();
    testPools.push(pool);
    return postgresStore({ db: fromPg(pool as unknown as PgPoolLike), schema: newSchema() });
  });

  testWorkerFairness("PostgreSQL server", async () => {
    const pool = newPool();
    testPools.push(pool);
    return postgresStore({ db: fromPg(pool as unknown as PgPoolLike), schema: newSchema() });
  });

  testDeliveryStore("PostgreSQL server, two stores on two pools", async () => {
    const schema = newSchema();
    const poolA = newPool();
    const poolB = newPool();
    testPools.push(poolA, poolB);
    const a = await postgresStore({ db: fromPg(poolA as unknown as PgPoolLike), schema });
    const b = await postgresStore({ db: fromPg(poolB as unknown as PgPoolLike), schema });
    return { a, b, close: async () => {} };
  });

  describe("openPostgresStore", () => {
    it("opens a pool on the URL, describes it without credentials and closes it", async () => {
      const schema = newSchema();
      const opened = await openPostgresStore({ databaseUrl: DATABASE_URL, schema });
      try {
        const u = new URL(DATABASE_URL!);
        expect(opened.description).toBe(`PostgreSQL at ${u.hostname}${u.port ? `:${u.port}` : ""}${u.pathname}`);
        if (u.password) expect(opened.description).not.toContain(u.password);
        expect(opened.store.schema).toBe(schema);
        expect(await opened.store.getCompany(crypto.randomUUID())).toBeNull();
      } finally {
        await opened.close();
      }
      await expect(opened.store.getCompany(crypto.randomUUID())).rejects.toThrow();
    });

    it("fails to open, with the connection error and nothing else, when the server is not there", async () => {
      const u = new URL(DATABASE_URL!);
      u.port = "1";
      u.password = "hunter2";
      const error = await openPostgresStore({ databaseUrl: u.toString(), schema: newSchema() }).then(
        () => null,
        (e: unknown) => e as Error,
      );
      expect(error?.name).toBe("DbError");
      expect(error?.message).toMatch(/ECONNREFUSED|connect/);
      expect(error?.message).not.toContain("hunter2");
    });
  });
});
