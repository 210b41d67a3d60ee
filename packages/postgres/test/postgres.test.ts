// The store conformance suite and the regressions on a PostgreSQL server (DATABASE_URL), each run in its own schemas.
import { randomBytes } from "node:crypto";
import { testDeliveryStore, testStore, testWebhookStore } from "@einvoice/core/testing";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { fromPg, openPostgresStore, postgresStore, type PgPoolLike } from "../src/index.js";
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

  testRegressions("PostgreSQL server", () => ({
    connect: () => {
      const pool = newPool();
      testPools.push(pool);
      return fromPg(pool as unknown as PgPoolLike);
    },
    schema: newSchema,
  }));

  testWebhookStore("PostgreSQL server", async () => {
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
