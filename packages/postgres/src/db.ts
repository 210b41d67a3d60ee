// The one tiny database interface the store speaks, and its two drivers: node-postgres and PGlite.
import { createHash } from "node:crypto";

/** A row as the driver returns it. */
export type Row = Record<string, unknown>;

/** Something that runs one SQL statement with `$1`-style parameters. */
export interface Queryable {
  query<R extends Row = Row>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<{ rows: R[] }>;
}

/** How a statement is run. */
export interface QueryOptions {
  /**
   * A statement the store runs on every submission, with a fixed text: a driver opened with
   * `prepare: true` runs it as a named prepared statement (parsed and planned once per connection).
   * Ignored otherwise, and by PGlite.
   */
  prepare?: boolean;
}

/**
 * A database: single statements, and transactions on one connection. `transaction` commits when
 * `fn` resolves and rolls back when it throws (rethrowing the error).
 *
 * Drivers turn the database's errors into `DbError`s (message and SQLSTATE only: never the SQL
 * text or its parameters).
 */
export interface Db extends Queryable {
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Called by `store.close()`; drivers set it only when the store owns the connection. */
  close?(): Promise<void>;
}

/**
 * An error of the database or of the connection to it. `code` is the SQLSTATE (such as `23505`)
 * or the system error code (such as `ECONNREFUSED`). Carries no SQL text, parameters or detail.
 */
export class DbError extends Error {
  override readonly name = "DbError";
  readonly code: string | undefined;
  /** The constraint that was violated, for integrity errors. */
  readonly constraint: string | undefined;

  constructor(message: string, code?: string, constraint?: string) {
    super(message);
    this.code = code;
    this.constraint = constraint;
  }
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** Rebuilds a driver's error without what must not travel (SQL text, parameters, row values in `detail`). */
export function toDbError(e: unknown): DbError {
  if (e instanceof DbError) return e;
  if (e && typeof e === "object") {
    const o = e as Record<string, unknown>;
    const message = str(o.message) ?? "database error";
    return new DbError(message, str(o.code), str(o.constraint));
  }
  return new DbError("database error");
}

async function guarded<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    throw toDbError(e);
  }
}

/** The parts of a node-postgres client that the driver uses. */
export interface PgClientLike {
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  release(err?: Error | boolean): void;
  /**
   * node-postgres's client is an EventEmitter that emits "error" when its connection dies, even
   * while a statement is running (the statement also fails). pg-pool listens only while the client
   * is idle in the pool; the driver listens while it holds the client, so that a lost connection
   * fails the statement instead of ending the process.
   */
  on?(event: "error", listener: (err: Error) => void): unknown;
  removeListener?(event: "error", listener: (err: Error) => void): unknown;
}

/**
 * A client of the pool, held for one statement or one transaction. `give` returns it to the pool,
 * or destroys it when a statement failed below SQL or its connection emitted "error" meanwhile.
 */
async function checkOut(pool: PgPoolLike): Promise<{ client: PgClientLike; give: (broken?: Error) => void }> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onError = (err: Error): void => {
    lost ??= err instanceof Error ? err : new Error("the connection failed");
  };
  client.on?.("error", onError);
  return {
    client,
    give(broken) {
      // pg-pool puts its own idle listener back in release(), before this one goes: the client is never without one.
      client.release(broken ?? lost);
      client.removeListener?.("error", onError);
    },
  };
}

/** The parts of a node-postgres `Pool` that the driver uses. */
export interface PgPoolLike {
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  connect(): Promise<PgClientLike>;
  end(): Promise<void>;
}

export interface DriverOptions {
  /** When true, `store.close()` also ends the pool / closes the database. Default false: it is yours. */
  owned?: boolean;
  /**
   * node-postgres only: run the store's statements that every submission runs (the write of an
   * accepted submission) as named prepared statements, parsed and planned once per connection
   * instead of at each call (on a local server 0.65 ms against 0.72 for the write,
   * docs/storage.md). Default false, because a pooler in transaction mode (PgBouncer before 1.21,
   * or without `max_prepared_statements`) does not keep a connection's prepared statements between
   * transactions. The pool must take node-postgres query configs (`{name, text, values}`), as
   * `pg.Pool` does.
   */
  prepare?: boolean;
}

/** A node-postgres query config: a named statement. */
interface PgNamedQuery {
  name: string;
  text: string;
  values: unknown[];
}

/** Runs `sql` on `q`, as a named statement when asked: its name is derived from its text, so one name is always one text. */
function pgQuery(q: Pick<PgPoolLike, "query">, sql: string, params: readonly unknown[], prepared: boolean): Promise<{ rows: unknown[] }> {
  if (!prepared) return q.query(sql, [...params]);
  const named: PgNamedQuery = { name: statementName(sql), text: sql, values: [...params] };
  return (q.query as unknown as (this: typeof q, config: PgNamedQuery) => Promise<{ rows: unknown[] }>).call(q, named);
}

const statementNames = new Map<string, string>();

/** `einvoice_` and 24 hex digits of the text's SHA-256: PostgreSQL's 63-character limit, and two stores on one pool (other schemas, other texts) never share a name. */
export function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (name === undefined) {
    name = `einvoice_${createHash("sha256").update(sql).digest("hex").slice(0, 24)}`;
    if (statementNames.size < 1024) statementNames.set(sql, name);
  }
  return name;
}

/**
 * The driver for a node-postgres `Pool` (package `pg`). Transactions take a client of the pool.
 *
 * @example const store = await postgresStore({ db: fromPg(new pg.Pool({ connectionString })) })
 */
export function fromPg(pool: PgPoolLike, options: DriverOptions = {}): Db {
  const prepare = options.prepare === true;
  const db: Db = {
    // On a client of the pool rather than through pool.query, which drops the connection on any error:
    // a statement that fails (a unique violation, as every duplicate submission's write does) leaves
    // its connection as usable as before, so it goes back to the pool; only a connection that failed
    // itself is dropped.
    query: <R extends Row>(sql: string, params: readonly unknown[] = [], run?: QueryOptions) =>
      guarded(async () => {
        const held = await checkOut(pool);
        let broken: Error | undefined;
        try {
          return { rows: (await pgQuery(held.client, sql, params, prepare && run?.prepare === true)).rows as R[] };
        } catch (e) {
          if (isConnectionError(toDbError(e))) broken = e instanceof Error ? e : new Error("the connection failed");
          throw e;
        } finally {
          held.give(broken);
        }
      }),

    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const held = await guarded(() => checkOut(pool));
      const client = held.client;
      let open = true;
      /** Set when the connection must be destroyed rather than returned to the pool. */
      let broken: Error | undefined;
      const tx: Queryable = {
        query: <R extends Row>(sql: string, params: readonly unknown[] = [], run?: QueryOptions) => {
          if (!open) return Promise.reject(new DbError("the transaction is over"));
          return guarded(async () => ({ rows: (await pgQuery(client, sql, params, prepare && run?.prepare === true)).rows as R[] }));
        },
      };
      try {
        await guarded(() => client.query("BEGIN"));
        let result: T;
        try {
          result = await fn(tx);
        } catch (e) {
          // What `fn` throws goes back unchanged (it may be the caller's own signal to roll back).
          open = false;
          try {
            await client.query("ROLLBACK");
          } catch (rollbackError) {
            broken = rollbackError instanceof Error ? rollbackError : new Error("rollback failed");
          }
          throw e;
        }
        open = false;
        await guarded(() => client.query("COMMIT"));
        return result;
      } catch (e) {
        if (!broken && isConnectionError(e)) broken = e as Error;
        throw e;
      } finally {
        open = false;
        held.give(broken);
      }
    },
  };
  if (options.owned) db.close = () => pool.end();
  return db;
}

/** Errors after which a pooled connection must not be reused (it failed below SQL). */
function isConnectionError(e: unknown): boolean {
  if (!(e instanceof DbError)) return false;
  // SQLSTATE class 08 (connection exception), 57P01..57P03 (shutdown), Node socket errors, and
  // node-postgres's own errors without a code ("Connection terminated unexpectedly").
  return e.code === undefined || /^08|^57P0|^E[A-Z]+$/.test(e.code);
}

/** The parts of a PGlite instance (or a PGlite transaction) that the driver uses. */
export interface PGliteQueryableLike {
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

/** The parts of an `@electric-sql/pglite` instance that the driver uses. */
export interface PGliteLike extends PGliteQueryableLike {
  transaction<T>(fn: (tx: PGliteQueryableLike) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * The driver for an `@electric-sql/pglite` instance (embedded PostgreSQL in WebAssembly). PGlite
 * runs one statement or transaction at a time, so every transaction is serialised.
 *
 * @example const store = await postgresStore({ db: fromPGlite(await PGlite.create("./data")) })
 */
export function fromPGlite(pglite: PGliteLike, options: DriverOptions = {}): Db {
  const db: Db = {
    query: <R extends Row>(sql: string, params: readonly unknown[] = []) =>
      guarded(async () => ({ rows: (await pglite.query<R>(sql, [...params])).rows })),

    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      // What `fn` throws goes back unchanged; only PGlite's own failures (BEGIN, COMMIT) are converted.
      let thrownByFn: { error: unknown } | undefined;
      try {
        return await pglite.transaction(async (t) => {
          try {
            return await fn({
              query: <R extends Row>(sql: string, params: readonly unknown[] = []) =>
                guarded(async () => ({ rows: (await t.query<R>(sql, [...params])).rows })),
            });
          } catch (e) {
            thrownByFn = { error: e };
            throw e;
          }
        });
      } catch (e) {
        if (thrownByFn && thrownByFn.error === e) throw e;
        throw toDbError(e);
      }
    },
  };
  if (options.owned) db.close = () => pglite.close();
  return db;
}
