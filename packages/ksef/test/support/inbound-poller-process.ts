// Test support: an inbound poller as a process of its own (started by inbound-crash.test.ts with tsx), receiving the
// invoices of the companies with KSeF credentials with ksefInbound on a PostgreSQL store. Environment: DATABASE_URL,
// DATABASE_SCHEMA, KSEF_URL, KSEF_TOKEN_KEY (the tokenCipher's key), KSEF_SINCE, POLLER_OWNER, LEASE_MS. Prints "ready"
// once it runs, and one line for each run's start and end ("run start <scope> <epoch ms>", "run end <scope> <epoch ms>"),
// so that the test sees where and when each company's sync ran; killed with SIGKILL by the test.
import { createInboundPoller, tokenCipher, type InboundSource } from "@einvoice/core";
import { openPostgresStore } from "@einvoice/postgres";
import { fa3Syntax, ksefInbound } from "../../src/index.js";

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};

// Limits far above the fake's (which are high too): the test is about crashes, not about waiting for KSeF's hour.
const high = { perSecond: 10_000, perMinute: 100_000, perHour: 1_000_000 };
const { store } = await openPostgresStore({ databaseUrl: env("DATABASE_URL"), schema: env("DATABASE_SCHEMA") });
const inner = ksefInbound({
  baseUrl: env("KSEF_URL"),
  since: env("KSEF_SINCE"),
  intervalMs: 200,
  limits: { metadata: high, download: high, export: high },
  pollIntervalMs: 20,
  requestTimeoutMs: 10_000,
  statusTimeoutMs: 10_000,
  exportWaitMs: 0,
  exportPollMs: 50,
  ...(process.env.KSEF_PAGE_SIZE ? { pageSize: Number(process.env.KSEF_PAGE_SIZE) } : {}),
});
const source: InboundSource = {
  name: inner.name,
  network: inner.network,
  scope: inner.scope,
  appliesTo: inner.appliesTo!,
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
const poller = createInboundPoller({
  store,
  sources: [{ source, intervalMs: 200 }],
  owner: env("POLLER_OWNER"),
  leaseMs: Number(env("LEASE_MS")),
  pollIntervalMs: 100,
  tokenCipher: tokenCipher(env("KSEF_TOKEN_KEY")),
  receive: { syntaxes: [fa3Syntax] },
  logger,
});
poller.start();
process.stdout.write("ready\n");
