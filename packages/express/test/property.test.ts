// The property tests (support/property-suite.ts) on the memory store; property-postgres.test.ts runs them on PostgreSQL.
import { memoryStore } from "@einvoice/core";
import { propertySuite } from "./support/property-suite.js";

propertySuite("memory store", async () => ({ store: memoryStore(), close: async () => {} }));
