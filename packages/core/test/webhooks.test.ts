import { afterEach, describe, expect, it } from "vitest";
import {
  createDispatcher,
  createWebhook,
  createWebhookSender,
  deleteWebhook,
  getInvoice,
  listWebhookDeliveries,
  listWebhooks,
  memoryStore,
  sandboxNetwork,
  submitInvoice,
  verifyWebhookSignature,
} from "../src/index.js";
import { startReceiver, type Receiver } from "./support/receiver.js";
import { failure } from "./support/errors.js";
import { setup } from "./support/setup.js";
import { b64, invoiceXml } from "./support/ubl.js";

const allowLoopback = { targets: { allowPrivate: true } };

async function world() {
  const store = memoryStore();
  const s = await setup({ store });
  const clock = () => s.clock.now();
  const dispatcher = createDispatcher({ store, networks: { peppol: sandboxNetwork({ delayMs: 0 }) }, clock, random: () => 1 });
  const sender = createWebhookSender({ store, clock, random: () => 1, targets: { allowPrivate: true }, retry: { baseDelayMs: 1000 } });
  const submit = async (endpoint: string) =>
    (await submitInvoice(store, s.auth, { xml: b64(invoiceXml({ id: endpoint, endpoint, scheme: "0106" })) }, s.options)).submissionId;
  return { ...s, store, dispatcher, sender, submit };
}


describe("webhooks", () => {
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  it("registers a webhook with a secret shown once, subscribed to status changes by default", async () => {
    const w = await world();
    const created = await createWebhook(w.store, w.auth, { url: "http://127.0.0.1:9/x" }, allowLoopback);
    expect(created).toEqual({ id: expect.any(String), url: "http://127.0.0.1:9/x", events: ["invoice.status_changed"], secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/), createdAt: expect.any(String) });
    expect(await listWebhooks(w.store, w.auth)).toEqual([{ id: created.id, url: created.url, events: created.events, createdAt: created.createdAt }]);
  });

  it("refuses private targets unless allowed, with a 400", async () => {
    const w = await world();
    const e = await failure(createWebhook(w.store, w.auth, { url: "http://127.0.0.1/x" }));
    expect([e.status, e.details]).toEqual([400, ["url must use https"]]);
    const e2 = await failure(createWebhook(w.store, w.auth, { url: "https://169.254.169.254/x" }));
    expect(e2.details?.[0]).toMatch(/public address/);
    const shape = await failure(createWebhook(w.store, w.auth, { url: "https://x.example", events: ["invoice.created"], extra: 1 }));
    expect(shape.details).toEqual(expect.arrayContaining(["property extra should not exist", "each value in events must be one of the following values: invoice.status_changed, invoice.received"]));
  });

  it("POSTs a signed invoice.status_changed event for a delivery, carrying the invoice as GET returns it", async () => {
    receiver = await startReceiver();
    const w = await world();
    const hook = await createWebhook(w.store, w.auth, { url: receiver.url }, allowLoopback);
    const id = await w.submit("0123456789");
    await w.dispatcher.runOnce();
    expect(await w.sender.runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0]!;
    const event = JSON.parse(got.body);
    expect(event).toEqual({ id: got.headers["einvoice-event-id"], type: "invoice.status_changed", createdAt: expect.any(String), data: { invoice: await getInvoice(w.store, w.auth, id) } });
    expect(event.data.invoice.status).toBe("delivered");
    const t = Number(/t=(\d+)/.exec(String(got.headers["einvoice-signature"]))![1]);
    expect(verifyWebhookSignature(hook.secret, String(got.headers["einvoice-signature"]), got.body, { now: t })).toBe(true);
    expect(got.headers["content-type"]).toBe("application/json");
  });

  it("announces a failure too, and nothing for an attempt that keeps the status", async () => {
    receiver = await startReceiver();
    const w = await world();
    await createWebhook(w.store, w.auth, { url: receiver.url }, allowLoopback);
    await w.submit("unreachable-1");
    await w.submit("flaky-1");
    await w.dispatcher.runOnce();
    await w.sender.runOnce();
    expect(receiver.received.map((r) => JSON.parse(r.body).data.invoice.status)).toEqual(["failed"]);
  });

  it("retries a receiver that fails twice, then records exactly one success and every attempt", async () => {
    receiver = await startReceiver();
    receiver.answers.push(500, 503);
    const w = await world();
    const hook = await createWebhook(w.store, w.auth, { url: receiver.url }, allowLoopback);
    await w.submit("0123456789");
    await w.dispatcher.runOnce();
    await w.sender.runOnce();
    expect(await w.sender.runOnce()).toBe(0); // not due yet
    w.clock.advance(1000);
    await w.sender.runOnce();
    w.clock.advance(2000);
    await w.sender.runOnce();
    w.clock.advance(60_000);
    expect(await w.sender.runOnce()).toBe(0); // delivered: never again
    expect(receiver.received.map((r) => r.status)).toEqual([500, 503, 200]);
    expect(new Set(receiver.received.map((r) => r.headers["einvoice-event-id"])).size).toBe(1);
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
    const [delivery] = await listWebhookDeliveries(w.store, w.auth, hook.id);
    expect(delivery).toMatchObject({ status: "delivered", attempts: 3, nextAttemptAt: null });
    expect(delivery!.log.map((a) => [a.statusCode, a.error])).toEqual([
      [500, "The receiver answered HTTP 500."],
      [503, "The receiver answered HTTP 503."],
      [200, null],
    ]);
  });

  it("gives up after the bound and says why", async () => {
    const w = await world();
    const sender = createWebhookSender({ store: w.store, clock: () => w.clock.now(), targets: { allowPrivate: true }, retry: { maxAttempts: 2, baseDelayMs: 10 } });
    const hook = await createWebhook(w.store, w.auth, { url: "http://127.0.0.1:9/closed" }, allowLoopback);
    await w.submit("0123456789");
    await w.dispatcher.runOnce();
    await sender.runOnce();
    w.clock.advance(1000);
    await sender.runOnce();
    const [delivery] = await listWebhookDeliveries(w.store, w.auth, hook.id);
    expect(delivery).toMatchObject({ status: "failed", attempts: 2 });
    expect(delivery!.log[0]!.error).toMatch(/could not be reached/);
  });

  it("re-checks the target at send time and does not call a private address", async () => {
    receiver = await startReceiver();
    const w = await world();
    const strict = createWebhookSender({ store: w.store, clock: () => w.clock.now() });
    const hook = await createWebhook(w.store, w.auth, { url: receiver.url }, allowLoopback);
    await w.submit("0123456789");
    await w.dispatcher.runOnce();
    await strict.runOnce();
    expect(receiver.received).toHaveLength(0);
    const [delivery] = await listWebhookDeliveries(w.store, w.auth, hook.id);
    expect(delivery!.log[0]!.error).toMatch(/^Not sent: url must use https/);
  });

  it("sends nothing for a deleted webhook, and keeps companies apart", async () => {
    receiver = await startReceiver();
    const w = await world();
    const other = await setup({ store: w.store });
    const hook = await createWebhook(w.store, w.auth, { url: receiver.url }, allowLoopback);
    expect((await failure(deleteWebhook(w.store, other.auth, hook.id))).code).toBe("webhook_not_found");
    expect((await failure(listWebhookDeliveries(w.store, other.auth, hook.id))).code).toBe("webhook_not_found");
    expect(await listWebhooks(w.store, other.auth)).toEqual([]);
    await w.submit("0123456789");
    await w.dispatcher.runOnce();
    await deleteWebhook(w.store, w.auth, hook.id);
    expect(await w.sender.runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(0);
    expect((await failure(deleteWebhook(w.store, w.auth, hook.id))).code).toBe("webhook_not_found");
  });
});
