import { describe, expect, it } from "vitest";
import {
  backoffDelay,
  createDispatcher,
  DEFAULT_RETRY,
  getInvoice,
  memoryStore,
  sandboxNetwork,
  submitCreditNote,
  submitInvoice,
  type NetworkPort,
  type SendRequest,
} from "../src/index.js";
import { setup } from "./support/setup.js";
import { b64, invoiceXml } from "./support/ubl.js";
import { readFileSync } from "node:fs";
import { CORPUS_DIR } from "./support/corpus.js";

/** Polls `ok` every few milliseconds until it holds, or fails after `timeoutMs`. */
async function until(ok: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error("timed out waiting for a condition");
    await new Promise((res) => setTimeout(res, 5));
  }
}

async function world(networkOverride?: NetworkPort, retry?: Partial<typeof DEFAULT_RETRY>) {
  const store = memoryStore();
  const s = await setup({ store });
  const network = sandboxNetwork({ delayMs: 0 });
  const net = networkOverride ?? network;
  const now = () => s.clock.now();
  const dispatcher = createDispatcher({ store, networks: { peppol: net, ksef: net }, clock: now, random: () => 1, retry, leaseMs: 60_000, owner: "d1" });
  // Trigger words are not real numbers: scheme 0106 has no check digits (0208 has).
  const submit = async (endpoint: string, scheme = "0106") =>
    (await submitInvoice(store, s.auth, { xml: b64(invoiceXml({ id: endpoint, endpoint, scheme })) }, s.options)).submissionId;
  return { ...s, store, network, dispatcher, submit, get: (id: string) => getInvoice(store, s.auth, id) };
}

describe("dispatcher", () => {
  it("delivers a sending submission and records the event", async () => {
    const w = await world();
    const id = await w.submit("0123456789");
    expect(await w.dispatcher.runOnce()).toBe(1);
    const inv = await w.get(id);
    expect(inv.status).toBe("delivered");
    expect(inv.errorMessage).toBeNull();
    expect(inv.events.map((e) => e.status)).toEqual(["sending", "delivered"]);
    expect(inv.events[1]!.detail).toMatch(/Delivered on peppol \(attempt 1\)/);
    expect(w.network.calls.get(id)).toBe(1);
    expect(await w.dispatcher.runOnce()).toBe(0);
  });

  it("delivers a credit note on the sandbox network, byte for byte, and records the event", async () => {
    const sent: SendRequest[] = [];
    const sandbox = sandboxNetwork({ delayMs: 0 });
    const w = await world({ ...sandbox, send: async (req) => (sent.push(req), sandbox.send(req)) });
    const bytes = readFileSync(`${CORPUS_DIR}/openpeppol-bis3/snippets/Snippet-cn.xml`);
    const r = await submitCreditNote(w.store, w.auth, { xml: bytes.toString("base64"), targetNetwork: "peppol" }, w.options);
    expect(r.status).toBe("sending");
    expect(await w.dispatcher.runOnce()).toBe(1);
    const inv = await w.get(r.submissionId);
    expect(inv).toMatchObject({ status: "delivered", kind: "creditNote", billingReference: "123", errorMessage: null });
    expect(inv.events.map((e) => e.status)).toEqual(["sending", "delivered"]);
    expect(sent).toHaveLength(1);
    expect(Buffer.from(sent[0]!.document).equals(bytes)).toBe(true);
    expect(sent[0]!.routing).toEqual({ network: "peppol", recipient: { scheme: "0002", value: "FR23342" } });
    expect(sent[0]!.companyId).toBe(w.companyId);
  });

  it("fails an unreachable recipient for good with the network's reason, which frees the XML for a new submission", async () => {
    const w = await world();
    const id = await w.submit("UNREACHABLE-9");
    await w.dispatcher.runOnce();
    const inv = await w.get(id);
    expect(inv).toMatchObject({ status: "failed", errorMessage: expect.stringMatching(/unreachable/) });
    expect(inv.events.at(-1)).toMatchObject({ status: "failed", detail: inv.errorMessage });
    const again = await submitInvoice(w.store, w.auth, { xml: b64(invoiceXml({ id: "UNREACHABLE-9", endpoint: "UNREACHABLE-9", scheme: "0106" })) }, w.options);
    expect(again.status).toBe("sending");
  });

  it("retries a flaky recipient with backoff, keeping sending, and delivers on the third attempt", async () => {
    const w = await world();
    const id = await w.submit("flaky-1");
    await w.dispatcher.runOnce();
    let inv = await w.get(id);
    expect(inv.status).toBe("sending");
    expect(inv.events[1]!.detail).toMatch(/Attempt 1 on peppol failed: .*Next try at /);
    expect(await w.dispatcher.runOnce()).toBe(0); // not due yet
    w.clock.advance(DEFAULT_RETRY.baseDelayMs);
    expect(await w.dispatcher.runOnce()).toBe(1);
    inv = await w.get(id);
    expect(inv.events.map((e) => e.status)).toEqual(["sending", "sending", "sending"]);
    w.clock.advance(DEFAULT_RETRY.baseDelayMs * 2 - 1);
    expect(await w.dispatcher.runOnce()).toBe(0);
    w.clock.advance(1);
    expect(await w.dispatcher.runOnce()).toBe(1);
    inv = await w.get(id);
    expect(inv.status).toBe("delivered");
    expect(inv.events.at(-1)!.detail).toMatch(/attempt 3/);
  });

  it("gives up after the bound and says how many attempts it made", async () => {
    const always: NetworkPort = { name: "down", send: async () => ({ outcome: "retry", reason: "503 from the access point." }) };
    const w = await world(always, { maxAttempts: 3, baseDelayMs: 1000 });
    const id = await w.submit("0123456789");
    for (let i = 0; i < 3; i++) {
      await w.dispatcher.runOnce();
      w.clock.advance(10_000);
    }
    const inv = await w.get(id);
    expect(inv.status).toBe("failed");
    expect(inv.errorMessage).toMatch(/after 3 attempts.*503/);
    expect(inv.events).toHaveLength(4);
  });

  it("gives each route its own retry bound with retryByRoute (the sandbox on peppol, KSeF itself on ksef)", async () => {
    const always: NetworkPort = { name: "down", send: async () => ({ outcome: "retry", reason: "503 from the network." }) };
    const store = memoryStore();
    const s = await setup({ store });
    const pl = await setup({ store, country: "PL" });
    const dispatcher = createDispatcher({
      store,
      networks: { peppol: always, ksef: always },
      clock: () => s.clock.now(),
      random: () => 1,
      retry: { maxAttempts: 2, baseDelayMs: 1000 },
      retryByRoute: { ksef: { maxAttempts: 4 } },
      owner: "d1",
    });
    const peppol = (await submitInvoice(store, s.auth, { xml: b64(invoiceXml({ endpoint: "0123456789", scheme: "0106" })) }, s.options)).submissionId;
    // A company in PL issues through KSeF (the same clock: both companies' submissions age together).
    const ksef = (await submitInvoice(store, pl.auth, { xml: b64(invoiceXml({ sellerVat: "PL5260250995", sellerCountry: "PL" })) }, s.options)).submissionId;
    expect((await getInvoice(store, pl.auth, ksef)).network).toBe("ksef");
    for (let i = 0; i < 2; i++) {
      await dispatcher.runOnce();
      s.clock.advance(60_000);
    }
    expect(await getInvoice(store, s.auth, peppol)).toMatchObject({ status: "failed", errorMessage: expect.stringMatching(/after 2 attempts/) });
    expect((await getInvoice(store, pl.auth, ksef)).status).toBe("sending");
    for (let i = 0; i < 2; i++) {
      await dispatcher.runOnce();
      s.clock.advance(60_000);
    }
    expect(await getInvoice(store, pl.auth, ksef)).toMatchObject({ status: "failed", errorMessage: expect.stringMatching(/on ksef failed after 4 attempts/) });
  });

  it("waits at least as long as the network's retry-after hint", async () => {
    const hinted: NetworkPort = { name: "busy", send: async () => ({ outcome: "retry", reason: "429.", retryAfterMs: 120_000 }) };
    const w = await world(hinted);
    const id = await w.submit("0123456789");
    const before = w.clock.now().getTime();
    await w.dispatcher.runOnce();
    const next = /Next try at (\S+)\./.exec((await w.get(id)).events[1]!.detail)![1]!;
    expect(Date.parse(next) - before).toBeGreaterThanOrEqual(120_000);
  });

  it("treats a throwing network as a transient failure", async () => {
    const boom: NetworkPort = { name: "boom", send: async () => { throw new TypeError("fetch failed"); } };
    const w = await world(boom);
    const id = await w.submit("0123456789");
    await w.dispatcher.runOnce();
    const inv = await w.get(id);
    expect(inv.status).toBe("sending");
    expect(inv.events[1]!.detail).toMatch(/boom network call failed \(TypeError\)/);
  });

  it("picks up a submission whose lease expired (a dispatcher died mid-send) and resends it with the same idempotency key", async () => {
    const w = await world();
    const id = await w.submit("0123456789");
    const t = w.clock.now().getTime();
    const [lost] = await w.store.claimDeliveries({ owner: "dead", now: new Date(t).toISOString(), leaseUntil: new Date(t + 60_000).toISOString(), limit: 10 });
    expect(lost!.invoice.id).toBe(id);
    expect(await w.dispatcher.runOnce()).toBe(0); // the lease still holds
    w.clock.advance(60_001);
    const keys: string[] = [];
    const recording: NetworkPort = { name: "rec", send: async (r: SendRequest) => (keys.push(r.idempotencyKey), { outcome: "delivered" }) };
    const d2 = createDispatcher({ store: w.store, networks: { peppol: recording }, clock: () => w.clock.now(), owner: "d2" });
    expect(await d2.runOnce()).toBe(1);
    expect(keys).toEqual([id]);
    // The dead dispatcher's late answer is refused: its lease is gone.
    const late = await w.store.completeAttempt({
      id,
      owner: "dead",
      attempts: 1,
      status: "failed",
      errorMessage: "late",
      event: { status: "failed", at: w.clock.now().toISOString(), detail: "late" },
      nextAttemptAt: null,
      updatedAt: w.clock.now().toISOString(),
    });
    expect(late).toBeNull();
    expect((await w.get(id)).status).toBe("delivered");
  });

  it("hands the network the company and what its earlier attempts saved, across dispatchers", async () => {
    const seen: Array<Pick<SendRequest, "companyId" | "state" | "attempt">> = [];
    // Saves its reference before the (here imagined) irreversible upload, then asks for a retry.
    const resuming: NetworkPort = {
      name: "resuming",
      send: async (r) => {
        seen.push({ companyId: r.companyId, state: r.state, attempt: r.attempt });
        if (r.state === null) {
          await r.saveState(JSON.stringify({ uploaded: "REF-1" }));
          return { outcome: "retry", reason: "Uploaded; the status is not known yet." };
        }
        return { outcome: "delivered", detail: `Status of ${JSON.parse(r.state).uploaded} asked.` };
      },
    };
    const w = await world(resuming);
    const id = await w.submit("0123456789");
    await w.dispatcher.runOnce();
    w.clock.advance(DEFAULT_RETRY.baseDelayMs);
    const d2 = createDispatcher({ store: w.store, networks: { peppol: resuming }, clock: () => w.clock.now(), owner: "d2" });
    expect(await d2.runOnce()).toBe(1);
    expect(seen).toEqual([
      { companyId: w.companyId, state: null, attempt: 1 },
      { companyId: w.companyId, state: '{"uploaded":"REF-1"}', attempt: 2 },
    ]);
    expect((await w.get(id)).events.at(-1)!.detail).toMatch(/Status of REF-1 asked/);
  });

  it("rejects saveState once the lease is lost, and refuses states over 64 KiB or with U+0000", async () => {
    const errors: string[] = [];
    let steal: (() => Promise<void>) | undefined;
    const net: NetworkPort = {
      name: "saver",
      send: async (r) => {
        for (const bad of ["x".repeat(64 * 1024 + 1), "a\u0000b"]) await r.saveState(bad).catch((e: Error) => errors.push(e.name));
        await steal!();
        await r.saveState("after the lease was lost").catch((e: Error) => errors.push(e.message));
        return { outcome: "delivered" };
      },
    };
    const w = await world(net);
    const id = await w.submit("0123456789");
    steal = async () => {
      w.clock.advance(60_001);
      const t = w.clock.now().toISOString();
      expect(await w.store.claimDeliveries({ owner: "thief", now: t, leaseUntil: t, limit: 1 })).toHaveLength(1);
    };
    await w.dispatcher.runOnce();
    expect(errors[0]).toBe("RangeError");
    expect(errors[1]).toBe("TypeError");
    expect(errors[2]).toMatch(new RegExp(`lease on submission ${id} was lost`));
    // The thief's lease stands; nothing the saver did reached the store.
    const t = w.clock.now().toISOString();
    const [job] = await w.store.claimDeliveries({ owner: "later", now: t, leaseUntil: t, limit: 1 });
    expect(job).toMatchObject({ invoice: { id, status: "sending" }, state: null });
  });

  it("keeps the evidence of a delivery with the invoice, and drops evidence over 1 MiB without failing the delivery", async () => {
    const content = (n: number) => `<Receipt>${"x".repeat(n)}</Receipt>`;
    let size = 10;
    const net: NetworkPort = {
      name: "receipts",
      send: async (r) => ({
        outcome: "delivered",
        evidence: { kind: "test-receipt", mediaType: "application/xml", content: content(size), reference: `REF-${r.submissionId.slice(0, 4)}`, documentHash: null },
      }),
    };
    const logged: string[] = [];
    const w = await world(net);
    const d = createDispatcher({ store: w.store, networks: { peppol: net }, clock: () => w.clock.now(), owner: "d3", logger: { error: (_o, m) => logged.push(m) } });
    const small = await w.submit("0123456789");
    await d.runOnce();
    const stored = await w.store.getEvidence(w.companyId, small);
    expect(stored).toEqual({
      invoiceId: small,
      network: "peppol",
      kind: "test-receipt",
      mediaType: "application/xml",
      content: content(10),
      reference: `REF-${small.slice(0, 4)}`,
      documentHash: null,
      deliveredAt: (await w.get(small)).updatedAt,
    });
    size = 1024 * 1024;
    const big = await w.submit("0123456780");
    await d.runOnce();
    expect((await w.get(big)).status).toBe("delivered");
    expect(await w.store.getEvidence(w.companyId, big)).toBeNull();
    expect(logged).toEqual([expect.stringMatching(/larger than 1048576 bytes; it is not kept/)]);
  });

  it("never hands one submission to two dispatchers at once", async () => {
    const w = await world();
    const ids = [];
    for (let i = 0; i < 30; i++) ids.push(await w.submit(`R${i}`));
    const slow = sandboxNetwork({ delayMs: 5 });
    const a = createDispatcher({ store: w.store, networks: { peppol: slow }, owner: "a", batchSize: 7 });
    const b = createDispatcher({ store: w.store, networks: { peppol: slow }, owner: "b", batchSize: 7 });
    let done = 0;
    while (done < 30) done += (await Promise.all([a.runOnce(), b.runOnce()])).reduce((x, y) => x + y, 0);
    expect(slow.calls.size).toBe(30);
    for (const id of ids) expect(slow.calls.get(id)).toBe(1);
  });

  it("fails a submission whose route has no network configured", async () => {
    const store = memoryStore();
    const s = await setup({ store, country: "PL" });
    const d = createDispatcher({ store, networks: { peppol: sandboxNetwork({ delayMs: 0 }) } });
    const r = await submitInvoice(store, s.auth, { xml: b64(invoiceXml({ sellerVat: "PL5260250995", sellerCountry: "PL" })) }, s.options);
    await d.runOnce();
    expect((await getInvoice(store, s.auth, r.submissionId)).errorMessage).toMatch(/No network is configured for route ksef/);
  });

  it("on stop, finishes in-flight sends and leaves nothing leased", async () => {
    const store = memoryStore();
    const s = await setup({ store });
    const net = sandboxNetwork({ delayMs: 50 });
    const d = createDispatcher({ store, networks: { peppol: net }, pollIntervalMs: 10 });
    const r = await submitInvoice(store, s.auth, { xml: b64(invoiceXml()) }, s.options);
    d.start();
    // Stop while the send is in flight: once the network has it (the sandbox counts a call when it starts).
    await until(() => net.calls.size > 0);
    await d.stop();
    expect((await getInvoice(store, s.auth, r.submissionId)).status).toBe("delivered");
  });

  it("gives back leases of sends still running when the stop timeout passes", async () => {
    const store = memoryStore();
    const s = await setup({ store });
    let release: (() => void) | undefined;
    const stuck: NetworkPort = { name: "stuck", send: () => new Promise((r) => (release = () => r({ outcome: "delivered" }))) };
    const d = createDispatcher({ store, networks: { peppol: stuck }, pollIntervalMs: 10, stopTimeoutMs: 30 });
    await submitInvoice(store, s.auth, { xml: b64(invoiceXml()) }, s.options);
    d.start();
    await until(() => release !== undefined);
    await d.stop();
    const now = new Date().toISOString();
    const reclaimed = await store.claimDeliveries({ owner: "other", now, leaseUntil: now, limit: 10 });
    expect(reclaimed).toHaveLength(1);
    release!();
  });
});

describe("backoffDelay", () => {
  it("doubles from the base, is capped, and jitters between half and all of it", () => {
    const p = { maxAttempts: 10, baseDelayMs: 1000, maxDelayMs: 5000, factor: 2 };
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(p, n, () => 0.999999))).toEqual([1000, 2000, 4000, 5000, 5000]);
    expect(backoffDelay(p, 2, () => 0)).toBe(1000);
    for (let i = 0; i < 100; i++) {
      const d = backoffDelay(p, 3, Math.random);
      expect(d).toBeGreaterThanOrEqual(2000);
      expect(d).toBeLessThanOrEqual(4000);
    }
  });
});
