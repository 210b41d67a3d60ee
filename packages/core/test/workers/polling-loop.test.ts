import { afterEach, describe, expect, it, vi } from "vitest";
import { pollingLoop, queueWorker, type ClaimWindow, type QueueWorkerParts } from "../../src/workers/polling-loop.js";

/** A test queue worker's parts: these defaults, and what each test sets (its batch, claim and attempt). */
const parts = (own: Pick<QueueWorkerParts<string>, "batchSize" | "claim" | "attempt"> & Partial<QueueWorkerParts<string>>): QueueWorkerParts<string> => ({
  name: "test worker",
  owner: "w-1",
  leaseMs: 60_000,
  clock: () => new Date(),
  describe: (job) => ({ job }),
  ...own,
});

function recorder() {
  const lines: Array<{ level: string; msg: string; obj: Record<string, unknown> }> = [];
  const at = (level: string) => (obj: Record<string, unknown>, msg: string) => void lines.push({ level, msg, obj });
  return { lines, logger: { error: at("error"), warn: at("warn"), info: at("info") } };
}

describe("pollingLoop while rounds fail", () => {
  afterEach(() => vi.useRealTimers());

  it("logs the cause code once, one line per backoff step (none at the longest pause), backs off, and says when it recovered", async () => {
    vi.useFakeTimers();
    const { lines, logger } = recorder();
    let calls = 0;
    const failFor = 40;
    const loop = pollingLoop(
      async () => {
        calls++;
        if (calls <= failFor) throw Object.assign(new Error("connect ECONNREFUSED"), { name: "DbError", code: "ECONNREFUSED" });
        return 0;
      },
      { name: "dispatcher", pollIntervalMs: 100, stopTimeoutMs: 1000, maxBackoffMs: 1600, logger },
    );
    loop.start();
    // 40 failing rounds: 200, 400, 800, then 1600 ms apart.
    await vi.advanceTimersByTimeAsync(200 + 400 + 800 + 1600 * 37 + 50);
    expect(calls).toBe(failFor + 1);
    expect(loop.status()).toEqual({ running: true, failures: 0, lastError: null });
    await loop.stop();
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      ["error", "dispatcher round failed"],
      ["warn", "dispatcher round still failing"],
      ["warn", "dispatcher round still failing"],
      ["warn", "dispatcher round still failing"],
      ["info", "dispatcher recovered"],
    ]);
    expect(lines[0]!.obj).toEqual({ error: "DbError", errorCode: "ECONNREFUSED", retryInMs: 200 });
    expect(lines.slice(1, 4).map((l) => l.obj.retryInMs)).toEqual([400, 800, 1600]);
    expect(lines[4]!.obj).toMatchObject({ failures: failFor, lastErrorCode: "ECONNREFUSED" });
    // Never the error's message: it may hold data.
    expect(JSON.stringify(lines)).not.toContain("connect ECONNREFUSED");
  });

  it("reports failing in status() while rounds fail, and stopped after stop()", async () => {
    vi.useFakeTimers();
    const loop = pollingLoop(async () => Promise.reject(new TypeError("x")), { name: "w", pollIntervalMs: 10, stopTimeoutMs: 100 });
    loop.start();
    await vi.advanceTimersByTimeAsync(1);
    expect(loop.status()).toEqual({ running: true, failures: 1, lastError: "TypeError" });
    await loop.stop();
    expect(loop.status().running).toBe(false);
  });
});

describe("queueWorker, the dispatcher's and the webhook sender's scaffold", () => {
  it("claims a batch under a lease from the clock, attempts each item, and logs an attempt that throws without stopping the others", async () => {
    const { lines, logger } = recorder();
    const windows: ClaimWindow[] = [];
    const done: string[] = [];
    const worker = queueWorker<string>(
      parts({
        batchSize: 3,
        clock: () => new Date("2026-01-01T00:00:00.000Z"),
        claim: async (w) => (windows.push(w), ["a", "bad", "c"]),
        attempt: async (job) => {
          if (job === "bad") throw Object.assign(new Error("secret detail"), { code: "ECONNRESET" });
          done.push(job);
        },
      }),
      { pollIntervalMs: 10, stopTimeoutMs: 100, logger },
    );
    expect(await worker.runOnce()).toBe(3);
    // A company's share of the places goes with every claim: half of the batch, rounded up, by default.
    expect(windows).toEqual([{ owner: "w-1", now: "2026-01-01T00:00:00.000Z", leaseUntil: "2026-01-01T00:01:00.000Z", limit: 3, perCompany: 2 }]);
    expect(done.sort()).toEqual(["a", "c"]);
    expect(lines).toEqual([{ level: "error", msg: "test worker attempt could not be recorded", obj: { job: "bad", error: "Error", errorCode: "ECONNRESET" } }]);
  });

  it("a slow item holds one place, not the batch: the loop claims and finishes the items behind it meanwhile", async () => {
    // A webhook receiver that never answers held a whole batch of 10 until its timeout: every other
    // company's events waited 5 s a round behind it.
    const queue = ["slow", "a", "b", "c", "d"];
    const limits: number[] = [];
    const done: string[] = [];
    let finish!: () => void;
    const hung = new Promise<void>((r) => (finish = r));
    const worker = queueWorker<string>(
      parts({
        batchSize: 2,
        claim: async (w) => (limits.push(w.limit), queue.splice(0, w.limit)),
        attempt: async (job) => {
          if (job === "slow") await hung;
          done.push(job);
        },
      }),
      { pollIntervalMs: 10, stopTimeoutMs: 1_000 },
    );
    worker.start();
    await vi.waitFor(() => expect(done).toEqual(["a", "b", "c", "d"]));
    // Never more than two at once: with "slow" in flight, each claim asked for the one free place.
    expect(limits[0]).toBe(2);
    expect(limits.slice(1).every((n) => n === 1)).toBe(true);
    finish();
    await vi.waitFor(() => expect(done).toContain("slow"));
    await worker.stop();
  });

  it("on stop, waits for the attempts in flight up to stopTimeoutMs and claims nothing more", async () => {
    let claims = 0;
    let finish!: () => void;
    const hung = new Promise<void>((r) => (finish = r));
    const done: string[] = [];
    const worker = queueWorker<string>(
      parts({
        batchSize: 2,
        claim: async () => (++claims === 1 ? ["s"] : []),
        attempt: async (job) => {
          await hung;
          done.push(job);
        },
        release: async () => {
          throw new Error("nothing should be released");
        },
      }),
      { pollIntervalMs: 10, stopTimeoutMs: 5_000 },
    );
    worker.start();
    await vi.waitFor(() => expect(claims).toBeGreaterThan(0));
    const stopped = worker.stop();
    setTimeout(finish, 20);
    await stopped;
    expect(done).toEqual(["s"]);
    const after = claims;
    await new Promise((r) => setTimeout(r, 50));
    expect(claims).toBe(after);
  });

  it("on stop, gives back the claims of the attempts still in flight, and only those", async () => {
    const released: string[] = [];
    let finish!: () => void;
    const hung = new Promise<void>((r) => (finish = r));
    let claimed = false;
    const worker = queueWorker<string>(
      parts({
        batchSize: 2,
        claim: async () => (claimed ? [] : ((claimed = true), ["quick", "slow"])),
        attempt: (job) => (job === "slow" ? hung : Promise.resolve()),
        release: async (job) => void released.push(job),
      }),
      { pollIntervalMs: 10, stopTimeoutMs: 50 },
    );
    worker.start();
    await vi.waitFor(() => expect(claimed).toBe(true));
    await worker.stop();
    expect(released).toEqual(["slow"]);
    finish();
  });
});
