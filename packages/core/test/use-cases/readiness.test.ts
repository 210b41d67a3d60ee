import { describe, expect, it } from "vitest";
import { memoryStore } from "../../src/adapters/memory-store.js";
import type { Store } from "../../src/ports/store.js";
import type { WorkerStatus } from "../../src/workers/polling-loop.js";
import { readinessCheck } from "../../src/use-cases/readiness.js";

const worker = (s: Partial<WorkerStatus> = {}) => ({ status: (): WorkerStatus => ({ running: true, failures: 0, lastError: null, ...s }) });

describe("readinessCheck", () => {
  it("is ready when the store answers and the workers run; disabled workers are ready too", async () => {
    expect(await readinessCheck({ store: memoryStore(), workers: [worker(), worker()] })()).toEqual({ status: "ready", checks: { store: "ok", workers: "ok" } });
    expect(await readinessCheck({ store: memoryStore() })()).toEqual({ status: "ready", checks: { store: "ok", workers: "disabled" } });
  });

  it("names what is down: a store that throws, an older schema, a stopped or failing worker", async () => {
    const down = { ...memoryStore(), health: () => Promise.reject(new Error("ECONNREFUSED")) } as Store;
    expect(await readinessCheck({ store: down, workers: [worker()] })()).toEqual({ status: "not_ready", checks: { store: "down", workers: "ok" } });
    const old = { ...memoryStore(), health: async () => "migrations_pending" as const } as Store;
    expect((await readinessCheck({ store: old })()).checks.store).toBe("migrations_pending");
    expect(await readinessCheck({ store: memoryStore(), workers: [worker(), worker({ running: false })] })()).toEqual({ status: "not_ready", checks: { store: "ok", workers: "stopped" } });
    expect((await readinessCheck({ store: memoryStore(), workers: [worker({ failures: 3, lastError: "ECONNREFUSED" })] })()).status).toBe("not_ready");
  });

  it("answers timeout after timeoutMs when the store hangs, and sends no second query while the first still waits", async () => {
    let asked = 0;
    const hung = { ...memoryStore(), health: () => (asked++, new Promise<"ok">(() => undefined)) } as Store;
    const check = readinessCheck({ store: hung, timeoutMs: 20 });
    expect(await check()).toEqual({ status: "not_ready", checks: { store: "timeout", workers: "disabled" } });
    expect((await check()).checks.store).toBe("timeout");
    expect(asked).toBe(1);
  });
});
