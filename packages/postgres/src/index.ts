// @einvoice/postgres: the storage port of @einvoice/core on PostgreSQL, a server or embedded PGlite.
export { postgresStore, type PostgresStore, type PostgresStoreOptions } from "./store.js";
export { openPostgresStore, describeDatabaseUrl, type OpenPostgresStoreOptions, type OpenedPostgresStore } from "./open.js";
export {
  fromPg,
  statementName,
  fromPGlite,
  DbError,
  type Db,
  type Queryable,
  type QueryOptions,
  type Row,
  type DriverOptions,
  type PgPoolLike,
  type PgClientLike,
  type PGliteLike,
  type PGliteQueryableLike,
} from "./db.js";
export { MissingDriverError, DRIVER_PACKAGES, type DriverPackage } from "./drivers.js";
export { migrate, MIGRATIONS, SCHEMA_VERSION, type Migration, type MigrateResult } from "./migrations.js";
