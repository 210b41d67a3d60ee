// receiveDocument into the SQL store (PGlite): every document of the acceptance corpus, and hostile bytes, are stored
// and read back exactly as the memory store keeps them; nothing a received document may hold breaks the write.
import { randomUUID } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import { memoryStore, receiveDocument, type InvoiceRecord, type Store } from "@einvoice/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { corpusBytes, readIndex } from "../../core/test/support/corpus.js";
import { setup } from "../../core/test/support/setup.js";
import { fromPGlite, postgresStore, type PostgresStore } from "../src/index.js";

let pglite: PGlite;
beforeAll(async () => {
  pglite = await PGlite.create();
});
afterAll(async () => {
  await pglite.close();
});

/** The same received bytes into both stores, with the same clock and ids: the records must be equal. */
async function both(store: PostgresStore, memory: Store & Parameters<typeof receiveDocument>[0], companies: { pg: string; mem: string }, content: Uint8Array, i: number) {
  let n = 0;
  const ids = Array.from({ length: 4 }, () => randomUUID());
  const options = () => {
    n = 0;
    return { clock: () => new Date(Date.UTC(2026, 2, 1, 0, 0, i)), newId: () => ids[n++]! };
  };
  const reference = { storecoveGuid: `guid-${i}` };
  const a = await receiveDocument(store, { reference, content, network: "peppol", companyId: companies.pg }, options());
  const b = await receiveDocument(memory, { reference, content, network: "peppol", companyId: companies.mem }, options());
  expect(a.outcome).toBe("stored");
  expect(b.outcome).toBe("stored");
  const id = (a as { invoiceId: string }).invoiceId;
  const inPg = (await store.getInvoice(companies.pg, id))!;
  const inMem = (await memory.getInvoice(companies.mem, id))!;
  return { inPg, inMem, id };
}

/** A record without its company (the two stores' companies differ; the ids of the record and its supplier are the same). */
const apart = (r: InvoiceRecord) => ({ ...r, companyId: "" });

describe("receiveDocument into PGlite", () => {
  it("stores every corpus document as the memory store does, its bytes exact, and each again as a duplicate", async () => {
    const store = await postgresStore({ db: fromPGlite(pglite), schema: "corpus" });
    const memory = memoryStore();
    const pg = await setup({ store });
    const mem = await setup({ store: memory });
    const rows = readIndex();
    expect(rows.length).toBeGreaterThan(100);
    for (const [i, row] of rows.entries()) {
      const bytes = new Uint8Array(corpusBytes(row.path));
      const { inPg, inMem, id } = await both(store, memory, { pg: pg.companyId, mem: mem.companyId }, bytes, i);
      expect(apart(inPg), row.path).toEqual(apart(inMem));
      expect(Buffer.from((await store.getDocument(pg.companyId, id))!).equals(bytes), row.path).toBe(true);
      expect(await receiveDocument(store, { reference: { storecoveGuid: `guid-${i}` }, content: bytes, network: "peppol", companyId: pg.companyId })).toEqual({ outcome: "duplicate", invoiceId: id });
    }
  }, 120_000);

  it("stores hostile bytes (NUL, invalid UTF-8, surrogate and NUL character references, no XML at all) as received, invalid", async () => {
    const store = await postgresStore({ db: fromPGlite(pglite), schema: "hostile" });
    const memory = memoryStore();
    const pg = await setup({ store });
    const mem = await setup({ store: memory });
    const ubl = (id: string) =>
      `<?xml version="1.0"?><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"><cbc:ID>${id}</cbc:ID></Invoice>`;
    const inputs = [
      new Uint8Array([0, 1, 2, 0, 60, 73, 0]),
      new Uint8Array([...Buffer.from(ubl("A")).subarray(0, 120), 0xc3, 0x28, 0xff, 0xfe]),
      new TextEncoder().encode(ubl("&#xD800;")),
      new TextEncoder().encode(ubl("&#0;")),
      new TextEncoder().encode(ubl("\u0000")),
      new TextEncoder().encode(ubl("x".repeat(5000))),
      new TextEncoder().encode("%PDF-1.7\n%\u00e2\u00e3\n1 0 obj\n<<>>\nendobj\n"),
      new Uint8Array(0),
    ];
    for (const [i, content] of inputs.entries()) {
      const { inPg, inMem, id } = await both(store, memory, { pg: pg.companyId, mem: mem.companyId }, content, 1000 + i);
      expect(inPg.inbound!.valid, String(i)).toBe(false);
      expect(apart(inPg), String(i)).toEqual(apart(inMem));
      expect(Buffer.from((await store.getDocument(pg.companyId, id)) ?? new Uint8Array()).equals(content), String(i)).toBe(true);
    }
  });
});
