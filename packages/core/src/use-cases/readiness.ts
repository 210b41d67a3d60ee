// Readiness: can this instance serve now? The store answers (its schema up to date) and the background workers run.
import type { Store } from "../ports/store.js";
import type { WorkerStatus } from "../workers/polling-loop.js";

/** Each check's word: `ok`, or what is wrong. */
export interface Readiness {
  status: "ready" | "not_ready";
  checks: {
    /** `down`: a query failed; `timeout`: no answer in time; `migrations_pending`: the schema is older than this code. */
    store: "ok" | "down" | "timeout" | "migrations_pending";
    /** `disabled`: this instance runs no workers (they run elsewhere); `stopped`, `failing`: one of them is. */
    workers: "ok" | "disabled" | "stopped" | "failing";
  };
}

export interface ReadinessOptions {
  store: Store;
  /** The workers this instance runs (dispatcher, webhook sender); none: `disabled`, which is ready. */
  workers?: ReadonlyArray<{ status(): WorkerStatus }>;
  /** How long the store may take to answer. Default 1500 ms (the whole check answers within 2 s). */
  timeoutMs?: number;
}

/**
 * Makes the readiness check of `GET /ready`: ready when the store answers a query with its schema
 * up to date (`Store.health`; a store without it only has to exist) and every worker runs with its
 * last round through. A store that hangs is `timeout` after `timeoutMs`; while a check of the store
 * is still waiting, later checks wait for the same one instead of sending another query (a hung
 * database does not collect one stuck connection per probe).
 *
 * @example const ready = readinessCheck({ store, workers: [dispatcher, sender] }); const r = await ready()
 */
export function readinessCheck(options: ReadinessOptions): () => Promise<Readiness> {
  const { store } = options;
  const timeoutMs = options.timeoutMs ?? 1_500;
  let pending: Promise<Readiness["checks"]["store"]> | null = null;

  const askStore = (): Promise<Readiness["checks"]["store"]> => {
    pending ??= (async () => {
      try {
        const health = store.health ? await store.health() : "ok";
        return health === "ok" ? "ok" : "migrations_pending";
      } catch {
        return "down";
      } finally {
        pending = null;
      }
    })();
    return pending;
  };

  const workersCheck = (): Readiness["checks"]["workers"] => {
    const workers = options.workers ?? [];
    if (workers.length === 0) return "disabled";
    const states = workers.map((w) => w.status());
    if (states.some((s) => !s.running)) return "stopped";
    if (states.some((s) => s.failures > 0)) return "failing";
    return "ok";
  };

  return async () => {
    let timer: NodeJS.Timeout | undefined;
    const storeCheck = await Promise.race([
      askStore(),
      new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), timeoutMs))),
    ]);
    clearTimeout(timer);
    const checks = { store: storeCheck, workers: workersCheck() };
    const ready = checks.store === "ok" && (checks.workers === "ok" || checks.workers === "disabled");
    return { status: ready ? "ready" : "not_ready", checks };
  };
}
