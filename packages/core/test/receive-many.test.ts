// receiveDocuments: a page of received documents judged like one, stored in one atomic step (insertInboundMany), in order.
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import {
  ApiError,
  closeInvoiceWorkers,
  createInboundPoller,
  getInvoice,
  getSupplier,
  listInvoices,
  memoryStore,
  receiveDocument,
  receiveDocuments,
  updateCompany,
  type InboxStore,
  type InboundSource,
  type StoredOutcome,
  type NewInbound,
  type ReceiveInput,
  type Store,
  type WebhookRecord,
} from "../src/index.js";
import { setup } from "./support/setup.js";
import { invoiceXml } from "./support/ubl.js";

const enc = (s: string) => new Uint8Array(Buffer.from(s, "utf8"));

async function receiver() {
  const store = memoryStore();
  const s = await setup({ store });
  return { ...s, store };
}

/** The store with its inbox calls counted. */
function counting(store: ReturnType<typeof memoryStore>, over: Partial<InboxStore> = {}) {
  const calls = { insertInbound: 0, insertInboundMany: [] as number[], insertUnmatched: 0 };
  const s: Store & InboxStore = Object.assign(Object.create(store) as typeof store, {
    insertInbound: async (i: NewInbound) => {
      calls.insertInbound++;
      return store.insertInbound(i);
    },
    insertInboundMany: async (items: NewInbound[]) => {
      calls.insertInboundMany.push(items.length);
      return store.insertInboundMany!(items);
    },
    insertUnmatched: async (...a: Parameters<InboxStore["insertUnmatched"]>) => {
      calls.insertUnmatched++;
      return store.insertUnmatched(...a);
    },
    ...over,
  });
  return { s, calls };
}

describe("receiveDocuments", () => {
  afterAll(() => closeInvoiceWorkers());

  it("stores a page in one insertInboundMany, answers in order, dedupes within the page and against what is stored, judges each as receiveDocument does", async () => {
    const { store, auth, companyId, options } = await receiver();
    const hook: WebhookRecord = { id: randomUUID(), companyId, url: "https://hooks.example/", events: ["invoice.received"], secret: "whsec_1", createdAt: "2026-01-01T00:00:00.000Z", deletedAt: null, previousSecret: null, previousSecretExpiresAt: null };
    await store.insertWebhook(hook);
    const before = await receiveDocument(store, { reference: { storecoveGuid: "old" }, content: enc(invoiceXml({ id: "OLD" })), network: "peppol", companyId }, options);
    expect(before.outcome).toBe("stored");
    const doc = (guid: string, content: Uint8Array): ReceiveInput => ({ reference: { storecoveGuid: guid }, content, network: "peppol", companyId });
    const page = [
      doc("a", enc(invoiceXml({ id: "IN-A" }))),
      doc("old", enc(invoiceXml({ id: "OLD-AGAIN" }))),
      doc("b", enc("not xml at all")),
      doc("a", enc(invoiceXml({ id: "IN-A-AGAIN" }))),
      doc("c", enc(invoiceXml({ id: "IN-C" }))),
    ];
    const { s, calls } = counting(store);
    const out = await receiveDocuments(s, page, options);
    expect(calls).toEqual({ insertInbound: 0, insertInboundMany: [5], insertUnmatched: 0 });
    expect(out.map((o) => o.outcome)).toEqual(["stored", "duplicate", "stored", "duplicate", "stored"]);
    expect(out[1]).toEqual({ outcome: "duplicate", invoiceId: (before as { invoiceId: string }).invoiceId });
    expect(out[3]).toEqual({ outcome: "duplicate", invoiceId: (out[0] as { invoiceId: string }).invoiceId });
    const ids = out.map((o) => (o as { invoiceId: string }).invoiceId);
    const a = await getInvoice(store, auth, ids[0]!);
    expect(a).toMatchObject({ direction: "inbound", status: "received", syntax: "ubl", valid: true, invoiceNumber: "IN-A", networkReference: { storecoveGuid: "a" } });
    const b = await getInvoice(store, auth, ids[2]!);
    expect(b.valid).toBe(false);
    expect(b.errors).toHaveLength(1);
    expect((await getInvoice(store, auth, ids[4]!)).invoiceNumber).toBe("IN-C");
    // One supplier (all UBL samples have the same seller): the old document and the page's two invoices.
    expect((await getSupplier(store, auth, a.supplierId!)).invoiceCount).toBe(3);
    expect((await listInvoices(store, auth, { direction: "inbound" })).data).toHaveLength(4);
    const events = await store.listWebhookEvents(companyId, hook.id, 10);
    expect(events.map((e) => JSON.parse(e.data).invoice.id).sort()).toEqual([before, out[0], out[2], out[4]].map((o) => (o as { invoiceId: string }).invoiceId).sort());
    expect(await receiveDocuments(s, [], options)).toEqual([]);
  });

  it("keeps documents for no company one by one, the rest in one page, in the order given", async () => {
    const { store, auth, companyId, options } = await receiver();
    await updateCompany(store, companyId, { legalEntityId: "LE-7" }, options);
    const bytes = enc(invoiceXml());
    const doc = (guid: string, legalEntityId: string): ReceiveInput => ({ reference: { storecoveGuid: guid }, content: bytes, legalEntityId, network: "peppol", companyId: null });
    const { s, calls } = counting(store);
    const out = await receiveDocuments(s, [doc("u1", "LE-404"), doc("m1", "LE-7"), doc("u1", "LE-404"), doc("m2", "LE-7"), doc("u2", "LE-405")], options);
    expect(out.map((o) => o.outcome)).toEqual(["unmatched", "stored", "unmatched", "stored", "unmatched"]);
    expect(out[2]).toEqual(out[0]);
    expect(calls).toEqual({ insertInbound: 0, insertInboundMany: [2], insertUnmatched: 3 });
    expect(await store.countUnmatched()).toBe(2);
    expect((await listInvoices(store, auth, { direction: "inbound" })).data).toHaveLength(2);
  });

  it("stores one document at a time with a store without insertInboundMany, with the same outcomes", async () => {
    const { store, auth, companyId, options } = await receiver();
    const { s, calls } = counting(store, { insertInboundMany: undefined });
    const docs: ReceiveInput[] = ["x", "y", "x"].map((guid) => ({ reference: { ksefNumber: guid }, content: enc(invoiceXml({ id: guid })), network: "ksef", companyId }));
    const out = await receiveDocuments(s, docs, options);
    expect(calls.insertInbound).toBe(3);
    expect(out.map((o) => o.outcome)).toEqual(["stored", "stored", "duplicate"]);
    expect(out[2]).toEqual({ outcome: "duplicate", invoiceId: (out[0] as { invoiceId: string }).invoiceId });
    expect((await listInvoices(store, auth, { direction: "inbound" })).data).toHaveLength(2);
  });

  it("rejects when the store fails, with nothing of the page stored (not even its documents for no company)", async () => {
    const { store, auth, companyId, options } = await receiver();
    const { s } = counting(store, {
      insertInboundMany: async () => {
        throw new Error("disk full");
      },
    });
    const docs: ReceiveInput[] = [
      { reference: { storecoveGuid: "f-1" }, content: enc(invoiceXml()), network: "peppol", companyId },
      { reference: { storecoveGuid: "f-2" }, content: enc("garbage"), legalEntityId: "LE-404", network: "peppol", companyId: null },
    ];
    const e = await receiveDocuments(s, docs, options).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).code).toBe("internal_error");
    expect((await listInvoices(store, auth, { direction: "inbound" })).data).toHaveLength(0);
    expect(await store.countUnmatched()).toBe(0);
  });

  it("gives an inbound run storeMany: a page stored in one step for the run's company, counted as received", async () => {
    const { store, auth, companyId, clock } = await receiver();
    await store.ensureInboundSync({ source: "ksef", scope: companyId, now: clock.now().toISOString() });
    const { s, calls } = counting(store);
    let answers: StoredOutcome[] = [];
    let received = -1;
    const source: InboundSource = {
      name: "ksef",
      network: "ksef",
      scope: "company",
      appliesTo: () => true,
      async run(ctx) {
        answers = await ctx.storeMany!(["P-1", "P-2", "P-1"].map((n) => ({ reference: { ksefNumber: n }, content: enc(invoiceXml({ id: n })) })));
        await ctx.checkpoint("after-page");
        return { state: "after-page", nextRunInMs: 60_000, received: 3 };
      },
    };
    const poller = createInboundPoller({
      store: s,
      sources: [{ source, intervalMs: 60_000 }],
      clock: clock.now,
      metrics: { inboundRun: (_l: unknown, n: number) => void (received = n) } as never,
    });
    expect(await poller.runDue()).toBe(1);
    expect(calls.insertInboundMany).toEqual([3]);
    expect(answers.map((a) => a.outcome)).toEqual(["stored", "stored", "duplicate"]);
    const listed = (await listInvoices(store, auth, { direction: "inbound" })).data;
    expect(listed.map((i) => i.ksefNumber).sort()).toEqual(["P-1", "P-2"]);
    expect(listed.every((i) => i.network === "ksef")).toBe(true);
    expect((await store.listInboundSyncs("ksef"))[0]?.state).toBe("after-page");
    expect(received).toBe(3);
  });
});
