// Test support: an inbound poller as a process of its own (started by inbound-crash.test.ts with tsx), draining
// Storecove's pull queue with storecoveInbound on a PostgreSQL store. Environment: DATABASE_URL, DATABASE_SCHEMA,
// STORECOVE_URL, STORECOVE_API_KEY, POLLER_OWNER, LEASE_MS. Prints "ready" once it runs, and one line for each run's
// start and end ("run start <scope> <epoch ms>", "run end <scope> <epoch ms>"), so that the test sees where runs were
// made; killed with SIGKILL by the test.
import { createInboundPoller, type InboundSource } from "@einvoice/core";
import { openPostgresStore } from "@einvoice/postgres";
import { storecoveInbound } from "../../src/index.js";

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};

const { store } = await openPostgresStore({ databaseUrl: env("DATABASE_URL"), schema: env("DATABASE_SCHEMA") });
const inner = storecoveInbound({ baseUrl: env("STORECOVE_URL"), apiKey: env("STORECOVE_API_KEY"), intervalMs: 100, checkpointEveryMs: 200, timeoutMs: 10_000 });
const source: InboundSource = {
  name: inner.name,
  network: inner.network,
  scope: inner.scope,
  async run(ctx) {
    process.stdout.write(`run start ${ctx.scope} ${Date.now()}\n`);
    try {
      return await inner.run(ctx);
    } finally {
      process.stdout.write(`run end ${ctx.scope} ${Date.now()}\n`);
    }
  },
};
const log = (level: string) => (obj: Record<string, unknown>, msg: string) => process.stderr.write(`${level} ${msg} ${JSON.stringify(obj)}\n`);
const logger = { error: log("error"), warn: log("warn"), info: log("info") };
const poller = createInboundPoller({ store, sources: [{ source, intervalMs: 100 }], owner: env("POLLER_OWNER"), leaseMs: Number(env("LEASE_MS")), pollIntervalMs: 50, logger });
poller.start();
process.stdout.write("ready\n");
