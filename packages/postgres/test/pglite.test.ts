// The store conformance suite on embedded PGlite: one in-memory database, a fresh schema per test.
import { PGlite } from "@electric-sql/pglite";
import { testStore } from "@einvoice/core/testing";
import { afterAll, beforeAll } from "vitest";
import { fromPGlite, postgresStore } from "../src/index.js";

let pglite: PGlite;
let n = 0;

beforeAll(async () => {
  pglite = await PGlite.create();
});
afterAll(async () => {
  await pglite.close();
});

testStore("postgres on PGlite", () => postgresStore({ db: fromPGlite(pglite), schema: `suite_${++n}` }));
