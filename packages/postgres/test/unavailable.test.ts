// A database that cannot be reached is reported as such: the store's errors carry `unavailable: true`
// (the core then answers 503 storage_unavailable), and only for a connection that failed, not for an error of SQL.
import { randomBytes } from "node:crypto";
import net from "node:net";
import { PGlite } from "@electric-sql/pglite";
import { sampleCompany, sampleInboundRecord } from "@einvoice/core/testing";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { fromPGlite, fromPg, postgresStore } from "../src/index.js";

const DATABASE_URL = process.env.DATABASE_URL;

/** What a failed call rejected with. */
const failure = (p: Promise<unknown>) => p.then(() => { throw new Error("it did not fail"); }, (e: unknown) => e as { unavailable?: unknown; code?: unknown; name?: unknown });

describe("PGlite", () => {
  it("a closed PGlite is unavailable; an error of SQL is not", async () => {
    const pglite = await PGlite.create();
    const store = await postgresStore({ db: fromPGlite(pglite), schema: "gone" });
    expect((await failure(fromPGlite(pglite).query("SELEC 1"))).unavailable).toBe(false);
    await pglite.close();
    const e = await failure(store.getCompany(sampleCompany().id));
    expect(e).toMatchObject({ name: "DbError", unavailable: true });
    expect((await failure(store.listApiKeys(sampleCompany().id))).unavailable).toBe(true);
    // The receiving side too: a source must then stop without acknowledging anything.
    const inbound = sampleInboundRecord(sampleCompany().id);
    expect(await failure(store.insertInbound({ invoice: inbound, content: new Uint8Array([60]), supplier: null, notify: true }))).toMatchObject({ name: "DbError", unavailable: true });
    expect((await failure(store.claimInboundSyncs({ source: "ksef", owner: "a", now: inbound.createdAt, leaseUntil: inbound.createdAt, limit: 1 }))).unavailable).toBe(true);
    expect((await failure(store.setParticipantIds(sampleCompany().id, ["0106:1"], inbound.createdAt))).unavailable).toBe(true);
  });
});

describe.skipIf(!DATABASE_URL)("PostgreSQL server (DATABASE_URL)", () => {
  const name = `einvoice_away_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
  afterAll(async () => {
    await admin.end();
  });

  it("a server nothing listens on (connection refused) is unavailable", async () => {
    const free = net.createServer();
    await new Promise<void>((r) => free.listen(0, "127.0.0.1", r));
    const port = (free.address() as net.AddressInfo).port;
    await new Promise<void>((r) => free.close(() => r()));
    const nowhere = new URL(DATABASE_URL!);
    nowhere.hostname = "127.0.0.1";
    nowhere.port = String(port);
    const pool = new pg.Pool({ connectionString: nowhere.toString(), connectionTimeoutMillis: 2_000 });
    try {
      const e = await failure(fromPg(pool).query("SELECT 1"));
      expect(e).toMatchObject({ name: "DbError", code: "ECONNREFUSED", unavailable: true });
      expect((await failure(fromPg(pool).transaction((tx) => tx.query("SELECT 1")))).unavailable).toBe(true);
    } finally {
      await pool.end();
    }
  });

  it("a connection terminated by the server (pg_terminate_backend, 57P01) is unavailable; an error of SQL on a live one is not", async () => {
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2, application_name: name });
    pool.on("error", () => {});
    const db = fromPg(pool);
    try {
      expect(await failure(db.query("SELEC 1"))).toMatchObject({ code: "42601", unavailable: false });
      const sleeping = failure(db.query("SELECT pg_sleep(30)"));
      // Terminate it from a second connection once it runs.
      for (let i = 0; i < 100; i++) {
        const { rows } = await admin.query(`SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'SELECT pg_sleep%'`, [name]);
        if (rows.length > 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(await sleeping).toMatchObject({ code: "57P01", unavailable: true });
    } finally {
      await pool.end();
    }
  });
});
