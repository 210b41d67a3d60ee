// An HTTP server for the HTTP metrics, in its own process (its own event loop, as in production):
// "app" is the example server's createApp on the memory store (rate limits off: this is a load test),
// "bare" is a bare Express route that parses the same JSON, base64-decodes and xmldom-parses the invoice.
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { constants, monitorEventLoopDelay, PerformanceObserver, type PerformanceEntry } from "node:perf_hooks";
import { DOMParser } from "@xmldom/xmldom";
import express from "express";

const mode = process.argv[2];
let app: express.Express;
let apiKey = "none";
let close = async (): Promise<void> => {};
/** A fresh app on an empty store (a new company and key): the app gets one per measured round (see "reset"). */
let fresh = async (): Promise<void> => {};
if (mode === "app") {
  // Only the app loads the core; the bare route is Express, JSON and stock xmldom alone.
  const { closeInvoiceWorkers, memoryStore } = await import("../../packages/core/src/index.ts");
  const { createApp } = await import("../../examples/server/src/app.ts");
  const { eligibleCompany } = await import("../lib/setup.ts");
  close = closeInvoiceWorkers;
  const quiet = { error: () => {} };
  fresh = async () => {
    const store = memoryStore();
    apiKey = (await eligibleCompany(store)).apiKey;
    app = createApp({ store, adminToken: "bench-admin-token-0123456789", logger: quiet, rateLimit: false, signUpRateLimit: false } as Parameters<typeof createApp>[0]);
  };
  await fresh();
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

// For the floor of latency_under_large: when set (ms), large bodies are read from the socket and
// dropped, and answered after that long as if accepted; small requests still go to the app.
let sinkMs = 0;

// Server-side time of each small request (from its "request" event to the end of its answer):
// what the server itself adds, apart from the time a request waits to be read and the client's.
const serverLatencies: number[] = [];
const timed = (req: IncomingMessage, res: ServerResponse): void => {
  const t = performance.now();
  const large = Number(req.headers["content-length"] ?? 0) >= 100_000;
  if (!large) res.on("finish", () => serverLatencies.push(performance.now() - t));
  if (large && sinkMs > 0) {
    req.resume();
    req.on("end", () => {
      setTimeout(() => {
        res.setHeader("content-type", "application/json");
        res.end('{"data":{"submissionId":"00000000-0000-4000-8000-000000000000","success":true,"status":"sending"}}');
      }, sinkMs);
    });
    return;
  }
  app(req, res);
};
const server = createServer(timed);
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1");
await once(server, "listening");
process.send!({ port: (server.address() as AddressInfo).port, apiKey });
// How long the event loop was late, since the last "eld" message (ms): separates a busy loop from a busy machine.
const eld = monitorEventLoopDelay({ resolution: 1 });
eld.enable();
// Garbage collections on the main thread since the last "eld" message: mark-compacts, and the rest
// (scavenges, incremental marking steps, weak callbacks); how many, and their pauses (ms).
const gc = { major: 0, majorMs: 0, minor: 0, minorMs: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = ((e as PerformanceEntry & { detail?: { kind?: number } }).detail)?.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
      gc.major++;
      gc.majorMs += e.duration;
    } else {
      gc.minor++;
      gc.minorMs += e.duration;
    }
  }
}).observe({ entryTypes: ["gc"] });
let cpu = process.cpuUsage();
let cpuAt = performance.now();
process.on("message", (m) => {
  if (typeof m === "string" && m.startsWith("sink:")) {
    sinkMs = Number(m.slice("sink:".length));
    process.send!({ sink: sinkMs });
  }
  if (m === "reset") {
    // The memory store keeps every accepted record and document in this process's heap (thousands
    // of records and hundreds of MiB of documents over a run), which a database-backed server does
    // not: each measured round starts on an empty one, so that no round pays for the ones before it.
    void fresh().then(() => process.send!({ reset: apiKey }));
  }
  if (m === "eld") {
    // CPU of the whole process (all threads: event loop, workers, GC) in cores, since the last message.
    const used = process.cpuUsage(cpu);
    const cores = (used.user + used.system) / 1000 / (performance.now() - cpuAt);
    const sorted = serverLatencies.sort((a, b) => a - b);
    const smallP99 = sorted.length ? sorted[Math.ceil(sorted.length * 0.99) - 1]! : 0;
    serverLatencies.length = 0;
    process.send!({ eld: { p99: eld.percentile(99) / 1e6, max: eld.max / 1e6, gc: { ...gc }, cores, smallP99 } });
    cpu = process.cpuUsage();
    cpuAt = performance.now();
    eld.reset();
    Object.assign(gc, { major: 0, majorMs: 0, minor: 0, minorMs: 0 });
  }
  if (m === "stop") {
    server.close();
    server.closeAllConnections();
    void close().then(() => process.exit(0));
  }
});
process.on("disconnect", () => process.exit(0));
