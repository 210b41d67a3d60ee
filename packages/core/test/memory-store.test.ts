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
});
