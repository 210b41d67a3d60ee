// The store conformance suite and the regressions on embedded PGlite: one in-memory database, a fresh schema per test.
import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { sampleCompany, sampleInvoiceRecord, testDeliveryStore, testInboxStore, testStore, testWebhookStore, testWorkerFairness } from "@einvoice/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeDatabaseUrl, fromPGlite, openPostgresStore, postgresStore } from "../src/index.js";
import { testInbox } from "./support/inbox.js";
import { testRegressions } from "./support/regressions.js";

let pglite: PGlite;
let n = 0;

beforeAll(async () => {
  pglite = await PGlite.create();
  // Far from UTC, so that a timestamp read in the session's zone would show.
  await pglite.exec("SET TIME ZONE 'Pacific/Chatham'");
});
afterAll(async () => {
  await pglite.close();
});

testStore("postgres on PGlite", () => postgresStore({ db: fromPGlite(pglite), schema: `suite_${++n}` }));

testDeliveryStore("PGlite, two stores on one database", async () => {
  const schema = `delivery_${++n}`;
  const a = await postgresStore({ db: fromPGlite(pglite), schema });
  const b = await postgresStore({ db: fromPGlite(pglite), schema });
  return { a, b, close: async () => {} };
});

testInboxStore("PGlite", () => postgresStore({ db: fromPGlite(pglite), schema: `inboxsuite_${++n}` }));

testWebhookStore("PGlite", () => postgresStore({ db: fromPGlite(pglite), schema: `webhooks_${++n}` }));

testWorkerFairness("PGlite", () => postgresStore({ db: fromPGlite(pglite), schema: `fairness_${++n}` }));

testRegressions("PGlite", () => ({
  connect: () => fromPGlite(pglite),
  schema: () => `regression_${++n}`,
}));

testInbox(
  "PGlite",
  () => ({ connect: () => fromPGlite(pglite), schema: () => `inbox_${++n}` }),
  { concurrent: true },
);

describe("openPostgresStore", () => {
  it("keeps what was stored in its data folder across a close and a reopen", async () => {
    const root = await mkdtemp(join(tmpdir(), "einvoice-pglite-"));
    const dataDir = join(root, "nested", "data");
    try {
      const first = await openPostgresStore({ dataDir });
      expect(first.description).toBe(`embedded PGlite in ${dataDir}`);
      expect((await readdir(dataDir)).sort()).toEqual(["lock", "pglite"]);
      const company = sampleCompany();
      const account = { id: crypto.randomUUID(), email: "keep@example.com", companyId: company.id, createdAt: company.createdAt };
      const apiKey = { id: crypto.randomUUID(), companyId: company.id, prefix: "p", hash: "00", createdAt: company.createdAt, lastUsedAt: null, revokedAt: null, name: "ERP production" };
      expect(await first.store.createAccount({ account, company, apiKey })).toEqual({ created: true });
      await first.close();

      const second = await openPostgresStore({ dataDir });
      try {
        expect(await second.store.getCompany(company.id)).toEqual(company);
        expect(await second.store.getApiKey(apiKey.id)).toEqual(apiKey);
        // The email is still taken after the restart.
        const other = sampleCompany();
        expect(
          await second.store.createAccount({
            account: { ...account, id: crypto.randomUUID(), companyId: other.id },
            company: other,
            apiKey: { ...apiKey, id: crypto.randomUUID(), companyId: other.id },
          }),
        ).toEqual({ created: false, reason: "email_taken" });
      } finally {
        await second.close();
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 60_000);

  it("keeps a second opener off a data folder in use, and lets it in once the first closed", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "einvoice-lock-"));
    try {
      const first = await openPostgresStore({ dataDir });
      await expect(openPostgresStore({ dataDir })).rejects.toThrow(/in use by this process.*DATABASE_URL/);
      await first.close();
      await first.close(); // closing twice is harmless
      const second = await openPostgresStore({ dataDir });
      await second.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it("refuses a data folder locked by another live process, and takes over the lock of a process that is gone", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "einvoice-lock-"));
    try {
      // The parent of this test process is alive.
      await writeFile(join(dataDir, "lock"), JSON.stringify({ pid: process.ppid, host: hostname() }));
      await expect(openPostgresStore({ dataDir })).rejects.toThrow(new RegExp(`in use by process ${process.ppid}`));
      // Another host's lock cannot be checked from here: refused too.
      await writeFile(join(dataDir, "lock"), JSON.stringify({ pid: 1, host: "elsewhere.example" }));
      await expect(openPostgresStore({ dataDir })).rejects.toThrow(/on host elsewhere\.example/);
      // A process that has exited (a crash, say) left its lock behind.
      const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
      await writeFile(join(dataDir, "lock"), JSON.stringify({ pid: Number(gone.stdout), host: hostname() }));
      const opened = await openPostgresStore({ dataDir });
      await opened.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it("opens PGlite in memory without a data folder, and its store is unusable after close", async () => {
    const opened = await openPostgresStore({});
    expect(opened.description).toMatch(/in memory/);
    expect(await opened.store.getCompany(crypto.randomUUID())).toBeNull();
    await opened.close();
    await expect(opened.store.getCompany(crypto.randomUUID())).rejects.toThrow();
  }, 60_000);

  it("describes a database URL without its password", () => {
    expect(describeDatabaseUrl("postgres://app:hunter2@db.internal:6543/einvoice?sslmode=require")).toBe("PostgreSQL at db.internal:6543/einvoice");
    expect(describeDatabaseUrl("not a url with hunter2")).not.toContain("hunter2");
  });
});

describe("prepared writes on PGlite", () => {
  /** A new company (with its account and a key) in `store`. */
  async function companyIn(store: Awaited<ReturnType<typeof postgresStore>>) {
    const company = sampleCompany();
    const at = company.createdAt;
    const apiKey = { id: crypto.randomUUID(), companyId: company.id, prefix: "einv_x", hash: "ab".repeat(32), createdAt: at, lastUsedAt: null, revokedAt: null };
    await store.createAccount({ account: { id: crypto.randomUUID(), email: `${crypto.randomUUID()}@example.com`, companyId: company.id, createdAt: at }, company, apiKey });
    return company;
  }
  const client = (i: number) => ({ id: crypto.randomUUID(), key: `0208:c${i}`, endpointId: `0208:C${i}`, name: "Buyer", vatId: null, country: "BE" });
  /** The names of the prepared writes of accepted submissions (every read and write is prepared: issue 44). */
  const preparedNames = async (db: PGlite) =>
    (
      await db.query<{ name: string }>("SELECT name FROM pg_prepared_statements WHERE name LIKE 'einvoice%' AND statement LIKE '%insert_accepted%' ORDER BY name")
    ).rows.map((r) => r.name);

  it("an accepted submission is written by a statement prepared once for the instance, and read back the same", async () => {
    const db = await PGlite.create();
    try {
      const store = await postgresStore({ db: fromPGlite(db), schema: "prepared" });
      const company = await companyIn(store);
      expect(await preparedNames(db)).toEqual([]);
      const first = sampleInvoiceRecord(company.id);
      const written = await store.insertSubmission({ invoice: first, document: new Uint8Array(Buffer.from("<Invoice/>")), client: client(1) });
      expect(written.inserted).toBe(true);
      const names = await preparedNames(db);
      expect(names).toHaveLength(1);
      for (let i = 0; i < 3; i++) expect((await store.insertSubmission({ invoice: sampleInvoiceRecord(company.id), document: null, client: client(1) })).inserted).toBe(true);
      expect(await preparedNames(db)).toEqual(names);
      // What the prepared write stored reads back as written, the client's id included.
      const read = await store.getInvoice(company.id, first.id);
      expect(read).toEqual(written.inserted ? written.invoice : null);
      expect(Buffer.from((await store.getDocument(company.id, first.id))!).toString()).toBe("<Invoice/>");
      expect(await store.listClients(company.id, { limit: 10, after: null })).toEqual([expect.objectContaining({ key: "0208:c1", invoiceCount: 4 })]);
      // The duplicate rule holds through it.
      expect(await store.insertSubmission({ invoice: { ...first, id: crypto.randomUUID() }, document: null, client: null })).toEqual({ inserted: false, duplicateOf: first.id });
    } finally {
      await db.close();
    }
  });

  it("prepares the write again after DEALLOCATE ALL, and two drivers on one instance share it", async () => {
    const db = await PGlite.create();
    try {
      const a = await postgresStore({ db: fromPGlite(db), schema: "shared" });
      const b = await postgresStore({ db: fromPGlite(db), schema: "shared" });
      const company = await companyIn(a);
      expect((await a.insertSubmission({ invoice: sampleInvoiceRecord(company.id), document: null, client: null })).inserted).toBe(true);
      expect((await b.insertSubmission({ invoice: sampleInvoiceRecord(company.id), document: null, client: null })).inserted).toBe(true);
      await db.exec("DEALLOCATE ALL");
      expect(await preparedNames(db)).toEqual([]);
      expect((await a.insertSubmission({ invoice: sampleInvoiceRecord(company.id), document: null, client: null })).inserted).toBe(true);
      expect((await b.insertSubmission({ invoice: sampleInvoiceRecord(company.id), document: null, client: null })).inserted).toBe(true);
      expect(await preparedNames(db)).toHaveLength(1);
      expect(await a.listInvoices(company.id, { limit: 10, after: null, status: null, clientId: null })).toHaveLength(4);
    } finally {
      await db.close();
    }
  });

  it("prepares every read and write once, in and out of transactions, and gives each column the value PGlite's query gives", async () => {
    const db = await PGlite.create();
    try {
      const driver = fromPGlite(db);
      const sql = `SELECT $1::integer + 1 AS n, $2::text AS s, true AS b, '{"x":[1,"2"]}'::jsonb AS j, 7::bigint AS big, 1.50::numeric AS dec,
        '2026-01-02T03:04:05.678Z'::timestamptz AS at, '\\x0102ff'::bytea AS bytes, NULL::text AS nothing, ARRAY[1,2]::integer[] AS arr`;
      const viaQuery = (await db.query(sql, [41, "a"])).rows;
      const all = async () => (await db.query<{ n: number }>("SELECT count(*)::integer AS n FROM pg_prepared_statements WHERE name LIKE 'einvoice%'")).rows[0]!.n;
      expect(await all()).toBe(0);
      expect((await driver.query(sql, [41, "a"])).rows).toEqual(viaQuery);
      expect(await all()).toBe(1);
      expect(await driver.transaction(async (tx) => (await tx.query(sql, [41, "a"])).rows)).toEqual(viaQuery);
      expect((await driver.query(sql, [41, "a"])).rows).toEqual(viaQuery);
      // One statement for its text, whoever ran it; DDL and transaction control are not prepared.
      await driver.query("CREATE TABLE t (id integer PRIMARY KEY)");
      await driver.transaction(async (tx) => {
        await tx.query("INSERT INTO t (id) VALUES ($1)", [1]);
        await tx.query("INSERT INTO t (id) VALUES ($1)", [2]);
      });
      expect(await all()).toBe(2);
      // A failed statement in a transaction rolls it back, and the driver goes on.
      await expect(driver.transaction((tx) => tx.query("INSERT INTO t (id) VALUES ($1)", [3]).then(() => tx.query("INSERT INTO t (id) VALUES ($1)", [1])))).rejects.toMatchObject({ code: "23505" });
      expect((await driver.query<{ id: number }>("SELECT id FROM t ORDER BY id")).rows).toEqual([{ id: 1 }, { id: 2 }]);
    } finally {
      await db.close();
    }
  });

  it("waits for a transaction in progress instead of running inside it: the write stays when that transaction rolls back", async () => {
    const db = await PGlite.create();
    try {
      const driver = fromPGlite(db);
      const store = await postgresStore({ db: driver, schema: "locks" });
      const company = await companyIn(store);
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let entered!: () => void;
      const inside = new Promise<void>((r) => (entered = r));
      const tx = driver
        .transaction(async (t) => {
          await t.query("SELECT 1");
          entered();
          await held;
          throw new Error("roll back");
        })
        .catch((e: Error) => e.message);
      await inside;
      const invoice = sampleInvoiceRecord(company.id);
      let done = false;
      const write = store.insertSubmission({ invoice, document: null, client: null }).then((r) => ((done = true), r));
      await new Promise((r) => setTimeout(r, 50));
      expect(done).toBe(false);
      release();
      expect(await tx).toBe("roll back");
      expect((await write).inserted).toBe(true);
      expect((await store.getInvoice(company.id, invoice.id))?.id).toBe(invoice.id);
    } finally {
      await db.close();
    }
  });
});
