import { afterEach, describe, expect, it, vi } from "vitest";
import { pollingLoop } from "./polling-loop.js";

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
