// receiveDocument on every document of the acceptance corpus (real UBL and CII invoices, valid and broken, and files
// that are no invoice at all): each is stored, never thrown, judged as POST /v1/validate judges it, and its seller
// becomes the supplier keyed by its electronic address.
import { describe, expect, it } from "vitest";
import { ApiError, memoryStore, receiveDocument, validateAnyDocument } from "../src/index.js";
import { corpusBytes, readIndex } from "./support/corpus.js";
import { setup } from "./support/setup.js";

describe("receiveDocument on the corpus", () => {
  it("stores every document once, with the verdict validateAnyDocument gives, or unreadable with the reason it refuses", async () => {
    const store = memoryStore();
    const s = await setup({ store });
    const rows = readIndex();
    expect(rows.length).toBeGreaterThan(100);
    let readable = 0;
    for (const [i, row] of rows.entries()) {
      const bytes = corpusBytes(row.path);
      const r = await receiveDocument(store, { reference: { storecoveGuid: `corpus-${i}` }, content: new Uint8Array(bytes), network: "peppol", companyId: s.companyId }, s.options);
      expect(r.outcome, row.path).toBe("stored");
      const inv = await store.getInvoice(s.companyId, (r as { invoiceId: string }).invoiceId);
      const facts = inv!.inbound!;
      let expected: { valid: boolean; errors: number } | { refused: string };
      try {
        const report = await validateAnyDocument(bytes, { maxItems: 100 });
        expected = { valid: report.valid, errors: report.errors.length };
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        expected = { refused: e.message };
      }
      if ("refused" in expected) {
        expect(facts.valid, row.path).toBe(false);
        expect(facts.errors, row.path).toEqual([{ rule: "unreadable", message: expected.refused, location: "/" }]);
      } else {
        readable++;
        expect([facts.valid, facts.errors.length], row.path).toEqual([expected.valid, expected.errors]);
        expect(facts.syntax, row.path).toBe(row.root === "CrossIndustryInvoice" ? "cii" : "ubl");
        if (row.sellerEndpointValue !== "" && row.sellerEndpointScheme !== "") {
          const supplier = await store.getSupplier(s.companyId, inv!.supplierId!);
          expect(supplier?.endpointId, row.path).toBe(`${row.sellerEndpointScheme}:${row.sellerEndpointValue}`);
        }
      }
      const kept = await store.getDocument(s.companyId, inv!.id);
      expect(kept !== null && Buffer.from(kept).equals(bytes), row.path).toBe(true);
    }
    expect(readable).toBeGreaterThan(100);
  });
});
