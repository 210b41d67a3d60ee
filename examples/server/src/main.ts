// Starts the example server: `pnpm start` at the repository root.
// Environment: PORT, DATA_DIR, DATABASE_URL (DATABASE_SCHEMA), ADMIN_TOKEN; delivery: STORECOVE_API_KEY and STORECOVE_URL.
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { resolve } from "node:path";
import { createApp } from "./app.js";
import { startDelivery } from "./delivery.js";
import { openStore, type OpenedStore } from "./store.js";

function fatal(message: string): never {
  console.error(`einvoice example server: ${message}`);
  process.exit(1);
}

const port = Number(process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 0 || port > 65535) fatal(`PORT must be a port number, not ${JSON.stringify(process.env.PORT)}.`);
// pnpm runs the script in examples/server; a relative DATA_DIR means where `pnpm start` was typed.
const baseDir = process.env.INIT_CWD || process.cwd();
const dataDir = resolve(baseDir, process.env.DATA_DIR || "./data");
const databaseUrl = process.env.DATABASE_URL || undefined;
const generatedToken = !process.env.ADMIN_TOKEN;
const adminToken = process.env.ADMIN_TOKEN || randomBytes(24).toString("base64url");
if (adminToken.length < 16) fatal("ADMIN_TOKEN must be at least 16 characters long.");
const storecove =
  process.env.STORECOVE_API_KEY && process.env.STORECOVE_URL ? { apiKey: process.env.STORECOVE_API_KEY, baseUrl: process.env.STORECOVE_URL } : undefined;
const leaseMs = process.env.DISPATCH_LEASE_MS ? Number(process.env.DISPATCH_LEASE_MS) : undefined;
const sandboxDelayMs = process.env.SANDBOX_DELAY_MS ? Number(process.env.SANDBOX_DELAY_MS) : undefined;

const log = (level: string) => (obj: Record<string, unknown>, msg: string) =>
  process.stderr.write(JSON.stringify({ level, time: new Date().toISOString(), msg, ...obj }) + "\n");
const logger = { error: log("error"), info: log("info") };

let opened: OpenedStore;
try {
  opened = await openStore({ dataDir, databaseUrl, schema: process.env.DATABASE_SCHEMA || undefined });
} catch (e) {
  fatal(`the store could not be opened: ${e instanceof Error ? e.message : String(e)}`);
}
const delivery = process.env.DISPATCHER === "off" ? null : startDelivery(opened.store, { storecove, leaseMs, sandboxDelayMs }, logger);
const app = createApp({ store: opened.store, adminToken, logger });
const server = app.listen(port, "0.0.0.0");
server.once("error", (e: NodeJS.ErrnoException) => fatal(e.code === "EADDRINUSE" ? `port ${port} is in use; set PORT to another.` : `cannot listen: ${e.message}`));
await once(server, "listening");
const address = server.address();
const actualPort = typeof address === "object" && address ? address.port : port;
const base = `http://localhost:${actualPort}`;

console.log(`einvoice example server on ${base}, store: ${opened.description}`);
console.log(`delivery: ${delivery ? delivery.description : "off (DISPATCHER=off): run a dispatcher elsewhere"}`);
if (generatedToken) console.log(`ADMIN_TOKEN was not set; this run's admin token: ${adminToken}`);
console.log(`Quickstart (see README.md):
  1. curl -s -X POST ${base}/v1/accounts -H 'content-type: application/json' -d '{"email":"you@example.com","companyName":"Acme","country":"NL"}'
  2. curl -s -X PATCH ${base}/admin/companies/$COMPANY_ID -H "authorization: Bearer $ADMIN_TOKEN" -H 'content-type: application/json' -d '{"enterprise":true,"subscription":"pro","legalEntityId":"12345","peppolSendingEnabled":true}'
  3. curl -s -X POST ${base}/v1/peppol/invoice -H "authorization: Bearer $API_KEY" -H 'content-type: application/json' -d "{\\"xml\\":\\"$(base64 -w0 invoice.xml)\\"}"`);

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping`);
  server.close();
  server.closeIdleConnections?.();
  await delivery?.dispatcher.stop();
  await opened.close();
  process.exit(0);
}
process.on("SIGTERM", () => void stop("SIGTERM"));
process.on("SIGINT", () => void stop("SIGINT"));
