// The property tests (support/property-suite.ts) on a PostgreSQL server (DATABASE_URL), in a schema of their own:
// a database error caused by user input (a value PostgreSQL rejects) would show here as a 500.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { describe } from "vitest";
import { openStore } from "../../../examples/server/src/store.js";
import { propertySuite } from "./support/property-suite.js";

const DATABASE_URL = process.env.DATABASE_URL;

describe.skipIf(!DATABASE_URL)("PostgreSQL server (DATABASE_URL)", () => {
  propertySuite("postgres store", async () => {
    const schema = `einvoice_property_${randomBytes(5).toString("hex")}`;
    const opened = await openStore({ dataDir: "", databaseUrl: DATABASE_URL!, schema });
    return {
      store: opened.store,
      close: async () => {
        await opened.close();
        const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
        await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await pool.end();
      },
    };
  });
});
