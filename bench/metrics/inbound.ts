// inbound_ingest_vs_insert and inbound_linearity (issue 42): receiving on the SQL store, on the PostgreSQL server of
// DATABASE_URL when it is set (its own schemas, dropped after), else on PGlite in a temporary folder.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { judgeReceived, receiveDocument, type ReceivedDocument } from "../../packages/core/src/index.ts";
import { fromPg, fromPGlite, postgresStore, type Db, type PostgresStore } from "../../packages/postgres/src/index.ts";
import { baseExample, nlciusExample, withInvoiceId, xrechnungExample } from "../lib/corpus.ts";
import { eligibleCompany } from "../lib/setup.ts";
import { alternate, median, perCall, round } from "../lib/stats.ts";
import type { Metric } from "../run.ts";

const BATCH = 100;
const WARMUP = 500;

/** The corpus's real UBL invoices (BIS 3, XRechnung, NLCIUS), in turns, each with its own invoice number: a network's page. */
function page(prefix: string): () => ReceivedDocument {
  const sources = [baseExample(), xrechnungExample(), nlciusExample()];
  let n = 0;
  return () => {
    const xml = withInvoiceId(sources[n % sources.length]!, `${prefix}${String(++n).padStart(8, "0")}`);
    return { reference: { storecoveGuid: randomUUID() }, content: new Uint8Array(Buffer.from(xml)), mediaType: "application/xml" };
  };
}

/** A store on a schema of its own, a company receiving on it, and a webhook subscribed to invoice.received (its event is part of each write). */
async function receiver(db: Db, schema: string): Promise<{ store: PostgresStore; companyId: string }> {
  const store = await postgresStore({ db, schema });
  const { companyId } = await eligibleCompany(store, "Inbox BV");
  await store.insertWebhook({
    id: randomUUID(),
    companyId,
    url: "https://hooks.example.test/received",
    events: ["invoice.received"],
    secret: "whsec_bench_".padEnd(40, "x"),
    createdAt: new Date().toISOString(),
    deletedAt: null,
    previousSecret: null,
    previousSecretExpiresAt: null,
  });
  return { store, companyId };
}

const ingest = (store: PostgresStore, companyId: string, doc: ReceivedDocument) => async () => {
  const r = await receiveDocument(store, { ...doc, network: "peppol", companyId });
  if (r.outcome !== "stored") throw new Error(`not stored: ${r.outcome}`);
};

/**
 * inbound_ingest_vs_insert: documents stored a second by `receiveDocument` (read and judged once, stored as an inbound
 * record with its supplier upsert and its invoice.received event, deduplicated by reference: one `insertInbound`)
 * from a page of real UBL invoices / bare single-row INSERTs of the same bytes into a plain table, one at a time, in
 * turns in one run.
 */
async function ingestVsInsert(db: Db, schema: string, label: string): Promise<Metric> {
  const { store, companyId } = await receiver(db, schema);
  await db.query(`CREATE TABLE "${schema}".bench_bare (id uuid PRIMARY KEY, content bytea NOT NULL)`);
  const next = page("IN");
  const docs = Array.from({ length: WARMUP + 14 * BATCH }, next);
  let k = 0;
  let b = 0;
  const take = () => docs[k++ % docs.length]!;
  // The bare INSERT in the faster of durable_vs_insert's two forms on this driver, picked in the warm-up.
  const forms = {
    "bytea parameter": () => {
      const d = docs[b++ % docs.length]!;
      return db.query(`INSERT INTO "${schema}".bench_bare (id, content) VALUES ($1::uuid, $2::bytea)`, [randomUUID(), d.content]);
    },
    "hex text, decode() in SQL": () => {
      const d = docs[b++ % docs.length]!;
      return db.query(`INSERT INTO "${schema}".bench_bare (id, content) VALUES ($1::uuid, decode($2, 'hex'))`, [randomUUID(), Buffer.from(d.content).toString("hex")]);
    },
  };
  await perCall(WARMUP, () => ingest(store, companyId, take())());
  const formMs: Record<string, number> = {};
  for (let i = 0; i < 3; i++) for (const [name, form] of Object.entries(forms)) formMs[name] = Math.min(formMs[name] ?? Infinity, await perCall(WARMUP / 4, form));
  const bareForm = (Object.keys(forms) as (keyof typeof forms)[]).sort((x, y) => formMs[x]! - formMs[y]!)[0]!;
  const bare = forms[bareForm];
  // The read and the rules alone on the same documents, in the same turns (a third side): what no write can save.
  const judged: number[] = [];
  let j = 0;
  const judge = () => perCall(BATCH, () => judgeReceived(docs[j++ % docs.length]!.content));
  const r = await alternate({
    rounds: 12,
    warmup: 1,
    a: () => perCall(BATCH, () => ingest(store, companyId, take())()),
    b: async () => {
      judged.push(await judge());
      return perCall(BATCH, bare);
    },
  });
  // Received again (a redelivered page): the duplicate's cost, for the record.
  const again = docs.slice(0, BATCH);
  const duplicateMs = await perCall(BATCH, async (i) => {
    const d = again[i]!;
    const o = await receiveDocument(store, { ...d, network: "peppol", companyId });
    if (o.outcome !== "duplicate") throw new Error("not a duplicate");
  });
  const ratio = median(r.b.map((x, i) => x / r.a[i]!));
  const judgeMs = median(judged.slice(1));
  const bytes = Math.round(docs.slice(0, 3).reduce((s, d) => s + d.content.length, 0) / 3);
  return {
    value: round(ratio),
    goal: ">= 0.5",
    ok: ratio >= 0.5,
    note: `${label}: receiveDocument ${round(1000 / median(r.a), 0)}/s (${round(median(r.a), 2)} ms: read, judged, stored with supplier and webhook event) vs bare INSERT of the same bytes (${bytes} B on average) ${round(1000 / median(r.b), 0)}/s (${round(median(r.b), 2)} ms; ${bareForm}), one at a time; of the ${round(median(r.a), 2)} ms, reading and judging alone ${round(judgeMs, 2)} ms (${round(judgeMs / median(r.b), 2)}x the bare INSERT: with a write as cheap as the INSERT the ratio could be at most ${round(median(r.b) / (judgeMs + median(r.b)), 2)}); a duplicate received again ${round(duplicateMs, 2)} ms`,
  };
}

/**
 * inbound_linearity: the ingest time of a document into a store that holds 10,000 inbound records of the company
 * (with their suppliers' rows, documents and webhook events) / into one that holds 1,000, in turns.
 */
async function linearity(db: Db, schemas: [string, string], label: string): Promise<Metric> {
  const small = await receiver(db, schemas[0]);
  const large = await receiver(db, schemas[1]);
  const next = page("LIN");
  const seed = async (r: { store: PostgresStore; companyId: string }, n: number) => {
    for (let i = 0; i < n; i++) await ingest(r.store, r.companyId, next())();
  };
  await seed(small, 1_000);
  await seed(large, 10_000);
  // Settled, as a store is between bursts: the seeding's dead row versions (each document updates its supplier's row)
  // vacuumed and the statistics fresh, so that neither side pays for the seeding (a server's autovacuum would run
  // during the rounds otherwise; PGlite has none).
  for (const s of schemas) await db.query(`VACUUM ANALYZE "${s}".invoices, "${s}".suppliers, "${s}".documents, "${s}".webhook_events`);
  const BATCH_L = 50;
  const r = await alternate({
    rounds: 14,
    warmup: 1,
    a: async () => {
      const docs = Array.from({ length: BATCH_L }, next);
      return perCall(BATCH_L, (i) => ingest(large.store, large.companyId, docs[i]!)());
    },
    b: async () => {
      const docs = Array.from({ length: BATCH_L }, next);
      return perCall(BATCH_L, (i) => ingest(small.store, small.companyId, docs[i]!)());
    },
  });
  return {
    value: round(r.ratio),
    goal: "<= 1.15",
    ok: r.ratio <= 1.15,
    note: `${label}: a document received into a store holding 10,000 inbound records ${round(median(r.a), 3)} ms vs 1,000 ${round(median(r.b), 3)} ms (${BATCH_L} a round)`,
  };
}

export async function inboundMetrics(): Promise<Record<string, Metric>> {
  const out: Record<string, Metric> = {};
  if (process.env.DATABASE_URL) {
    const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
    const schemas = [`bench_inbound_${process.pid}`, `bench_inbound_${process.pid}_1k`, `bench_inbound_${process.pid}_10k`];
    try {
      const db = fromPg(pool);
      out.inbound_ingest_vs_insert = await ingestVsInsert(db, schemas[0]!, "PostgreSQL");
      out.inbound_linearity = await linearity(db, [schemas[1]!, schemas[2]!], "PostgreSQL");
    } finally {
      for (const s of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
      await pool.end();
    }
    return out;
  }
  const dir = mkdtempSync(join(tmpdir(), "einvoice-bench-inbound-"));
  try {
    // PGlite on disk, as the example server runs it.
    const pglite = await PGlite.create(join(dir, "pglite"));
    const db = fromPGlite(pglite);
    out.inbound_ingest_vs_insert = await ingestVsInsert(db, "bench", "PGlite");
    out.inbound_linearity = await linearity(db, ["bench_1k", "bench_10k"], "PGlite");
    await pglite.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
