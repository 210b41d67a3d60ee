// Opens the example server's store from its environment (contract section 5): PGlite in DATA_DIR, or DATABASE_URL.
import type { DeliveryStore, InboxStore, Store, WebhookStore } from "@einvoice/core";
import { openPostgresStore } from "@einvoice/postgres";

export interface StoreConfig {
  /** Folder of the embedded store (PGlite), created when missing. */
  dataDir: string;
  /** A PostgreSQL server instead of the embedded store. */
  databaseUrl: string | undefined;
  /** The PostgreSQL schema (DATABASE_SCHEMA); default `einvoice`. */
  schema?: string | undefined;
}

export interface OpenedStore {
  /** The storage port, and the dispatcher's queue, the webhook events and the inbox on the same database. */
  store: Store & DeliveryStore & WebhookStore & InboxStore;
  /** One line for the start-up output, such as "embedded PGlite in ./data". Never a password. */
  description: string;
  close(): Promise<void>;
}

/**
 * The embedded PGlite database in `dataDir` by default (one server process per folder: a lock
 * file keeps a second one out), or the PostgreSQL server at `databaseUrl`, which any number of
 * server instances can share. Either way the schema is migrated before this resolves.
 */
export async function openStore(config: StoreConfig): Promise<OpenedStore> {
  const opened = config.databaseUrl
    ? await openPostgresStore({
        databaseUrl: config.databaseUrl,
        ...(config.schema ? { schema: config.schema } : {}),
        // The pool drops a broken idle connection and reconnects; say so, without the URL.
        onPoolError: (e) => console.error(`store: a PostgreSQL connection failed (${(e as { code?: string }).code ?? e.name}); reconnecting on next use`),
      })
    : await openPostgresStore({ dataDir: config.dataDir });
  return { store: opened.store, description: opened.description, close: opened.close };
}
