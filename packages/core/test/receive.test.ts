// receiveDocument: a received document read, judged and stored once, whatever it is; and read back as received and as data.
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { invoiceWorkerCount } from "../src/document/default-pool.js";
import {
  ApiError,
  closeInvoiceWorkers,
  judgeReceived,
  getInvoice,
  getInvoiceDocument,
  getInvoiceDocumentData,
  getInvoiceCii,
  getInvoiceOriginal,
  getInvoiceRenderInput,
  getSupplier,
  encodeCursor,
  INBOUND_DOCUMENT_MAX_BYTES,
  listInvoices,
  listSuppliers,
  memoryStore,
  readDocumentData,
  receiveDocument,
  updateCompany,
  writeCii,
  type DocumentNode,
  type InvoiceData,
  type ReceiveSyntax,
  type WebhookRecord,
} from "../src/index.js";
import { failure } from "./support/errors.js";
import { facturxPdf } from "./support/pdf.js";
import { setup } from "./support/setup.js";
import { invoiceXml } from "./support/ubl.js";

const enc = (s: string) => new Uint8Array(Buffer.from(s, "utf8"));

async function receiver() {
  const store = memoryStore();
  const s = await setup({ store });
  return { ...s, store };
}

describe("receiveDocument", () => {
  afterAll(() => closeInvoiceWorkers());

  it("judges a large document on a worker thread, with the verdict and fields the calling thread gives", async () => {
    const { store, auth, companyId, options } = await receiver();
    const xml = enc(invoiceXml({ id: "BIG-1", lines: 1500 }));
    expect(xml.length).toBeGreaterThan(512 * 1024);
    const inline = await judgeReceived(xml);
    const r = await receiveDocument(store, { reference: { storecoveGuid: "big-1" }, content: xml, network: "peppol", companyId }, options);
    expect(invoiceWorkerCount()).toBeGreaterThan(0);
    const inv = await getInvoice(store, auth, (r as { invoiceId: string }).invoiceId);
    expect(inline.valid).toBe(true);
    expect(inv).toMatchObject({ syntax: "ubl", valid: true, errors: [], invoiceNumber: "BIG-1", totals: inline.fields.totals, supplier: inline.fields.supplier });
    expect((await getInvoiceDocument(store, auth, inv.id)).equals(Buffer.from(xml))).toBe(true);
  });

  it("stores a valid UBL invoice with the fields an outbound record has, its supplier, and an invoice.received event; once", async () => {
    const { store, auth, companyId, options } = await receiver();
    const hook: WebhookRecord = { id: randomUUID(), companyId, url: "https://hooks.example/", events: ["invoice.received"], secret: "whsec_1", createdAt: "2026-01-01T00:00:00.000Z", deletedAt: null, previousSecret: null, previousSecretExpiresAt: null };
    await store.insertWebhook(hook);
    const bytes = enc(invoiceXml({ id: "IN-7" }));
    const r = await receiveDocument(store, { reference: { storecoveGuid: "g-1" }, content: bytes, network: "peppol", companyId }, options);
    expect(r.outcome).toBe("stored");
    if (r.outcome !== "stored") return;
    const inv = await getInvoice(store, auth, r.invoiceId);
    expect(inv).toMatchObject({
      direction: "inbound",
      status: "received",
      network: "peppol",
      kind: "invoice",
      invoiceNumber: "IN-7",
      currency: "EUR",
      totals: { taxExclusive: "100.00", taxInclusive: "121.00", payable: "121.00" },
      syntax: "ubl",
      valid: true,
      errors: [],
      networkReference: { storecoveGuid: "g-1" },
      size: bytes.length,
      clientId: null,
    });
    expect(inv.supplier.vatId).toBe("DE123456789");
    expect(inv.receivedAt).toBe(inv.createdAt);
    expect(inv.supplierId).not.toBeNull();
    expect((await getSupplier(store, auth, inv.supplierId!)).invoiceCount).toBe(1);
    expect((await listSuppliers(store, auth)).data.map((s) => s.id)).toEqual([inv.supplierId]);
    expect((await getInvoiceDocument(store, auth, inv.id)).equals(Buffer.from(bytes))).toBe(true);
    expect(await getInvoiceOriginal(store, auth, inv.id)).toMatchObject({ mediaType: "application/xml", syntax: "ubl" });
    expect((await getInvoiceDocumentData(store, auth, inv.id)).number).toBe("IN-7");
    const events = await store.listWebhookEvents(companyId, hook.id, 10);
    expect(events.map((e) => e.type)).toEqual(["invoice.received"]);
    expect(JSON.parse(events[0]!.data).invoice.id).toBe(inv.id);
    // Received again (a redelivered queue item): nothing added.
    const again = await receiveDocument(store, { reference: { storecoveGuid: "g-1" }, content: bytes, network: "peppol", companyId }, options);
    expect(again).toEqual({ outcome: "duplicate", invoiceId: inv.id });
    expect((await listInvoices(store, auth, { direction: "inbound" })).data).toHaveLength(1);
    expect(await store.listWebhookEvents(companyId, hook.id, 10)).toHaveLength(1);
    expect((await listInvoices(store, auth, { direction: "outbound" })).data).toHaveLength(0);
  });

  it("stores a document that breaks rules as invalid with its errors, and one that is not an invoice with one finding", async () => {
    const { store, auth, companyId, options } = await receiver();
    const broken = invoiceXml({ id: "BAD-1" }).replace("<cbc:PayableAmount currencyID=\"EUR\">121.00</cbc:PayableAmount>", "<cbc:PayableAmount currencyID=\"EUR\">999.00</cbc:PayableAmount>");
    expect(broken).toContain("999.00");
    const r1 = await receiveDocument(store, { reference: { storecoveGuid: "b-1" }, content: enc(broken), network: "peppol", companyId }, options);
    const inv1 = await getInvoice(store, auth, (r1 as { invoiceId: string }).invoiceId);
    expect(inv1.valid).toBe(false);
    expect(inv1.errors.length).toBeGreaterThan(0);
    expect(inv1.invoiceNumber).toBe("BAD-1");
    for (const [ref, content, syntax, what] of [
      ["n-1", enc("not xml at all"), "unknown", /neither XML nor a PDF/],
      ["n-2", enc("<Order xmlns=\"urn:x\"/>"), "unknown", /root element is Order/],
      ["n-3", enc("<Invoice><unclosed></Invoice>"), "unknown", /./],
      ["n-4", enc(`<!DOCTYPE x [<!ENTITY a "a">]><x>&a;</x>`), "unknown", /DOCTYPE|DTD/i],
      ["n-5", enc(`${"<a>".repeat(300)}${"</a>".repeat(300)}`), "unknown", /deep|depth|nest/i],
      ["n-6", enc("%PDF-1.7\n1 0 obj garbage"), "pdf", /PDF/],
      ["n-7", new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3]), "unknown", /neither XML nor a PDF/],
      ["n-8", enc(`<?xml version="1.0" encoding="ISO-8859-1"?><Invoice/>`), "unknown", /encoding|UTF-8/i],
    ] as const) {
      const r = await receiveDocument(store, { reference: { storecoveGuid: ref }, content, network: "peppol", companyId }, options);
      expect(r.outcome).toBe("stored");
      const inv = await getInvoice(store, auth, (r as { invoiceId: string }).invoiceId);
      expect(inv).toMatchObject({ syntax, valid: false, invoiceNumber: null, supplierId: null });
      expect(inv.errors).toHaveLength(1);
      expect(inv.errors[0]!.rule).toBe("unreadable");
      expect(inv.errors[0]!.message).toMatch(what);
      expect((await getInvoiceDocument(store, auth, inv.id)).equals(Buffer.from(content))).toBe(true);
      const asData = await failure(getInvoiceDocumentData(store, auth, inv.id));
      expect([asData.code, asData.status]).toEqual(["document_unreadable", 422]);
    }
  });

  it("keeps a document over the cap without its bytes, invalid, saying so", async () => {
    const { store, auth, companyId, options } = await receiver();
    const big = new Uint8Array(INBOUND_DOCUMENT_MAX_BYTES + 1).fill(0x20);
    big[0] = 0x3c;
    const r = await receiveDocument(store, { reference: { ksefNumber: "K-BIG" }, content: big, network: "ksef", companyId }, options);
    const inv = await getInvoice(store, auth, (r as { invoiceId: string }).invoiceId);
    expect(inv).toMatchObject({ valid: false, size: big.length, ksefNumber: "K-BIG", network: "ksef" });
    expect(inv.errors[0]!.rule).toBe("too_large");
    const e = await failure(getInvoiceDocument(store, auth, inv.id));
    expect([e.code, e.message]).toEqual(["document_not_available", expect.stringContaining("without its bytes")]);
  });

  it("reads a CII and a Factur-X PDF, judged by their rules, and reads them back as data", async () => {
    const { store, auth, companyId, options } = await receiver();
    const data = readDocumentData(invoiceXml({ id: "CII-1" })).invoice;
    const ciiText = writeCii(data);
    const r1 = await receiveDocument(store, { reference: { storecoveGuid: "c-1" }, content: enc(ciiText), network: "peppol", companyId }, options);
    const cii = await getInvoice(store, auth, (r1 as { invoiceId: string }).invoiceId);
    expect(cii).toMatchObject({ syntax: "cii", invoiceNumber: "CII-1", currency: "EUR", totals: { payable: "121.00" } });
    expect(cii.errors).toEqual([]);
    expect(cii.valid).toBe(true);
    expect((await getInvoiceDocumentData(store, auth, cii.id)).number).toBe("CII-1");
    const pdf = facturxPdf([{ name: "factur-x.xml", data: Buffer.from(writeCii({ ...data, number: "PDF-1" })) }]);
    const r2 = await receiveDocument(store, { reference: { storecoveGuid: "p-1" }, content: new Uint8Array(pdf), network: "peppol", companyId }, options);
    const inv = await getInvoice(store, auth, (r2 as { invoiceId: string }).invoiceId);
    expect(inv).toMatchObject({ syntax: "pdf", invoiceNumber: "PDF-1", valid: true });
    expect(await getInvoiceOriginal(store, auth, inv.id)).toMatchObject({ mediaType: "application/pdf", syntax: "pdf" });
    expect((await getInvoiceDocumentData(store, auth, inv.id)).number).toBe("PDF-1");
  });

  it("reads a document of an extra syntax (options.syntaxes), and a broken one of it as unreadable", async () => {
    const { store, auth, companyId, options } = await receiver();
    const base = readDocumentData(invoiceXml({ id: "FA-1" })).invoice;
    const fake: ReceiveSyntax = {
      id: "fa3",
      recognises: (root: DocumentNode) => root.name === "Faktura",
      kindOf: () => "invoice",
      read: (root: DocumentNode): InvoiceData => {
        if (root.attrs["broken"]) throw Object.assign(new Error("P_2 is missing"), { name: "Fa3MappingError" });
        return { ...base, seller: { ...base.seller, endpoint: undefined as never, vatId: "PL5260250995" } };
      },
    };
    const o = { ...options, syntaxes: [fake] };
    const r = await receiveDocument(store, { reference: { ksefNumber: "K-1" }, content: enc("<Faktura/>"), network: "ksef", companyId }, o);
    const inv = await getInvoice(store, auth, (r as { invoiceId: string }).invoiceId);
    expect(inv).toMatchObject({ syntax: "fa3", valid: true, invoiceNumber: "FA-1", ksefNumber: "K-1" });
    expect((await getSupplier(store, auth, inv.supplierId!)).vatId).toBe("PL5260250995");
    expect((await getInvoiceDocumentData(store, auth, inv.id, o)).number).toBe("FA-1");
    // Without the syntax, the same document cannot be read as data.
    expect((await failure(getInvoiceDocumentData(store, auth, inv.id))).code).toBe("document_unreadable");
    const bad = await receiveDocument(store, { reference: { ksefNumber: "K-2" }, content: enc('<Faktura broken="1"/>'), network: "ksef", companyId }, o);
    const badInv = await getInvoice(store, auth, (bad as { invoiceId: string }).invoiceId);
    expect(badInv).toMatchObject({ syntax: "fa3", valid: false });
    expect(badInv.errors[0]!.message).toContain("P_2 is missing");
  });

  it("finds the company by legal entity for a server-wide source, and keeps a document for no company once", async () => {
    const { store, companyId, options } = await receiver();
    await updateCompany(store, companyId, { legalEntityId: "LE-42" }, options);
    const bytes = enc(invoiceXml());
    const r = await receiveDocument(store, { reference: { storecoveGuid: "le-1" }, content: bytes, legalEntityId: "LE-42", network: "peppol", companyId: null }, options);
    expect(r.outcome).toBe("stored");
    const u1 = await receiveDocument(store, { reference: { storecoveGuid: "le-2" }, content: bytes, legalEntityId: "LE-404", network: "peppol", companyId: null }, options);
    const u2 = await receiveDocument(store, { reference: { storecoveGuid: "le-2" }, content: bytes, legalEntityId: "LE-404", network: "peppol", companyId: null }, options);
    expect(u1.outcome).toBe("unmatched");
    expect(u2).toEqual(u1);
    expect(await store.countUnmatched()).toBe(1);
    const [doc] = await store.listUnmatched({ limit: 10, after: null });
    expect(doc).toMatchObject({ legalEntityId: "LE-404", mediaType: "application/xml", size: bytes.length });
    expect(doc!.reason).toContain("LE-404");
    expect(await store.getUnmatchedContent(doc!.id)).toEqual(bytes);
  });

  it("rejects only when the store fails, with nothing stored", async () => {
    const { store, companyId, options } = await receiver();
    const failing = Object.assign(Object.create(store) as typeof store, {
      insertInbound: async () => {
        throw new Error("disk full");
      },
    });
    const e = await receiveDocument(failing, { reference: { storecoveGuid: "f-1" }, content: enc("garbage"), network: "peppol", companyId }, options).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).code).toBe("internal_error");
  });

  it("pages suppliers with a cursor of their own, and answers 404 for an unknown or another company's supplier", async () => {
    const { store, auth, companyId, options } = await receiver();
    for (let i = 0; i < 3; i++) {
      const xml = invoiceXml({ id: `S-${i}` }).replace('<cbc:EndpointID schemeID="0106">12345678</cbc:EndpointID>', `<cbc:EndpointID schemeID="0106">SELLER${i}</cbc:EndpointID>`);
      await receiveDocument(store, { reference: { storecoveGuid: `s-${i}` }, content: enc(xml), network: "peppol", companyId }, options);
    }
    const page1 = await listSuppliers(store, auth, { limit: "2" });
    expect(page1.data).toHaveLength(2);
    expect(page1.nextCursor).not.toBeNull();
    const page2 = await listSuppliers(store, auth, { limit: "2", cursor: page1.nextCursor! });
    expect(page2.nextCursor).toBeNull();
    const ids = [...page1.data, ...page2.data].map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(3);
    expect([...page1.data, ...page2.data].map((s) => s.endpointId)).toEqual(["0106:SELLER2", "0106:SELLER1", "0106:SELLER0"]);
    const clientCursor = encodeCursor("c", { at: "2026-01-01T00:00:00.000Z", id: "00000000-0000-4000-8000-000000000000" });
    expect((await failure(listSuppliers(store, auth, { cursor: clientCursor }))).status).toBe(400);
    expect((await failure(getSupplier(store, auth, randomUUID()))).code).toBe("supplier_not_found");
    expect((await failure(getSupplier(store, auth, "nope"))).status).toBe(404);
    const other = await setup({ store });
    expect((await failure(getSupplier(store, other.auth, ids[0]!))).status).toBe(404);
    const inbound = (await listInvoices(store, auth, { direction: "inbound" })).data[0]!;
    expect((await failure(getInvoice(store, other.auth, inbound.id))).code).toBe("invoice_not_found");
    expect((await failure(getInvoiceDocument(store, other.auth, inbound.id))).code).toBe("invoice_not_found");
    expect((await listInvoices(store, auth, { supplierId: inbound.supplierId! })).data.length).toBeGreaterThan(0);
  });

  it("writes a received CII as CII again and gives it to a renderer as data", async () => {
    const { store, auth, companyId, options } = await receiver();
    const data = readDocumentData(invoiceXml({ id: "R-1" })).invoice;
    const r = await receiveDocument(store, { reference: { storecoveGuid: "r-1" }, content: enc(writeCii(data)), network: "peppol", companyId }, options);
    const id = (r as { invoiceId: string }).invoiceId;
    const cii = (await getInvoiceCii(store, auth, id)).toString("utf8");
    expect(cii).toContain("CrossIndustryInvoice");
    expect(cii).toContain("R-1");
    const input = await getInvoiceRenderInput(store, auth, id);
    expect(input).toMatchObject({ kind: "invoice", ksef: null, invoice: { number: "R-1" } });
  });
});
