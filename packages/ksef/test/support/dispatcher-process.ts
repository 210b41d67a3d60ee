// Test support: a dispatcher as a process of its own (started by crash.test.ts with tsx), delivering
// the ksef route with ksefNetwork on a PostgreSQL store. Environment: DATABASE_URL, DATABASE_SCHEMA,
// KSEF_URL, KSEF_NIP, KSEF_TOKEN. Prints "ready" once it runs; killed with SIGKILL by the test.
import { createDispatcher } from "@einvoice/core";
import { openPostgresStore } from "@einvoice/postgres";
import { ksefNetwork } from "../../src/index.js";

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};

const { store } = await openPostgresStore({ databaseUrl: env("DATABASE_URL"), schema: env("DATABASE_SCHEMA") });
const ksef = ksefNetwork({ baseUrl: env("KSEF_URL"), credentials: { nip: env("KSEF_NIP"), token: env("KSEF_TOKEN") }, pollIntervalMs: 50, statusTimeoutMs: 120_000, upoTimeoutMs: 5_000 });
const dispatcher = createDispatcher({ store, networks: { ksef }, leaseMs: 1_500, pollIntervalMs: 100, retry: { baseDelayMs: 100, maxDelayMs: 500, maxAttempts: 20 } });
dispatcher.start();
process.stdout.write("ready\n");
