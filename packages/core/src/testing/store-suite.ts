// testStore: the storage port's conformance suite. Run it against every Store implementation.
import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ClientUpsert, IdempotencyStore, Store } from "../ports/store.js";
import { keepsIdempotencyKeys } from "../use-cases/idempotency.js";
import type { Company, InvoiceRecord } from "../domain/types.js";
import { sampleAccount, sampleApiKey, sampleCompany, sampleInvoiceRecord } from "./fixtures.js";
import { tokenCipher } from "../domain/token-cipher.js";
import { updateCompany } from "../use-cases/accounts.js";
import { ksefCredentials } from "../use-cases/ksef.js";

/** Makes a fresh, empty store for one test; `close()` is called after it when present. */
export type StoreFactory = () => Store | Promise<Store>;

function clientFor(inv: InvoiceRecord, overrides: Partial<ClientUpsert> = {}): ClientUpsert {
  const endpointId = inv.recipient.endpointId ?? "0208:0123456789";
  return {
    id: randomUUID(),
    key: endpointId.toLowerCase(),
    endpointId,
    name: inv.recipient.name,
    vatId: inv.recipient.vatId,
    country: inv.recipient.country,
    ...overrides,
  };
}

function ts(n: number): string {
  return new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();
}

/**
 * Registers a vitest `describe` block that checks `factory`'s store against the storage port's
 * contract: round trips, tenant scoping, the atomic duplicate rule (50 parallel identical
 * submissions yield one), the number rule of documents built from data (20 parallel ones with one
 * number yield one), client upserts and keyset ordering.
 *
 * @example testStore("memory", () => memoryStore())
 */
export function testStore(name: string, factory: StoreFactory): void {
  describe(`store conformance: ${name}`, () => {
    let store: Store;
    let company: Company;

    async function newCompany(overrides: Partial<Company> = {}): Promise<Company> {
      const c = sampleCompany(overrides);
      const r = await store.createAccount({ account: sampleAccount(c), company: c, apiKey: sampleApiKey(c.id) });
      expect(r).toEqual({ created: true });
      return c;
    }

    async function accept(inv: InvoiceRecord, client: ClientUpsert | null = clientFor(inv)) {
      return store.insertSubmission({ invoice: inv, document: new Uint8Array([60, 97, 47, 62]), client });
    }

    beforeEach(async () => {
      store = await factory();
      company = await newCompany();
    });
    afterEach(async () => {
      await store.close?.();
    });

    describe("health", () => {
      it("a store with health() answers ok once opened, and answering changes nothing", async () => {
        if (!store.health) return; // optional: a store without it counts as ready
        expect(await store.health()).toBe("ok");
        expect(await store.health()).toBe("ok");
        expect(await store.getCompany(company.id)).toEqual(company);
      });
    });

    describe("Idempotency-Keys (IdempotencyStore, when the store keeps them)", () => {
      /** The times of a begin at second `n`, with a fresh proposed resource id. */
      const times = (n: number) => ({ now: ts(n), lockedUntil: ts(n + 60), expiredBefore: ts(n - 86_400), resourceId: randomUUID() });
      const keys = () => store as Store & IdempotencyStore;
      const has = () => keepsIdempotencyKeys(store);
      const started = (resourceId: string) => ({ state: "started", resourceId });

      it("takes an unknown key, answers in_progress while it runs and completed with its answer after, per company", async () => {
        if (!has()) return;
        const other = await newCompany();
        const k = { companyId: company.id, key: "key-1", fingerprint: "f1" };
        const first = times(10);
        expect(await keys().beginIdempotentRequest({ ...k, ...first })).toEqual(started(first.resourceId));
        expect(await keys().beginIdempotentRequest({ ...k, ...times(11) })).toEqual({ state: "in_progress", fingerprint: "f1" });
        expect(await keys().beginIdempotentRequest({ ...k, fingerprint: "f2", ...times(11) })).toEqual({ state: "in_progress", fingerprint: "f1" });
        // The same key in another company is another key.
        const theirs = times(11);
        expect(await keys().beginIdempotentRequest({ ...k, companyId: other.id, ...theirs })).toEqual(started(theirs.resourceId));
        await keys().completeIdempotentRequest({ ...k, status: 200, body: '{"data":{"a":1}}' });
        expect(await keys().beginIdempotentRequest({ ...k, ...times(12) })).toEqual({ state: "completed", fingerprint: "f1", status: 200, body: '{"data":{"a":1}}' });
        // A completed key is not taken over when its lock ends: only when its 24 hours are over.
        expect((await keys().beginIdempotentRequest({ ...k, ...times(1000) })).state).toBe("completed");
        const later = times(10 + 86_400);
        expect(await keys().beginIdempotentRequest({ ...k, fingerprint: "f3", ...later })).toEqual(started(later.resourceId));
        expect(await keys().beginIdempotentRequest({ ...k, ...times(10 + 86_401) })).toEqual({ state: "in_progress", fingerprint: "f3" });
      });

      it("frees an abandoned key, takes over one whose lock ended, and ignores a complete or abandon with another fingerprint", async () => {
        if (!has()) return;
        const k = { companyId: company.id, key: "key-2", fingerprint: "f1" };
        expect((await keys().beginIdempotentRequest({ ...k, ...times(10) })).state).toBe("started");
        await keys().abandonIdempotentRequest({ ...k, fingerprint: "other" });
        await keys().completeIdempotentRequest({ ...k, fingerprint: "other", status: 200, body: "{}" });
        expect((await keys().beginIdempotentRequest({ ...k, ...times(11) })).state).toBe("in_progress");
        await keys().abandonIdempotentRequest(k);
        expect((await keys().beginIdempotentRequest({ ...k, fingerprint: "f2", ...times(12) })).state).toBe("started");
        // Its instance died: the lock (60 s) ends, and the next request takes the key.
        expect((await keys().beginIdempotentRequest({ ...k, fingerprint: "f2", ...times(71) })).state).toBe("in_progress");
        expect((await keys().beginIdempotentRequest({ ...k, fingerprint: "f2", ...times(72) })).state).toBe("started");
      });

      it("a key taken over from a request that died or was abandoned gives the retry of that request (same fingerprint) its resource id, any other request a new one", async () => {
        if (!has()) return;
        const k = { companyId: company.id, key: "key-3", fingerprint: "f1" };
        // The first request names its resource, creates it, and dies before its answer is kept (kill -9).
        const first = times(10);
        expect(await keys().beginIdempotentRequest({ ...k, ...first })).toEqual(started(first.resourceId));
        // While its lock holds, nobody gets the key; once it ended, the retry gets the same resource id, not the one it proposed.
        expect((await keys().beginIdempotentRequest({ ...k, ...times(69) })).state).toBe("in_progress");
        expect(await keys().beginIdempotentRequest({ ...k, ...times(70) })).toEqual(started(first.resourceId));
        // That retry dies too: the next retry still gets it.
        expect(await keys().beginIdempotentRequest({ ...k, ...times(200) })).toEqual(started(first.resourceId));
        // A request abandoned (it failed without an answer to keep, possibly after it created its resource): the same.
        await keys().abandonIdempotentRequest(k);
        expect(await keys().beginIdempotentRequest({ ...k, ...times(201) })).toEqual(started(first.resourceId));
        // Kept once completed, and replayed; after the 24 hours the key is new, and so is its resource id.
        await keys().completeIdempotentRequest({ ...k, status: 200, body: "{}" });
        expect((await keys().beginIdempotentRequest({ ...k, ...times(300) })).state).toBe("completed");
        const nextDay = times(201 + 86_400);
        expect(await keys().beginIdempotentRequest({ ...k, ...nextDay })).toEqual(started(nextDay.resourceId));

        // Another request (another fingerprint) taking over a dead or abandoned key gets the id it proposed.
        const d = { companyId: company.id, key: "key-4", fingerprint: "f1" };
        const dead = times(10);
        expect(await keys().beginIdempotentRequest({ ...d, ...dead })).toEqual(started(dead.resourceId));
        const other = times(70);
        expect(await keys().beginIdempotentRequest({ ...d, fingerprint: "f2", ...other })).toEqual(started(other.resourceId));
        await keys().abandonIdempotentRequest({ ...d, fingerprint: "f2" });
        const back = times(71);
        expect(await keys().beginIdempotentRequest({ ...d, ...back })).toEqual(started(back.resourceId));
      });

      it("of 20 concurrent begins with one key, exactly one is started", async () => {
        if (!has()) return;
        const k = { companyId: company.id, key: randomUUID(), fingerprint: "f" };
        const results = await Promise.all(Array.from({ length: 20 }, () => keys().beginIdempotentRequest({ ...k, ...times(10) })));
        expect(results.filter((r) => r.state === "started")).toHaveLength(1);
        expect(results.filter((r) => r.state === "in_progress")).toHaveLength(19);
      });

      it("of 20 concurrent retries taking over a dead request's key, exactly one is started, with that request's resource id", async () => {
        if (!has()) return;
        const k = { companyId: company.id, key: randomUUID(), fingerprint: "f" };
        const first = times(10);
        expect(await keys().beginIdempotentRequest({ ...k, ...first })).toEqual(started(first.resourceId));
        const results = await Promise.all(Array.from({ length: 20 }, () => keys().beginIdempotentRequest({ ...k, ...times(100) })));
        expect(results.filter((r) => r.state === "started")).toEqual([started(first.resourceId)]);
        expect(results.filter((r) => r.state === "in_progress")).toHaveLength(19);
      });
    });

    describe("accounts and companies", () => {
      it("returns a created company as it was given", async () => {
        expect(await store.getCompany(company.id)).toEqual(company);
      });

      it("answers null for an unknown company", async () => {
        expect(await store.getCompany(randomUUID())).toBeNull();
        expect(await store.updateCompany(randomUUID(), { enterprise: true })).toBeNull();
      });

      it("refuses a second account with the same email and creates nothing for it", async () => {
        const a = sampleCompany();
        const b = sampleCompany();
        expect(await store.createAccount({ account: sampleAccount(a, "x@example.com"), company: a, apiKey: sampleApiKey(a.id) })).toEqual({ created: true });
        const kb = sampleApiKey(b.id);
        expect(await store.createAccount({ account: sampleAccount(b, "x@example.com"), company: b, apiKey: kb })).toEqual({
          created: false,
          reason: "email_taken",
        });
        expect(await store.getCompany(b.id)).toBeNull();
        expect(await store.getApiKey(kb.id)).toBeNull();
      });

      it("lets exactly one of 20 concurrent sign-ups with one email win", async () => {
        const results = await Promise.all(
          Array.from({ length: 20 }, () => {
            const c = sampleCompany();
            return store.createAccount({ account: sampleAccount(c, "race@example.com"), company: c, apiKey: sampleApiKey(c.id) });
          }),
        );
        expect(results.filter((r) => r.created)).toHaveLength(1);
      });

      it("applies a partial company update and keeps the other fields", async () => {
        const updated = await store.updateCompany(company.id, { enterprise: true, legalEntityId: "LE-1", updatedAt: ts(5) });
        expect(updated).toEqual({ ...company, enterprise: true, legalEntityId: "LE-1", updatedAt: ts(5) });
        expect(await store.getCompany(company.id)).toEqual(updated);
        const cleared = await store.updateCompany(company.id, { legalEntityId: null, updatedAt: ts(6) });
        expect(cleared?.legalEntityId).toBeNull();
        expect(cleared?.enterprise).toBe(true);
      });

      it("keeps a company's KSeF credential as given, replaces it, and clears it with null, other fields untouched", async () => {
        expect((await store.getCompany(company.id))?.ksef).toBeNull();
        const ksef = { nip: "5260250995", tokenCiphertext: "v1.0123456789abcdef.aXY.Y2lwaGVy.dGFn", updatedAt: ts(7) };
        const set = await store.updateCompany(company.id, { ksef, updatedAt: ts(7) });
        expect(set).toEqual({ ...company, ksef, updatedAt: ts(7) });
        expect(await store.getCompany(company.id)).toEqual(set);
        const replaced = { nip: "7740001454", tokenCiphertext: "v1.0123456789abcdef.Yg.ZA.ZQ", updatedAt: ts(8) };
        expect((await store.updateCompany(company.id, { ksef: replaced, updatedAt: ts(8) }))?.ksef).toEqual(replaced);
        const enterprise = await store.updateCompany(company.id, { enterprise: true, updatedAt: ts(9) });
        expect(enterprise?.ksef).toEqual(replaced);
        const cleared = await store.updateCompany(company.id, { ksef: null, updatedAt: ts(10) });
        expect(cleared).toEqual({ ...company, enterprise: true, ksef: null, updatedAt: ts(10) });
        expect(await store.getCompany(company.id)).toEqual(cleared);
      });

      it("holds a KSeF token set through the core only encrypted (never the token), and gives it back decrypted to the credential resolver", async () => {
        const token = `20261122-EC-${randomUUID()}|nip-5260250995|0123456789abcdef`;
        const cipher = tokenCipher(Buffer.alloc(32, 7));
        const view = await updateCompany(store, company.id, { ksef: { nip: "PL 526-025-09-95", token } }, { tokenCipher: cipher, clock: () => new Date(ts(11)) });
        expect(view.ksef).toEqual({ nip: "5260250995", tokenSet: true, updatedAt: ts(11) });
        expect(JSON.stringify(view)).not.toContain(token);
        const stored = (await store.getCompany(company.id))!.ksef!;
        expect(stored.nip).toBe("5260250995");
        expect(stored.tokenCiphertext).not.toBe(token);
        expect(stored.tokenCiphertext).not.toContain(token);
        expect(stored.tokenCiphertext).not.toContain(Buffer.from(token).toString("base64"));
        expect(stored.tokenCiphertext).toMatch(/^v1\./);
        expect(await ksefCredentials(store, cipher)(company.id)).toEqual({ nip: "5260250995", token });
        await updateCompany(store, company.id, { ksef: null }, { clock: () => new Date(ts(12)) });
        expect(await ksefCredentials(store, cipher)(company.id)).toBeNull();
        expect(await ksefCredentials(store, cipher)(randomUUID())).toBeNull();
      });
    });

    describe("API keys", () => {
      it("keeps keys per company, lists only active ones oldest first, and revokes within the company only", async () => {
        const other = await newCompany();
        const k1 = sampleApiKey(company.id, { createdAt: ts(1) });
        const k2 = sampleApiKey(company.id, { createdAt: ts(2) });
        await store.insertApiKey(k2);
        await store.insertApiKey(k1);
        expect(await store.getApiKey(k1.id)).toEqual(k1);
        const listed = (await store.listApiKeys(company.id)).map((k) => k.id);
        expect(listed.slice(-2)).toEqual([k1.id, k2.id]);
        expect((await store.listApiKeys(other.id)).map((k) => k.id)).not.toContain(k1.id);

        expect(await store.revokeApiKey(other.id, k1.id, ts(3))).toBe("not_found");
        expect(await store.revokeApiKey(company.id, k1.id, ts(3))).toBe("revoked");
        expect(await store.revokeApiKey(company.id, k1.id, ts(4))).toBe("not_found");
        expect((await store.getApiKey(k1.id))?.revokedAt).toBe(ts(3));
        expect((await store.listApiKeys(company.id)).map((k) => k.id)).not.toContain(k1.id);
        expect(await store.revokeApiKey(company.id, randomUUID(), ts(4))).toBe("not_found");
      });

      it("never revokes the company's last active key", async () => {
        const [only] = await store.listApiKeys(company.id);
        expect(await store.revokeApiKey(company.id, only!.id, ts(3))).toBe("last_key");
        expect((await store.getApiKey(only!.id))?.revokedAt).toBeNull();
        const k = sampleApiKey(company.id, { createdAt: ts(4) });
        await store.insertApiKey(k);
        expect(await store.revokeApiKey(company.id, only!.id, ts(5))).toBe("revoked");
        expect(await store.revokeApiKey(company.id, k.id, ts(6))).toBe("last_key");
      });

      it("concurrent revocations of all of a company's keys leave exactly one active key (20 rounds)", async () => {
        for (let round = 0; round < 20; round++) {
          const c = await newCompany();
          for (let i = 0; i < 4; i++) await store.insertApiKey(sampleApiKey(c.id, { createdAt: ts(i + 1) }));
          const keys = await store.listApiKeys(c.id);
          expect(keys).toHaveLength(5);
          // Every key revoked twice at once, from concurrent calls.
          const results = await Promise.all([...keys, ...keys].map((k) => store.revokeApiKey(c.id, k.id, ts(10))));
          const left = await store.listApiKeys(c.id);
          expect(left, `round ${round}: ${results.join(",")}`).toHaveLength(1);
          expect(results.filter((r) => r === "revoked")).toHaveLength(4);
          expect(results).toContain("last_key");
        }
      });

      it("the cap of active keys holds under concurrent inserts (40 at once, cap 20)", async () => {
        const results = await Promise.all(Array.from({ length: 40 }, (_, i) => store.insertApiKey(sampleApiKey(company.id, { createdAt: ts(i + 1) }), { maxActive: 20 })));
        expect(results.filter(Boolean)).toHaveLength(19); // the company had one key already
        expect(await store.listApiKeys(company.id)).toHaveLength(20);
        // A revoked key frees a place; without a cap the insert always succeeds.
        const [first] = await store.listApiKeys(company.id);
        expect(await store.revokeApiKey(company.id, first!.id, ts(50))).toBe("revoked");
        expect(await store.insertApiKey(sampleApiKey(company.id), { maxActive: 20 })).toBe(true);
        expect(await store.insertApiKey(sampleApiKey(company.id), { maxActive: 20 })).toBe(false);
        expect(await store.insertApiKey(sampleApiKey(company.id))).toBe(true);
      });

      it("reads a key and its company together exactly as getApiKey and getCompany read them (when the store has getApiKeyWithCompany)", async () => {
        if (!store.getApiKeyWithCompany) return; // optional: authenticate then reads the key and the company apart
        const k = sampleApiKey(company.id, { createdAt: ts(1), name: "ERP production" });
        await store.insertApiKey(k);
        await store.touchApiKey(k.id, ts(2));
        expect(await store.getApiKeyWithCompany(k.id)).toEqual({ apiKey: await store.getApiKey(k.id), company: await store.getCompany(company.id) });
        // Every column of the company, the KSeF ones included, as changed since (nothing kept from the first read).
        const updated = await store.updateCompany(company.id, {
          name: "Renamed BV",
          peppolSendingEnabled: !company.peppolSendingEnabled,
          ksef: { nip: "5260250274", tokenCiphertext: "v1.cipher", updatedAt: ts(3) },
          updatedAt: ts(3),
        });
        const both = await store.getApiKeyWithCompany(k.id);
        expect(both?.company).toEqual(updated);
        expect(both?.apiKey).toEqual({ ...k, lastUsedAt: ts(2) });
        // A revoked key is still found (authenticate refuses it); another company's key comes with its own company.
        const other = await newCompany({ name: "Other BV" });
        const [otherKey] = await store.listApiKeys(other.id);
        expect((await store.getApiKeyWithCompany(otherKey!.id))?.company).toEqual(other);
        expect(await store.revokeApiKey(company.id, k.id, ts(4))).toBe("revoked");
        expect((await store.getApiKeyWithCompany(k.id))?.apiKey.revokedAt).toBe(ts(4));
        expect(await store.getApiKeyWithCompany(randomUUID())).toBeNull();
        expect(await store.getApiKeyWithCompany("not-a-uuid")).toBeNull();
      });

      it("records the last use of a key", async () => {
        const k = sampleApiKey(company.id);
        await store.insertApiKey(k);
        await store.touchApiKey(k.id, ts(9));
        expect((await store.getApiKey(k.id))?.lastUsedAt).toBe(ts(9));
        expect(await store.getApiKey(randomUUID())).toBeNull();
      });
    });

    describe("submissions", () => {
      it("stores an accepted submission with every field and links it to a new client", async () => {
        const inv = sampleInvoiceRecord(company.id, {
          dueDate: "2026-03-01",
          totals: { taxExclusive: "0.10", taxInclusive: null, payable: "1E+3" },
          warnings: [{ rule: "UBL-CR-002", message: "The invoice declares UBL version \"2.0\" (é)", location: "/Invoice/cbc:UBLVersionID[1]" }],
          facts: {
            peppolDocumentType: { id: "busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:x::2.1", processId: null },
            ruleSets: ["CEN-EN16931-UBL-2026.5", "NLCIUS-SI-UBL-2.0.3.13"],
          },
        });
        const client = clientFor(inv);
        const r = await accept(inv, client);
        expect(r).toEqual({ inserted: true, invoice: { ...inv, clientId: client.id } });
        expect(await store.getInvoice(company.id, inv.id)).toEqual({ ...inv, clientId: client.id });
        const [c] = await store.listClients(company.id, { limit: 10, after: null });
        // The client as given, of the company, counting this one invoice.
        const { id, key, name, endpointId, vatId, country } = client;
        expect(c).toEqual({ id, key, name, endpointId, vatId, country, companyId: company.id, invoiceCount: 1, firstInvoiceAt: inv.createdAt, lastInvoiceAt: inv.createdAt });
      });

      it("keeps a converted submission's original document (a CII, a PDF) with it, byte for byte, for its company only", async () => {
        const ubl = new Uint8Array([60, 73, 110, 118, 111, 105, 99, 101, 47, 62]);
        const pdf = new Uint8Array([37, 80, 68, 70, 45, 49, 46, 55, 10, 0, 255, 128]);
        const inv = sampleInvoiceRecord(company.id);
        const original = { content: pdf, mediaType: "application/pdf", syntax: "pdf" };
        expect((await store.insertSubmission({ invoice: inv, document: ubl, client: null, original })).inserted).toBe(true);
        const kept = await store.getOriginalDocument(company.id, inv.id);
        expect(kept && { ...kept, content: Array.from(kept.content) }).toEqual({ content: Array.from(pdf), mediaType: "application/pdf", syntax: "pdf" });
        expect(Array.from((await store.getDocument(company.id, inv.id)) ?? [])).toEqual(Array.from(ubl));
        const plain = sampleInvoiceRecord(company.id);
        expect((await store.insertSubmission({ invoice: plain, document: ubl.slice(0, 9), client: null })).inserted).toBe(true);
        expect(await store.getOriginalDocument(company.id, plain.id)).toBeNull();
        const other = await newCompany();
        expect(await store.getOriginalDocument(other.id, inv.id)).toBeNull();
        expect(await store.getOriginalDocument(company.id, randomUUID())).toBeNull();
        expect(await store.getOriginalDocument(company.id, "not-an-id")).toBeNull();
      });

      it("gives back an accepted submission's document byte for byte, and null for a failed one, another company's or an unknown id", async () => {
        const bytes = new Uint8Array([60, 73, 110, 118, 111, 105, 99, 101, 47, 62, 0, 255]);
        const inv = sampleInvoiceRecord(company.id);
        expect((await store.insertSubmission({ invoice: inv, document: bytes, client: null })).inserted).toBe(true);
        expect(Array.from((await store.getDocument(company.id, inv.id)) ?? [])).toEqual(Array.from(bytes));
        const failed = sampleInvoiceRecord(company.id, { status: "failed", errorMessage: "x", network: null });
        await store.insertSubmission({ invoice: failed, document: null, client: null });
        expect(await store.getDocument(company.id, failed.id)).toBeNull();
        const other = await newCompany();
        expect(await store.getDocument(other.id, inv.id)).toBeNull();
        expect(await store.getDocument(company.id, randomUUID())).toBeNull();
        expect(await store.getDocument(company.id, "not-an-id")).toBeNull();
      });

      it("keeps the duplicateOf of a failed duplicate, and null for the others", async () => {
        const first = sampleInvoiceRecord(company.id, { createdAt: ts(1) });
        await accept(first);
        const dup = sampleInvoiceRecord(company.id, { status: "failed", network: null, errorMessage: "duplicate", createdAt: ts(2), duplicateOf: first.id });
        await store.insertSubmission({ invoice: dup, document: null, client: null });
        expect((await store.getInvoice(company.id, dup.id))?.duplicateOf).toBe(first.id);
        expect((await store.getInvoice(company.id, first.id))?.duplicateOf ?? null).toBeNull();
        const listed = await store.listInvoices(company.id, { limit: 10, after: null, status: "failed", clientId: null });
        expect(listed.map((i) => [i.id, i.duplicateOf])).toEqual([[dup.id, first.id]]);
      });

      it("keeps a credit note's document type and billing reference, accepted or failed, and filters the list by document type", async () => {
        const invoice = sampleInvoiceRecord(company.id, { createdAt: ts(1) });
        const note = sampleInvoiceRecord(company.id, { kind: "creditNote", billingReference: "INV-1", createdAt: ts(2) });
        const failedNote = sampleInvoiceRecord(company.id, {
          kind: "creditNote",
          billingReference: null,
          status: "failed",
          network: null,
          errorMessage: "no",
          createdAt: ts(3),
        });
        await accept(invoice);
        const r = await accept(note);
        expect(r.inserted && r.invoice).toMatchObject({ kind: "creditNote", billingReference: "INV-1" });
        await store.insertSubmission({ invoice: failedNote, document: null, client: null });
        expect(await store.getInvoice(company.id, note.id)).toMatchObject({ kind: "creditNote", billingReference: "INV-1" });
        expect(await store.getInvoice(company.id, failedNote.id)).toMatchObject({ kind: "creditNote", billingReference: null });
        expect(await store.getInvoice(company.id, invoice.id)).toMatchObject({ kind: "invoice", billingReference: null });
        const q = { limit: 100, after: null, status: null, clientId: null };
        expect((await store.listInvoices(company.id, { ...q, kind: "creditNote" })).map((i) => i.id)).toEqual([failedNote.id, note.id]);
        expect((await store.listInvoices(company.id, { ...q, kind: "invoice" })).map((i) => i.id)).toEqual([invoice.id]);
        expect((await store.listInvoices(company.id, { ...q, kind: "creditNote", status: "sending" })).map((i) => i.id)).toEqual([note.id]);
        expect(await store.listInvoices(company.id, q)).toHaveLength(3);
        // Both count for their client, as invoices do.
        const [c] = await store.listClients(company.id, { limit: 10, after: null });
        expect(c?.invoiceCount).toBe(2);
      });

      it("filters the list by issue date (inclusive, date part) and creation time (from inclusive, to exclusive)", async () => {
        const a = sampleInvoiceRecord(company.id, { issueDate: "2026-01-10", createdAt: ts(10) });
        const b = sampleInvoiceRecord(company.id, { issueDate: "2026-01-20Z", createdAt: ts(20) });
        const c = sampleInvoiceRecord(company.id, { issueDate: "2026-01-31", createdAt: ts(30) });
        const d = sampleInvoiceRecord(company.id, { issueDate: null, createdAt: ts(40) });
        for (const inv of [a, b, c, d]) await accept(inv, clientFor(inv, { key: inv.id }));
        const q = { limit: 100, after: null, status: null, clientId: null };
        const ids = async (f: Record<string, string>) => (await store.listInvoices(company.id, { ...q, ...f })).map((i) => i.id);
        expect(await ids({ issueDateFrom: "2026-01-20" })).toEqual([c.id, b.id]);
        expect(await ids({ issueDateTo: "2026-01-20" })).toEqual([b.id, a.id]);
        expect(await ids({ issueDateFrom: "2026-01-11", issueDateTo: "2026-01-30" })).toEqual([b.id]);
        expect(await ids({ createdFrom: ts(20) })).toEqual([d.id, c.id, b.id]);
        expect(await ids({ createdTo: ts(30) })).toEqual([b.id, a.id]);
        expect(await ids({ createdFrom: ts(20), createdTo: ts(40), issueDateTo: "2026-01-31" })).toEqual([c.id, b.id]);
      });

      it("filters the list by invoice number (BT-1), exactly, combined with the other filters", async () => {
        const a = sampleInvoiceRecord(company.id, { invoiceNumber: "FV/2026/7", createdAt: ts(1) });
        const b = sampleInvoiceRecord(company.id, { invoiceNumber: "FV/2026/7", kind: "creditNote", createdAt: ts(2) });
        const c = sampleInvoiceRecord(company.id, { invoiceNumber: "FV/2026/70", createdAt: ts(3) });
        const d = sampleInvoiceRecord(company.id, { invoiceNumber: null, createdAt: ts(4) });
        for (const r of [a, b, c, d]) await accept(r);
        const q = { limit: 100, after: null, status: null, clientId: null };
        expect((await store.listInvoices(company.id, { ...q, invoiceNumber: "FV/2026/7" })).map((i) => i.id)).toEqual([b.id, a.id]);
        expect((await store.listInvoices(company.id, { ...q, invoiceNumber: "FV/2026/7", kind: "invoice" })).map((i) => i.id)).toEqual([a.id]);
        expect(await store.listInvoices(company.id, { ...q, invoiceNumber: "fv/2026/7" })).toEqual([]);
        expect(await store.listInvoices(company.id, { ...q, invoiceNumber: "FV/2026" })).toEqual([]);
        expect(await store.listInvoices(company.id, { ...q, invoiceNumber: null })).toHaveLength(4);
        const other = await newCompany();
        expect(await store.listInvoices(other.id, { ...q, invoiceNumber: "FV/2026/7" })).toEqual([]);
      });

      it("refuses a second non-failed submission with the same sha256 and names the first", async () => {
        const first = sampleInvoiceRecord(company.id);
        await accept(first);
        const again = sampleInvoiceRecord(company.id, { sha256: first.sha256, createdAt: ts(50) });
        expect(await accept(again)).toEqual({ inserted: false, duplicateOf: first.id });
        expect(await store.getInvoice(company.id, again.id)).toBeNull();
        expect(await store.findActiveSubmission(company.id, first.sha256)).toBe(first.id);
        const [c] = await store.listClients(company.id, { limit: 10, after: null });
        expect(c?.invoiceCount).toBe(1);
      });

      it("always inserts failed submissions, which block nothing and count for no client", async () => {
        const f1 = sampleInvoiceRecord(company.id, { status: "failed", network: null, errorMessage: "no", createdAt: ts(1) });
        const f2 = sampleInvoiceRecord(company.id, { status: "failed", network: null, errorMessage: "no", sha256: f1.sha256, createdAt: ts(2) });
        expect((await store.insertSubmission({ invoice: f1, document: null, client: null })).inserted).toBe(true);
        expect((await store.insertSubmission({ invoice: f2, document: null, client: null })).inserted).toBe(true);
        expect(await store.findActiveSubmission(company.id, f1.sha256)).toBeNull();
        const ok = sampleInvoiceRecord(company.id, { sha256: f1.sha256, createdAt: ts(3) });
        expect((await accept(ok)).inserted).toBe(true);
        expect(await store.listClients(company.id, { limit: 10, after: null })).toHaveLength(1);
        expect((await store.getInvoice(company.id, f1.id))?.clientId).toBeNull();
      });

      it("applies the duplicate rule per company", async () => {
        const other = await newCompany();
        const a = sampleInvoiceRecord(company.id);
        const b = sampleInvoiceRecord(other.id, { sha256: a.sha256 });
        expect((await accept(a)).inserted).toBe(true);
        expect((await accept(b)).inserted).toBe(true);
      });

      it("accepts exactly one of 50 parallel identical submissions", async () => {
        const sha256 = "f".repeat(64);
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) => accept(sampleInvoiceRecord(company.id, { sha256, createdAt: ts(i) }))),
        );
        const inserted = results.filter((r) => r.inserted);
        expect(inserted).toHaveLength(1);
        const winner = inserted[0]!.inserted ? inserted[0]!.invoice.id : "";
        for (const r of results) if (!r.inserted) expect(r.duplicateOf).toBe(winner);
        const [c] = await store.listClients(company.id, { limit: 10, after: null });
        expect(c?.invoiceCount).toBe(1);
      });

      it("refuses a document built from data whose kind and number an active submission has (built or sent as xml), naming the earliest, with rule number", async () => {
        const xml = sampleInvoiceRecord(company.id, { invoiceNumber: "INV-7", createdAt: ts(1) });
        await accept(xml);
        // Sent as xml, a second one with the number is accepted: xml is held to the sha256 rule only.
        const xml2 = sampleInvoiceRecord(company.id, { invoiceNumber: "INV-7", createdAt: ts(2) });
        expect((await accept(xml2)).inserted).toBe(true);
        const built = sampleInvoiceRecord(company.id, { invoiceNumber: "INV-7", fromData: true, createdAt: ts(3) });
        expect(await accept(built)).toEqual({ inserted: false, duplicateOf: xml.id, rule: "number" });
        expect(await store.getInvoice(company.id, built.id)).toBeNull();
        expect(await store.findActiveNumber(company.id, "invoice", "INV-7")).toBe(xml.id);
        const [c] = await store.listClients(company.id, { limit: 10, after: null });
        expect(c?.invoiceCount).toBe(2);
      });

      it("answers a built document that repeats an active one byte for byte by the sha256 rule (no rule number)", async () => {
        const first = sampleInvoiceRecord(company.id, { invoiceNumber: "INV-8", fromData: true, createdAt: ts(1) });
        expect((await accept(first)).inserted).toBe(true);
        const again = sampleInvoiceRecord(company.id, { invoiceNumber: "INV-8", fromData: true, sha256: first.sha256, createdAt: ts(2) });
        expect(await accept(again)).toEqual({ inserted: false, duplicateOf: first.id });
      });

      it("keeps the number rule per company and document kind, exact in case and spaces, and lets failed submissions block nothing", async () => {
        const first = sampleInvoiceRecord(company.id, { invoiceNumber: "CN-1", fromData: true, createdAt: ts(1) });
        expect((await accept(first)).inserted).toBe(true);
        expect((await store.getInvoice(company.id, first.id))?.fromData).toBe(true);
        // A credit note numbered like the invoice is another document.
        const creditNote = sampleInvoiceRecord(company.id, { invoiceNumber: "CN-1", kind: "creditNote", fromData: true, createdAt: ts(2) });
        expect((await accept(creditNote)).inserted).toBe(true);
        for (const invoiceNumber of ["cn-1", "CN-1 ", "CN-10"]) {
          expect((await accept(sampleInvoiceRecord(company.id, { invoiceNumber, fromData: true, createdAt: ts(3) }))).inserted).toBe(true);
        }
        const other = await newCompany();
        expect((await accept(sampleInvoiceRecord(other.id, { invoiceNumber: "CN-1", fromData: true, createdAt: ts(4) }))).inserted).toBe(true);
        // A failed one is always stored and holds no number.
        const failedNumber = sampleInvoiceRecord(company.id, { invoiceNumber: "F-1", fromData: true, status: "failed", network: null, errorMessage: "no", createdAt: ts(5) });
        expect((await store.insertSubmission({ invoice: failedNumber, document: null, client: null })).inserted).toBe(true);
        expect(await store.findActiveNumber(company.id, "invoice", "F-1")).toBeNull();
        expect((await accept(sampleInvoiceRecord(company.id, { invoiceNumber: "F-1", fromData: true, createdAt: ts(6) }))).inserted).toBe(true);
        expect(await store.findActiveNumber(company.id, "creditNote", "CN-1")).toBe(creditNote.id);
        expect(await store.findActiveNumber(other.id, "invoice", "F-1")).toBeNull();
        expect(await store.findActiveNumber(company.id, "invoice", "nope")).toBeNull();
      });

      it("accepts exactly one of 20 parallel built documents with one number (different bytes)", async () => {
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => accept(sampleInvoiceRecord(company.id, { invoiceNumber: "RACE-1", fromData: true, createdAt: ts(i) }))),
        );
        const inserted = results.filter((r) => r.inserted);
        expect(inserted).toHaveLength(1);
        const winner = inserted[0]!.inserted ? inserted[0]!.invoice.id : "";
        for (const r of results) if (!r.inserted) expect(r).toEqual({ inserted: false, duplicateOf: winner, rule: "number" });
        expect(await store.findActiveNumber(company.id, "invoice", "RACE-1")).toBe(winner);
        const [c] = await store.listClients(company.id, { limit: 10, after: null });
        expect(c?.invoiceCount).toBe(1);
      });

      it("upserts one client per key: counts, latest name, vatId and country, first endpointId and id", async () => {
        const a = sampleInvoiceRecord(company.id, { createdAt: ts(1) });
        const ca = clientFor(a, { key: "0208:abc", endpointId: "0208:ABC", name: "Old", vatId: "BE1", country: "BE" });
        await accept(a, ca);
        const b = sampleInvoiceRecord(company.id, { createdAt: ts(2) });
        const cb = clientFor(b, { key: "0208:abc", endpointId: "0208:abc", name: "New", vatId: null, country: "NL" });
        const rb = await accept(b, cb);
        expect(rb.inserted && rb.invoice.clientId).toBe(ca.id);
        const clients = await store.listClients(company.id, { limit: 10, after: null });
        expect(clients).toHaveLength(1);
        expect(clients[0]).toMatchObject({
          id: ca.id,
          endpointId: "0208:ABC",
          name: "New",
          vatId: null,
          country: "NL",
          invoiceCount: 2,
          firstInvoiceAt: ts(1),
          lastInvoiceAt: ts(2),
        });
      });

      it("keeps clients of different companies apart", async () => {
        const other = await newCompany();
        const a = sampleInvoiceRecord(company.id);
        const b = sampleInvoiceRecord(other.id);
        await accept(a, clientFor(a, { key: "0208:same" }));
        await accept(b, clientFor(b, { key: "0208:same" }));
        expect(await store.listClients(company.id, { limit: 10, after: null })).toHaveLength(1);
        expect(await store.listClients(other.id, { limit: 10, after: null })).toHaveLength(1);
      });

      it("never returns another company's invoice", async () => {
        const other = await newCompany();
        const inv = sampleInvoiceRecord(company.id);
        await accept(inv);
        expect(await store.getInvoice(other.id, inv.id)).toBeNull();
        expect(await store.listInvoices(other.id, { limit: 10, after: null, status: null, clientId: null })).toEqual([]);
        expect(await store.getInvoice(company.id, randomUUID())).toBeNull();
      });
    });

    describe("listing", () => {
      async function seed(): Promise<InvoiceRecord[]> {
        const out: InvoiceRecord[] = [];
        // Three share one timestamp: the order between them comes from the id.
        const stamps = [ts(1), ts(2), ts(2), ts(2), ts(3), ts(4), ts(5)];
        for (const [i, at] of stamps.entries()) {
          const failed = i % 3 === 2;
          const inv = sampleInvoiceRecord(company.id, {
            createdAt: at,
            updatedAt: at,
            status: failed ? "failed" : "sending",
            network: failed ? null : "peppol",
            errorMessage: failed ? "bad" : null,
          });
          const r = failed
            ? await store.insertSubmission({ invoice: inv, document: null, client: null })
            : await accept(inv, clientFor(inv, { key: `0208:${i % 2}`, endpointId: `0208:${i % 2}` }));
          out.push(r.inserted ? r.invoice : inv);
        }
        return out.sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1));
      }

      it("lists newest first with ties broken by id descending", async () => {
        const expected = await seed();
        const all = await store.listInvoices(company.id, { limit: 100, after: null, status: null, clientId: null });
        expect(all.map((r) => r.id)).toEqual(expected.map((r) => r.id));
      });

      it("pages by keyset without gaps or repeats, ties included", async () => {
        const expected = await seed();
        const seen: string[] = [];
        let after: { at: string; id: string } | null = null;
        for (let guard = 0; guard < 10; guard++) {
          const page: InvoiceRecord[] = await store.listInvoices(company.id, { limit: 2, after, status: null, clientId: null });
          if (page.length === 0) break;
          seen.push(...page.map((r) => r.id));
          const last = page[page.length - 1]!;
          after = { at: last.createdAt, id: last.id };
        }
        expect(seen).toEqual(expected.map((r) => r.id));
      });

      it("filters by status and by client, together with the keyset", async () => {
        const expected = await seed();
        const failed = await store.listInvoices(company.id, { limit: 100, after: null, status: "failed", clientId: null });
        expect(failed.map((r) => r.id)).toEqual(expected.filter((r) => r.status === "failed").map((r) => r.id));
        const someClient = expected.find((r) => r.clientId)!.clientId!;
        const mine = await store.listInvoices(company.id, { limit: 100, after: null, status: null, clientId: someClient });
        expect(mine.map((r) => r.id)).toEqual(expected.filter((r) => r.clientId === someClient).map((r) => r.id));
        const first = mine[0]!;
        const rest = await store.listInvoices(company.id, { limit: 100, after: { at: first.createdAt, id: first.id }, status: "sending", clientId: someClient });
        expect(rest.map((r) => r.id)).toEqual(mine.slice(1).map((r) => r.id));
        expect(await store.listInvoices(company.id, { limit: 100, after: null, status: null, clientId: randomUUID() })).toEqual([]);
      });

      it("lists clients by latest invoice first and pages them by keyset", async () => {
        await seed();
        const clients = await store.listClients(company.id, { limit: 100, after: null });
        expect(clients.length).toBe(2);
        expect(clients[0]!.lastInvoiceAt >= clients[1]!.lastInvoiceAt).toBe(true);
        const first = clients[0]!;
        const next = await store.listClients(company.id, { limit: 100, after: { at: first.lastInvoiceAt, id: first.id } });
        expect(next.map((c) => c.id)).toEqual([clients[1]!.id]);
        expect(clients.reduce((n, c) => n + c.invoiceCount, 0)).toBe(5);
      });
    });
  });
}
