import { afterAll, describe, expect, it } from "vitest";
import {
  closeInvoiceWorkers,
  getInvoice,
  readRequestAsync,
  submitCreditNoteBody,
  submitCreditNoteJson,
  submitInvoice,
  submitInvoiceBody,
  submitInvoiceJson,
  updateCompany,
  validateDocumentBody,
  validateDocumentJson,
} from "../src/index.js";
import { invoiceWorkerCount } from "../src/document/default-pool.js";
import { failure } from "./support/errors.js";
import { setup } from "./support/setup.js";
import { b64, EN16931_ONLY, invoiceXml } from "./support/ubl.js";

/** An invoice of about `kib` KiB (a long note), as a JSON body's bytes. */
function bigBody(kib: number, extra: Record<string, unknown> = {}, xml = invoiceXml()): Buffer {
  const padded = xml.replace("<cbc:ID>", `<cbc:Note>${"n".repeat(kib * 1024)}</cbc:Note><cbc:ID>`);
  return Buffer.from(JSON.stringify({ xml: b64(padded), ...extra }));
}

afterAll(async () => {
  await closeInvoiceWorkers();
});

describe("submitInvoiceBody: the raw JSON body, large ones parsed on a worker", () => {
  it("is still exported under its former name submitInvoiceJson (as are submitCreditNoteJson and validateDocumentJson), for existing callers", () => {
    expect([submitInvoiceJson, submitCreditNoteJson, validateDocumentJson]).toEqual([submitInvoiceBody, submitCreditNoteBody, validateDocumentBody]);
  });

  it("reads the company once per submission, small body or large, JSON or parsed", async () => {
    const { store, auth, options } = await setup();
    let reads = 0;
    const counting = new Proxy(store, {
      get: (target, key, receiver) => {
        const v = Reflect.get(target, key, receiver);
        if (key !== "getCompany" || typeof v !== "function") return v;
        return (...args: unknown[]) => {
          reads++;
          return v.apply(target, args);
        };
      },
    });
    const small = Buffer.from(JSON.stringify({ xml: b64(invoiceXml()) }));
    for (const body of [small, bigBody(600)]) {
      reads = 0;
      expect((await submitInvoiceBody(counting, auth, body, options)).status).toBe("sending");
      expect(reads).toBe(1);
    }
    reads = 0;
    expect((await submitInvoice(counting, auth, { xml: b64(invoiceXml().replace("INV-1", "INV-2")) }, options)).status).toBe("sending");
    expect(reads).toBe(1);
  });

  it("accepts a large body read on a worker thread, with the same record as a small one", async () => {
    const { store, auth, options } = await setup();
    const body = bigBody(900, { targetNetwork: "peppol" });
    const r = await submitInvoiceBody(store, auth, body, options);
    expect(r.status).toBe("sending");
    expect(invoiceWorkerCount()).toBeGreaterThan(0);
    const inv = await getInvoice(store, auth, r.submissionId);
    expect(inv).toMatchObject({ targetNetwork: "peppol", network: "peppol", invoiceNumber: "INV-1", recipient: { endpointId: "0208:0123456749" } });
    expect(inv.size).toBeGreaterThan(900 * 1024);
  });

  it("copies the caller's body by default, and hands it over only when told to", async () => {
    const { store, auth, options } = await setup();
    const body = bigBody(900);
    const length = body.length;
    await submitInvoiceBody(store, auth, body, options);
    expect(body.length).toBe(length);
    const other = bigBody(901);
    const r = await submitInvoiceBody(store, auth, other, { ...options, transfer: true });
    expect(r.status).toBe("sending");
    expect(other.buffer.byteLength).toBe(0);
  });

  it("takes the body as the chunks it arrived in: read on the worker with the same record as one buffer", async () => {
    const { store, auth, options } = await setup();
    const whole = bigBody(900, { targetNetwork: "peppol" });
    // Uneven pieces, one of them empty; each its own memory, as socket reads are.
    const cuts = [0, 1, 7, 7, 65_536, 400_000, whole.length];
    const chunks = cuts.slice(1).map((end, i) => Buffer.from(whole.subarray(cuts[i]!, end)));
    const r = await submitInvoiceBody(store, auth, chunks, options);
    expect(r.status).toBe("sending");
    const inv = await getInvoice(store, auth, r.submissionId);
    expect(inv).toMatchObject({ targetNetwork: "peppol", invoiceNumber: "INV-1", size: Buffer.from(JSON.parse(whole.toString()).xml, "base64").length });
    // The same bytes in one buffer are the same document: a duplicate of the first.
    const again = await submitInvoiceBody(store, auth, whole, options);
    expect(again.status).toBe("failed");
  });

  it("with transfer, hands over the chunks that own their memory and copies the others, leaving those as they were", async () => {
    const { store, auth, options } = await setup();
    const whole = bigBody(700);
    const own = Buffer.from(whole.subarray(0, 300_000));
    const backing = Buffer.alloc(whole.length + 10);
    whole.copy(backing, 5, 300_000);
    const view = backing.subarray(5, 5 + whole.length - 300_000);
    const r = await submitInvoiceBody(store, auth, [own, view], { ...options, transfer: true });
    expect(r.status).toBe("sending");
    expect(own.buffer.byteLength).toBe(0);
    expect(view.equals(whole.subarray(300_000))).toBe(true);
  });

  it("joins small chunks on the calling thread, and refuses broken JSON across chunks with the same 400", async () => {
    const { store, auth, options } = await setup();
    const text = JSON.stringify({ xml: b64(invoiceXml({ id: "INV-CHUNKS" })) });
    const r = await submitInvoiceBody(store, auth, [Buffer.from(text.slice(0, 10)), Buffer.from(text.slice(10))], options);
    expect(r.status).toBe("sending");
    const e = await failure(submitInvoiceBody(store, auth, [Buffer.from('{"xml": "QUJD'), Buffer.from('"')], options));
    expect(e).toMatchObject({ code: "bad_request", status: 400 });
  });

  it("answers small bodies the same way, on the calling thread", async () => {
    const { store, auth, options } = await setup();
    const r = await submitInvoiceBody(store, auth, Buffer.from(JSON.stringify({ xml: b64(invoiceXml()) })), options);
    expect(r.status).toBe("sending");
  });

  it("gives unparseable JSON a 400 with a string message that does not echo the body, large or small", async () => {
    const { store, auth, options } = await setup();
    for (const raw of [Buffer.from('{"xml": "SECRET",}'), Buffer.concat([bigBody(900).subarray(0, -1), Buffer.from(",}")])]) {
      const e = await failure(submitInvoiceBody(store, auth, raw, options));
      expect([e.code, e.details]).toEqual(["bad_request", undefined]);
      expect(e.message).toMatch(/^Request body is not valid JSON/);
      expect(e.message).not.toContain("SECRET");
    }
  });

  it("gives a bad shape its class-validator messages from the worker", async () => {
    const { store, auth, options } = await setup();
    const e = await failure(submitInvoiceBody(store, auth, bigBody(900, { extra: 1, targetNetwork: "x" }), options));
    expect(e.code).toBe("bad_request");
    expect(e.details).toEqual(expect.arrayContaining(["property extra should not exist", "targetNetwork must be one of the following values: auto, peppol, ksef"]));
  });

  it("keeps the check order: a bad body before eligibility, eligibility before the document", async () => {
    const { store, auth, options, companyId } = await setup({ eligible: false });
    expect((await failure(submitInvoiceBody(store, auth, bigBody(900, { extra: 1 }), options))).code).toBe("bad_request");
    const broken = bigBody(900, {}, invoiceXml().replace("</Invoice>", "</Invoic>"));
    expect((await failure(submitInvoiceBody(store, auth, broken, options))).code).toBe("enterprise_required");
    await updateCompany(store, companyId, { enterprise: true, subscription: "pro", legalEntityId: "LE", peppolSendingEnabled: true }, options);
    const e = await failure(submitInvoiceBody(store, auth, broken, options));
    expect(e.code).toBe("invalid_ubl_xml");
    expect(e.message).toMatch(/not a well-formed UBL document/);
  });

  it("returns a document's error in the answer rather than throwing it", async () => {
    const r = await readRequestAsync(bigBody(900, {}, invoiceXml({ scheme: "EM" })));
    expect(r.doc).toBeNull();
    expect(r.targetNetwork).toBe("auto");
    expect((r.error as { code: string }).code).toBe("missing_recipient");
  });
});

describe("submitInvoiceBody: the network the body asks for decides eligibility and whether a recipient is needed", () => {
  it("answers a company in NL asking for ksef with 403 ksef_country_not_supported, however broken its large document", async () => {
    const { store, auth, options } = await setup({ country: "NL" });
    const body = Buffer.from(JSON.stringify({ xml: Buffer.alloc(1536 * 1024, 7).toString("base64"), targetNetwork: "ksef" }));
    expect((await failure(submitInvoiceBody(store, auth, body, options))).code).toBe("ksef_country_not_supported");
    // The same body on auto is that company's Peppol route: its document is read, and fails.
    const auto = Buffer.from(JSON.stringify({ xml: Buffer.alloc(1536 * 1024, 7).toString("base64") }));
    expect((await failure(submitInvoiceBody(store, auth, auto, options))).code).toBe("invalid_base64_xml");
  });

  it("reads a large consumer invoice of a company in PL on a worker without a recipient (the KSeF route), and refuses it on Peppol with missing_recipient", async () => {
    const consumer = invoiceXml({ sellerVat: "PL5260250995", sellerCountry: "PL", noBuyerEndpoint: true, customizationId: EN16931_ONLY });
    const pl = await setup({ country: "PL" });
    const r = await submitInvoiceBody(pl.store, pl.auth, bigBody(900, {}, consumer), pl.options);
    expect(r.status).toBe("sending");
    expect(await getInvoice(pl.store, pl.auth, r.submissionId)).toMatchObject({ network: "ksef", recipient: { endpointId: null }, clientId: null });
    const nl = await setup({ country: "NL" });
    expect((await failure(submitInvoiceBody(nl.store, nl.auth, bigBody(900, {}, consumer), nl.options))).code).toBe("missing_recipient");
  });
});

describe("submitInvoiceBody: a company that may not submit costs no document work (issue 16, finding 6)", () => {
  it("a refused company's large body is answered 403 without a worker reading it, however broken its document", async () => {
    await closeInvoiceWorkers();
    expect(invoiceWorkerCount()).toBe(0);
    const { store, auth, options } = await setup({ eligible: false });
    // 2 MiB of base64 that decodes to no XML at all: reading it as a document would be a 422.
    const body = Buffer.from(JSON.stringify({ xml: Buffer.alloc(1536 * 1024, 7).toString("base64") }));
    expect(body.length).toBeGreaterThan(2 * 1024 * 1024);
    const e = await failure(submitInvoiceBody(store, auth, body, options));
    expect(e.code).toBe("enterprise_required");
    expect(invoiceWorkerCount()).toBe(0); // no document was handed to the pool
  });

  it("each refusal of the company in the contract's order, before the document: 403s, then 422 no_legal_entity, then 422 peppol_sending_not_enabled", async () => {
    const { store, auth, companyId, options } = await setup({ eligible: false });
    const notXml = Buffer.from(JSON.stringify({ xml: Buffer.from("not xml").toString("base64") }));
    const steps: Array<[Record<string, unknown>, string]> = [
      [{}, "enterprise_required"],
      [{ enterprise: true }, "subscription_upgrade_required"],
      [{ subscription: "pro", country: "FR" }, "peppol_country_not_supported"],
      [{ country: "NL" }, "no_legal_entity"],
      [{ legalEntityId: "LE-1" }, "peppol_sending_not_enabled"],
    ];
    for (const [patch, code] of steps) {
      await updateCompany(store, companyId, patch, options);
      expect((await failure(submitInvoiceBody(store, auth, notXml, options))).code).toBe(code);
    }
    await updateCompany(store, companyId, { peppolSendingEnabled: true }, options);
    expect((await failure(submitInvoiceBody(store, auth, notXml, options))).code).toBe("invalid_base64_xml");
  });

  it("the body's shape still comes first (contract row 2 before row 3): a refused company with a bad body gets the 400", async () => {
    const { store, auth, options } = await setup({ eligible: false });
    for (const body of ['{"xml":"PGE+"', '{"xml":"PGE+","extra":1}', '{"xml":""}', "[]", `{"xml":"${"A".repeat(200_000)}","targetNetwork":"fax"}`]) {
      const e = await failure(submitInvoiceBody(store, auth, Buffer.from(body), options));
      expect(e.code, body.slice(0, 40)).toBe("bad_request");
    }
  });
});
