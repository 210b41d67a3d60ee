// testInboxStore: the conformance suite of the InboxStore port (inbound records, suppliers, documents for no company,
// participant identifiers, the inbound sources' sync rows with their leases). Run it against every implementation.
import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ClientUpsert, Store, WebhookStore } from "../ports/store.js";
import type { BackfillRequest, InboxStore, UnmatchedDocument } from "../ports/inbound.js";
import type { Company, InvoiceRecord, NetworkReference, WebhookRecord } from "../domain/types.js";
import { receivedEventData } from "../domain/webhook-events.js";
import { sampleAccount, sampleApiKey, sampleCompany, sampleInboundRecord, sampleInvoiceRecord } from "./fixtures.js";

type S = Store & WebhookStore & InboxStore;

/** Makes a fresh, empty store for one test; its `close()` is called after it when present. */
export type InboxStoreFactory = () => S | Promise<S>;

const at = (s: number): string => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString();

function supplierOf(inv: InvoiceRecord, overrides: Partial<ClientUpsert> = {}): ClientUpsert {
  const endpointId = inv.supplier.endpointId ?? "0208:0987654321";
  return { id: randomUUID(), key: endpointId.toLowerCase(), endpointId, name: inv.supplier.name, vatId: inv.supplier.vatId, country: inv.supplier.country, ...overrides };
}

/**
 * Registers a vitest `describe` block that checks a store's `InboxStore` (with its `Store` and `WebhookStore`): inbound
 * records read back like submissions, deduplicated by network reference atomically (N concurrent identical inserts
 * store one), apart from the submissions' sha256 and number rules; suppliers apart from clients; `invoice.received`
 * events in the same step; company scoping; documents for no company; participant identifiers unique across companies;
 * the sync rows' leases, marks and backfill requests. `factory` is called before each test.
 *
 * @example testInboxStore("memory", () => memoryStore())
 * @example testInboxStore(() => memoryStore())
 */
export function testInboxStore(label: string | InboxStoreFactory, factory?: InboxStoreFactory): void {
  const name = typeof label === "string" ? label : "store";
  const make = typeof label === "string" ? factory : label;
  if (!make) throw new Error("testInboxStore: a factory is required.");
  describe(`inbox store conformance: ${name}`, () => {
    let store: S;
    let company: Company;

    async function newCompany(overrides: Partial<Company> = {}): Promise<Company> {
      const c = sampleCompany(overrides);
      const r = await store.createAccount({ account: sampleAccount(c), company: c, apiKey: sampleApiKey(c.id) });
      expect(r).toEqual({ created: true });
      return c;
    }
    async function receive(inv: InvoiceRecord, content: Uint8Array | null = new Uint8Array([60, 73, 47, 62]), notify = false) {
      return store.insertInbound({ invoice: inv, content, supplier: supplierOf(inv), notify });
    }
    function hook(companyId: string, over: Partial<WebhookRecord> = {}): WebhookRecord {
      return { id: randomUUID(), companyId, url: "https://hooks.example/in", events: ["invoice.received"], secret: "whsec_x", createdAt: at(0), deletedAt: null, previousSecret: null, previousSecretExpiresAt: null, ...over };
    }
    const list = (companyId: string, q: Partial<Parameters<Store["listInvoices"]>[1]> = {}) =>
      store.listInvoices(companyId, { limit: 50, after: null, status: null, clientId: null, ...q });

    beforeEach(async () => {
      store = await make();
      company = await newCompany();
    });
    afterEach(async () => {
      await store.close?.();
    });

    describe("inbound records", () => {
      it("stores a received document and reads it back like a submission: the record, its bytes, the lists by direction and supplier", async () => {
        const bytes = new Uint8Array([0, 255, 60, 128, 10]);
        const inv = sampleInboundRecord(company.id, { createdAt: at(10), updatedAt: at(10) }, { ksefNumber: "5260250995-20260101-0100001AF629-AF" });
        const out = sampleInvoiceRecord(company.id, { createdAt: at(5), updatedAt: at(5) });
        expect((await store.insertSubmission({ invoice: out, document: new Uint8Array([60]), client: null })).inserted).toBe(true);
        const r = await receive(inv, bytes);
        expect(r.inserted).toBe(true);
        if (!r.inserted) return;
        expect(r.invoice.supplierId).toMatch(/^[0-9a-f-]{36}$/);
        expect(r.invoice).toEqual({ ...inv, supplierId: r.invoice.supplierId });
        expect(await store.getInvoice(company.id, inv.id)).toEqual(r.invoice);
        expect(await store.getDocument(company.id, inv.id)).toEqual(bytes);
        expect((await list(company.id)).map((i) => i.id)).toEqual([inv.id, out.id]);
        expect((await list(company.id, { direction: "inbound" })).map((i) => i.id)).toEqual([inv.id]);
        expect((await list(company.id, { direction: "outbound" })).map((i) => i.id)).toEqual([out.id]);
        expect((await list(company.id, { direction: null })).map((i) => i.id)).toEqual([inv.id, out.id]);
        expect((await list(company.id, { supplierId: r.invoice.supplierId! })).map((i) => i.id)).toEqual([inv.id]);
        expect(await list(company.id, { supplierId: randomUUID() })).toEqual([]);
        expect((await list(company.id, { status: "received" })).map((i) => i.id)).toEqual([inv.id]);
        expect(await list(company.id, { direction: "inbound", status: "sending" })).toEqual([]);
      });

      it("pages a direction's records with a keyset cursor among the other direction's, newest first", async () => {
        const inbound: InvoiceRecord[] = [];
        const outbound: InvoiceRecord[] = [];
        for (let i = 0; i < 6; i++) {
          if (i % 2 === 0) {
            const inv = sampleInboundRecord(company.id, { createdAt: at(i), updatedAt: at(i) });
            expect((await receive(inv)).inserted).toBe(true);
            inbound.push(inv);
          } else {
            const out = sampleInvoiceRecord(company.id, { createdAt: at(i), updatedAt: at(i) });
            expect((await store.insertSubmission({ invoice: out, document: new Uint8Array([60]), client: null })).inserted).toBe(true);
            outbound.push(out);
          }
        }
        const first = await list(company.id, { direction: "inbound", limit: 2 });
        expect(first.map((i) => i.id)).toEqual([inbound[2]!.id, inbound[1]!.id]);
        const last = first[1]!;
        const rest = await list(company.id, { direction: "inbound", limit: 2, after: { at: last.createdAt, id: last.id } });
        expect(rest.map((i) => i.id)).toEqual([inbound[0]!.id]);
        const out = await list(company.id, { direction: "outbound", limit: 10, after: { at: at(5), id: outbound[2]!.id } });
        expect(out.map((i) => i.id)).toEqual([outbound[1]!.id, outbound[0]!.id]);
        expect((await list(company.id, { direction: "inbound", createdFrom: at(1), createdTo: at(4) })).map((i) => i.id)).toEqual([inbound[1]!.id]);
      });

      it("keeps a record without its bytes when none are given (too large), and one without a supplier", async () => {
        const inv = sampleInboundRecord(company.id);
        const r = await store.insertInbound({ invoice: inv, content: null, supplier: null, notify: false });
        expect(r).toEqual({ inserted: true, invoice: { ...inv, supplierId: null } });
        expect(await store.getDocument(company.id, inv.id)).toBeNull();
        expect((await store.getInvoice(company.id, inv.id))?.supplierId).toBeNull();
        expect(await store.listSuppliers(company.id, { limit: 10, after: null })).toEqual([]);
      });

      it("refuses a document received again under the same network reference, changing nothing", async () => {
        const ref: NetworkReference = { storecoveGuid: "guid-1" };
        const first = sampleInboundRecord(company.id, { createdAt: at(1) }, ref);
        const r1 = await receive(first, new Uint8Array([1]));
        expect(r1.inserted).toBe(true);
        const again = sampleInboundRecord(company.id, { createdAt: at(2), invoiceNumber: "OTHER" }, ref);
        expect(await receive(again, new Uint8Array([2]))).toEqual({ inserted: false, existingId: first.id });
        expect(await store.getInvoice(company.id, again.id)).toBeNull();
        expect(await store.getDocument(company.id, first.id)).toEqual(new Uint8Array([1]));
        expect((await list(company.id)).map((i) => i.id)).toEqual([first.id]);
        const [supplier] = await store.listSuppliers(company.id, { limit: 10, after: null });
        expect(supplier?.invoiceCount).toBe(1);
        // The reference is the company's: another company may receive the same one.
        const other = await newCompany();
        expect((await receive(sampleInboundRecord(other.id, {}, ref))).inserted).toBe(true);
      });

      it("stores exactly one of 20 concurrent inserts of one reference", async () => {
        const ref: NetworkReference = { ksefNumber: "KSEF-CONCURRENT" };
        const records = Array.from({ length: 20 }, () => sampleInboundRecord(company.id, {}, ref));
        const results = await Promise.all(records.map((inv) => receive(inv)));
        const inserted = results.filter((r) => r.inserted);
        expect(inserted).toHaveLength(1);
        const id = inserted[0]!.inserted ? inserted[0]!.invoice.id : "";
        for (const r of results) if (!r.inserted) expect(r.existingId).toBe(id);
        expect(await list(company.id, { direction: "inbound" })).toHaveLength(1);
        expect((await store.listSuppliers(company.id, { limit: 10, after: null }))[0]?.invoiceCount).toBe(1);
      });

      it("stores the same bytes under two references as two records", async () => {
        const sha256 = "ab".repeat(32);
        const a = sampleInboundRecord(company.id, { sha256, createdAt: at(1) });
        const b = sampleInboundRecord(company.id, { sha256, createdAt: at(2) });
        expect((await receive(a)).inserted).toBe(true);
        expect((await receive(b)).inserted).toBe(true);
        expect((await list(company.id)).map((i) => i.id)).toEqual([b.id, a.id]);
      });

      it("holds inbound records to neither the sha256 nor the number rule of submissions, and counts them for no client", async () => {
        const sha256 = "cd".repeat(32);
        const out = sampleInvoiceRecord(company.id, { sha256, invoiceNumber: "N-1", createdAt: at(1) });
        const client: ClientUpsert = { id: randomUUID(), key: "0208:0123456789", endpointId: "0208:0123456789", name: "Buyer", vatId: null, country: "BE" };
        expect((await store.insertSubmission({ invoice: out, document: new Uint8Array([60]), client })).inserted).toBe(true);
        // A company receives the very bytes it sent (itself as a recipient): stored, and the submission stays the active one.
        const inv = sampleInboundRecord(company.id, { sha256, invoiceNumber: "N-1", createdAt: at(2) });
        expect((await receive(inv)).inserted).toBe(true);
        expect(await store.findActiveSubmission(company.id, sha256)).toBe(out.id);
        expect(await store.findActiveNumber(company.id, "invoice", "N-1")).toBe(out.id);
        const dup = await store.insertSubmission({ invoice: sampleInvoiceRecord(company.id, { sha256 }), document: new Uint8Array([60]), client });
        expect(dup).toEqual({ inserted: false, duplicateOf: out.id });
        // Received first: no submission is refused because of it.
        const sha2 = "ef".repeat(32);
        expect((await receive(sampleInboundRecord(company.id, { sha256: sha2, invoiceNumber: "N-2" }))).inserted).toBe(true);
        expect(await store.findActiveSubmission(company.id, sha2)).toBeNull();
        expect(await store.findActiveNumber(company.id, "invoice", "N-2")).toBeNull();
        const sent = sampleInvoiceRecord(company.id, { sha256: sha2, invoiceNumber: "N-2", fromData: true });
        expect((await store.insertSubmission({ invoice: sent, document: new Uint8Array([60]), client })).inserted).toBe(true);
        const clients = await store.listClients(company.id, { limit: 10, after: null });
        expect(clients.map((c) => [c.key, c.invoiceCount])).toEqual([["0208:0123456789", 2]]);
      });

      it("creates the supplier with the first document and updates it with the next, apart from the clients", async () => {
        const first = sampleInboundRecord(company.id, { createdAt: at(10) });
        const r1 = await store.insertInbound({ invoice: first, content: null, supplier: supplierOf(first, { key: "0208:0987654321", name: "Old name" }), notify: false });
        const upsert = supplierOf(first, { key: "0208:0987654321", name: "New name", vatId: "BE1", country: "BE" });
        const second = sampleInboundRecord(company.id, { createdAt: at(20) });
        const r2 = await store.insertInbound({ invoice: second, content: null, supplier: upsert, notify: false });
        if (!r1.inserted || !r2.inserted) throw new Error("not inserted");
        expect(r2.invoice.supplierId).toBe(r1.invoice.supplierId);
        const suppliers = await store.listSuppliers(company.id, { limit: 10, after: null });
        expect(suppliers).toEqual([
          {
            id: r1.invoice.supplierId,
            companyId: company.id,
            key: "0208:0987654321",
            name: "New name",
            endpointId: first.supplier.endpointId,
            vatId: "BE1",
            country: "BE",
            invoiceCount: 2,
            firstInvoiceAt: at(10),
            lastInvoiceAt: at(20),
          },
        ]);
        expect(await store.getSupplier(company.id, r1.invoice.supplierId!)).toEqual(suppliers[0]);
        expect(await store.listClients(company.id, { limit: 10, after: null })).toEqual([]);
      });

      it("lists suppliers newest first with a keyset cursor", async () => {
        const ids: string[] = [];
        for (let i = 0; i < 5; i++) {
          const inv = sampleInboundRecord(company.id, { createdAt: at(i) });
          const r = await store.insertInbound({ invoice: inv, content: null, supplier: supplierOf(inv, { key: `0208:${i}` }), notify: false });
          if (r.inserted) ids.push(r.invoice.supplierId!);
        }
        const page1 = await store.listSuppliers(company.id, { limit: 2, after: null });
        expect(page1.map((s) => s.id)).toEqual([ids[4], ids[3]]);
        const last = page1[1]!;
        const page2 = await store.listSuppliers(company.id, { limit: 10, after: { at: last.lastInvoiceAt, id: last.id } });
        expect(page2.map((s) => s.id)).toEqual([ids[2], ids[1], ids[0]]);
      });

      it("enqueues one invoice.received event for each subscribed webhook with the insert, and none for a duplicate", async () => {
        const subscribed = [hook(company.id, { url: "https://a.example/" }), hook(company.id, { url: "https://b.example/", events: ["invoice.status_changed", "invoice.received"] })];
        const statusOnly = hook(company.id, { events: ["invoice.status_changed"] });
        const deleted = hook(company.id, { url: "https://c.example/" });
        const other = await newCompany();
        const othersHook = hook(other.id);
        for (const w of [...subscribed, statusOnly, deleted, othersHook]) expect(await store.insertWebhook(w)).toBe(true);
        expect(await store.deleteWebhook(company.id, deleted.id, at(0))).toBe(true);
        const inv = sampleInboundRecord(company.id, { createdAt: at(30) });
        const r = await receive(inv, null, true);
        if (!r.inserted) throw new Error("not inserted");
        for (const w of subscribed) {
          const events = await store.listWebhookEvents(company.id, w.id, 10);
          expect(events).toHaveLength(1);
          expect(events[0]).toMatchObject({ type: "invoice.received", companyId: company.id, webhookId: w.id, status: "pending", attempts: 0, nextAttemptAt: at(30) });
          expect(JSON.parse(events[0]!.data)).toEqual(JSON.parse(receivedEventData(r.invoice)));
        }
        expect(await store.listWebhookEvents(company.id, statusOnly.id, 10)).toEqual([]);
        expect(await store.listWebhookEvents(other.id, othersHook.id, 10)).toEqual([]);
        // The same reference again: nothing enqueued.
        expect((await receive(sampleInboundRecord(company.id, {}, inv.inbound!.networkReference), null, true)).inserted).toBe(false);
        for (const w of subscribed) expect(await store.listWebhookEvents(company.id, w.id, 10)).toHaveLength(1);
        // notify false: none.
        await receive(sampleInboundRecord(company.id), null, false);
        for (const w of subscribed) expect(await store.listWebhookEvents(company.id, w.id, 10)).toHaveLength(1);
      });

      it("keeps a company's inbound records, bytes and suppliers from every other company", async () => {
        const other = await newCompany();
        const inv = sampleInboundRecord(company.id);
        const r = await receive(inv, new Uint8Array([9]));
        if (!r.inserted) throw new Error("not inserted");
        expect(await store.getInvoice(other.id, inv.id)).toBeNull();
        expect(await store.getDocument(other.id, inv.id)).toBeNull();
        expect(await list(other.id, { direction: "inbound" })).toEqual([]);
        expect(await store.getSupplier(other.id, r.invoice.supplierId!)).toBeNull();
        expect(await store.listSuppliers(other.id, { limit: 10, after: null })).toEqual([]);
        expect(await store.getSupplier(company.id, randomUUID())).toBeNull();
      });
    });

    describe("pages of received documents (insertInboundMany, when the store has it)", () => {
      const page = (invs: InvoiceRecord[], supplierKey: (inv: InvoiceRecord, i: number) => string | null = () => "0208:0987654321", notify = false) =>
        invs.map((inv, i) => {
          const key = supplierKey(inv, i);
          return { invoice: inv, content: new Uint8Array([60, i % 256]), supplier: key === null ? null : supplierOf(inv, { key }), notify };
        });

      it("stores a page in one step: results in order, bytes, one supplier counted for each of its documents, events for each", async (ctx) => {
        if (!store.insertInboundMany) return ctx.skip();
        const w = hook(company.id);
        expect(await store.insertWebhook(w)).toBe(true);
        const invs = [0, 1, 2].map((i) => sampleInboundRecord(company.id, { createdAt: at(40 + i), updatedAt: at(40 + i) }));
        const results = await store.insertInboundMany(page(invs, (_, i) => (i === 1 ? null : "0208:0987654321"), true));
        expect(results.map((r) => r.inserted && r.invoice.id)).toEqual(invs.map((i) => i.id));
        const supplierId = results[0]!.inserted ? results[0]!.invoice.supplierId : "";
        expect(supplierId).toMatch(/^[0-9a-f-]{36}$/);
        expect(results.map((r) => r.inserted && r.invoice.supplierId)).toEqual([supplierId, null, supplierId]);
        for (const [i, inv] of invs.entries()) {
          expect(await store.getInvoice(company.id, inv.id)).toEqual(results[i]!.inserted ? results[i]!.invoice : null);
          expect(await store.getDocument(company.id, inv.id)).toEqual(new Uint8Array([60, i]));
        }
        const suppliers = await store.listSuppliers(company.id, { limit: 10, after: null });
        expect(suppliers.map((s) => [s.id, s.invoiceCount, s.firstInvoiceAt, s.lastInvoiceAt])).toEqual([[supplierId, 2, at(40), at(42)]]);
        const events = await store.listWebhookEvents(company.id, w.id, 10);
        expect(events).toHaveLength(3);
        expect(events.map((e) => JSON.parse(e.data)).sort((a, b) => (a.invoice.id < b.invoice.id ? -1 : 1))).toEqual(results.map((r) => (r.inserted ? JSON.parse(receivedEventData(r.invoice)) : null)).sort((a, b) => (a.invoice.id < b.invoice.id ? -1 : 1)));
        expect(await store.insertInboundMany([])).toEqual([]);
      });

      it("deduplicates each item against stored records and against an earlier item of the same page", async (ctx) => {
        if (!store.insertInboundMany) return ctx.skip();
        const w = hook(company.id);
        expect(await store.insertWebhook(w)).toBe(true);
        const old = sampleInboundRecord(company.id, { createdAt: at(1) }, { ksefNumber: "K-OLD" });
        expect((await receive(old)).inserted).toBe(true);
        const b = sampleInboundRecord(company.id, { createdAt: at(2) }, { ksefNumber: "K-B" });
        const oldAgain = sampleInboundRecord(company.id, { createdAt: at(2) }, { ksefNumber: "K-OLD" });
        const bAgain = sampleInboundRecord(company.id, { createdAt: at(2) }, { ksefNumber: "K-B" });
        const c = sampleInboundRecord(company.id, { createdAt: at(2) }, { ksefNumber: "K-C" });
        const results = await store.insertInboundMany(page([b, oldAgain, bAgain, c], undefined, true));
        expect(results.map((r) => (r.inserted ? `new ${r.invoice.id}` : `dup ${r.existingId}`))).toEqual([`new ${b.id}`, `dup ${old.id}`, `dup ${b.id}`, `new ${c.id}`]);
        expect(await store.getInvoice(company.id, oldAgain.id)).toBeNull();
        expect(await store.getInvoice(company.id, bAgain.id)).toBeNull();
        expect((await list(company.id, { direction: "inbound" })).map((i) => i.id).sort()).toEqual([old.id, b.id, c.id].sort());
        expect((await store.listSuppliers(company.id, { limit: 10, after: null }))[0]?.invoiceCount).toBe(3);
        expect(await store.listWebhookEvents(company.id, w.id, 10)).toHaveLength(2);
      });

      it("stores nothing of a page with a bad item", async (ctx) => {
        if (!store.insertInboundMany) return ctx.skip();
        const good = sampleInboundRecord(company.id);
        const bad = { ...sampleInboundRecord(company.id), inbound: undefined };
        await expect(store.insertInboundMany(page([good, bad]))).rejects.toThrow();
        expect(await store.getInvoice(company.id, good.id)).toBeNull();
        expect(await store.listSuppliers(company.id, { limit: 10, after: null })).toEqual([]);
      });

      it("stores each reference once across 8 concurrent overlapping pages (and concurrent single inserts)", async (ctx) => {
        if (!store.insertInboundMany) return ctx.skip();
        const refs = Array.from({ length: 24 }, (_, i) => `K-${String(i).padStart(2, "0")}`);
        const refOf = (inv: InvoiceRecord) => (inv.inbound!.networkReference as { ksefNumber: string }).ksefNumber;
        const supplierKey = (inv: InvoiceRecord) => {
          const n = Number(refOf(inv).slice(2));
          return n % 4 === 3 ? null : `0208:${n % 3}`;
        };
        // Each page: 12 of the references, from its own start, in its own order.
        const pages = Array.from({ length: 8 }, (_, p) => {
          const mine = Array.from({ length: 12 }, (_, k) => refs[(p * 5 + k * (p % 2 === 0 ? 1 : 23)) % refs.length]!);
          return [...new Set(mine)].map((ksefNumber) => sampleInboundRecord(company.id, { createdAt: at(50) }, { ksefNumber }));
        });
        const singles = [refs[0]!, refs[13]!].map((ksefNumber) => sampleInboundRecord(company.id, { createdAt: at(50) }, { ksefNumber }));
        const [pageResults, singleResults] = await Promise.all([
          Promise.all(pages.map((invs) => store.insertInboundMany!(page(invs, supplierKey)))),
          Promise.all(singles.map((inv) => store.insertInbound(page([inv], supplierKey)[0]!))),
        ]);
        // One record a reference, and every answer names it.
        const stored = await list(company.id, { direction: "inbound", limit: 100 });
        const byRef = new Map(stored.map((i) => [refOf(i), i.id]));
        const sent = new Set([...pages.flat(), ...singles].map(refOf));
        expect(stored).toHaveLength(sent.size);
        expect(new Set(byRef.keys())).toEqual(sent);
        const all = [...pages.flat().map((inv, k) => [inv, pageResults.flat()[k]!] as const), ...singles.map((inv, k) => [inv, singleResults[k]!] as const)];
        for (const [inv, r] of all) expect(r.inserted ? r.invoice.id : r.existingId).toBe(byRef.get(refOf(inv)));
        expect(all.filter(([, r]) => r.inserted)).toHaveLength(sent.size);
        const suppliers = await store.listSuppliers(company.id, { limit: 10, after: null });
        const expected = new Map<string, number>();
        for (const ref of sent) {
          const key = supplierKey(sampleInboundRecord(company.id, {}, { ksefNumber: ref }));
          if (key) expected.set(key, (expected.get(key) ?? 0) + 1);
        }
        expect(new Map(suppliers.map((s) => [s.key, s.invoiceCount]))).toEqual(expected);
      });
    });

    describe("documents for no company", () => {
      function unmatched(ref: NetworkReference, receivedAt: string, over: Partial<UnmatchedDocument> = {}): UnmatchedDocument {
        return { id: randomUUID(), network: "peppol", networkReference: ref, legalEntityId: "LE-404", reason: "No company has legal entity LE-404.", receivedAt, mediaType: "application/xml", sha256: "aa".repeat(32), size: 3, ...over };
      }

      it("keeps one document per reference with its bytes, and answers the first id again", async () => {
        const doc = unmatched({ storecoveGuid: "g-1" }, at(1));
        expect(await store.insertUnmatched(doc, new Uint8Array([1, 2, 3]))).toEqual({ inserted: true, id: doc.id });
        expect(await store.insertUnmatched(unmatched({ storecoveGuid: "g-1" }, at(2)), new Uint8Array([4]))).toEqual({ inserted: false, id: doc.id });
        expect(await store.getUnmatchedContent(doc.id)).toEqual(new Uint8Array([1, 2, 3]));
        expect(await store.countUnmatched()).toBe(1);
        expect(await store.listUnmatched({ limit: 10, after: null })).toEqual([doc]);
        const big = unmatched({ storecoveGuid: "g-2" }, at(3), { legalEntityId: null });
        expect((await store.insertUnmatched(big, null)).inserted).toBe(true);
        expect(await store.getUnmatchedContent(big.id)).toBeNull();
        expect(await store.getUnmatchedContent(randomUUID())).toBeNull();
        expect(await store.countUnmatched()).toBe(2);
        // Not an invoice of any company.
        expect(await store.getInvoice(company.id, doc.id)).toBeNull();
      });

      it("lists them newest first with a keyset cursor", async () => {
        const docs = [];
        for (let i = 0; i < 5; i++) {
          const d = unmatched({ storecoveGuid: `k-${i}` }, at(i));
          await store.insertUnmatched(d, null);
          docs.push(d);
        }
        const page1 = await store.listUnmatched({ limit: 2, after: null });
        expect(page1.map((d) => d.id)).toEqual([docs[4]!.id, docs[3]!.id]);
        const page2 = await store.listUnmatched({ limit: 10, after: { at: page1[1]!.receivedAt, id: page1[1]!.id } });
        expect(page2.map((d) => d.id)).toEqual([docs[2]!.id, docs[1]!.id, docs[0]!.id]);
      });
    });

    describe("companies by participant identifier and legal entity", () => {
      it("sets, replaces and reads back a company's participant identifiers", async () => {
        const r = await store.setParticipantIds(company.id, ["0106:12345678", "0208:abc"], at(5));
        expect(r).toEqual({ ok: true, company: { ...company, participantIds: ["0106:12345678", "0208:abc"], updatedAt: at(5) } });
        expect((await store.getCompany(company.id))?.participantIds).toEqual(["0106:12345678", "0208:abc"]);
        expect(await store.findCompanyByParticipant("0208:abc")).toBe(company.id);
        const again = await store.setParticipantIds(company.id, ["0208:abc"], at(6));
        expect(again?.ok).toBe(true);
        expect(await store.findCompanyByParticipant("0106:12345678")).toBeNull();
        expect(await store.findCompanyByParticipant("0208:abc")).toBe(company.id);
        expect((await store.getCompany(company.id))?.participantIds).toEqual(["0208:abc"]);
        expect(await store.setParticipantIds(randomUUID(), ["0208:zzz"], at(7))).toBeNull();
        expect((await store.setParticipantIds(company.id, [], at(8)))?.ok).toBe(true);
        expect(await store.findCompanyByParticipant("0208:abc")).toBeNull();
      });

      it("refuses an identifier another company holds, changing nothing", async () => {
        const other = await newCompany();
        await store.setParticipantIds(company.id, ["0106:1"], at(1));
        await store.setParticipantIds(other.id, ["0106:2"], at(1));
        expect(await store.setParticipantIds(other.id, ["0106:3", "0106:1"], at(2))).toEqual({ ok: false, takenBy: company.id, participantId: "0106:1" });
        expect((await store.getCompany(other.id))?.participantIds).toEqual(["0106:2"]);
        expect((await store.getCompany(other.id))?.updatedAt).toBe(at(1));
        expect(await store.findCompanyByParticipant("0106:3")).toBeNull();
        expect(await store.findCompanyByParticipant("0106:2")).toBe(other.id);
      });

      it("lets one of two companies setting one identifier at once have it", async () => {
        const others = [await newCompany(), await newCompany(), await newCompany()];
        const results = await Promise.all([company, ...others].map((c) => store.setParticipantIds(c.id, ["0088:race"], at(3))));
        expect(results.filter((r) => r?.ok)).toHaveLength(1);
        const winner = await store.findCompanyByParticipant("0088:race");
        const winners = [];
        for (const c of [company, ...others]) if ((await store.getCompany(c.id))?.participantIds?.includes("0088:race")) winners.push(c.id);
        expect(winners).toEqual([winner]);
      });

      it("finds the company of a legal entity, the oldest when several share it", async () => {
        const older = await newCompany({ legalEntityId: "LE-7", createdAt: at(1) });
        await newCompany({ legalEntityId: "LE-7", createdAt: at(2) });
        expect(await store.findCompanyByLegalEntity("LE-7")).toBe(older.id);
        expect(await store.findCompanyByLegalEntity("le-7")).toBeNull();
        expect(await store.findCompanyByLegalEntity("LE-8")).toBeNull();
      });
    });

    describe("inbound sync rows", () => {
      const claim = (owner: string, now: number, limit = 10, source = "ksef") => store.claimInboundSyncs({ source, owner, now: at(now), leaseUntil: at(now + 60), limit });

      it("creates a row due at once, and leaves an existing one as it is", async () => {
        await store.ensureInboundSync({ source: "ksef", scope: company.id, now: at(10) });
        expect(await claim("x", 9)).toEqual([]);
        expect(await claim("x", 10)).toEqual([{ source: "ksef", scope: company.id, state: null, nextRunAt: at(10), requests: [] }]);
        expect(await store.saveInboundSync({ source: "ksef", scope: company.id, owner: "x", state: "mark-1", nextRunAt: at(100) })).toBe(true);
        await store.ensureInboundSync({ source: "ksef", scope: company.id, now: at(20) });
        expect(await store.listInboundSyncs("ksef")).toEqual([{ source: "ksef", scope: company.id, state: "mark-1", nextRunAt: at(100), requests: [] }]);
        expect(await store.listInboundSyncs("storecove")).toEqual([]);
      });

      it("leases a row to one owner at a time, oldest due first, at most `limit`, per source", async () => {
        await store.ensureInboundSync({ source: "ksef", scope: "b", now: at(2) });
        await store.ensureInboundSync({ source: "ksef", scope: "a", now: at(3) });
        await store.ensureInboundSync({ source: "ksef", scope: "c", now: at(1) });
        await store.ensureInboundSync({ source: "storecove", scope: "*", now: at(1) });
        expect((await claim("x", 5, 2)).map((r) => r.scope)).toEqual(["c", "b"]);
        expect((await claim("y", 5)).map((r) => r.scope)).toEqual(["a"]);
        expect(await claim("z", 64)).toEqual([]);
        expect((await claim("z", 5, 10, "storecove")).map((r) => r.scope)).toEqual(["*"]);
      });

      it("gives one of two concurrent claims the row", async () => {
        await store.ensureInboundSync({ source: "ksef", scope: company.id, now: at(0) });
        const [a, b] = await Promise.all([claim("x", 1), claim("y", 1)]);
        expect(a.length + b.length).toBe(1);
      });

      it("lets another owner take an expired lease over, and refuses the first owner's save then", async () => {
        await store.ensureInboundSync({ source: "ksef", scope: company.id, now: at(0) });
        expect(await claim("x", 1)).toHaveLength(1);
        expect(await claim("y", 60)).toEqual([]);
        expect(await claim("y", 61)).toHaveLength(1);
        expect(await store.saveInboundSync({ source: "ksef", scope: company.id, owner: "x", state: "late" })).toBe(false);
        expect((await store.listInboundSyncs("ksef"))[0]?.state).toBeNull();
        expect(await store.saveInboundSync({ source: "ksef", scope: company.id, owner: "y", state: "on-time" })).toBe(true);
        expect((await store.listInboundSyncs("ksef"))[0]?.state).toBe("on-time");
      });

      it("saves only for the owner: a wrong owner changes nothing, not even the requests", async () => {
        await store.ensureInboundSync({ source: "ksef", scope: company.id, now: at(0) });
        const req: BackfillRequest = { id: randomUUID(), from: at(-1000), to: at(-500), requestedAt: at(0) };
        await store.requestBackfill({ source: "ksef", scope: company.id, request: req });
        const [row] = await claim("x", 1);
        expect(row?.requests).toEqual([req]);
        expect(await store.saveInboundSync({ source: "ksef", scope: company.id, owner: "y", state: "s", takenRequests: [req.id], nextRunAt: at(500) })).toBe(false);
        expect(await store.listInboundSyncs("ksef")).toEqual([{ source: "ksef", scope: company.id, state: null, nextRunAt: at(0), requests: [req], lease: { owner: "x", until: at(61) } }]);
        expect(await store.saveInboundSync({ source: "ksef", scope: "unknown", owner: "x", state: "s" })).toBe(false);
        // The lease is still x's: nobody else claims it.
        expect(await claim("y", 2)).toEqual([]);
      });

      it("checkpoints the mark and extends the lease, deletes the taken requests with the save, and ends the run with nextRunAt", async () => {
        await store.ensureInboundSync({ source: "ksef", scope: company.id, now: at(0) });
        const r1: BackfillRequest = { id: randomUUID(), from: at(-100), to: at(-50), requestedAt: at(0) };
        const r2: BackfillRequest = { id: randomUUID(), from: at(-40), to: at(-20), requestedAt: at(0) };
        await store.requestBackfill({ source: "ksef", scope: company.id, request: r1 });
        await store.requestBackfill({ source: "ksef", scope: company.id, request: r2 });
        expect(await claim("x", 1)).toHaveLength(1);
        // A checkpoint that takes r1 over and extends the lease to 200.
        expect(await store.saveInboundSync({ source: "ksef", scope: company.id, owner: "x", state: "m1", takenRequests: [r1.id], leaseUntil: at(200) })).toBe(true);
        expect(await store.listInboundSyncs("ksef")).toEqual([{ source: "ksef", scope: company.id, state: "m1", nextRunAt: at(0), requests: [r2], lease: { owner: "x", until: at(200) } }]);
        expect(await claim("y", 150)).toEqual([]);
        // The run ends: next at 300, lease released.
        expect(await store.saveInboundSync({ source: "ksef", scope: company.id, owner: "x", state: "m2", takenRequests: [r2.id], nextRunAt: at(300) })).toBe(true);
        expect(await store.listInboundSyncs("ksef")).toEqual([{ source: "ksef", scope: company.id, state: "m2", nextRunAt: at(300), requests: [] }]);
        expect(await store.saveInboundSync({ source: "ksef", scope: company.id, owner: "x", state: "after" })).toBe(false);
        expect(await claim("y", 299)).toEqual([]);
        expect((await claim("y", 300)).map((r) => r.state)).toEqual(["m2"]);
      });

      it("makes a row due with a backfill request, creating it when missing, its state kept", async () => {
        await store.ensureInboundSync({ source: "ksef", scope: company.id, now: at(0) });
        await claim("x", 1);
        await store.saveInboundSync({ source: "ksef", scope: company.id, owner: "x", state: "mark", nextRunAt: at(10_000) });
        expect(await claim("y", 100)).toEqual([]);
        const req: BackfillRequest = { id: randomUUID(), from: at(-1000), to: at(0), requestedAt: at(100) };
        await store.requestBackfill({ source: "ksef", scope: company.id, request: req });
        expect(await claim("y", 100)).toEqual([{ source: "ksef", scope: company.id, state: "mark", nextRunAt: at(100), requests: [req] }]);
        const fresh: BackfillRequest = { id: randomUUID(), from: at(-10), to: at(0), requestedAt: at(50) };
        await store.requestBackfill({ source: "ksef", scope: "new-scope", request: fresh });
        expect(await claim("y", 50)).toEqual([{ source: "ksef", scope: "new-scope", state: null, nextRunAt: at(50), requests: [fresh] }]);
      });

      it("releases a lease without a run: due again at once, for its owner only", async () => {
        await store.ensureInboundSync({ source: "ksef", scope: company.id, now: at(0) });
        await claim("x", 1);
        await store.releaseInboundSync({ source: "ksef", scope: company.id, owner: "y" });
        expect(await claim("y", 2)).toEqual([]);
        await store.releaseInboundSync({ source: "ksef", scope: company.id, owner: "x" });
        expect(await claim("y", 2)).toHaveLength(1);
      });
    });
  });
}
