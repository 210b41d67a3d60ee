// An HTTP server for the HTTP metrics, in its own process (its own event loop, as in production):
// "app" is the example server's createApp on the memory store (rate limits off: this is a load test),
// "bare" is a bare Express route that parses the same JSON, base64-decodes and xmldom-parses the invoice.
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { DOMParser } from "@xmldom/xmldom";
import express from "express";

const mode = process.argv[2];
let app: express.Express;
let apiKey = "none";
let close = async (): Promise<void> => {};
if (mode === "app") {
  // Only the app loads the core; the bare route is Express, JSON and stock xmldom alone.
  const { closeInvoiceWorkers, memoryStore } = await import("../../packages/core/src/index.ts");
  const { createApp } = await import("../../examples/server/src/app.ts");
  const { eligibleCompany } = await import("../lib/setup.ts");
  close = closeInvoiceWorkers;
  const store = memoryStore();
  apiKey = (await eligibleCompany(store)).apiKey;
  const quiet = { error: () => {} };
  app = createApp({ store, adminToken: "bench-admin-token-0123456789", logger: quiet, rateLimit: false, signUpRateLimit: false } as Parameters<typeof createApp>[0]);
} else if (mode === "bare") {
  app = express();
  app.post("/v1/peppol/invoice", express.json({ limit: 10 * 1024 * 1024 }), (req, res) => {
    const bytes = Buffer.from((req.body as { xml: string }).xml, "base64");
    const doc = new DOMParser().parseFromString(bytes.toString("utf8"), "application/xml");
    if (!doc.documentElement) throw new Error("no root");
    res.json({ data: { submissionId: "00000000-0000-4000-8000-000000000000", success: true, status: "sending" } });
  });
} else {
  throw new Error("usage: server-child.ts app|bare");
}

const server = createServer(app);
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1");
await once(server, "listening");
process.send!({ port: (server.address() as AddressInfo).port, apiKey });
// How long the event loop was late, since the last "eld" message (ms): separates a busy loop from a busy machine.
const eld = monitorEventLoopDelay({ resolution: 1 });
eld.enable();
process.on("message", (m) => {
  if (m === "eld") {
    process.send!({ eld: { p99: eld.percentile(99) / 1e6, max: eld.max / 1e6 } });
    eld.reset();
  }
  if (m === "stop") {
    server.close();
    server.closeAllConnections();
    void close().then(() => process.exit(0));
  }
});
process.on("disconnect", () => process.exit(0));
