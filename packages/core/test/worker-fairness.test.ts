// The queue workers' fairness on the memory store (PGlite and PostgreSQL: packages/postgres/test).
import { memoryStore } from "../src/index.js";
import { testWorkerFairness } from "../src/testing/index.js";

testWorkerFairness("memory", () => memoryStore());
