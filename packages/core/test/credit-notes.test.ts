// Credit notes (issue 19): submitCreditNote shares submitInvoice's pipeline; the corpus credit notes
// are answered as the contract says for invoices; each endpoint refuses the other's root by name.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { DOMParser, type Element } from "@xmldom/xmldom";
import { invoiceWorkerCount } from "../src/document/default-pool.js";
import { statusChangedEvent } from "../src/domain/webhook-events.js";
import {
  ApiError,
  closeInvoiceWorkers,
  configureInvoiceWorkers,
  DEFAULT_WORKER_THRESHOLD,
  getInvoice,
  invoiceView,
  listInvoices,
  submitCreditNote,
  submitCreditNoteBody,
  submitInvoice,
  submitInvoiceBody,
} from "../src/index.js";
import { CORPUS_DIR, readIndex } from "./support/corpus.js";
import { setup } from "./support/setup.js";
import { b64, invoiceXml } from "./support/ubl.js";

async function errorOf(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected an ApiError");
}

const creditNotes = readIndex().filter((r) => r.root === "CreditNote");
/** The official rules' verdict on each corpus document (the committed fixture made with the oracle, independent of the code under test). */
const fatalByFile = new Map<string, string[]>(
  readFileSync(new URL("./fixtures/official-verdicts.jsonl", import.meta.url), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as { file: string; fatal: string[] })
    .map((v) => [v.file, v.fatal]),
);
const corpusB64 = (path: string) => readFileSync(`${CORPUS_DIR}/${path}`).toString("base64");
const SNIPPET_CN = "openpeppol-bis3/snippets/Snippet-cn.xml";
const CAC_NS = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2";
const CBC_NS = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2";

/** BT-25 read with xmldom (independent of the code under test): the first BillingReference's InvoiceDocumentReference/ID. */
function billingReferenceOf(path: string): string | null {
  const root = new DOMParser().parseFromString(readFileSync(`${CORPUS_DIR}/${path}`, "utf8"), "text/xml").documentElement!;
  const childNs = (el: Element | null, ns: string, name: string): Element | null => {
    if (!el) return null;
    for (let n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === 1 && (n as Element).localName === name && (n as Element).namespaceURI === ns) return n as Element;
    return null;
  };
  const id = childNs(childNs(childNs(root, CAC_NS, "BillingReference"), CAC_NS, "InvoiceDocumentReference"), CBC_NS, "ID");
  const t = id?.textContent?.trim() ?? "";
  return t === "" ? null : t;
}

describe("submitCreditNote on the corpus", () => {
  it("holds the 14 corpus credit notes", () => {
    expect(creditNotes).toHaveLength(14);
  });

  it.each(creditNotes.map((r) => [r.path, r] as const))("%s: answered as the contract says (recipient, rules), refused by the invoice path", async (path, row) => {
    const { store, auth, options } = await setup();
    const xml = corpusB64(path);
    const wrong = await errorOf(submitInvoice(store, auth, { xml, targetNetwork: "peppol" }, options));
    expect(wrong.code).toBe("invalid_ubl_xml");
    expect(wrong.message).toContain("POST /v1/peppol/credit-note");

    const fatal = fatalByFile.get(path);
    if (row.buyerEndpointValue === "") {
      const e = await errorOf(submitCreditNote(store, auth, { xml, targetNetwork: "peppol" }, options));
      expect(e.code).toBe("missing_recipient");
      expect(e.message).toMatch(/^The (credit note has no recipient|recipient cbc:EndpointID)/);
    } else if (fatal && fatal.length > 0) {
      const e = await errorOf(submitCreditNote(store, auth, { xml, targetNetwork: "peppol" }, options));
      expect(e.code).toBe("invalid_ubl_xml");
      expect(e.message).toContain(fatal[0]!.split("-")[0]);
      expect(e.message).toMatch(/^The credit note breaks \d+ fatal rule/);
    } else {
      const first = await submitCreditNote(store, auth, { xml, targetNetwork: "peppol" }, options);
      expect(first).toMatchObject({ success: true, status: "sending" });
      const inv = await getInvoice(store, auth, first.submissionId);
      expect(inv.recipient.endpointId).toBe(`${row.buyerEndpointScheme}:${row.buyerEndpointValue}`);
      expect(inv.kind).toBe("creditNote");
      expect(inv.billingReference).toBe(billingReferenceOf(path));
      // The duplicate rule: the same bytes again fail, naming the first.
      const again = await submitCreditNote(store, auth, { xml, targetNetwork: "peppol" }, options);
      expect(again).toMatchObject({ success: false, status: "failed", errorMessage: expect.stringContaining(first.submissionId) });
    }
  });
});

describe("submitCreditNote", () => {
  it("reads credit notes back with kind and billingReference, lists them by kind, and puts both in webhook events", async () => {
    const { store, auth, options } = await setup();
    const inv = await submitInvoice(store, auth, { xml: b64(invoiceXml({ id: "INV-9" })) }, options);
    const cn = await submitCreditNote(store, auth, { xml: corpusB64(SNIPPET_CN), targetNetwork: "peppol" }, options);
    expect(await getInvoice(store, auth, inv.submissionId)).toMatchObject({ kind: "invoice", billingReference: null });
    const note = await getInvoice(store, auth, cn.submissionId);
    expect(note).toMatchObject({ kind: "creditNote", billingReference: "123", status: "sending" });
    expect((await listInvoices(store, auth, { kind: "creditNote" })).data.map((i) => i.id)).toEqual([cn.submissionId]);
    expect((await listInvoices(store, auth, { kind: "invoice" })).data.map((i) => i.id)).toEqual([inv.submissionId]);
    expect((await listInvoices(store, auth, {})).data).toHaveLength(2);
    const bad = await errorOf(listInvoices(store, auth, { kind: "credit-note" }));
    expect(bad.code).toBe("bad_request");
    const record = await store.getInvoice(auth.companyId, cn.submissionId);
    expect(JSON.parse(statusChangedEvent(record!).data).invoice).toMatchObject({ kind: "creditNote", billingReference: "123" });
    expect(invoiceView(record!).kind).toBe("creditNote");
  });

  it("keeps the former name documentType working: the view repeats kind under it, the list filter takes it, and kind and documentType that differ are a 400", async () => {
    const { store, auth, options } = await setup();
    const inv = await submitInvoice(store, auth, { xml: b64(invoiceXml({ id: "INV-9" })) }, options);
    const cn = await submitCreditNote(store, auth, { xml: corpusB64(SNIPPET_CN), targetNetwork: "peppol" }, options);
    expect(await getInvoice(store, auth, cn.submissionId)).toMatchObject({ kind: "creditNote", documentType: "creditNote" });
    expect(await getInvoice(store, auth, inv.submissionId)).toMatchObject({ kind: "invoice", documentType: "invoice" });
    expect((await listInvoices(store, auth, { documentType: "creditNote" })).data.map((i) => i.id)).toEqual([cn.submissionId]);
    expect((await listInvoices(store, auth, { documentType: "invoice", kind: "invoice" })).data.map((i) => i.id)).toEqual([inv.submissionId]);
    const conflict = await errorOf(listInvoices(store, auth, { documentType: "invoice", kind: "creditNote" }));
    expect(conflict.code).toBe("bad_request");
  });

  it("refuses an Invoice with invalid_ubl_xml naming POST /v1/peppol/invoice", async () => {
    const { store, auth, options } = await setup();
    const e = await errorOf(submitCreditNote(store, auth, { xml: b64(invoiceXml()) }, options));
    expect(e.code).toBe("invalid_ubl_xml");
    expect(e.message).toContain("POST /v1/peppol/invoice");
    expect(e.message).not.toContain("breaks");
  });

  it("refuses the wrong root before the recipient check (an Invoice without a recipient is still a wrong-endpoint 422)", async () => {
    const { store, auth, options } = await setup();
    const noRecipient = invoiceXml().replace(/<cbc:EndpointID schemeID="0208">0123456749<\/cbc:EndpointID>/, "");
    expect(noRecipient).not.toBe(invoiceXml());
    expect((await errorOf(submitInvoice(store, auth, { xml: b64(noRecipient) }, options))).code).toBe("missing_recipient");
    const e = await errorOf(submitCreditNote(store, auth, { xml: b64(noRecipient) }, options));
    expect(e.code).toBe("invalid_ubl_xml");
    expect(e.message).toContain("POST /v1/peppol/invoice");
  });

  it("runs the company's checks before the document, as submitInvoice does", async () => {
    const { store, auth, options } = await setup({ eligible: false });
    expect((await errorOf(submitCreditNote(store, auth, { xml: corpusB64(SNIPPET_CN) }, options))).code).toBe("enterprise_required");
    expect((await errorOf(submitCreditNote(store, auth, { xml: 1 } as never, options))).code).toBe("bad_request");
  });

  it("of 25 identical credit notes sent at once, one is sending and the other 24 fail naming it", async () => {
    const { store, auth, options } = await setup();
    const xml = corpusB64(SNIPPET_CN);
    const results = await Promise.all(Array.from({ length: 25 }, () => submitCreditNote(store, auth, { xml, targetNetwork: "peppol" }, options)));
    const sending = results.filter((r) => r.status === "sending");
    expect(sending).toHaveLength(1);
    const failed = results.filter((r) => r.status === "failed");
    expect(failed).toHaveLength(24);
    for (const f of failed) expect(f.errorMessage).toMatch(new RegExp(`^Duplicate credit note: .*${sending[0]!.submissionId}`));
  });

  it("fails a credit note routed to KSeF at submit, saying KOR needs a KSeF connection the server does not have", async () => {
    const { store, auth, options } = await setup({ country: "PL" });
    const polish = readFileSync(`${CORPUS_DIR}/${SNIPPET_CN}`, "utf8").replace(
      '<cbc:EndpointID schemeID="0002">FR23342</cbc:EndpointID>',
      '<cbc:EndpointID schemeID="9945">PL5260250995</cbc:EndpointID>',
    );
    for (const targetNetwork of ["ksef", "auto"] as const) {
      const r = await submitCreditNote(store, auth, { xml: b64(polish + (targetNetwork === "auto" ? " " : "")), targetNetwork }, options);
      expect(r).toMatchObject({ success: false, status: "failed", errorMessage: expect.stringMatching(/KSeF correction invoices \(KOR\) are sent only through a KSeF connection, and this server has none/) });
      // A company in PL may not send on Peppol (403 peppol_country_not_supported): the message does not send it there.
      expect(r.errorMessage).toMatch(/ Correct the invoice in KSeF directly\.$/);
      expect(r.errorMessage).not.toMatch(/Peppol/);
      expect(await getInvoice(store, auth, r.submissionId)).toMatchObject({ status: "failed", network: null });
    }
  });

  it("with ksefCorrections, accepts a credit note routed to KSeF (sending on ksef), and still asks for the company's KSeF credential when it is required", async () => {
    const { store, auth, options } = await setup({ country: "PL" });
    const polish = (id: string) =>
      b64(readFileSync(`${CORPUS_DIR}/${SNIPPET_CN}`, "utf8").replace('<cbc:EndpointID schemeID="0002">FR23342</cbc:EndpointID>', `<cbc:EndpointID schemeID="9945">PL5260250995</cbc:EndpointID>${id}`));
    for (const targetNetwork of ["ksef", "auto"] as const) {
      const r = await submitCreditNote(store, auth, { xml: polish(`<!-- ${targetNetwork} -->`), targetNetwork }, { ...options, ksefCorrections: true });
      expect(r).toMatchObject({ success: true, status: "sending" });
      expect(await getInvoice(store, auth, r.submissionId)).toMatchObject({ status: "sending", network: "ksef", kind: "creditNote" });
    }
    const e = await errorOf(submitCreditNote(store, auth, { xml: polish("<!-- direct -->"), targetNetwork: "ksef" }, { ...options, ksefCorrections: true, ksefCredentialsRequired: true }));
    expect([e.status, e.code]).toEqual([422, "ksef_not_configured"]);
    expect(e.message).toMatch(/^The credit note is routed to KSeF/);
  });
});

describe("credit notes read on a worker thread", () => {
  afterEach(async () => {
    configureInvoiceWorkers({ threshold: DEFAULT_WORKER_THRESHOLD });
    await closeInvoiceWorkers();
  });

  it("carries the expected root to the worker: the same answers as on the calling thread", async () => {
    configureInvoiceWorkers({ threshold: 0 });
    const { store, auth, options } = await setup();
    const note = corpusB64(SNIPPET_CN);
    const json = (xml: string) => new TextEncoder().encode(JSON.stringify({ xml, targetNetwork: "peppol" }));
    const viaBase64 = await submitCreditNote(store, auth, { xml: note, targetNetwork: "peppol" }, options);
    expect(viaBase64.status).toBe("sending");
    const viaJson = await submitCreditNoteBody(store, auth, json(note), options);
    expect(viaJson).toMatchObject({ status: "failed", errorMessage: expect.stringContaining(viaBase64.submissionId) });
    expect(await getInvoice(store, auth, viaBase64.submissionId)).toMatchObject({ kind: "creditNote", billingReference: "123" });
    const toInvoicePath = await errorOf(submitInvoiceBody(store, auth, json(note), options));
    expect(toInvoicePath.message).toContain("POST /v1/peppol/credit-note");
    const invoiceHere = await errorOf(submitCreditNoteBody(store, auth, json(b64(invoiceXml())), options));
    expect(invoiceHere.message).toContain("POST /v1/peppol/invoice");
    expect((await errorOf(submitCreditNote(store, auth, { xml: b64(invoiceXml()) }, options))).message).toContain("POST /v1/peppol/invoice");
    expect(invoiceWorkerCount()).toBeGreaterThan(0); // they went through the worker
  });
});
