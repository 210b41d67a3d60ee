// The soak (soak/soak.ts, `pnpm soak`: 60 s, 100 connections) in a short form for every test run:
// 5 s, 20 connections, the same mix of new (XML and data), duplicate and invalid submissions, validations and reads against the
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
    // How many requests 5 s allow is a figure of the machine (pnpm soak, pnpm bench), not a test; what each kind
    // was answered is: every new submission `sending`, every duplicate a 200 (failed, naming the first), every
    // invalid or hostile request its one documented status. Each kind of the mix answered at least once.
    const expected: Record<string, string> = {
      new: "200", newData: "200", validate: "200", duplicate: "200", badBase64: "422", notUbl: "422", badJson: "400", noRecipient: "422", extraKey: "400", badKey: "401",
      list: "200", get: "200", clients: "200", malformedId: "404", badGzip: "400", year0Cursor: "400", protoQuery: "400", freeCompany: "403", privateWebhook: "400",
    };
    for (const kind of ["new", "newData", "validate", "duplicate", "badBase64", "badJson", "list", "get"]) expect(Object.keys(report.byKind[kind] ?? {}), kind).toEqual([expected[kind]]);
    for (const [kind, answers] of Object.entries(report.byKind)) expect(Object.keys(answers), kind).toEqual([expected[kind]]);
    // Every `sending` is one of those new submissions (XML or data) or a seed (soak.ts submits 3 per company before the load).
    expect(report.sending).toBe(report.byKind.new!["200"]! + report.byKind.newData!["200"]! + 3 * 3);
  }, 90_000);
});
