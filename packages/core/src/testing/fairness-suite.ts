// testWorkerFairness: the queue workers (the webhook sender, the dispatcher) on a store, with one company's
// receivers or network hanging: the other companies' items must go on.
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DeliveryStore, Store, WebhookJob, WebhookStore } from "../ports/store.js";
import type { NetworkPort, SendOutcome, SendRequest } from "../ports/network.js";
import type { Company } from "../domain/types.js";
import { createWebhookSender } from "../workers/webhook-sender.js";
import { createDispatcher } from "../workers/dispatcher.js";
import { sampleAccount, sampleApiKey, sampleCompany, sampleInvoiceRecord } from "./fixtures.js";

type S = Store & DeliveryStore & WebhookStore;

/** An HTTP server on loopback that counts the requests it gets, and answers each 200, or (`hang`) never. */
interface TestServer {
  base: string;
  /** Requests received. */
  total(): number;
  close(): Promise<void>;
}

async function startServer(answer: boolean): Promise<TestServer> {
  let total = 0;
  const server: Server = createServer((req, res) => {
    total++;
    req.resume();
    // A hanging server accepts the request and never answers: only the client's timeout ends it.
    if (answer) req.on("end", () => res.writeHead(200).end());
  });
  server.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    total: () => total,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Waits until `done()` holds, checking every 5 ms; fails after `cpuMs` of this process's CPU time (or 45 s). */
async function until(what: string, done: () => boolean | Promise<boolean>, cpuMs = 20_000): Promise<void> {
  const cpu0 = process.cpuUsage();
  const wall0 = Date.now();
  for (;;) {
    if (await done()) return;
    const used = process.cpuUsage(cpu0);
    if ((used.user + used.system) / 1000 > cpuMs || Date.now() - wall0 > 45_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Registers a vitest `describe` block that runs the webhook sender and the dispatcher on a store
 * while one company's receivers (or network) never answer, and checks the fairness rule of the queue
 * ports (`ports/queue.ts`): another company's item is claimed within the first round, whatever the
 * backlog of the first; and the webhook sender backs off a URL that keeps failing as a whole.
 *
 * @example testWorkerFairness("memory", () => memoryStore())
 */
export function testWorkerFairness(label: string, factory: () => S | Promise<S>): void {
  describe(`queue workers' fairness: ${label}`, () => {
    let store: S;
    const servers: TestServer[] = [];
    const stops: (() => Promise<void>)[] = [];

    beforeEach(async () => {
      store = await factory();
    });
    afterEach(async () => {
      for (const stop of stops.splice(0)) await stop();
      for (const s of servers.splice(0)) await s.close();
      await store.close?.();
    });

    async function newCompany(): Promise<Company> {
      const c = sampleCompany({ legalEntityId: "le-1" });
      await store.createAccount({ account: sampleAccount(c), company: c, apiKey: sampleApiKey(c.id) });
      return c;
    }
    async function server(answer: boolean): Promise<TestServer> {
      const s = await startServer(answer);
      servers.push(s);
      return s;
    }
    /** A delivered invoice of the company, whose status change enqueues one event per webhook, due at `at`. */
    async function announce(companyId: string, at: string): Promise<void> {
      const inv = sampleInvoiceRecord(companyId, { createdAt: at, updatedAt: at });
      await store.insertSubmission({ invoice: inv, document: new Uint8Array([60]), client: null });
      const [job] = await store.claimDeliveries({ owner: "seed", now: at, leaseUntil: new Date(Date.parse(at) + 60_000).toISOString(), limit: 1 });
      expect(job?.invoice.id).toBe(inv.id);
      await store.completeAttempt({
        id: inv.id,
        owner: "seed",
        attempts: 1,
        status: "delivered",
        errorMessage: null,
        event: { status: "delivered", at, detail: "ok" },
        nextAttemptAt: null,
        updatedAt: at,
        notify: { type: "invoice.status_changed", data: `{"invoice":{"id":"${inv.id}"}}` },
      });
    }
    const webhook = (companyId: string, url: string) => ({
      id: randomUUID(),
      companyId,
      url,
      events: ["invoice.status_changed" as const],
      secret: "whsec_x",
      createdAt: new Date().toISOString(),
      deletedAt: null,
      previousSecret: null,
      previousSecretExpiresAt: null,
    });

    it("delivers company B's event within the first round while company A's 10 webhooks hang on 300 events, and backs A's URLs off as a whole", async () => {
      const hang = await server(false);
      const healthy = await server(true);
      const a = await newCompany();
      const b = await newCompany();
      const aHooks = Array.from({ length: 10 }, (_, i) => webhook(a.id, `${hang.base}/a/${i}`));
      for (const h of aHooks) await store.insertWebhook(h);
      await store.insertWebhook(webhook(b.id, `${healthy.base}/b`));
      // A's 300 events are all older than B's one: the oldest-first order alone puts B's last.
      const t0 = Date.now() - 120_000;
      for (let i = 0; i < 30; i++) await announce(a.id, new Date(t0 + i).toISOString());
      await announce(b.id, new Date(t0 + 60_000).toISOString());

      const batchSize = 10;
      const perCompany = Math.ceil(batchSize / 2);
      const timeoutMs = 250;
      const failures = 3;
      // The sender's side, seen through the store: the claims' sizes, A's attempts in flight (most ever) and recorded.
      const claimed: { n: number; aIdle: boolean }[] = [];
      const companyOf = new Map<string, string>();
      let aInFlight = 0;
      let aMostInFlight = 0;
      let aRecorded = 0;
      let aRecording = 0;
      const claimsByUrl = new Map<string, number>();
      const observed: S = Object.assign(Object.create(store) as S, {
        claimWebhookEvents: async (w: Parameters<S["claimWebhookEvents"]>[0]): Promise<WebhookJob[]> => {
          // A claim made while none of A's events is in flight or being recorded sees all of A's claimable events.
          const aIdle = aInFlight === 0 && aRecording === 0;
          const jobs = await store.claimWebhookEvents(w);
          claimed.push({ n: jobs.length, aIdle });
          for (const j of jobs) {
            companyOf.set(j.event.id, j.event.companyId);
            claimsByUrl.set(j.url, (claimsByUrl.get(j.url) ?? 0) + 1);
            if (j.event.companyId === a.id) aMostInFlight = Math.max(aMostInFlight, ++aInFlight);
          }
          return jobs;
        },
        completeWebhookEvent: async (input: Parameters<S["completeWebhookEvent"]>[0]): Promise<boolean> => {
          // Counted out before the store frees the place: a claim that sees it free (in a database, even
          // before this call returns) then never counts it twice.
          const ofA = companyOf.get(input.id) === a.id;
          if (ofA) (aInFlight--, aRecording++);
          try {
            return await store.completeWebhookEvent(input);
          } finally {
            if (ofA) (aRecording--, aRecorded++);
          }
        },
      });
      const sender = createWebhookSender({
        store: observed,
        targets: { allowPrivate: true },
        timeoutMs,
        batchSize,
        pollIntervalMs: 10,
        // Long waits: an event or a URL backed off stays so for the rest of the test.
        retry: { baseDelayMs: 600_000 },
        circuit: { failures },
      });
      sender.start();
      stops.push(() => sender.stop());

      // Today's order claims A's oldest first, so B waits for A's whole backlog: stop looking after three rounds of A's timeouts.
      let aRecordedWhenBArrived = -1;
      await until("B's event, or three rounds of A's timeouts", () => {
        if (healthy.total() > 0 && aRecordedWhenBArrived < 0) aRecordedWhenBArrived = aRecorded;
        return healthy.total() > 0 || aRecorded >= 3 * batchSize;
      });
      expect(healthy.total()).toBe(1);
      // B's event went out before a single round of A's timeouts had passed, and A never held more than its share.
      expect(aRecordedWhenBArrived).toBeLessThan(batchSize);
      expect(aMostInFlight).toBeLessThanOrEqual(perCompany);

      // A's URLs trip one by one: after `failures` failures in a row each is paused as a whole, and the
      // sender goes quiet with nearly all of A's events never attempted (not 300 timeouts of 250 ms).
      // Every one of A's URLs has some of its 30 events left: a claim that finds none while A is idle means all ten are paused.
      await until("every one of A's URLs paused", () => aRecorded > 0 && claimed.length >= 3 && claimed.slice(-3).every((c) => c.n === 0 && c.aIdle));
      expect(aMostInFlight).toBeLessThanOrEqual(perCompany);
      // At most `failures` in a row, plus those already in flight when the circuit opened (A's share less one).
      for (const h of aHooks) expect(claimsByUrl.get(h.url) ?? 0).toBeLessThanOrEqual(failures + perCompany - 1);
      let untried = 0;
      for (const h of aHooks) untried += (await store.listWebhookEvents(a.id, h.id, 50)).filter((e) => e.attempts === 0 && e.status === "pending").length;
      expect(untried).toBe(300 - aRecorded);
      expect(untried).toBeGreaterThanOrEqual(300 - 10 * (failures + perCompany - 1));
    });

    it("delivers company B's submission while company A's network hangs on every send", async () => {
      const a = await newCompany();
      const b = await newCompany();
      const t0 = Date.now() - 60_000;
      const aIds: string[] = [];
      for (let i = 0; i < 20; i++) {
        const inv = sampleInvoiceRecord(a.id, { createdAt: new Date(t0 + i).toISOString(), updatedAt: new Date(t0 + i).toISOString() });
        await store.insertSubmission({ invoice: inv, document: new Uint8Array([60]), client: null });
        aIds.push(inv.id);
      }
      const bInv = sampleInvoiceRecord(b.id, { createdAt: new Date(t0 + 30_000).toISOString(), updatedAt: new Date(t0 + 30_000).toISOString() });
      await store.insertSubmission({ invoice: bInv, document: new Uint8Array([60]), client: null });

      // A's sends hang (a KSeF session that never answers) until the test lets them go.
      const hanging = new Set<() => void>();
      const network: NetworkPort = {
        name: "stub",
        send(request: SendRequest): Promise<SendOutcome> {
          if (request.companyId !== a.id) return Promise.resolve({ outcome: "delivered" });
          return new Promise((resolve) => {
            const release = () => resolve({ outcome: "retry", reason: "hung", retryAfterMs: 600_000 });
            hanging.add(release);
          });
        },
      };
      const batchSize = 10;
      const dispatcher = createDispatcher({ store, networks: { peppol: network }, batchSize, pollIntervalMs: 10, stopTimeoutMs: 2_000 });
      dispatcher.start();
      stops.push(async () => {
        for (const release of hanging) release();
        await dispatcher.stop();
      });

      // Today's order claims A's 20 first: all ten places hang and B never goes. Stop looking then.
      await until("B's delivery, or every place held by A", async () => (await store.getInvoice(b.id, bInv.id))?.status === "delivered" || hanging.size >= batchSize);
      expect((await store.getInvoice(b.id, bInv.id))?.status).toBe("delivered");
      expect(hanging.size).toBeLessThanOrEqual(Math.ceil(batchSize / 2));
      for (const id of aIds) expect((await store.getInvoice(a.id, id))?.status).toBe("sending");
    });

    it("keeps company A to its share when its sends hang past their leases", async () => {
      const a = await newCompany();
      const b = await newCompany();
      let nowMs = Date.now();
      const clock = () => new Date(nowMs);
      for (let i = 0; i < 20; i++) {
        const at = new Date(nowMs - 60_000 + i).toISOString();
        await store.insertSubmission({ invoice: sampleInvoiceRecord(a.id, { createdAt: at, updatedAt: at }), document: new Uint8Array([60]), client: null });
      }
      const hanging = new Set<() => void>();
      const network: NetworkPort = {
        name: "stub",
        send(request: SendRequest): Promise<SendOutcome> {
          if (request.companyId !== a.id) return Promise.resolve({ outcome: "delivered" });
          return new Promise((resolve) => void hanging.add(() => resolve({ outcome: "retry", reason: "hung", retryAfterMs: 600_000 })));
        },
      };
      let claims = 0;
      const observed: S = Object.assign(Object.create(store) as S, {
        claimDeliveries: async (w: Parameters<S["claimDeliveries"]>[0]) => {
          const jobs = await store.claimDeliveries(w);
          claims++;
          return jobs;
        },
      });
      const batchSize = 10;
      const leaseMs = 1_000;
      const dispatcher = createDispatcher({ store: observed, networks: { peppol: network }, batchSize, leaseMs, clock, pollIntervalMs: 10, stopTimeoutMs: 2_000 });
      dispatcher.start();
      stops.push(async () => {
        for (const release of hanging) release();
        await dispatcher.stop();
      });
      await until("A's share of the places taken", () => hanging.size >= Math.ceil(batchSize / 2));
      // Ten leases later: A's leases ran out while its sends still hang. B submits now.
      nowMs += 10 * leaseMs;
      const at = new Date(nowMs).toISOString();
      const bInv = sampleInvoiceRecord(b.id, { createdAt: at, updatedAt: at });
      await store.insertSubmission({ invoice: bInv, document: new Uint8Array([60]), client: null });
      const claimsBefore = claims;
      await until("B's delivery and three more claims, or every place held by A", async () => ((await store.getInvoice(b.id, bInv.id))?.status === "delivered" && claims >= claimsBefore + 3) || hanging.size >= batchSize);
      expect((await store.getInvoice(b.id, bInv.id))?.status).toBe("delivered");
      // A's hung sends still hold their places, lease or not: A never gets more than its share.
      expect(hanging.size).toBe(Math.ceil(batchSize / 2));
    });
  });
}
