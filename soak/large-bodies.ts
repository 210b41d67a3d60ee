// Large bodies at once (issue 16, finding 7): N concurrent submissions of about 9 MiB each (a valid
// invoice padded with a long note: real documents, read and stored) against the example server on
// loopback, while /health is timed every 200 ms and the server's RSS sampled. A 503 server_busy is
// retried after its Retry-After, as a client should. Prints the figures; exits 1 when RSS passed
// --max-rss-mib or a /health answer took longer than --max-health-ms, or on a 5xx other than 503.
//
//   pnpm tsx soak/large-bodies.ts [--concurrency 150] [--mib 9] [--max-rss-mib 1229] [--max-health-ms 500]
//   BODY_BUDGET_MB=0 pnpm tsx soak/large-bodies.ts   # the same without the budget, to compare
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ADMIN_TOKEN, call, invoice, rssMiB, startServer } from "./soak.js";

/** The /health prober: one GET every 200 ms on a new connection, printing "<ms since start> <latency ms>" per answer. */
const PROBER = `
const http = require("node:http");
const base = process.argv[1];
const t0 = performance.now();
let stop = false;
process.on("SIGTERM", () => { stop = true; });
(async () => {
  while (!stop) {
    const t = performance.now();
    await new Promise((resolve) => {
      const req = http.get(base + "/health", { agent: false, timeout: 60000 }, (res) => { res.resume(); res.on("end", resolve); });
      req.on("error", resolve);
      req.on("timeout", () => req.destroy());
    });
    process.stdout.write(Math.round(t - t0) + " " + (performance.now() - t).toFixed(1) + "\\n");
    await new Promise((r) => setTimeout(r, 200));
  }
  process.exit(0);
})();
`;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const v = Number(process.argv[i + 1]);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} must be a positive number`);
  return v;
}

const concurrency = arg("concurrency", 150);
const mib = arg("mib", 9);
const maxRssMiB = arg("max-rss-mib", 1229);
const maxHealthMs = arg("max-health-ms", 500);
const deadlineMs = arg("deadline-sec", 240) * 1000;

/** A JSON body of about `mib` MiB: an invoice whose note pads the document. */
function body(n: number): string {
  const b64 = invoice(`LARGE-${n}`, `0${n}0000001`);
  const xml = Buffer.from(b64, "base64").toString("utf8");
  const padBytes = Math.floor((mib * 1024 * 1024 * 3) / 4) - xml.length - 200;
  const padded = xml.replace("<cbc:DocumentCurrencyCode>", `<cbc:Note>${"n".repeat(padBytes)}</cbc:Note><cbc:DocumentCurrencyCode>`);
  return JSON.stringify({ xml: Buffer.from(padded).toString("base64") });
}

const dir = mkdtempSync(join(tmpdir(), "einvoice-large-"));
const logFile = join(dir, "server.log");
const env: Record<string, string> = {};
for (const k of ["BODY_BUDGET_MB", "BODY_QUEUE_TIMEOUT_MS"]) if (process.env[k] !== undefined) env[k] = process.env[k]!;
const { child, base } = await startServer(join(dir, "data"), logFile, env);
const pid = child.pid!;
let failed = false;
try {
  const signUp = await call(base, "POST", "/v1/accounts", { email: `large-${Date.now()}@soak.example`, companyName: "Large", country: "NL" });
  const { apiKey, companyId } = signUp.body.data;
  await call(base, "PATCH", `/admin/companies/${companyId}`, { enterprise: true, subscription: "pro", legalEntityId: "LE-L", peppolSendingEnabled: true }, ADMIN_TOKEN);
  const bodies = Array.from({ length: concurrency }, (_, i) => Buffer.from(body(i)));
  console.log(`server ${base} (pid ${pid}); ${concurrency} bodies of ${(bodies[0]!.length / 1024 / 1024).toFixed(2)} MiB; budget ${env.BODY_BUDGET_MB ?? "default (64)"} MiB`);

  const rss: number[] = [];
  const health: number[] = [];
  const slow: string[] = [];
  const t0 = performance.now();
  const rssStart = rssMiB(pid);
  const sampler = setInterval(() => rss.push(rssMiB(pid)), 200);
  // /health is timed from a process of its own: this one is busy pushing the bodies, and its own
  // event loop would add its delays to the figures.
  const prober = spawn(process.execPath, ["-e", PROBER, base], { stdio: ["ignore", "pipe", "inherit"] });
  let probed = "";
  prober.stdout!.on("data", (d: Buffer) => (probed += d.toString()));
  const proberDone = new Promise((r) => prober.once("exit", r));

  const statuses: Record<string, number> = {};
  let retries = 0;
  const stopAt = Date.now() + deadlineMs;
  await Promise.all(
    bodies.map(async (b) => {
      for (let attempt = 0; Date.now() < stopAt; attempt++) {
        const res = await fetch(`${base}/v1/peppol/invoice`, { method: "POST", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }, body: b }).catch((e: Error & { cause?: { code?: string; message?: string } }) => ({ status: `error ${e.cause?.code ?? e.cause?.message ?? e.name}`, headers: new Headers(), text: async () => "" }));
        await res.text();
        if (res.status === 503 && attempt < 20) {
          retries++;
          await new Promise((r) => setTimeout(r, Number(res.headers.get("retry-after") ?? 1) * 1000));
          continue;
        }
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        return;
      }
      statuses.deadline = (statuses.deadline ?? 0) + 1;
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  prober.kill("SIGTERM");
  await proberDone;
  for (const line of probed.trim().split("\n")) {
    const [at, ms] = line.split(" ").map(Number);
    if (!Number.isFinite(ms)) continue;
    health.push(ms!);
    if (ms! > maxHealthMs) slow.push(`${(at! / 1000).toFixed(1)} s: ${Math.round(ms!)} ms`);
  }
  clearInterval(sampler);
  const sorted = [...health].sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
  const maxRss = Math.max(...rss);
  const report = {
    concurrency,
    bodyMiB: Number((bodies[0]!.length / 1024 / 1024).toFixed(2)),
    seconds: Number(seconds.toFixed(1)),
    statuses,
    retriesAfter503: retries,
    rssMiB: { start: rssStart, max: maxRss, end: rssMiB(pid) },
    healthMs: { n: health.length, p50: Math.round(pct(50)), p99: Math.round(pct(99)), max: Math.round(sorted[sorted.length - 1]!) },
    slowHealth: slow.slice(0, 20),
  };
  console.log(JSON.stringify(report, null, 2));
  const fiveXx = Object.entries(statuses).filter(([s]) => /^5/.test(s) && s !== "503").reduce((n, [, c]) => n + c, 0);
  if (maxRss > maxRssMiB) (failed = true), console.log(`FAILED: RSS reached ${maxRss} MiB (limit ${maxRssMiB})`);
  if (report.healthMs.max > maxHealthMs) (failed = true), console.log(`FAILED: /health took ${report.healthMs.max} ms (limit ${maxHealthMs})`);
  if (fiveXx > 0) (failed = true), console.log(`FAILED: ${fiveXx} 5xx answers`);
  const errors = readFileSync(logFile, "utf8").split("\n").filter((l) => /"level":50/.test(l));
  if (errors.length) console.log(`the server logged ${errors.length} errors, the first: ${errors.slice(0, 3).join("\n")}`);
} finally {
  child.kill("SIGKILL");
  await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
