// The receiving settings of the example server (inboundFromEnv): defaults, bounds, and what turns the poller off.
import { describe, expect, it } from "vitest";
import { inboundFromEnv } from "../src/inbound.js";

describe("inboundFromEnv", () => {
  it("defaults to KSeF every 900 s, Storecove every 60 s, a 5 min lease, the poller on", () => {
    expect(inboundFromEnv({})).toEqual({ enabled: true, offBy: null, ksefIntervalMs: 900_000, storecoveIntervalMs: 60_000, leaseMs: 300_000 });
    expect(inboundFromEnv({ KSEF_INBOUND_INTERVAL_S: "", STORECOVE_RECEIVE_INTERVAL_S: " ", INBOUND: "on" }).enabled).toBe(true);
  });

  it("takes whole seconds from 1 to a day and a lease from 3 s to an hour", () => {
    expect(inboundFromEnv({ KSEF_INBOUND_INTERVAL_S: "1800", STORECOVE_RECEIVE_INTERVAL_S: "1", INBOUND_LEASE_MS: "3000" })).toMatchObject({ ksefIntervalMs: 1_800_000, storecoveIntervalMs: 1000, leaseMs: 3000 });
    expect(inboundFromEnv({ KSEF_INBOUND_INTERVAL_S: "86400" }).ksefIntervalMs).toBe(86_400_000);
    for (const v of ["0", "-5", "1.5", "1e3", "86401", "abc", "0x10"]) {
      expect(() => inboundFromEnv({ KSEF_INBOUND_INTERVAL_S: v }), v).toThrow(`KSEF_INBOUND_INTERVAL_S must be a whole number of seconds from 1 to 86400, not ${JSON.stringify(v)} (default 900).`);
      expect(() => inboundFromEnv({ STORECOVE_RECEIVE_INTERVAL_S: v }), v).toThrow(/^STORECOVE_RECEIVE_INTERVAL_S must be a whole number of seconds from 1 to 86400/);
    }
    for (const v of ["2999", "3600001", "5s"]) expect(() => inboundFromEnv({ INBOUND_LEASE_MS: v }), v).toThrow(/^INBOUND_LEASE_MS must be a whole number of milliseconds from 3000 to 3600000/);
  });

  it("is off with INBOUND=off or DISPATCHER=off, saying which; INBOUND takes on or off only", () => {
    expect(inboundFromEnv({ INBOUND: "off" })).toMatchObject({ enabled: false, offBy: "INBOUND=off" });
    expect(inboundFromEnv({ DISPATCHER: "off" })).toMatchObject({ enabled: false, offBy: "DISPATCHER=off" });
    expect(() => inboundFromEnv({ INBOUND: "false" })).toThrow('INBOUND must be on or off, not "false".');
  });
});
