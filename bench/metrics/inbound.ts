// inbound_ingest_vs_insert and inbound_linearity (issue 42): receiving on the SQL store, on the PostgreSQL server of
// DATABASE_URL when it is set (its own schemas, dropped after), else on PGlite in a temporary folder.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { judgeReceived, receiveDocument, receiveDocuments, type ReceivedDocument } from "../../packages/core/src/index.ts";
import { fromPg, fromPGlite, postgresStore, type Db, type PostgresStore } from "../../packages/postgres/src/index.ts";
import { baseExample, nlciusExample, withInvoiceId, xrechnungExample } from "../lib/corpus.ts";
import { eligibleCompany } from "../lib/setup.ts";
import { alternate, median, perCall, round } from "../lib/stats.ts";
import type { Metric } from "../run.ts";

const BATCH = 100;
const WARMUP = 500;
/** A network's page: KSeF's export packages and Storecove's queue hand over many documents at once. */
const PAGE = 50;

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

/** A page through `receiveDocuments`: read, judged, stored with suppliers and webhook events, one commit. */
const ingestPage = async (store: PostgresStore, companyId: string, docs: ReceivedDocument[]) => {
  const out = await receiveDocuments(store, docs.map((d) => ({ ...d, network: "peppol" as const, companyId })));
  if (out.some((o) => o.outcome !== "stored")) throw new Error("not all stored");
};

/**
 * inbound_ingest_vs_insert: documents stored a second from a network's page (`receiveDocuments` over a page of 50 real
 * UBL invoices: each read and judged once, stored as an inbound record with its supplier upsert and its
 * invoice.received event, deduplicated by reference; the page in one `insertInboundMany`, one commit) / bare
 * single-row INSERTs of the same bytes into a plain table, one at a time (a commit each), in turns in one run. The
 * note gives, for the record, the bare INSERTs 50 in one transaction and `receiveDocument` one at a time.
 */
async function ingestVsInsert(db: Db, schema: string, label: string): Promise<Metric> {
  const { store, companyId } = await receiver(db, schema);
  await db.query(`CREATE TABLE "${schema}".bench_bare (id uuid PRIMARY KEY, content bytea NOT NULL)`);
  const next = page("IN");
  let b = 0;
  const sample = Array.from({ length: 3 * PAGE }, next);
  const nextBare = () => sample[b++ % sample.length]!;
  // The bare INSERT in the faster of durable_vs_insert's two forms on this driver, picked in the warm-up.
  const forms = {
    "bytea parameter": (q: Pick<Db, "query"> = db) => q.query(`INSERT INTO "${schema}".bench_bare (id, content) VALUES ($1::uuid, $2::bytea)`, [randomUUID(), nextBare().content]),
    "hex text, decode() in SQL": (q: Pick<Db, "query"> = db) =>
      q.query(`INSERT INTO "${schema}".bench_bare (id, content) VALUES ($1::uuid, decode($2, 'hex'))`, [randomUUID(), Buffer.from(nextBare().content).toString("hex")]),
  };
  // Warm-up: pages and single documents (both paths' statements prepared, the worker pool and JIT warm).
  for (let i = 0; i < WARMUP / PAGE; i++) await ingestPage(store, companyId, Array.from({ length: PAGE }, next));
  await perCall(WARMUP / 5, () => ingest(store, companyId, next())());
  const formMs: Record<string, number> = {};
  for (let i = 0; i < 3; i++) for (const [name, form] of Object.entries(forms)) formMs[name] = Math.min(formMs[name] ?? Infinity, await perCall(WARMUP / 4, () => form()));
  const bareForm = (Object.keys(forms) as (keyof typeof forms)[]).sort((x, y) => formMs[x]! - formMs[y]!)[0]!;
  const bare = forms[bareForm];
  /** ms a document: `pages` pages of PAGE through receiveDocuments. */
  const pages = async (n: number): Promise<number> => {
    const docs = Array.from({ length: n * PAGE }, next);
    return (await perCall(n, (i) => ingestPage(store, companyId, docs.slice(i * PAGE, (i + 1) * PAGE)))) / PAGE;
  };
  // The read and the rules alone on the same documents, in the same turns (a third side): what no write can save.
  const judged: number[] = [];
  let j = 0;
  const judge = () => perCall(BATCH, () => judgeReceived(sample[j++ % sample.length]!.content));
  const r = await alternate({
    rounds: 12,
    warmup: 1,
    a: () => pages(2),
    b: async () => {
      judged.push(await judge());
      return perCall(BATCH, () => bare());
    },
  });
  // For the record, in turns of their own: bare INSERTs 50 in one transaction, and receiveDocument one at a time.
  const side = await alternate({
    rounds: 6,
    warmup: 1,
    a: async () => (await perCall(2, () => db.transaction((tx) => perCall(PAGE, () => bare(tx))))) / PAGE,
    b: async () => {
      const docs = Array.from({ length: BATCH }, next);
      return perCall(BATCH, (i) => ingest(store, companyId, docs[i]!)());
    },
  });
  // Received again (a redelivered page): the duplicates' cost, for the record.
  const again = sample.slice(0, PAGE);
  await ingestPage(store, companyId, again);
  const duplicateMs =
    (await perCall(2, async () => {
      const out = await receiveDocuments(store, again.map((d) => ({ ...d, network: "peppol" as const, companyId })));
      if (out.some((o) => o.outcome !== "duplicate")) throw new Error("not duplicates");
    })) / PAGE;
  const ratio = median(r.b.map((x, i) => x / r.a[i]!));
  const judgeMs = median(judged.slice(1));
  const pageMs = median(r.a);
  const bareMs = median(r.b);
  const bareTxMs = median(side.a);
  const singleMs = median(side.b);
  const bytes = Math.round(sample.slice(0, 3).reduce((s, d) => s + d.content.length, 0) / 3);
  return {
    value: round(ratio),
    goal: ">= 0.5",
    ok: ratio >= 0.5,
    note:
      `${label}: receiveDocuments over pages of ${PAGE} ${round(1000 / pageMs, 0)} documents/s (${round(pageMs, 3)} ms a document: read, judged, stored with supplier and webhook event, one commit a page) ` +
      `vs bare INSERT of the same bytes (${bytes} B on average) one at a time ${round(1000 / bareMs, 0)}/s (${round(bareMs, 3)} ms; ${bareForm}); ` +
      `for the record: bare INSERTs ${PAGE} in one transaction ${round(1000 / bareTxMs, 0)}/s (${round(bareTxMs, 3)} ms a row; against it the page path's ratio is ${round(bareTxMs / pageMs, 2)}), ` +
      `receiveDocument one at a time (a commit each) ${round(1000 / singleMs, 0)}/s (${round(singleMs, 3)} ms: ratio ${round(bareMs / singleMs, 2)} against the bare INSERT); ` +
      `reading and judging alone ${round(judgeMs, 3)} ms a document; a page received again ${round(duplicateMs, 3)} ms a duplicate`,
  };
}

/**
 * inbound_linearity: the ingest time of a document, in pages of 50 through `receiveDocuments` as a backlog arrives,
 * into a store that holds 10,000 inbound records of the company (with their suppliers' rows, documents and webhook
 * events) / into one that holds 1,000, in turns.
 */
async function linearity(db: Db, schemas: [string, string], label: string): Promise<Metric> {
  const small = await receiver(db, schemas[0]);
  const large = await receiver(db, schemas[1]);
  const next = page("LIN");
  // Seeded as a backlog arrives: pages through receiveDocuments.
  const seed = async (r: { store: PostgresStore; companyId: string }, n: number) => {
    for (let i = 0; i < n; i += 100) await ingestPage(r.store, r.companyId, Array.from({ length: Math.min(100, n - i) }, next));
  };
  await seed(small, 1_000);
  await seed(large, 10_000);
  // Settled, as a store is between bursts: the seeding's dead row versions (each document updates its supplier's row)
  // vacuumed and the statistics fresh, so that neither side pays for the seeding (a server's autovacuum would run
  // during the rounds otherwise; PGlite has none).
  for (const s of schemas) await db.query(`VACUUM ANALYZE "${s}".invoices, "${s}".suppliers, "${s}".documents, "${s}".webhook_events`);
  const r = await alternate({
    rounds: 14,
    warmup: 1,
    a: async () => {
      const docs = Array.from({ length: 2 * PAGE }, next);
      return (await perCall(2, (i) => ingestPage(large.store, large.companyId, docs.slice(i * PAGE, (i + 1) * PAGE)))) / PAGE;
    },
    b: async () => {
      const docs = Array.from({ length: 2 * PAGE }, next);
      return (await perCall(2, (i) => ingestPage(small.store, small.companyId, docs.slice(i * PAGE, (i + 1) * PAGE)))) / PAGE;
    },
  });
  return {
    value: round(r.ratio),
    goal: "<= 1.15",
    ok: r.ratio <= 1.15,
    note: `${label}: a document received into a store holding 10,000 inbound records ${round(median(r.a), 3)} ms vs 1,000 ${round(median(r.b), 3)} ms (a document of a page of ${PAGE} through receiveDocuments; 2 pages a round)`,
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
