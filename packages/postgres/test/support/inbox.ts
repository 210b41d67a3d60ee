// Checks of the SQL store's receiving side (InboxStore, migration 21) beyond the port's conformance suite, run on
// PGlite and on a PostgreSQL server.
import { createHash, randomUUID } from "node:crypto";
import { receivedEventData, type ClientUpsert, type InvoiceRecord, type NetworkReference, type Store, type WebhookRecord } from "@einvoice/core";
import { sampleCompany, sampleInvoiceRecord } from "@einvoice/core/testing";
import { describe, expect, it } from "vitest";
import { MIGRATIONS, migrate, postgresStore, type Db, type PostgresStore } from "../../src/index.js";
import type { Harness } from "./regressions.js";

const AT = "2026-03-01T10:00:00.000Z";
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

async function signUp(store: Store, overrides: Parameters<typeof sampleCompany>[0] = {}) {
  const company = sampleCompany(overrides);
  const apiKey = { id: randomUUID(), companyId: company.id, prefix: "einv_x", hash: "cd".repeat(32), createdAt: company.createdAt, lastUsedAt: null, revokedAt: null };
  expect(await store.createAccount({ account: { id: randomUUID(), email: `${randomUUID()}@example.com`, companyId: company.id, createdAt: company.createdAt }, company, apiKey })).toEqual({
    created: true,
  });
  return { company, keyId: apiKey.id };
}

/** A received document's record, its bytes and its seller. */
function received(companyId: string, reference: NetworkReference, options: { content?: Uint8Array; at?: string; supplierKey?: string | null } = {}) {
  const content = options.content ?? new TextEncoder().encode(`<Invoice><ID>${randomUUID()}</ID></Invoice>`);
  const at = options.at ?? AT;
  const invoice: InvoiceRecord = {
    ...sampleInvoiceRecord(companyId, { createdAt: at }),
    status: "received",
    network: "peppol",
    direction: "inbound",
    inbound: { receivedAt: at, syntax: "ubl", valid: false, errors: [{ rule: "BR-01", message: "No specification identifier.", location: "/Invoice" }], networkReference: reference, mediaType: "application/xml" },
    supplierId: null,
    sha256: sha(content),
    size: content.length,
    events: [{ status: "received", at, detail: "Received." }],
  };
  const key = options.supplierKey === undefined ? "0106:12345678" : options.supplierKey;
  const supplier: ClientUpsert | null = key === null ? null : { id: randomUUID(), key, endpointId: key, name: "Seller", vatId: "NL001234567B01", country: "NL" };
  return { invoice, content, supplier, notify: true };
}

function webhook(companyId: string, events: WebhookRecord["events"]): WebhookRecord {
  return { id: randomUUID(), companyId, url: "https://hooks.example.com/x", events, secret: "s".repeat(32), createdAt: AT, deletedAt: null, previousSecret: null, previousSecretExpiresAt: null };
}

/** Counts of the rows a received document writes, for the company. */
async function counts(db: Db, schema: string, companyId: string) {
  const { rows } = await db.query<Record<string, number>>(
    `SELECT (SELECT count(*)::integer FROM "${schema}".invoices WHERE company_id = $1::uuid) AS invoices,
            (SELECT count(*)::integer FROM "${schema}".documents WHERE company_id = $1::uuid) AS documents,
            (SELECT coalesce(sum(invoice_count), 0)::integer FROM "${schema}".suppliers WHERE company_id = $1::uuid) AS supplier_count,
            (SELECT count(*)::integer FROM "${schema}".webhook_events WHERE company_id = $1::uuid) AS events`,
    [companyId],
  );
  return rows[0]!;
}

/** Registers the receiving side's tests; `harness` is called in each test (after the suite's beforeAll). */
export function testInbox(label: string, harness: () => Harness, options: { concurrent: boolean }): void {
  const fresh = async () => {
    const h = harness();
    const db = h.connect();
    const schema = h.schema();
    const store = await postgresStore({ db, schema });
    const { company, keyId } = await signUp(store);
    return { h, db, schema, store, company, keyId };
  };

  describe(`postgres inbox: ${label}`, () => {
    it("stores a received document with its bytes, its supplier and one invoice.received event per subscribed webhook, in the shape it was given", async () => {
      const { store, company } = await fresh();
      const subscribed = webhook(company.id, ["invoice.received"]);
      const other = webhook(company.id, ["invoice.status_changed"]);
      const deleted = webhook(company.id, ["invoice.received"]);
      for (const w of [subscribed, other, deleted]) await store.insertWebhook(w);
      await store.deleteWebhook(company.id, deleted.id, AT);
      const input = received(company.id, { ksefNumber: "5265877635-20260301-0100001E9E6E-A5" });
      input.invoice.ksefNumber = "5265877635-20260301-0100001E9E6E-A5";
      input.invoice.network = "ksef";
      const r = await store.insertInbound(input);
      if (!r.inserted) throw new Error("not inserted");
      const suppliers = await store.listSuppliers(company.id, { limit: 10, after: null });
      expect(suppliers).toEqual([
        { id: input.supplier!.id, companyId: company.id, key: "0106:12345678", name: "Seller", endpointId: "0106:12345678", vatId: "NL001234567B01", country: "NL", invoiceCount: 1, firstInvoiceAt: AT, lastInvoiceAt: AT },
      ]);
      expect(r.invoice).toEqual({ ...input.invoice, supplierId: input.supplier!.id });
      const byNumber = await store.listInvoices(company.id, { limit: 10, after: null, status: null, clientId: null, ksefNumber: "5265877635-20260301-0100001E9E6E-A5" });
      expect(byNumber.map((i) => i.id)).toEqual([r.invoice.id]);
      expect(await store.getInvoice(company.id, r.invoice.id)).toEqual(r.invoice);
      expect(await store.getSupplier(company.id, input.supplier!.id)).toEqual(suppliers[0]);
      expect(await store.getDocument(company.id, r.invoice.id)).toEqual(input.content);
      const events = await store.listWebhookEvents(company.id, subscribed.id, 10);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ type: "invoice.received", status: "pending", createdAt: AT, nextAttemptAt: AT, attempts: 0 });
      expect(events[0]!.data).toBe(receivedEventData(r.invoice));
      expect(JSON.parse(events[0]!.data).invoice.supplierId).toBe(input.supplier!.id);
      expect(await store.listWebhookEvents(company.id, other.id, 10)).toEqual([]);
      expect(await store.listWebhookEvents(company.id, deleted.id, 10)).toEqual([]);
      // Not a submission: nothing for the dispatcher, no client.
      expect(await store.countQueued!()).toBe(0);
      expect(await store.listClients(company.id, { limit: 10, after: null })).toEqual([]);
    });

    it("answers the first record's id for the same reference again and changes nothing; another company may hold the same reference", async () => {
      const { db, schema, store, company } = await fresh();
      const { company: other } = await signUp(store);
      await store.insertWebhook(webhook(company.id, ["invoice.received"]));
      const ref = { storecoveGuid: randomUUID() };
      const first = await store.insertInbound(received(company.id, ref));
      if (!first.inserted) throw new Error("not inserted");
      const before = await counts(db, schema, company.id);
      expect(before).toEqual({ invoices: 1, documents: 1, supplier_count: 1, events: 1 });
      expect(await store.insertInbound(received(company.id, ref))).toEqual({ inserted: false, existingId: first.invoice.id });
      expect(await counts(db, schema, company.id)).toEqual(before);
      // Another kind of reference with the same text is another reference.
      expect((await store.insertInbound(received(company.id, { ksefNumber: ref.storecoveGuid }))).inserted).toBe(true);
      expect((await store.insertInbound(received(other.id, ref))).inserted).toBe(true);
    });

    it("keeps an inbound record apart from the submissions' duplicate and number rules: the same bytes as a submission, and twice under two references", async () => {
      const { store, company } = await fresh();
      const outbound = sampleInvoiceRecord(company.id);
      expect((await store.insertSubmission({ invoice: outbound, document: new TextEncoder().encode("<Invoice/>"), client: null })).inserted).toBe(true);
      const same = received(company.id, { submissionId: randomUUID() });
      same.invoice.sha256 = outbound.sha256;
      const a = await store.insertInbound(same);
      const b = await store.insertInbound({ ...received(company.id, { submissionId: randomUUID() }), invoice: { ...same.invoice, id: randomUUID(), inbound: { ...same.invoice.inbound!, networkReference: { submissionId: randomUUID() } } } });
      expect(a.inserted && b.inserted).toBe(true);
      // The submission's rules still hold among submissions, and see no inbound record.
      expect(await store.insertSubmission({ invoice: { ...outbound, id: randomUUID() }, document: null, client: null })).toEqual({ inserted: false, duplicateOf: outbound.id });
      expect(await store.findActiveSubmission(company.id, outbound.sha256)).toBe(outbound.id);
      const inboundOnly = received(company.id, { submissionId: randomUUID() });
      expect((await store.insertInbound(inboundOnly)).inserted).toBe(true);
      expect(await store.findActiveSubmission(company.id, inboundOnly.invoice.sha256)).toBeNull();
      const numbered = received(company.id, { submissionId: randomUUID() });
      expect((await store.insertInbound({ ...numbered, invoice: { ...numbered.invoice, invoiceNumber: "IN-ONLY-1" } })).inserted).toBe(true);
      expect(await store.findActiveNumber(company.id, "invoice", "IN-ONLY-1")).toBeNull();
      const fromData = sampleInvoiceRecord(company.id, { invoiceNumber: "IN-ONLY-1", fromData: true });
      expect((await store.insertSubmission({ invoice: fromData, document: null, client: null })).inserted).toBe(true);
    });

    it("stores a record without its bytes (too large) and without a supplier, not notifying when told not to", async () => {
      const { db, schema, store, company } = await fresh();
      await store.insertWebhook(webhook(company.id, ["invoice.received"]));
      const input = { ...received(company.id, { ksefNumber: "K-1" }, { supplierKey: null }), content: null, notify: false };
      const r = await store.insertInbound(input);
      if (!r.inserted) throw new Error("not inserted");
      expect(r.invoice.supplierId).toBeNull();
      expect(await store.getInvoice(company.id, r.invoice.id)).toEqual(r.invoice);
      expect(await store.getDocument(company.id, r.invoice.id)).toBeNull();
      expect(await counts(db, schema, company.id)).toEqual({ invoices: 1, documents: 0, supplier_count: 0, events: 0 });
    });

    it("counts a supplier's documents and keeps its latest facts; lists suppliers newest first by keyset", async () => {
      const { store, company } = await fresh();
      const times = ["2026-03-01T10:00:00.000Z", "2026-03-02T10:00:00.000Z", "2026-03-03T10:00:00.000Z"];
      const first = received(company.id, { ksefNumber: "A" }, { at: times[0]! });
      await store.insertInbound(first);
      await store.insertInbound({ ...received(company.id, { ksefNumber: "B" }, { at: times[1]! }), supplier: { ...first.supplier!, id: randomUUID(), name: "Seller renamed" } });
      const other = received(company.id, { ksefNumber: "C" }, { at: times[2]!, supplierKey: "9925:be0123456789" });
      await store.insertInbound(other);
      const all = await store.listSuppliers(company.id, { limit: 10, after: null });
      expect(all.map((s) => [s.key, s.invoiceCount, s.name, s.firstInvoiceAt, s.lastInvoiceAt])).toEqual([
        ["9925:be0123456789", 1, "Seller", times[2], times[2]],
        ["0106:12345678", 2, "Seller renamed", times[0], times[1]],
      ]);
      expect(all[1]!.id).toBe(first.supplier!.id);
      expect(await store.listSuppliers(company.id, { limit: 10, after: { at: all[0]!.lastInvoiceAt, id: all[0]!.id } })).toEqual([all[1]]);
      const mine = await store.listInvoices(company.id, { limit: 10, after: null, status: null, clientId: null, supplierId: first.supplier!.id } as Parameters<Store["listInvoices"]>[1]);
      expect(mine.map((i) => i.inbound!.networkReference)).toEqual([{ ksefNumber: "B" }, { ksefNumber: "A" }]);
      expect(await store.listSuppliers(sampleCompany().id, { limit: 10, after: null })).toEqual([]);
      expect(await store.getSupplier(sampleCompany().id, first.supplier!.id)).toBeNull();
    });

    it("lists by direction (absent: both) with the other filters and keyset pagination", async () => {
      const { store, company } = await fresh();
      const out = sampleInvoiceRecord(company.id, { createdAt: "2026-03-01T09:00:00.000Z" });
      await store.insertSubmission({ invoice: out, document: null, client: null });
      const ins: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await store.insertInbound(received(company.id, { ksefNumber: `N-${i}` }, { at: `2026-03-01T1${i}:00:00.000Z` }));
        if (r.inserted) ins.push(r.invoice.id);
      }
      const q = (extra: Record<string, unknown>) => ({ limit: 10, after: null, status: null, clientId: null, ...extra }) as Parameters<Store["listInvoices"]>[1];
      expect((await store.listInvoices(company.id, q({}))).map((i) => i.id)).toEqual([...ins].reverse().concat(out.id));
      expect((await store.listInvoices(company.id, q({ direction: "outbound" }))).map((i) => i.id)).toEqual([out.id]);
      const inbound = await store.listInvoices(company.id, q({ direction: "inbound" }));
      expect(inbound.map((i) => i.id)).toEqual([...ins].reverse());
      expect(inbound.every((i) => i.direction === "inbound" && i.status === "received")).toBe(true);
      const page = await store.listInvoices(company.id, q({ direction: "inbound", limit: 2 }));
      const rest = await store.listInvoices(company.id, q({ direction: "inbound", after: { at: page[1]!.createdAt, id: page[1]!.id } }));
      expect([...page, ...rest].map((i) => i.id)).toEqual([...ins].reverse());
      expect((await store.listInvoices(company.id, q({ direction: "inbound", status: "sending" })))).toEqual([]);
      expect((await store.listInvoices(company.id, q({ status: "received" }))).map((i) => i.id)).toEqual([...ins].reverse());
      expect(await store.listInvoices(company.id, q({ supplierId: "nope" }))).toEqual([]);
      // A submission read back keeps the shape it had before receiving existed.
      expect(await store.getInvoice(company.id, out.id)).toEqual(out);
    });

    it("changes nothing when the write fails part-way (an invoice id already taken, under a new reference)", async () => {
      const { db, schema, store, company } = await fresh();
      await store.insertWebhook(webhook(company.id, ["invoice.received"]));
      const first = await store.insertInbound(received(company.id, { ksefNumber: "X-1" }));
      if (!first.inserted) throw new Error("not inserted");
      const before = await counts(db, schema, company.id);
      const clash = received(company.id, { ksefNumber: "X-2" }, { supplierKey: "0106:99999999" });
      clash.invoice.id = first.invoice.id;
      await expect(store.insertInbound(clash)).rejects.toMatchObject({ name: "DbError", code: "23505" });
      expect(await counts(db, schema, company.id)).toEqual(before);
      expect(await store.listSuppliers(company.id, { limit: 10, after: null })).toHaveLength(1);
    });

    it.runIf(options.concurrent)("of 30 concurrent inserts of one reference through two store instances, exactly one is stored, and all answer its id", async () => {
      const { h, db, schema, store, company } = await fresh();
      const second = await postgresStore({ db: h.connect(), schema, migrate: false });
      await store.insertWebhook(webhook(company.id, ["invoice.received"]));
      for (let round = 0; round < 3; round++) {
        const ref = { storecoveGuid: randomUUID() };
        const inputs = Array.from({ length: 30 }, (_, i) => received(company.id, ref, { supplierKey: i % 2 ? "0106:12345678" : "0106:87654321" }));
        const results = await Promise.all(inputs.map((x, i) => (i % 2 ? store : second).insertInbound(x)));
        const winners = results.filter((r) => r.inserted);
        expect(winners).toHaveLength(1);
        const id = winners[0]!.inserted ? winners[0]!.invoice.id : "";
        for (const r of results) if (!r.inserted) expect(r.existingId).toBe(id);
      }
      expect(await counts(db, schema, company.id)).toEqual({ invoices: 3, documents: 3, supplier_count: 3, events: 3 });
    });

    it("keeps a document for no company once per reference, with its bytes, newest first", async () => {
      const { store } = await fresh();
      const bytes = new TextEncoder().encode("<Invoice>".padEnd(5000, "x") + "</Invoice>");
      const doc = (at: string, ref: NetworkReference) => ({
        id: randomUUID(),
        network: "peppol" as const,
        networkReference: ref,
        legalEntityId: "12345",
        reason: "No company has the legal entity 12345.",
        receivedAt: at,
        mediaType: "application/xml",
        sha256: sha(bytes),
        size: bytes.length,
      });
      const a = doc("2026-03-01T10:00:00.000Z", { storecoveGuid: randomUUID() });
      expect(await store.insertUnmatched(a, bytes)).toEqual({ inserted: true, id: a.id });
      expect(await store.insertUnmatched({ ...a, id: randomUUID() }, bytes)).toEqual({ inserted: false, id: a.id });
      const b = doc("2026-03-02T10:00:00.000Z", { storecoveGuid: randomUUID() });
      await store.insertUnmatched(b, null);
      expect(await store.countUnmatched()).toBe(2);
      expect(await store.listUnmatched({ limit: 10, after: null })).toEqual([b, a]);
      expect(await store.listUnmatched({ limit: 10, after: { at: b.receivedAt, id: b.id } })).toEqual([a]);
      expect(await store.getUnmatchedContent(a.id)).toEqual(bytes);
      expect(await store.getUnmatchedContent(b.id)).toBeNull();
      expect(await store.getUnmatchedContent(randomUUID())).toBeNull();
    });

    it("sets participant identifiers: sorted on the company (also as authentication reads it), each for one company, refused without change when taken", async () => {
      const { store, company, keyId } = await fresh();
      const { company: other } = await signUp(store);
      const set = await store.setParticipantIds(company.id, ["0106:2", "0106:1"], "2026-03-01T00:00:00.000Z");
      expect(set).toEqual({ ok: true, company: { ...company, participantIds: ["0106:1", "0106:2"], updatedAt: "2026-03-01T00:00:00.000Z" } });
      expect(await store.getCompany(company.id)).toEqual(set!.ok ? set!.company : null);
      expect((await store.getApiKeyWithCompany!(keyId))?.company).toEqual(await store.getCompany(company.id));
      expect(await store.findCompanyByParticipant("0106:1")).toBe(company.id);
      expect(await store.setParticipantIds(other.id, ["0106:3", "0106:2"], AT)).toEqual({ ok: false, takenBy: company.id, participantId: "0106:2" });
      expect(await store.findCompanyByParticipant("0106:3")).toBeNull();
      expect(await store.getCompany(other.id)).toEqual(other);
      // Replacing gives up the ones left out.
      expect((await store.setParticipantIds(company.id, ["0106:1"], AT))?.ok).toBe(true);
      expect((await store.setParticipantIds(other.id, ["0106:2"], AT))?.ok).toBe(true);
      expect(await store.findCompanyByParticipant("0106:2")).toBe(other.id);
      expect(await store.setParticipantIds(randomUUID(), ["0106:9"], AT)).toBeNull();
      expect(await store.setParticipantIds("nope", ["0106:9"], AT)).toBeNull();
    });

    it.runIf(options.concurrent)("of concurrent calls for one participant identifier by 10 companies, exactly one succeeds", async () => {
      const { h, schema, store } = await fresh();
      const second = await postgresStore({ db: h.connect(), schema, migrate: false });
      const companies = [];
      for (let i = 0; i < 10; i++) companies.push((await signUp(store)).company);
      const results = await Promise.all(companies.map((c, i) => (i % 2 ? store : second).setParticipantIds(c.id, ["0106:a", `0106:own-${i}`], AT)));
      expect(results.filter((r) => r?.ok)).toHaveLength(1);
      const winner = companies[results.findIndex((r) => r?.ok)]!;
      expect(await store.findCompanyByParticipant("0106:a")).toBe(winner.id);
      for (const r of results) if (r && !r.ok) expect(r).toEqual({ ok: false, takenBy: winner.id, participantId: "0106:a" });
    });

    it("finds a company by its legal entity, the oldest when several share it", async () => {
      const { store } = await fresh();
      const le = `le-${randomUUID()}`;
      const { company: older } = await signUp(store, { legalEntityId: le, createdAt: "2025-01-01T00:00:00.000Z" });
      await signUp(store, { legalEntityId: le });
      expect(await store.findCompanyByLegalEntity(le)).toBe(older.id);
      expect(await store.findCompanyByLegalEntity("none")).toBeNull();
    });

    it("leases sync rows to one owner at a time, saves marks only under the lease, and takes backfill requests with them", async () => {
      const { h, schema, store } = await fresh();
      const second = await postgresStore({ db: h.connect(), schema, migrate: false });
      const t = (m: number) => new Date(Date.parse("2026-03-01T00:00:00.000Z") + m * 60_000).toISOString();
      for (let i = 0; i < 6; i++) await store.ensureInboundSync({ source: "ksef", scope: `c${i}`, now: t(i) });
      await store.ensureInboundSync({ source: "ksef", scope: "c0", now: t(50) });
      await store.ensureInboundSync({ source: "storecove", scope: "*", now: t(0) });
      // Two claimers at once take disjoint rows, oldest due first.
      const [a, b] = await Promise.all([
        store.claimInboundSyncs({ source: "ksef", owner: "A", now: t(10), leaseUntil: t(15), limit: 3 }),
        second.claimInboundSyncs({ source: "ksef", owner: "B", now: t(10), leaseUntil: t(15), limit: 3 }),
      ]);
      expect([...a, ...b].map((s) => s.scope).sort()).toEqual(["c0", "c1", "c2", "c3", "c4", "c5"]);
      for (const list of [a, b]) expect(list.map((s) => s.nextRunAt)).toEqual([...list.map((s) => s.nextRunAt)].sort());
      expect(a[0]).toEqual({ source: "ksef", scope: a[0]!.scope, state: null, nextRunAt: t(Number(a[0]!.scope.slice(1))), requests: [] });
      expect(await store.claimInboundSyncs({ source: "ksef", owner: "C", now: t(11), leaseUntil: t(20), limit: 10 })).toEqual([]);
      const mine = a.some((s) => s.scope === "c0") ? "A" : "B";
      const thief = mine === "A" ? "B" : "A";
      expect(await store.saveInboundSync({ source: "ksef", scope: "c0", owner: thief, state: "stolen" })).toBe(false);
      const request = { id: randomUUID(), from: "2026-01-01T00:00:00.000Z", to: "2026-02-01T00:00:00.000Z", requestedAt: t(12) };
      await store.requestBackfill({ source: "ksef", scope: "c0", request });
      expect(await store.saveInboundSync({ source: "ksef", scope: "c0", owner: mine, state: "mark-1", leaseUntil: t(30) })).toBe(true);
      // The lease was extended: at t(20) c0 is still held, the others (lease until t(15)) are free again.
      const again = await store.claimInboundSyncs({ source: "ksef", owner: "C", now: t(20), leaseUntil: t(100), limit: 10 });
      expect(again.map((s) => s.scope).sort()).toEqual(["c1", "c2", "c3", "c4", "c5"]);
      expect(await store.saveInboundSync({ source: "ksef", scope: "c0", owner: mine, state: "mark-2", takenRequests: [request.id], nextRunAt: t(40) })).toBe(true);
      const listed = await store.listInboundSyncs("ksef");
      expect(listed.map((s) => s.scope)).toEqual(["c0", "c1", "c2", "c3", "c4", "c5"]);
      expect(listed[0]).toEqual({ source: "ksef", scope: "c0", state: "mark-2", nextRunAt: t(40), requests: [] });
      expect(await store.claimInboundSyncs({ source: "ksef", owner: "D", now: t(39), leaseUntil: t(45), limit: 10 })).toEqual([]);
      expect((await store.claimInboundSyncs({ source: "ksef", owner: "D", now: t(40), leaseUntil: t(45), limit: 10 })).map((s) => [s.scope, s.state])).toEqual([["c0", "mark-2"]]);
      // A graceful stop gives the lease back: due again at once.
      await store.releaseInboundSync({ source: "ksef", scope: "c0", owner: "D" });
      const backfill = { id: randomUUID(), from: "2026-01-01T00:00:00.000Z", to: "2026-01-15T00:00:00.000Z", requestedAt: t(41) };
      await store.requestBackfill({ source: "ksef", scope: "c0", request: backfill });
      const taken = await store.claimInboundSyncs({ source: "ksef", owner: "E", now: t(41), leaseUntil: t(50), limit: 1 });
      expect(taken).toEqual([{ source: "ksef", scope: "c0", state: "mark-2", nextRunAt: t(40), requests: [{ id: backfill.id, from: backfill.from, to: backfill.to, requestedAt: t(41) }] }]);
      // A request makes a row due later due at the request.
      expect(await store.saveInboundSync({ source: "ksef", scope: "c0", owner: "E", state: "mark-3", takenRequests: [backfill.id], nextRunAt: t(90) })).toBe(true);
      await store.requestBackfill({ source: "ksef", scope: "c0", request: { ...backfill, id: randomUUID(), requestedAt: t(70) } });
      expect((await store.listInboundSyncs("ksef"))[0]).toMatchObject({ scope: "c0", state: "mark-3", nextRunAt: t(70) });
      // A request for a scope without a row creates it, due at the request.
      await store.requestBackfill({ source: "ksef", scope: "new", request: { ...backfill, id: randomUUID(), requestedAt: t(60) } });
      expect((await store.listInboundSyncs("ksef")).find((s) => s.scope === "new")).toMatchObject({ state: null, nextRunAt: t(60) });
      expect((await store.listInboundSyncs("storecove")).map((s) => s.scope)).toEqual(["*"]);
    });

    it("migrates a schema of version 20 holding submissions and a KSeF company: the duplicate rule holds, old rows read as submissions, the company gets a KSeF sync row", async () => {
      const h = harness();
      const db = h.connect();
      const schema = h.schema();
      const s = `"${schema}"`;
      // Version 20 exactly, as the previous package left it.
      await db.transaction(async (tx) => {
        await tx.query(`CREATE SCHEMA ${s}`);
        await tx.query(`CREATE TABLE ${s}.schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
        for (const m of MIGRATIONS.filter((x) => x.version <= 20)) {
          for (const statement of m.statements(s)) await tx.query(statement);
          await tx.query(`INSERT INTO ${s}.schema_migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
        }
      });
      const plain = sampleCompany();
      const pl = sampleCompany({ country: "PL", ksef: { nip: "5265877635", tokenCiphertext: "v1:abc", updatedAt: AT } });
      for (const c of [plain, pl]) {
        await db.query(
          `INSERT INTO ${s}.companies (id, name, country, enterprise, subscription, legal_entity_id, peppol_sending_enabled, created_at, updated_at, ksef_nip, ksef_token_ciphertext, ksef_updated_at)
           VALUES ($1::uuid, $2, $3, false, 'free', NULL, false, $4::timestamptz, $4::timestamptz, $5, $6, $7::timestamptz)`,
          [c.id, c.name, c.country, c.createdAt, c.ksef?.nip ?? null, c.ksef?.tokenCiphertext ?? null, c.ksef?.updatedAt ?? null],
        );
      }
      const old = sampleInvoiceRecord(plain.id);
      await db.query(
        `INSERT INTO ${s}.invoices (id, company_id, status, target_network, supplier, recipient, sha256, size, created_at, updated_at, events)
         VALUES ($1::uuid, $2::uuid, 'sending', 'auto', '{}'::jsonb, '{}'::jsonb, $3, 10, $4::timestamptz, $4::timestamptz, '[]'::jsonb)`,
        [old.id, plain.id, old.sha256, old.createdAt],
      );
      expect(await migrate(db, { schema })).toEqual({ from: 20, to: 21 });
      const store: PostgresStore = await postgresStore({ db, schema });
      expect(await store.health!()).toBe("ok");
      const read = await store.getInvoice(plain.id, old.id);
      expect(read?.direction).toBeUndefined();
      expect(read?.inbound).toBeUndefined();
      expect(await store.insertSubmission({ invoice: { ...old, id: randomUUID() }, document: null, client: null })).toEqual({ inserted: false, duplicateOf: old.id });
      // The same bytes received are no duplicate of it.
      const r = received(plain.id, { submissionId: randomUUID() });
      expect((await store.insertInbound({ ...r, invoice: { ...r.invoice, sha256: old.sha256 } })).inserted).toBe(true);
      expect((await store.listInvoices(plain.id, { limit: 10, after: null, status: null, clientId: null, direction: "outbound" } as Parameters<Store["listInvoices"]>[1])).map((i) => i.id)).toEqual([old.id]);
      const syncs = await store.listInboundSyncs("ksef");
      expect(syncs.map((x) => [x.scope, x.state, x.requests])).toEqual([[pl.id, null, []]]);
      expect(Date.parse(syncs[0]!.nextRunAt)).toBeLessThanOrEqual(Date.now() + 1000);
      expect(await store.getCompany(pl.id)).toEqual(pl);
    });
  });
}
