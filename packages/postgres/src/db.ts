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
   * Ignored otherwise. PGlite prepares every read and write of the store anyway (`fromPGlite`).
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
  /**
   * The database cannot be reached now (the port's `unavailable` signal, see the core's
   * `StoreUnavailableError`): the connection was refused, lost or timed out, the server is shutting
   * down or starting, or the embedded database is closed. The core answers 503 `storage_unavailable`.
   */
  readonly unavailable: boolean;

  constructor(message: string, code?: string, constraint?: string, unavailable = false) {
    super(message);
    this.code = code;
    this.constraint = constraint;
    this.unavailable = unavailable;
  }
}

/**
 * The driver errors that mean the database cannot be reached now, not that a statement failed:
 * SQLSTATE class 08 (connection exception), 57P01-57P03 (the server is shutting down, crashed or
 * starting), 53300 (too many connections), a Node socket or DNS error (ECONNREFUSED, ECONNRESET,
 * ETIMEDOUT, EHOSTUNREACH, EAI_AGAIN, ...), and the drivers' own errors without a code, known by their
 * words: node-postgres's lost connection, connection timeout and ended pool, a closed PGlite.
 */
function isUnavailable(code: string | undefined, message: string): boolean {
  if (code !== undefined) return /^08|^57P0[1-3]$|^53300$|^E[A-Z_]+$/.test(code);
  return /Connection terminated|timeout exceeded when trying to connect|connection timeout|not queryable|Cannot use a pool after calling end|PGlite is closed/i.test(message);
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
    const code = str(o.code);
    return new DbError(message, code, str(o.constraint), isUnavailable(code, message));
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
   * `pg.Pool` does. (`fromPGlite` ignores it: on PGlite every read and write is prepared.)
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

/** The options of PGlite's `query` that the driver uses: serializers of parameters by type OID. */
export interface PGliteQueryOptions {
  serializers?: Record<number, (x: unknown) => string>;
}

/** The parts of a PGlite instance (or a PGlite transaction) that the driver uses. */
export interface PGliteQueryableLike {
  query<T>(sql: string, params?: unknown[], options?: PGliteQueryOptions): Promise<{ rows: T[] }>;
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
  const prepared = preparedPGlite(pglite);
  const db: Db = {
    query: <R extends Row>(sql: string, params: readonly unknown[] = []) =>
      guarded(async () => {
        if (prepared !== null) {
          const rows = await prepared.run(sql, params, false);
          if (rows !== null) return { rows: rows as R[] };
        }
        return { rows: (await pgliteQuery<R>(pglite, sql, params)).rows };
      }),

    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      // What `fn` throws goes back unchanged; only PGlite's own failures (BEGIN, COMMIT) are converted.
      let thrownByFn: { error: unknown } | undefined;
      try {
        return await pglite.transaction(async (t) => {
          try {
            return await fn({
              query: <R extends Row>(sql: string, params: readonly unknown[] = []) =>
                guarded(async () => {
                  if (prepared !== null) {
                    // Inside the transaction, which holds PGlite's transaction lock: the statement takes the query lock only.
                    const rows = await prepared.run(sql, params, true);
                    if (rows !== null) return { rows: rows as R[] };
                  }
                  return { rows: (await pgliteQuery<R>(t, sql, params)).rows };
                }),
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

/**
 * PGlite's `query` options for parameters that hold bytes: bytea (type 17) sent as its hex text
 * (`\x…`, read back exactly), written by Node's native hex encoder. PGlite's own bytea serializer
 * makes a string per byte in JavaScript: a bare INSERT of a 9 KiB document took 0.94 ms through it
 * against 0.38 ms as hex text.
 */
const BYTES_AS_HEX: PGliteQueryOptions = {
  serializers: {
    17: (x: unknown) => {
      if (!(x instanceof Uint8Array)) throw new DbError("a bytea parameter must be a Uint8Array");
      return `\\x${Buffer.from(x.buffer, x.byteOffset, x.byteLength).toString("hex")}`;
    },
  },
};

/** `q.query` of PGlite, with BYTES_AS_HEX when a parameter holds bytes. */
function pgliteQuery<R>(q: PGliteQueryableLike, sql: string, params: readonly unknown[]): Promise<{ rows: R[] }> {
  return params.some((v) => v instanceof Uint8Array) ? q.query<R>(sql, [...params], BYTES_AS_HEX) : q.query<R>(sql, [...params]);
}

/** A backend message as PGlite parses it: a data row has its fields as text (or null), a row description its columns. */
interface PGliteMessage {
  name: string;
  fields?: unknown[];
}

/** What PGlite (0.2 and later) offers for running statements of the wire protocol itself. */
interface PGliteProtocolLike {
  execProtocol(message: Uint8Array, options?: { syncToFs?: boolean; throwOnError?: boolean }): Promise<{ messages: PGliteMessage[] }>;
  /** PGlite's own locks, which its `query` takes: no transaction and no other statement runs meanwhile. */
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>;
  /** What PGlite's `query` checks first: the instance is ready, not closed ("PGlite is closed"). */
  _checkReady?(): Promise<void>;
  /** The instance's own parsers by type OID (PGlite.create's `parsers`), which its `query` uses. */
  parsers?: Record<number, (x: string, typeId?: number) => unknown>;
}

/** The wire protocol's message builders, as `@electric-sql/pglite` exports them (`protocol.serialize`). */
interface ProtocolSerialize {
  parse(query: { name?: string; text: string; types?: number[] }): Uint8Array;
  /** A Uint8Array value goes in the binary format (for a bytea parameter), a string in text. */
  bind(config: { portal?: string; statement?: string; values?: (string | Uint8Array | null)[] }): Uint8Array;
  describe(config: { type: "S" | "P"; name?: string }): Uint8Array;
  execute(config?: { portal?: string; rows?: number }): Uint8Array;
  sync(): Uint8Array;
}

/** PGlite's text-to-value conversion of a column (`types.parseType`), the one its `query` applies. */
type ParseType = (value: string | null, typeId: number, parsers?: Record<number, (x: string, typeId?: number) => unknown>) => unknown;

/** The names of the statements prepared on each PGlite instance (by any driver of this package). */
const preparedOn = new WeakMap<object, Set<string>>();

/** How many statement texts one instance gets prepared; any further text runs through `query` (parsed and planned at each call). */
const MAX_PREPARED = 256;

/**
 * The statements the driver prepares: the store's reads and writes (SELECT, INSERT, UPDATE, DELETE,
 * WITH), never transaction control, DDL or a SET, which run as they are through `query`.
 */
const PREPARABLE = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b/i;

/**
 * Named prepared statements on PGlite: every read and write of the store is parsed (and, for a
 * generic plan, planned) once for the instance, then each call is one message of Bind, Describe,
 * Execute and Sync, its columns converted by PGlite's own parsers from their type OIDs, exactly as
 * `query` converts them. PGlite's `query` sends Parse, Describe, Bind, Describe, Execute and Sync as
 * six calls into its WebAssembly and plans the statement again each time: under the mixed load of
 * issue 44 that was about as much main-thread time as the statements' own work (the dispatcher's fair
 * claim, a recursive query, cost 13 ms a call with nothing to claim: parsing and planning).
 * Outside a transaction under the same two locks as PGlite's `query`; inside one (which holds the
 * transaction lock) under the query lock only, without syncing the files per statement, as PGlite's
 * own statements in a transaction do. Null when the instance lacks the protocol methods (then statements
 * run through `query`).
 */
function preparedPGlite(pglite: PGliteLike): { run(sql: string, params: readonly unknown[], inTransaction: boolean): Promise<Row[] | null> } | null {
  const raw = pglite as unknown as Partial<PGliteProtocolLike>;
  if (typeof raw.execProtocol !== "function" || typeof raw._runExclusiveTransaction !== "function" || typeof raw._runExclusiveQuery !== "function") return null;
  const pg = raw as PGliteProtocolLike;
  /** PGlite's message builders and type parser, loaded at the first prepared statement; false when they cannot be (then `query` runs everything). */
  let lib: { serialize: ProtocolSerialize; parseType: ParseType } | false | null = null;
  /**
   * Names of the statements prepared on this instance, shared by every driver on it: a Parse of a name
   * already there fails, and inside a transaction that failure would abort the transaction.
   */
  let ready = preparedOn.get(pglite);
  if (!ready) preparedOn.set(pglite, (ready = new Set<string>()));
  const names = ready;
  const exec = (parts: Uint8Array[], syncToFs: boolean) => pg.execProtocol(Buffer.concat(parts), { syncToFs });
  /** Prepares `name` unless this driver has: a statement of that name already there (another driver on the instance) is the same text, by its name. */
  const prepare = async (ser: ProtocolSerialize, name: string, sql: string, syncToFs: boolean): Promise<void> => {
    if (names.has(name)) return;
    try {
      await exec([ser.parse({ name, text: sql }), ser.sync()], syncToFs);
    } catch (e) {
      if (toDbError(e).code !== "42P05") throw e;
    }
    names.add(name);
  };
  return {
    async run(sql, params, inTransaction) {
      if (!PREPARABLE.test(sql)) return null;
      const values = textValues(params);
      if (values === null) return null;
      if (lib === null) {
        try {
          const m = (await import("@electric-sql/pglite")) as unknown as { protocol: { serialize: ProtocolSerialize }; types: { parseType: ParseType } };
          lib = typeof m.types?.parseType === "function" && m.protocol?.serialize ? { serialize: m.protocol.serialize, parseType: m.types.parseType } : false;
        } catch {
          lib = false;
        }
      }
      if (lib === false) return null;
      const { serialize: ser, parseType } = lib;
      const name = statementName(sql);
      if (!names.has(name) && names.size >= MAX_PREPARED) return null;
      const syncToFs = !inTransaction;
      // As PGlite's query does: a closed instance says so ("PGlite is closed": unavailable).
      await pg._checkReady?.();
      const statement = async () => {
        const call = () => exec([ser.bind({ statement: name, values }), ser.describe({ type: "P" }), ser.execute({}), ser.sync()], syncToFs);
        await prepare(ser, name, sql, syncToFs);
        let result: { messages: PGliteMessage[] };
        try {
          result = await call();
        } catch (e) {
          // Deallocated behind the driver's back (DEALLOCATE, DISCARD ALL): prepared again, once. (Inside
          // a transaction the failed Bind has aborted it: the error goes to the caller, and the next
          // statement outside a transaction prepares it again.)
          if (toDbError(e).code !== "26000") throw e;
          names.delete(name);
          if (inTransaction) throw e;
          await prepare(ser, name, sql, syncToFs);
          result = await call();
        }
        // Columns by name, converted from their type as PGlite's query converts them.
        let columns: string[] = [];
        let typeIds: number[] = [];
        const rows: Row[] = [];
        for (const m of result.messages) {
          if (m.name === "rowDescription") {
            const fields = m.fields as { name: string; dataTypeID: number }[];
            columns = fields.map((f) => f.name);
            typeIds = fields.map((f) => f.dataTypeID);
          } else if (m.name === "dataRow") {
            const row: Row = {};
            for (let i = 0; i < columns.length; i++) {
              const v = (m.fields?.[i] ?? null) as string | null;
              row[columns[i]!] = v === null ? null : parseType(v, typeIds[i]!, pg.parsers);
            }
            rows.push(row);
          }
        }
        return rows;
      };
      return inTransaction ? pg._runExclusiveQuery(statement) : pg._runExclusiveTransaction(() => pg._runExclusiveQuery(statement));
    },
  };
}

/**
 * Parameters as the protocol's text format, bytes (a bytea parameter) as they are, in the binary
 * format: null for any value that has no such form here (the caller then uses `query`).
 */
function textValues(params: readonly unknown[]): (string | Uint8Array | null)[] | null {
  const out: (string | Uint8Array | null)[] = new Array(params.length);
  for (let i = 0; i < params.length; i++) {
    const v = params[i];
    if (v === null || v === undefined) out[i] = null;
    else if (typeof v === "string") out[i] = v;
    else if (typeof v === "number" && Number.isFinite(v)) out[i] = String(v);
    else if (typeof v === "boolean") out[i] = v ? "t" : "f";
    else if (v instanceof Uint8Array) out[i] = v;
    else return null;
  }
  return out;
}
