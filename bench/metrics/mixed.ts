// mixed_pglite_vs_postgres: the mixed load of issue 44 (soak/mixed.ts) against the example server on
// its embedded PGlite (a fresh DATA_DIR) and on the PostgreSQL server of DATABASE_URL (its own
// schema, dropped after), both started in the same run and loaded in turns with the same clients and mix.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { mixedCompanies, runMixed, type MixedCompany, type MixedResult } from "../../soak/mixed.ts";
import { rssMiB, startServer } from "../../soak/soak.ts";
import { alternate, median, round } from "../lib/stats.ts";
import type { Metric } from "../run.ts";

/** Rounds (after one of warm-up), seconds of load a side in each, and clients, as issue 44's probe had them. */
const ROUNDS = Number(process.env.MIXED_ROUNDS ?? 4);
const SECONDS = Number(process.env.MIXED_SECONDS ?? 6);
const CONNECTIONS = 16;
const COMPANIES = 8;

interface Server {
  label: string;
  base: string;
  pid: number;
  companies: MixedCompany[];
  rssMaxMiB: number;
  rounds: MixedResult[];
  cores: number[];
  stop(): Promise<void>;
}

/** The example server on a store, with its companies (each with a few invoices to read). */
async function start(label: string, env: Record<string, string>): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), `einvoice-mixed-${label}-`));
  const { child, base } = await startServer(join(dir, "data"), join(dir, "server.log"), {
    LOG_LEVEL: "warn",
    // The limiter runs on every request (on PostgreSQL its counts are rows) but never refuses.
    RATE_LIMIT_PER_MINUTE: "100000000",
    ...env,
  });
  const stop = async () => {
    child.kill("SIGKILL");
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    return { label, base, pid: child.pid!, companies: await mixedCompanies(base, COMPANIES, label), rssMaxMiB: 0, rounds: [], cores: [], stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** One round of the load on `server`; returns its requests a second. */
async function load(server: Server, round: number, keep: boolean): Promise<number> {
  const sampler = setInterval(() => (server.rssMaxMiB = Math.max(server.rssMaxMiB, rssMiB(server.pid))), 500);
  const cpu0 = cpuSeconds(server.pid);
  const t0 = performance.now();
  const result = await runMixed(server.base, server.companies, { seconds: SECONDS, connections: CONNECTIONS, tag: `${server.label}${round}`, seed: 44 + round });
  const cores = (cpuSeconds(server.pid) - cpu0) / ((performance.now() - t0) / 1000);
  clearInterval(sampler);
  if (result.bad + result.errors + result.timeouts > 0) {
    throw new Error(`mixed load on ${server.label}: ${result.bad} unexpected answers, ${result.errors} errors, ${result.timeouts} timeouts: ${JSON.stringify(result.byKind)}`);
  }
  if (keep) {
    server.rounds.push(result);
    server.cores.push(cores);
  }
  return result.rps;
}

/** CPU seconds (user + system) of a process so far, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const describe = (s: Server): string => {
  const med = (f: (r: MixedResult) => number) => median(s.rounds.map(f));
  return `${round(med((r) => r.rps), 0)} req/s, p50 ${med((r) => r.latencyMs.p50)} ms, p99 ${med((r) => r.latencyMs.p99)} ms, max ${Math.max(...s.rounds.map((r) => r.latencyMs.max))} ms, RSS max ${s.rssMaxMiB} MiB, server process ${round(median(s.cores), 2)} cores`;
};

export async function mixedMetrics(): Promise<Record<string, Metric>> {
  const url = process.env.DATABASE_URL;
  // Like durable_vs_insert_postgres: only with a PostgreSQL server to compare with.
  if (!url) return {};
  const schema = `bench_mixed_${process.pid}`;
  const pglite = await start("pglite", {});
  let postgres: Server | undefined;
  try {
    postgres = await start("postgres", { DATABASE_URL: url, DATABASE_SCHEMA: schema });
    const pg = postgres;
    // In turns (PGlite then PostgreSQL, then the other way round), so that a busy machine's drift moves both alike.
    const r = await alternate({ rounds: ROUNDS, warmup: 1, a: (i) => load(pglite, i, i > 0), b: (i) => load(pg, i, i > 0) });
    const p99Ratio = median(pglite.rounds.map((x) => x.latencyMs.p99)) / median(pg.rounds.map((x) => x.latencyMs.p99));
    return {
      mixed_pglite_vs_postgres: {
        value: round(r.ratio),
        goal: ">= 0.5, p99 <= 3x",
        ok: r.ratio >= 0.5 && p99Ratio <= 3,
        note: `PGlite ${describe(pglite)} vs PostgreSQL ${describe(pg)}: p99 ${round(p99Ratio, 2)}x; ${CONNECTIONS} keep-alive clients, ${ROUNDS} paired rounds of ${SECONDS} s a side after one of warm-up (medians), 25 % XML submits, 15 % JSON submits, 25 % lists, 20 % reads, 15 % validations over ${COMPANIES} companies`,
        detail: {
          ratios: r.ratios.map((x) => round(x)),
          p99Ratio: round(p99Ratio),
          pglite: { rounds: pglite.rounds, rssMaxMiB: pglite.rssMaxMiB, cores: pglite.cores.map((x) => round(x, 2)) },
          postgres: { rounds: pg.rounds, rssMaxMiB: pg.rssMaxMiB, cores: pg.cores.map((x) => round(x, 2)) },
        },
      },
    };
  } finally {
    await pglite.stop();
    await postgres?.stop();
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await pool.end();
  }
}
