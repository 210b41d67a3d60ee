// Starts the example server: `pnpm start` at the repository root. Environment: PORT, DATA_DIR, DATABASE_URL, ADMIN_TOKEN.
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { resolve } from "node:path";
import { createApp } from "./app.js";
import { openStore } from "./store.js";

const port = Number(process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number, not ${JSON.stringify(process.env.PORT)}`);
  process.exit(1);
}
const dataDir = resolve(process.env.DATA_DIR || "./data");
const databaseUrl = process.env.DATABASE_URL || undefined;
const generatedToken = !process.env.ADMIN_TOKEN;
const adminToken = process.env.ADMIN_TOKEN || randomBytes(24).toString("base64url");
if (adminToken.length < 16) {
  console.error("ADMIN_TOKEN must be at least 16 characters long.");
  process.exit(1);
}

const opened = await openStore({ dataDir, databaseUrl });
const app = createApp({ store: opened.store, adminToken });
const server = app.listen(port, "0.0.0.0");
await once(server, "listening");
const address = server.address();
const actualPort = typeof address === "object" && address ? address.port : port;
const base = `http://localhost:${actualPort}`;

console.log(`einvoice example server on ${base}, store: ${opened.description}`);
if (generatedToken) console.log(`ADMIN_TOKEN was not set; this run's admin token: ${adminToken}`);
console.log(`Quickstart (see README.md):
  1. curl -s -X POST ${base}/v1/accounts -H 'content-type: application/json' -d '{"email":"you@example.com","companyName":"Acme","country":"NL"}'
  2. curl -s -X PATCH ${base}/admin/companies/$COMPANY_ID -H "authorization: Bearer $ADMIN_TOKEN" -H 'content-type: application/json' -d '{"enterprise":true,"subscription":"pro","legalEntityId":"LE-1","peppolSendingEnabled":true}'
  3. curl -s -X POST ${base}/v1/peppol/invoice -H "authorization: Bearer $API_KEY" -H 'content-type: application/json' -d "{\\"xml\\":\\"$(base64 -w0 invoice.xml)\\"}"`);

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping`);
  server.close();
  server.closeIdleConnections?.();
  await opened.close();
  process.exit(0);
}
process.on("SIGTERM", () => void stop("SIGTERM"));
process.on("SIGINT", () => void stop("SIGINT"));
