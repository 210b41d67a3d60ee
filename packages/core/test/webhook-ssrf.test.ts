// Issue 16, finding 8: the webhook SSRF guard checks the address it connects to (DNS rebinding),
// allows global unicast only (the IPv6 forms that embed IPv4 or are deprecated are refused), and
// tells the tenant a generic reason while the operator's log gets the detail.
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  checkWebhookTarget,
  createDispatcher,
  createWebhook,
  createWebhookSender,
  guardedLookup,
  isGlobalUnicast,
  listWebhookDeliveries,
  memoryStore,
  sandboxNetwork,
  submitInvoice,
} from "../src/index.js";
import { setup } from "./support/setup.js";
import { b64, invoiceXml } from "./support/ubl.js";

const PUBLIC = "93.184.215.14";

describe("only global unicast addresses are webhook targets (ipaddr.js)", () => {
  it("refuses the IPv6 forms that reach IPv4 or non-global space: ::127.0.0.1, ::ffff:0:127.0.0.1, 64:ff9b:1::a9fe:a9fe, fec0::1, 2002:7f00:1::1", async () => {
    for (const host of ["::127.0.0.1", "::ffff:0:127.0.0.1", "64:ff9b:1::a9fe:a9fe", "fec0::1", "2002:7f00:1::1", "64:ff9b::7f00:1", "2001::7f00:1", "2001:db8::1", "::", "ff02::1"]) {
      expect(isGlobalUnicast(host), host).toBe(false);
      expect(await checkWebhookTarget(`https://[${host}]/hook`), host).toMatch(/must point to a public address/);
    }
  });

  it("refuses the special IPv4 ranges, allows public IPv4 and IPv6 and IPv4-mapped public addresses", () => {
    for (const a of ["127.0.0.1", "10.0.0.1", "100.64.0.1", "169.254.169.254", "192.0.0.8", "192.0.2.1", "198.18.0.1", "224.0.0.1", "255.255.255.255", "0.1.2.3", "::ffff:10.0.0.1", "::ffff:127.0.0.1", "fe80::1%eth0", "not an ip"]) {
      expect(isGlobalUnicast(a), a).toBe(false);
    }
    for (const a of ["8.8.8.8", PUBLIC, "2606:4700::1111", "2a00:1450:4001:80b::200e", "::ffff:8.8.8.8", "[2606:4700::1111]"]) expect(isGlobalUnicast(a), a).toBe(true);
  });

  it("a name that does not resolve and a name that resolves to a private address get the same reason (no probing of internal names)", async () => {
    const gone = await checkWebhookTarget("https://gone.internal/hook", { resolve: async () => { throw new Error("ENOTFOUND"); } });
    const priv = await checkWebhookTarget("https://db.internal/hook", { resolve: async () => ["10.0.0.5"] });
    expect(gone!.replace("gone", "db")).toBe(priv);
  });

  it("the connect-time lookup refuses a private answer and passes a public one, in both callback forms", async () => {
    const lookup = guardedLookup({ resolve: async (h) => (h === "bad.example" ? [PUBLIC, "127.0.0.1"] : [PUBLIC, "2606:4700::1111"]) });
    const call = (host: string, all: boolean) =>
      new Promise<{ err: unknown; address: unknown; family: unknown }>((r) => lookup(host, { all }, (err, address, family) => r({ err, address, family })));
    expect((await call("bad.example", false)).err).toMatchObject({ code: "EADDRNOTPUBLIC" });
    expect((await call("bad.example", true)).err).toMatchObject({ code: "EADDRNOTPUBLIC" });
    expect(await call("good.example", false)).toMatchObject({ err: null, address: PUBLIC, family: 4 });
    expect((await call("good.example", true)).address).toEqual([
      { address: PUBLIC, family: 4 },
      { address: "2606:4700::1111", family: 6 },
    ]);
  });
});

describe("the sender checks the address it connects to, at every attempt (DNS rebinding)", () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

  it("a name that passes the check as public and then resolves to 127.0.0.1 is never connected to; the tenant sees a generic reason, the operator the detail", async () => {
    let connections = 0;
    server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    server.listen(0, "127.0.0.1");
    await new Promise((r) => server!.once("listening", r));
    const port = (server.address() as AddressInfo).port;

    // Rebinding: the first two answers (registration, the sender's check) are public, every later one is loopback.
    let calls = 0;
    const resolve = async () => (++calls <= 2 ? [PUBLIC] : ["127.0.0.1"]);
    const store = memoryStore();
    const s = await setup({ store });
    const clock = () => s.clock.now();
    const logs: Array<{ obj: Record<string, unknown>; msg: string }> = [];
    const hook = await createWebhook(store, s.auth, { url: `https://localhost:${port}/hook` }, { targets: { resolve } });
    const sender = createWebhookSender({ store, clock, random: () => 1, targets: { resolve }, timeoutMs: 3_000, logger: { error: (obj, msg) => logs.push({ obj, msg }) } });
    const dispatcher = createDispatcher({ store, networks: { peppol: sandboxNetwork({ delayMs: 0 }) }, clock, random: () => 1 });
    await submitInvoice(store, s.auth, { xml: b64(invoiceXml()) }, s.options);
    await dispatcher.runOnce();
    expect(await sender.runOnce()).toBe(1);
    await sender.stop();

    expect(calls).toBeGreaterThanOrEqual(3); // the name was resolved again to connect
    expect(connections).toBe(0);
    const [delivery] = await listWebhookDeliveries(store, s.auth, hook.id);
    const error = delivery!.log[0]!.error!;
    expect(error).toBe("Not sent: url must point to a public address; localhost does not resolve to public (global unicast) addresses only.");
    expect(error).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|EADDRNOTPUBLIC/);
    expect(logs).toEqual([{ obj: expect.objectContaining({ errorCode: "EADDRNOTPUBLIC", address: "127.0.0.1" }), msg: expect.stringMatching(/non-public address/) }]);
  });

  it("a connection error is 'could not be reached' for the tenant, its code only in the operator's log (the log is no port scanner)", async () => {
    const store = memoryStore();
    const s = await setup({ store });
    const clock = () => s.clock.now();
    const logs: Array<{ obj: Record<string, unknown>; msg: string }> = [];
    // A port nobody listens on (the operator allows loopback here): the socket's error is ECONNREFUSED.
    const closed = createServer();
    closed.listen(0, "127.0.0.1");
    await new Promise((r) => closed.once("listening", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const hook = await createWebhook(store, s.auth, { url: `http://127.0.0.1:${port}/hook` }, { targets: { allowPrivate: true } });
    const sender = createWebhookSender({ store, clock, random: () => 1, targets: { allowPrivate: true }, timeoutMs: 3_000, logger: { error: (obj, msg) => logs.push({ obj, msg }) } });
    const dispatcher = createDispatcher({ store, networks: { peppol: sandboxNetwork({ delayMs: 0 }) }, clock, random: () => 1 });
    await submitInvoice(store, s.auth, { xml: b64(invoiceXml()) }, s.options);
    await dispatcher.runOnce();
    await sender.runOnce();
    await sender.stop();
    const [delivery] = await listWebhookDeliveries(store, s.auth, hook.id);
    expect(delivery!.log[0]!.error).toBe("The receiver could not be reached.");
    expect(logs[0]!.obj).toMatchObject({ errorCode: "ECONNREFUSED" });
  });
});
