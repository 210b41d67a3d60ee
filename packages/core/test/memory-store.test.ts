import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { memoryStore } from "../src/index.js";
import { sampleCompany, sampleInvoiceRecord, testDeliveryStore, testStore, testWebhookStore } from "../src/testing/index.js";

testStore("memory", () => memoryStore());

testDeliveryStore("memory", async () => {
  const s = memoryStore();
  return { a: s, b: s, close: async () => {} };
});

testWebhookStore("memory", () => memoryStore());

describe("memory store", () => {
  it("keeps no document's text alive through the fields of the records and clients it stores", async () => {
    // A field read from a document is a slice of the document's text, and V8 keeps a slice's whole
    // parent alive: 40 submissions whose fields are cut from texts of 1 MiB each must not keep 40 MiB.
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const store = memoryStore();
    const company = sampleCompany();
    const at = company.createdAt;
    await store.createAccount({
      account: { id: crypto.randomUUID(), email: "slices@example.com", companyId: company.id, createdAt: at },
      company,
      apiKey: { id: crypto.randomUUID(), companyId: company.id, prefix: "p", hash: "00", createdAt: at, lastUsedAt: null, revokedAt: null },
    });
    const cut = (text: string, from: number) => text.slice(from, from + 40);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 40; i++) {
      // A distinct 1 MiB text per submission (never shared with another).
      const text = `${i}`.padEnd(1024 * 1024, String.fromCharCode(97 + (i % 26)));
      const invoice = sampleInvoiceRecord(company.id, {
        invoiceNumber: cut(text, 10),
        supplier: { name: cut(text, 100), endpointId: `0208:${cut(text, 200)}`, vatId: cut(text, 300), country: "BE" },
        events: [{ status: "sending", at, detail: `Accepted: ${cut(text, 400)}` }],
      });
      const result = await store.insertSubmission({
        invoice,
        document: null,
        client: { id: crypto.randomUUID(), key: `0208:${cut(text, 500)}`, endpointId: `0208:${cut(text, 600)}`, name: cut(text, 700), vatId: cut(text, 800), country: "BE" },
      });
      expect(result.inserted).toBe(true);
    }
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    // 40 MiB if any field kept its text; the records themselves are a few KiB each.
    expect(grown).toBeLessThan(8 * 1024 * 1024);
    const stored = await store.listInvoices(company.id, { limit: 1, after: null, status: null, clientId: null });
    expect(stored[0]!.invoiceNumber).toHaveLength(40);
  });

  async function companyWithKey(store: ReturnType<typeof memoryStore>, email: string) {
    const company = sampleCompany();
    const at = company.createdAt;
    await store.createAccount({
      account: { id: crypto.randomUUID(), email, companyId: company.id, createdAt: at },
      company,
      apiKey: { id: crypto.randomUUID(), companyId: company.id, prefix: "p", hash: "00", createdAt: at, lastUsedAt: null, revokedAt: null },
    });
    return company;
  }

  it("gives back every byte value of a document as stored, each time a copy of its own, from getDocument, documents and a delivery claim", async () => {
    const store = memoryStore();
    const company = await companyWithKey(store, "bytes@example.com");
    // All 256 byte values, twice, from a slice of a larger buffer (a byteOffset that is not 0).
    const backing = new Uint8Array(600);
    for (let i = 0; i < 512; i++) backing[40 + i] = i % 256;
    const document = backing.subarray(40, 552);
    const invoice = sampleInvoiceRecord(company.id, { status: "sending" });
    expect((await store.insertSubmission({ invoice, document, client: null })).inserted).toBe(true);
    backing.fill(7); // the caller's later change of its buffer changes nothing stored

    const expected = Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256));
    const read = (await store.getDocument(company.id, invoice.id))!;
    expect(Buffer.from(read).equals(expected)).toBe(true);
    read.fill(0);
    expect(Buffer.from((await store.getDocument(company.id, invoice.id))!).equals(expected)).toBe(true);

    expect(store.documents.size).toBe(1);
    expect(store.documents.has(invoice.id)).toBe(true);
    expect(Buffer.from(store.documents.get(invoice.id)!).equals(expected)).toBe(true);
    expect([...store.documents.keys()]).toEqual([invoice.id]);
    expect([...store.documents].map(([id, bytes]) => [id, Buffer.from(bytes).equals(expected)])).toEqual([[invoice.id, true]]);
    expect(store.documents.get("no such id")).toBeUndefined();

    const [job] = await store.claimDeliveries({ owner: "t", now: new Date(Date.now() + 60_000).toISOString(), leaseUntil: new Date(Date.now() + 120_000).toISOString(), limit: 5 });
    expect(job!.invoice.id).toBe(invoice.id);
    expect(Buffer.from(job!.document).equals(expected)).toBe(true);
    expect(await store.getDocument(sampleCompany().id, invoice.id)).toBeNull();
  });

  it("keeps its documents on the JavaScript heap, not in memory outside it that only a full collection frees", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const store = memoryStore();
    const company = await companyWithKey(store, "heap@example.com");
    gc();
    const before = process.memoryUsage();
    for (let i = 0; i < 64; i++) {
      const document = Buffer.alloc(256 * 1024, 0x41 + (i % 26));
      const invoice = sampleInvoiceRecord(company.id, { status: "sending", sha256: `${i}`.padStart(64, "0") });
      expect((await store.insertSubmission({ invoice, document, client: null })).inserted).toBe(true);
    }
    gc();
    const after = process.memoryUsage();
    // 16 MiB of documents: on the heap (as one Latin-1 character a byte), and not as 64 Buffers outside it.
    expect(after.heapUsed - before.heapUsed).toBeGreaterThan(15 * 1024 * 1024);
    expect(after.arrayBuffers - before.arrayBuffers).toBeLessThan(2 * 1024 * 1024);
    expect(store.documents.get([...store.documents.keys()][63]!)![0]).toBe(0x41 + (63 % 26));
  });
});
