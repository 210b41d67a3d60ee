// The soak (soak/soak.ts, `pnpm soak`: 60 s, 100 connections) in a short form for every test run:
// 5 s, 20 connections, the same mix of new, duplicate and invalid submissions and reads against the
// example server on the embedded store. The memory curve is judged only by the long run.
import { describe, expect, it } from "vitest";
import { runSoak } from "../../../soak/soak.js";

describe("short soak (5 s, 20 connections, PGlite)", () => {
  it("no 5xx, no connection errors or timeouts, only the expected answer per request kind, every `sending` readable afterwards, no secret in the log", async () => {
    const report = await runSoak({ durationSec: 5, connections: 20, companies: 3, settleSec: 1, checkMemory: false });
    expect(report.failures).toEqual([]);
    expect(report.fiveXx).toBe(0);
    expect(report.errors + report.timeouts).toBe(0);
    expect(report.unexpected).toEqual({});
    expect(report.lostSending).toBe(0);
    expect(report.missingFromLists).toBe(0);
    expect(report.secretsInLog).toBe(0);
    // How many requests 5 s allow is a figure of the machine (pnpm soak, pnpm bench), not a test: some of each kind is enough.
    expect(report.requests).toBeGreaterThan(0);
    expect(report.sending).toBeGreaterThan(0);
    for (const kind of ["new", "duplicate", "badBase64", "badJson", "list", "get"]) expect(Object.keys(report.byKind)).toContain(kind);
  }, 90_000);
});
