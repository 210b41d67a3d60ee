// latency_under_large and http_vs_bare_express: autocannon against server processes on loopback.
import { fork } from "node:child_process";
import { once } from "node:events";
import { request, Agent } from "node:http";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import autocannon from "autocannon";
import { baseExample, largeInvoice, REPO_ROOT } from "../lib/corpus.ts";
import { startServer, type BenchServer } from "../lib/server.ts";
import { distinctBase64, invoiceBody } from "../lib/setup.ts";
import { alternate, median, nowMs, percentile, round } from "../lib/stats.ts";
import type { Metric } from "../run.ts";

interface Load {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
}

/** POST /v1/peppol/invoice with a distinct invoice (accepted, not a duplicate) in every request. */
async function load(server: BenchServer, next: () => string, opts: { seconds: number; connections: number; rate?: number }): Promise<Load> {
  const r = await autocannon({
    url: server.url,
    connections: opts.connections,
    duration: opts.seconds,
    pipelining: 1,
    ...(opts.rate ? { overallRate: opts.rate } : {}),
    requests: [
      {
        method: "POST",
        path: "/v1/peppol/invoice",
        headers: { "content-type": "application/json", authorization: `Bearer ${server.apiKey}` },
        setupRequest: (req) => ({ ...req, body: invoiceBody(next()) }),
      },
    ],
  });
  const bad = r.non2xx + r.errors + r.timeouts;
  if (bad > 0) throw new Error(`load on ${server.url}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, requests: r.requests.total };
}

/**
 * Open loop: one small submission every `1000 / rate` ms for `seconds`, whatever the answers do
 * (autocannon's rate limit sends each second's requests in a burst, which measures its own queue).
 * Returns the p99 latency in ms; every answer must be 200.
 */
export async function steady(server: BenchServer, next: () => string, opts: { seconds: number; rate: number }): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  const latencies: number[] = [];
  const inflight: Promise<void>[] = [];
  const interval = 1000 / opts.rate;
  const start = nowMs();
  const total = Math.round(opts.seconds * opts.rate);
  for (let i = 0; i < total; i++) {
    const due = start + i * interval;
    const wait = due - nowMs();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const body = invoiceBody(next());
    inflight.push(
      new Promise<void>((resolve, reject) => {
        const t = nowMs();
        const req = request(
          `${server.url}/v1/peppol/invoice`,
          { method: "POST", agent, headers: { "content-type": "application/json", authorization: `Bearer ${server.apiKey}`, "content-length": Buffer.byteLength(body) } },
          (res) => {
            res.resume();
            res.on("end", () => {
              if (res.statusCode !== 200) reject(new Error(`small submission: ${res.statusCode}`));
              latencies.push(nowMs() - t);
              resolve();
            });
          },
        );
        req.on("error", reject);
        req.end(body);
      }),
    );
  }
  await Promise.all(inflight);
  agent.destroy();
  return percentile(latencies, 99);
}

/**
 * Posts large invoices one after another, from a child process (large-child.ts), until stopped;
 * each must be answered 200. Resolves once the child is sending.
 */
export async function largeStream(server: BenchServer, lines: number, prefix: string): Promise<{ stop: () => Promise<number[]> }> {
  const child = fork(join(REPO_ROOT, "bench", "metrics", "large-child.ts"), [server.url, server.apiKey, String(lines), prefix], {
    cwd: REPO_ROOT,
    execArgv: ["--conditions=source", "--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const result = new Promise<number[]>((resolve, reject) => {
    child.on("message", (m: { latencies?: number[]; error?: string }) => {
      if (m.latencies) resolve(m.latencies);
      if (m.error) reject(new Error(m.error));
    });
    child.on("exit", (code) => reject(new Error(`large-child exited with ${code}`)));
  });
  result.catch(() => {});
  await Promise.race([once(child, "message"), result]);
  return {
    async stop() {
      child.send("stop");
      return result;
    },
  };
}

/** Paired rounds (beside the stream, alone) of latency_under_large, and of its floor. */
const LATENCY_ROUNDS = 5;
const FLOOR_ROUNDS = 3;

/** About 6 MiB of XML: an 8 MiB JSON body once base64-encoded (the body limit is 10 MiB). */
export const LARGE_LINES = 8_600;

export async function httpMetrics(): Promise<Record<string, Metric>> {
  const small = distinctBase64(baseExample(), "H");
  const large = distinctBase64(largeInvoice(LARGE_LINES), "G");
  const app = await startServer("app");
  const bare = await startServer("bare");
  try {
    // Small submissions at a steady 200 a second (open loop), alone and beside a stream of large ones.
    const largeLatencies: number[] = [];
    // Event-loop delay (p99, ms) of the server and of this load generator in each measured round.
    const emptySide = () => ({ server: [] as number[], generator: [] as number[], inside: [] as number[], majors: [] as number[], majorMs: [] as number[], minorMs: [] as number[], cores: [] as number[] });
    const loops = { withLarge: emptySide(), alone: emptySide(), floor: emptySide() };
    const generatorLoop = monitorEventLoopDelay({ resolution: 1 });
    generatorLoop.enable();
    const measured = async <T>(r: number, side: keyof typeof loops, run: () => Promise<T>): Promise<T> => {
      await app.reset();
      await app.eventLoopDelay();
      generatorLoop.reset();
      const out = await run();
      const server = await app.eventLoopDelay();
      if (r > 0) {
        loops[side].server.push(round(server.p99, 1));
        loops[side].generator.push(round(generatorLoop.percentile(99) / 1e6, 1));
        loops[side].inside.push(round(server.smallP99, 2));
        loops[side].majors.push(server.gc.major);
        loops[side].majorMs.push(round(server.gc.majorMs, 1));
        loops[side].minorMs.push(round(server.gc.minorMs, 1));
        loops[side].cores.push(round(server.cores, 2));
      }
      return out;
    };
    const withStream = (r: number, side: keyof typeof loops, keep: number[] | null) =>
      measured(r, side, async () => {
        const stream = await largeStream(app, LARGE_LINES, `G${side}${r}`);
        await new Promise((res) => setTimeout(res, 300)); // a large document is in flight
        const p99 = await steady(app, small, { seconds: r === 0 ? 2 : 5, rate: 200 });
        const took = await stream.stop();
        if (r > 0 && keep) keep.push(...took);
        return p99;
      });
    const alone = (r: number) => measured(r, "alone", () => steady(app, small, { seconds: r === 0 ? 2 : 5, rate: 200 }));
    const latency = await alternate({ rounds: LATENCY_ROUNDS, warmup: 1, a: (r) => withStream(r, "withLarge", largeLatencies), b: alone });
    // The floor: the same stream into the same server, whose large bodies are now read from the
    // socket and dropped, unparsed, and answered after as long as the app took. What sending and
    // receiving the bodies alone costs the small submissions on this machine.
    const tookMs = Math.round(percentile(largeLatencies, 50));
    const floor = await alternate({
      rounds: FLOOR_ROUNDS,
      warmup: 0,
      a: async (r) => {
        await app.sinkLarge(tookMs);
        try {
          return await withStream(r + 1, "floor", null);
        } finally {
          await app.sinkLarge(0);
        }
      },
      b: (r) => alone(r + 1),
    });
    generatorLoop.disable();

    // Throughput: as many as 4 keep-alive connections get, the app against the bare route, in turns.
    const appLoads: Load[] = [];
    const bareLoads: Load[] = [];
    const throughput = await alternate({
      rounds: 3,
      warmup: 1,
      a: async (r) => {
        await app.reset();
        const l = await load(app, small, { seconds: r === 0 ? 2 : 5, connections: 4 });
        if (r > 0) appLoads.push(l);
        return l.rps;
      },
      b: async (r) => {
        const l = await load(bare, small, { seconds: r === 0 ? 2 : 5, connections: 4 });
        if (r > 0) bareLoads.push(l);
        return l.rps;
      },
    });
    const p99App = median(appLoads.map((l) => l.p99));
    const p99Bare = median(bareLoads.map((l) => l.p99));
    const mib = (Buffer.byteLength(invoiceBody(large())) / 2 ** 20).toFixed(1);
    return {
      latency_under_large: {
        value: round(latency.ratio),
        // Issue 29's goal: <= 2, or within 1.5x the floor this run measured (what the machine itself costs the small ones).
        goal: "<= 2, or <= 1.5x floor",
        ok: latency.ratio <= 2 || latency.ratio <= 1.5 * floor.ratio,
        note: `${round(latency.ratio / floor.ratio)}x the floor; p99 of small submissions (200/s, open loop) ${round(median(latency.a), 2)} ms beside ${mib} MiB submissions vs ${round(median(latency.b), 2)} ms alone (median of ${LATENCY_ROUNDS} paired rounds); floor: beside the same stream into the same server with the large bodies dropped unread, ${round(floor.ratio)} (${round(median(floor.a), 2)} vs ${round(median(floor.b), 2)} ms); the large ones took p50 ${round(percentile(largeLatencies, 50), 0)} ms (${largeLatencies.length} sent); event-loop delay p99 beside them: server ${round(median(loops.withLarge.server), 2)} ms (alone ${round(median(loops.alone.server), 2)}), load generator ${round(median(loops.withLarge.generator), 2)} ms; inside the server (request event to answer) the small ones' p99 was ${round(median(loops.withLarge.inside), 2)} ms vs ${round(median(loops.alone.inside), 2)} alone; server process ${round(median(loops.withLarge.cores), 2)} cores busy (alone ${round(median(loops.alone.cores), 2)}), ${median(loops.withLarge.majors)} mark-compacts on its event loop per round, ${round(median(loops.withLarge.majorMs), 1)} ms in all (alone ${median(loops.alone.majors)}, ${round(median(loops.alone.majorMs), 1)} ms), other collections ${round(median(loops.withLarge.minorMs), 1)} ms (alone ${round(median(loops.alone.minorMs), 1)})`,
        detail: {
          p99WithLarge: latency.a,
          p99Alone: latency.b,
          ratios: latency.ratios.map((x) => round(x, 2)),
          floor: { ratio: round(floor.ratio), ratios: floor.ratios.map((x) => round(x, 2)), p99Dropped: floor.a, p99Alone: floor.b, answeredAfterMs: tookMs },
          largeMs: largeLatencies.map((x) => round(x, 0)),
          eventLoopDelayP99Ms: loops,
        },
      },
      http_vs_bare_express: {
        value: round(throughput.ratio),
        goal: ">= 0.8",
        ok: throughput.ratio >= 0.8,
        note: `createApp ${round(median(throughput.a), 0)} req/s (p99 ${p99App} ms) vs bare Express+xmldom ${round(median(throughput.b), 0)} req/s (p99 ${p99Bare} ms); 4 keep-alive connections, 5 s a side, accepted (distinct) invoices`,
        detail: { appRps: throughput.a, bareRps: throughput.b, p99App, p99Bare },
      },
    };
  } finally {
    await app.stop();
    await bare.stop();
  }
}
