// The inbound poller against the memory store and fake sources: stored before the mark moves, a cut run loses and
// duplicates nothing, one run per scope across pollers, backfill requests handed over and deleted once taken.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  createInboundPoller,
  listInvoices,
  memoryStore,
  tokenCipher,
  updateCompany,
  type InboundRun,
  type InboundRunResult,
  type InboundSource,
  type MetricsPort,
  type ReceiveOptions,
} from "../src/index.js";
import { setup } from "./support/setup.js";
import { invoiceXml } from "./support/ubl.js";

const doc = (n: number) => new Uint8Array(Buffer.from(invoiceXml({ id: `K-${n}` }), "utf8"));

/** A KSeF-like network: numbered documents per company, read in order after the mark (the last number stored). */
function fakeKsef(total: number, hooks: { afterStore?: (n: number, ctx: InboundRun) => Promise<void> | void; onRun?: (ctx: InboundRun) => Promise<void> | void } = {}) {
  const runs: InboundRun[] = [];
  const source: InboundSource = {
    name: "ksef",
    network: "ksef",
    scope: "company",
    appliesTo: (c) => c.country === "PL" || c.country === "NL",
    async run(ctx): Promise<InboundRunResult> {
      runs.push(ctx);
      await hooks.onRun?.(ctx);
      let mark = ctx.state === null ? 0 : Number(ctx.state);
      let received = 0;
      for (let n = mark + 1; n <= total; n++) {
        await ctx.store({ reference: { ksefNumber: `KSEF-${ctx.scope}-${n}` }, content: doc(n) });
        received++;
        await hooks.afterStore?.(n, ctx);
        await ctx.checkpoint(String(n));
        mark = n;
      }
      return { state: String(mark), nextRunInMs: 900_000, received };
    },
  };
  return { source, runs };
}

async function world() {
  const store = memoryStore();
  const s = await setup({ store });
  await store.ensureInboundSync({ source: "ksef", scope: s.companyId, now: s.clock.now().toISOString() });
  return { ...s, store };
}

describe("inbound poller", () => {
  it("stores each document before its mark moves, and makes the scope due again after nextRunInMs", async () => {
    const w = await world();
    const storedAtCheckpoint: Array<[string | null, number]> = [];
    const save = w.store.saveInboundSync.bind(w.store);
    w.store.saveInboundSync = async (input) => {
      const inbound = await w.store.listInvoices(w.companyId, { limit: 100, after: null, status: null, clientId: null, direction: "inbound" });
      storedAtCheckpoint.push([input.state, inbound.length]);
      return save(input);
    };
    const { source, runs } = fakeKsef(5);
    const poller = createInboundPoller({ store: w.store, sources: [{ source, intervalMs: 60_000 }], clock: w.clock.now });
    expect(await poller.runDue()).toBe(1);
    expect(storedAtCheckpoint.length).toBeGreaterThanOrEqual(5);
    for (const [state, stored] of storedAtCheckpoint) expect(stored).toBeGreaterThanOrEqual(Number(state));
    const rows = await w.store.listInboundSyncs("ksef");
    expect(rows).toEqual([{ source: "ksef", scope: w.companyId, state: "5", nextRunAt: new Date(w.clock.now().getTime() + 900_000).toISOString(), requests: [] }]);
    // Not due before its time.
    expect(await poller.runDue()).toBe(0);
    w.clock.advance(900_000);
    expect(await poller.runDue()).toBe(1);
    expect(runs.map((r) => r.state)).toEqual([null, "5"]);
    expect((await listInvoices(w.store, w.auth, { direction: "inbound", limit: "100" })).data).toHaveLength(5);
  });

  it("loses nothing and duplicates nothing when a run is cut between storing and its checkpoint", async () => {
    const w = await world();
    let cut = true;
    const logged: Array<Record<string, unknown>> = [];
    const { source } = fakeKsef(6, {
      afterStore: (n) => {
        if (cut && n === 4) {
          cut = false;
          throw new Error("kill -9 (secret token abc)");
        }
      },
    });
    const poller = createInboundPoller({ store: w.store, sources: [{ source, intervalMs: 60_000 }], clock: w.clock.now, logger: { error: (o) => logged.push(o) } });
    await poller.runDue();
    // Stored up to 4, the mark at 3: due again after the interval.
    expect((await w.store.listInboundSyncs("ksef"))[0]).toMatchObject({ state: "3", nextRunAt: new Date(w.clock.now().getTime() + 60_000).toISOString() });
    expect((await listInvoices(w.store, w.auth, { direction: "inbound", limit: "100" })).data).toHaveLength(4);
    expect(logged).toEqual([{ source: "ksef", scope: w.companyId, received: 4, error: "Error" }]);
    expect(JSON.stringify(logged)).not.toContain("secret");
    w.clock.advance(60_000);
    await poller.runDue();
    const all = (await listInvoices(w.store, w.auth, { direction: "inbound", limit: "100" })).data;
    expect(all.map((i) => i.invoiceNumber).sort()).toEqual(["K-1", "K-2", "K-3", "K-4", "K-5", "K-6"]);
    expect((await w.store.listInboundSyncs("ksef"))[0]?.state).toBe("6");
  });

  it("never runs one scope in two pollers at once, and each due scope once", async () => {
    const store = memoryStore();
    const companies = [];
    for (let i = 0; i < 4; i++) companies.push(await setup({ store }));
    const clock = companies[0]!.clock;
    for (const c of companies) await store.ensureInboundSync({ source: "ksef", scope: c.companyId, now: clock.now().toISOString() });
    const running = new Map<string, number>();
    let overlap = 0;
    const runsByScope = new Map<string, number>();
    const { source } = fakeKsef(1, {
      onRun: async (ctx) => {
        runsByScope.set(ctx.scope, (runsByScope.get(ctx.scope) ?? 0) + 1);
        running.set(ctx.scope, (running.get(ctx.scope) ?? 0) + 1);
        if (running.get(ctx.scope)! > 1) overlap++;
        await new Promise((r) => setTimeout(r, 5));
        running.set(ctx.scope, running.get(ctx.scope)! - 1);
      },
    });
    const a = createInboundPoller({ store, sources: [{ source, intervalMs: 60_000 }], owner: "a", clock: clock.now, batchSize: 2 });
    const b = createInboundPoller({ store, sources: [{ source, intervalMs: 60_000 }], owner: "b", clock: clock.now, batchSize: 2 });
    const counts = await Promise.all([a.runDue(), b.runDue(), a.runDue(), b.runDue()]);
    expect(counts.reduce((x, y) => x + y, 0)).toBe(4);
    expect(overlap).toBe(0);
    expect([...runsByScope.values()]).toEqual([1, 1, 1, 1]);
  });

  it("lets another poller take a scope over once a dead poller's lease ran out, and refuses the dead one's checkpoint", async () => {
    const w = await world();
    let release!: () => void;
    const hang = new Promise<void>((r) => (release = r));
    let firstCheckpoint: unknown = null;
    const dead: InboundSource = {
      name: "ksef",
      network: "ksef",
      scope: "company",
      async run(ctx) {
        await hang;
        try {
          await ctx.checkpoint("stale");
        } catch (e) {
          firstCheckpoint = e;
        }
        return { state: "stale", nextRunInMs: 1, received: 0 };
      },
    };
    const p1 = createInboundPoller({ store: w.store, sources: [{ source: dead, intervalMs: 60_000 }], owner: "dead", clock: w.clock.now, leaseMs: 60_000 });
    const first = p1.runDue();
    await new Promise((r) => setTimeout(r, 5));
    const { source } = fakeKsef(2);
    const p2 = createInboundPoller({ store: w.store, sources: [{ source, intervalMs: 60_000 }], owner: "alive", clock: w.clock.now, leaseMs: 60_000 });
    expect(await p2.runDue()).toBe(0);
    w.clock.advance(60_001);
    expect(await p2.runDue()).toBe(1);
    release();
    await first;
    expect((firstCheckpoint as Error | null)?.name).toBe("InboundLeaseLostError");
    expect((await w.store.listInboundSyncs("ksef"))[0]?.state).toBe("2");
  });

  it("hands the backfill requests to the run and deletes those it took, with its checkpoint or its end", async () => {
    const w = await world();
    const seen: string[][] = [];
    const source: InboundSource = {
      name: "ksef",
      network: "ksef",
      scope: "company",
      async run(ctx) {
        seen.push(ctx.requests.map((r) => r.id));
        const [first, ...rest] = ctx.requests;
        if (first) await ctx.checkpoint(`after-${first.id}`, [first.id]);
        return { state: ctx.requests.length ? "backfilled" : ctx.state, nextRunInMs: 900_000, received: 0, takenRequests: rest.map((r) => r.id) };
      },
    };
    const poller = createInboundPoller({ store: w.store, sources: [{ source, intervalMs: 60_000 }], clock: w.clock.now });
    await poller.runDue();
    expect(seen).toEqual([[]]);
    const at = w.clock.now().toISOString();
    const r1 = { id: randomUUID(), from: "2026-01-01T00:00:00.000Z", to: "2026-01-02T00:00:00.000Z", requestedAt: at };
    const r2 = { id: randomUUID(), from: "2026-01-03T00:00:00.000Z", to: "2026-01-04T00:00:00.000Z", requestedAt: at };
    await w.store.requestBackfill({ source: "ksef", scope: w.companyId, request: r1 });
    await w.store.requestBackfill({ source: "ksef", scope: w.companyId, request: r2 });
    // Due at once although its interval has not passed.
    expect(await poller.runDue()).toBe(1);
    expect(seen[1]?.sort()).toEqual([r1.id, r2.id].sort());
    expect((await w.store.listInboundSyncs("ksef"))[0]).toMatchObject({ state: "backfilled", requests: [] });
  });

  it("gives the run the company's decrypted KSeF credential (the row made when it was set), and skips a company the source does not apply to", async () => {
    const store = memoryStore();
    const pl = await setup({ store, country: "PL" });
    const de = await setup({ store, country: "DE" });
    const cipher = tokenCipher(Buffer.alloc(32, 7));
    await updateCompany(store, pl.companyId, { ksef: { nip: "5260250995", token: "secret-token" } }, { ...pl.options, tokenCipher: cipher });
    await store.ensureInboundSync({ source: "ksef", scope: de.companyId, now: pl.clock.now().toISOString() });
    const runs: InboundRun[] = [];
    const source: InboundSource = {
      name: "ksef",
      network: "ksef",
      scope: "company",
      appliesTo: (c) => c.country === "PL" && c.ksef !== null,
      async run(ctx) {
        runs.push(ctx);
        return { state: null, nextRunInMs: 900_000, received: 0 };
      },
    };
    const poller = createInboundPoller({ store, sources: [{ source, intervalMs: 60_000 }], clock: pl.clock.now, tokenCipher: cipher });
    expect(await poller.runDue()).toBe(2);
    expect(runs.map((r) => [r.scope, r.company?.id, r.ksefCredential])).toEqual([[pl.companyId, pl.companyId, { nip: "5260250995", token: "secret-token" }]]);
    const de_row = (await store.listInboundSyncs("ksef")).find((r) => r.scope === de.companyId);
    expect(de_row?.nextRunAt).toBe(new Date(pl.clock.now().getTime() + 60_000).toISOString());
  });

  it("runs a whole-server source once for all, its documents going to the company of their legal entity or to no company", async () => {
    const w = await world();
    await updateCompany(w.store, w.companyId, { legalEntityId: "LE-9" }, w.options);
    const counted: string[] = [];
    const metrics: MetricsPort = {
      submission() {},
      deliveryAttempt() {},
      deliveryDuration() {},
      webhookDelivery() {},
      validationDuration() {},
      rateLimited() {},
      inboundReceived: (l) => counted.push(`${l.network}:${l.outcome}`),
      inboundRun: (l, n) => counted.push(`run:${l.source}:${l.outcome}:${n}`),
    };
    const queue = [
      { guid: "q-1", le: "LE-9" },
      { guid: "q-2", le: "LE-404" },
      { guid: "q-1", le: "LE-9" },
    ];
    const acked: string[] = [];
    const source: InboundSource = {
      name: "storecove",
      network: "peppol",
      scope: "server",
      async run(ctx) {
        expect(ctx.scope).toBe("*");
        expect(ctx.company).toBeNull();
        for (const item of queue) {
          await ctx.store({ reference: { storecoveGuid: item.guid }, content: doc(1), legalEntityId: item.le });
          acked.push(item.guid);
        }
        return { state: null, nextRunInMs: 60_000, received: queue.length };
      },
    };
    // The receive options are receiveDocument's (ReceiveOptions), whole.
    const receive: ReceiveOptions = { ...w.options, syntaxes: [] };
    const poller = createInboundPoller({ store: w.store, sources: [{ source, intervalMs: 60_000 }], clock: w.clock.now, metrics, receive });
    expect(await poller.runDue()).toBe(1);
    expect(acked).toEqual(["q-1", "q-2", "q-1"]);
    expect(counted).toEqual(["peppol:stored", "peppol:unmatched", "peppol:duplicate", "run:storecove:ok:3"]);
    expect((await listInvoices(w.store, w.auth, { direction: "inbound" })).data).toHaveLength(1);
    expect(await w.store.countUnmatched()).toBe(1);
    expect((await w.store.listInboundSyncs("storecove")).map((r) => r.scope)).toEqual(["*"]);
  });

  it("on stop, aborts the runs' signal, waits for them, and gives back the lease of one that does not end", async () => {
    const w = await world();
    let aborted = false;
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const stubborn: InboundSource = {
      name: "ksef",
      network: "ksef",
      scope: "company",
      run: (ctx) =>
        new Promise(() => {
          ctx.signal.addEventListener("abort", () => (aborted = true));
          started();
        }),
    };
    const poller = createInboundPoller({ store: w.store, sources: [{ source: stubborn, intervalMs: 60_000 }], clock: w.clock.now, stopTimeoutMs: 50, pollIntervalMs: 10 });
    poller.start();
    await running;
    // Held: another owner cannot claim it.
    expect(await w.store.claimInboundSyncs({ source: "ksef", owner: "other", now: w.clock.now().toISOString(), leaseUntil: new Date(w.clock.now().getTime() + 1).toISOString(), limit: 1 })).toEqual([]);
    expect(poller.status().running).toBe(true);
    await poller.stop();
    expect(aborted).toBe(true);
    expect(poller.status().running).toBe(false);
    const after = await w.store.claimInboundSyncs({ source: "ksef", owner: "next", now: w.clock.now().toISOString(), leaseUntil: new Date(w.clock.now().getTime() + 60_000).toISOString(), limit: 1 });
    expect(after.map((r) => r.scope)).toEqual([w.companyId]);
  });

  it("gives the lease back and fails the round when the store fails outside a run", async () => {
    const w = await world();
    const getCompany = w.store.getCompany.bind(w.store);
    w.store.getCompany = async () => {
      throw Object.assign(new Error("connection refused"), { code: "ECONNREFUSED" });
    };
    const logged: Array<Record<string, unknown>> = [];
    const { source, runs } = fakeKsef(1);
    const poller = createInboundPoller({ store: w.store, sources: [{ source, intervalMs: 60_000 }], clock: w.clock.now, logger: { error: (o) => logged.push(o) } });
    await expect(poller.runDue()).rejects.toThrow("connection refused");
    expect(logged).toEqual([{ source: "ksef", scope: w.companyId, error: "Error", errorCode: "ECONNREFUSED" }]);
    expect(runs).toEqual([]);
    w.store.getCompany = getCompany;
    expect(await poller.runDue()).toBe(1);
    expect(runs).toHaveLength(1);
  });
});

