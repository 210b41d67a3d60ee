// mixed_pglite_vs_postgres: the mixed load of issue 44 (soak/mixed.ts) against the example server on
// its embedded PGlite (a fresh DATA_DIR) and on the PostgreSQL server of DATABASE_URL (its own
// schema, dropped after), one after the other in the same run, with the same clients and mix.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { mixedCompanies, runMixed, type MixedResult } from "../../soak/mixed.ts";
import { rssMiB, startServer } from "../../soak/soak.ts";
import { round } from "../lib/stats.ts";
import type { Metric } from "../run.ts";

/** Seconds of load a side (after WARMUP_SECONDS not counted) and clients, as issue 44's probe had them. */
const SECONDS = Number(process.env.MIXED_SECONDS ?? 25);
const WARMUP_SECONDS = 5;
const CONNECTIONS = 16;
const COMPANIES = 8;

interface Side {
  result: MixedResult;
  rssMaxMiB: number;
  cores: number;
}

/** One side: the example server on a store, the companies, a warm-up, then the measured load. */
async function side(label: string, env: Record<string, string>): Promise<Side> {
  const dir = mkdtempSync(join(tmpdir(), `einvoice-mixed-${label}-`));
  const { child, base } = await startServer(join(dir, "data"), join(dir, "server.log"), {
    LOG_LEVEL: "warn",
    // The limiter runs on every request (on PostgreSQL its counts are rows) but never refuses.
    RATE_LIMIT_PER_MINUTE: "100000000",
    ...env,
  });
  try {
    const companies = await mixedCompanies(base, COMPANIES, label);
    await runMixed(base, companies, { seconds: WARMUP_SECONDS, connections: CONNECTIONS, tag: `${label}w`, seed: 1 });
    let rssMax = 0;
    const sampler = setInterval(() => (rssMax = Math.max(rssMax, rssMiB(child.pid!))), 500);
    const cpu0 = cpuSeconds(child.pid!);
    const t0 = performance.now();
    const result = await runMixed(base, companies, { seconds: SECONDS, connections: CONNECTIONS, tag: label, seed: 44 });
    const cores = (cpuSeconds(child.pid!) - cpu0) / ((performance.now() - t0) / 1000);
    clearInterval(sampler);
    if (result.bad + result.errors + result.timeouts > 0) {
      throw new Error(`mixed load on ${label}: ${result.bad} unexpected answers, ${result.errors} errors, ${result.timeouts} timeouts: ${JSON.stringify(result.byKind)}`);
    }
    return { result, rssMaxMiB: rssMax, cores };
  } finally {
    child.kill("SIGKILL");
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** CPU seconds (user + system) of a process so far, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const describe = (s: Side): string =>
  `${round(s.result.rps, 0)} req/s, p50 ${s.result.latencyMs.p50} ms, p99 ${s.result.latencyMs.p99} ms, max ${s.result.latencyMs.max} ms, RSS max ${s.rssMaxMiB} MiB, ${round(s.cores, 2)} cores`;

export async function mixedMetrics(): Promise<Record<string, Metric>> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    return {
      mixed_pglite_vs_postgres: { value: NaN, goal: ">= 0.5, p99 <= 3x", ok: false, note: "needs DATABASE_URL (a PostgreSQL server to compare with)" },
    };
  }
  const schema = `bench_mixed_${process.pid}`;
  const pglite = await side("pglite", {});
  let postgres: Side;
  try {
    postgres = await side("postgres", { DATABASE_URL: url, DATABASE_SCHEMA: schema });
  } finally {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await pool.end();
  }
  const ratio = pglite.result.rps / postgres.result.rps;
  const p99Ratio = pglite.result.latencyMs.p99 / postgres.result.latencyMs.p99;
  return {
    mixed_pglite_vs_postgres: {
      value: round(ratio),
      goal: ">= 0.5, p99 <= 3x",
      ok: ratio >= 0.5 && p99Ratio <= 3,
      note: `PGlite ${describe(pglite)} vs PostgreSQL ${describe(postgres)}: p99 ${round(p99Ratio, 2)}x; ${CONNECTIONS} keep-alive clients, ${SECONDS} s a side after ${WARMUP_SECONDS} s of warm-up, 25 % XML submits, 15 % JSON submits, 25 % lists, 20 % reads, 15 % validations over ${COMPANIES} companies`,
      detail: {
        pglite: { ...pglite.result, rssMaxMiB: pglite.rssMaxMiB, cores: round(pglite.cores, 2) },
        postgres: { ...postgres.result, rssMaxMiB: postgres.rssMaxMiB, cores: round(postgres.cores, 2) },
      },
    },
  };
}
