// openPostgresStore: one call that opens PGlite in a folder, or a pg Pool on a DATABASE_URL.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fromPg, fromPGlite, type Db, type PGliteLike, type PgPoolLike } from "./db.js";
import { loadDriver } from "./drivers.js";
import { lockDataDir } from "./lock.js";
import { postgresStore, type PostgresStore } from "./store.js";

export interface OpenPostgresStoreOptions {
  /**
   * Folder of the embedded store (created when missing): PGlite's files go in `<dataDir>/pglite`,
   * and `<dataDir>/lock` keeps a second process out. Without it and without `databaseUrl`: PGlite in memory.
   */
  dataDir?: string;
  /** A PostgreSQL server (`postgres://user:password@host:5432/db`); when given, `dataDir` is not used. */
  databaseUrl?: string;
  /** The PostgreSQL schema of the tables. Default `einvoice`. */
  schema?: string;
  /** Connections of the pool (PostgreSQL server only). Default 10. */
  maxConnections?: number;
  /** Errors of idle pooled connections (the pool drops them and reconnects). Default: ignored. */
  onPoolError?: (error: Error) => void;
  /**
   * PostgreSQL server only: run the write of every accepted submission as a named prepared statement
   * (`fromPg`'s `prepare`). Default false: not through a pooler in transaction mode that does not keep prepared statements.
   */
  prepare?: boolean;
}

export interface OpenedPostgresStore {
  store: PostgresStore;
  /** One line for start-up output, without credentials, such as `embedded PGlite in ./data`. */
  description: string;
  /** Closes the store and its database. */
  close(): Promise<void>;
}

/** `postgres://user:secret@host:5432/db?x=y` -> `PostgreSQL at host:5432/db` (never the password). */
export function describeDatabaseUrl(databaseUrl: string): string {
  try {
    const u = new URL(databaseUrl);
    const where = `${u.hostname || "localhost"}${u.port ? `:${u.port}` : ""}${u.pathname && u.pathname !== "/" ? u.pathname : ""}`;
    return `PostgreSQL at ${where}`;
  } catch {
    return "PostgreSQL (connection string not shown)";
  }
}

/**
 * Opens the store the way a server wants it: PGlite in `dataDir` when no `databaseUrl` is given,
 * otherwise a `pg` Pool on the server. Migrates the schema before returning. `pg` and
 * `@electric-sql/pglite` are optional peer dependencies: install the one you use. Each is imported
 * only here, when a store is opened on it; a missing one is a `MissingDriverError` naming the
 * `npm install` command.
 *
 * @example
 * const { store, description, close } = await openPostgresStore({ dataDir: "./data", databaseUrl: process.env.DATABASE_URL })
 */
export async function openPostgresStore(options: OpenPostgresStoreOptions = {}): Promise<OpenedPostgresStore> {
  let db: Db;
  let description: string;
  let release = async (): Promise<void> => {};
  if (options.databaseUrl) {
    const pg = (await loadDriver("pg", () => import("pg"))).default;
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.maxConnections ?? 10,
      // A server that does not answer fails the start (and a request) after 30 s instead of hanging.
      connectionTimeoutMillis: 30_000,
      keepAlive: true,
    });
    // An idle connection that drops emits "error" on the pool; unhandled, that would end the process.
    pool.on("error", (e) => options.onPoolError?.(e));
    db = fromPg(pool as unknown as PgPoolLike, { owned: true, prepare: options.prepare === true });
    description = describeDatabaseUrl(options.databaseUrl);
  } else {
    const { PGlite } = await loadDriver("@electric-sql/pglite", () => import("@electric-sql/pglite"));
    let pglite: PGliteLike;
    if (options.dataDir) {
      await mkdir(options.dataDir, { recursive: true });
      release = await lockDataDir(options.dataDir);
      try {
        pglite = await PGlite.create(join(options.dataDir, "pglite"));
      } catch (e) {
        await release();
        throw e;
      }
      description = `embedded PGlite in ${options.dataDir}`;
    } else {
      pglite = await PGlite.create();
      description = "embedded PGlite in memory (nothing survives the process)";
    }
    db = fromPGlite(pglite, { owned: true });
  }
  let store: PostgresStore;
  try {
    store = await postgresStore({ db, ...(options.schema ? { schema: options.schema } : {}) });
  } catch (e) {
    await db.close?.().catch(() => {});
    await release();
    throw e;
  }
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      try {
        await store.close();
      } finally {
        await release();
      }
    })());
  return { store, description, close };
}
