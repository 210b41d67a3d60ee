// postgresStore: the storage ports on PostgreSQL (a server through `pg`, or embedded PGlite), one
// file per port (store-port.ts, delivery-store.ts, webhook-store.ts), the row mapping in rows.ts.
// No business rules here.
import type { DeliveryStore, IdempotencyStore, InboxStore, Store, WebhookStore } from "@einvoice/core";
import type { Db } from "./db.js";
import { documentCompressionOf } from "./documents.js";
import { sqlDeliveryStore } from "./delivery-store.js";
import { sqlIdempotencyStore } from "./idempotency-store.js";
import { sqlInboxStore } from "./inbox-store.js";
import { migrate, quoteSchema, SCHEMA_VERSION } from "./migrations.js";
import { tablesOf, type StoreContext } from "./sql.js";
import { sqlStorePort } from "./store-port.js";
import { sqlWebhookStore } from "./webhook-store.js";

export interface PostgresStoreOptions {
  /** The database, through `fromPg(pool)` or `fromPGlite(pglite)`. */
  db: Db;
  /** The PostgreSQL schema that holds the tables; created when missing. Default `einvoice`. */
  schema?: string;
  /** Apply pending migrations before returning (default true). Pass false when you run `migrate` yourself. */
  migrate?: boolean;
}

export interface PostgresStore extends Store, DeliveryStore, WebhookStore, IdempotencyStore, InboxStore {
  readonly name: "postgres";
  /** The schema the store uses. */
  readonly schema: string;
  close(): Promise<void>;
}

/**
 * The storage ports on PostgreSQL. Applies the schema's pending migrations first (see `migrate`).
 * The duplicate rule lives in the database (a unique partial index on `(company_id, sha256)`
 * for submissions that have not failed), so any number of processes can share one database.
 *
 * @example
 * const store = await postgresStore({ db: fromPGlite(await PGlite.create("./data")) })
 * const store = await postgresStore({ db: fromPg(new pg.Pool({ connectionString: process.env.DATABASE_URL })) })
 */
export async function postgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const { db } = options;
  const schema = options.schema ?? "einvoice";
  const s = quoteSchema(schema);
  if (options.migrate !== false) await migrate(db, { schema });
  const t = tablesOf(s);
  const context: StoreContext = { db, t, documents: documentCompressionOf(db, t.documents) };
  let closed = false;
  return {
    name: "postgres",
    schema,
    ...sqlStorePort(context),
    ...sqlDeliveryStore(context),
    ...sqlWebhookStore(context),
    ...sqlIdempotencyStore(context),
    ...sqlInboxStore(context),
    async health() {
      // One small read: the connection works, and the schema has every migration this package needs.
      const { rows } = await db.query<{ version: number | string | null }>(`SELECT max(version) AS version FROM ${s}.schema_migrations`);
      return Number(rows[0]?.version ?? 0) >= SCHEMA_VERSION ? "ok" : "migrations_pending";
    },
    async close() {
      if (closed) return;
      closed = true;
      await db.close?.();
    },
  };
}
