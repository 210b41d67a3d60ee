// getInvoiceFa3 (GET /v1/invoices/{id}/document?format=fa3): the FA(3) a KSeF network transmitted,
// kept with the delivered status, and why there is none otherwise.
import { describe, expect, it } from "vitest";
import { createDispatcher, documentFormat, getInvoiceFa3, memoryStore, submitInvoice, type NetworkPort } from "../src/index.js";
import { failure } from "./support/errors.js";
import { setup } from "./support/setup.js";
import { b64, invoiceXml } from "./support/ubl.js";

const FA3 = '<?xml version="1.0" encoding="UTF-8"?>\n<Faktura xmlns="http://crd.gov.pl/wzor/2025/06/25/13775/"><P_2>Zażółć ✓</P_2></Faktura>';

/** A company in PL with one invoice per outcome of `network` on the ksef route, dispatched once. */
async function delivered(network: NetworkPort) {
  const store = memoryStore();
  const s = await setup({ store, country: "PL" });
  const xml = b64(invoiceXml({ id: "FV/1", scheme: "9945", endpoint: "PL5213017228", sellerVat: "PL5260250995", sellerCountry: "PL" }));
  const { submissionId } = await submitInvoice(store, s.auth, { xml, targetNetwork: "ksef" }, s.options);
  const before = await failure(getInvoiceFa3(store, s.auth, submissionId));
  await createDispatcher({ store, networks: { ksef: network }, clock: () => s.clock.now() }).runOnce();
  return { ...s, store, submissionId, before };
}

describe("getInvoiceFa3", () => {
  it("serves the transmitted FA(3) of a delivered KSeF invoice as its UTF-8 bytes; before, 409 saying it is still being sent", async () => {
    const w = await delivered({ name: "ksef", send: async () => ({ outcome: "delivered", transmitted: { format: "fa3", mediaType: "application/xml", content: FA3 } }) });
    expect([w.before.code, w.before.message]).toEqual(["document_not_available", expect.stringContaining("still being sent to KSeF")]);
    expect((await getInvoiceFa3(w.store, w.auth, w.submissionId)).equals(Buffer.from(FA3, "utf8"))).toBe(true);
  });

  it("answers 409 saying why for a KSeF invoice that failed, or was delivered by a network that kept no FA(3)", async () => {
    const failed = await delivered({ name: "ksef", send: async () => ({ outcome: "failed", reason: "KSeF 450 refused it" }) });
    expect((await failure(getInvoiceFa3(failed.store, failed.auth, failed.submissionId))).message).toMatch(/it failed \(Delivery on ksef failed: KSeF 450 refused it\)/);
    const sandbox = await delivered({ name: "sandbox", send: async () => ({ outcome: "delivered" }) });
    const e = await failure(getInvoiceFa3(sandbox.store, sandbox.auth, sandbox.submissionId));
    expect([e.code, e.status]).toEqual(["document_not_available", 409]);
    expect(e.message).toMatch(/delivered without a kept FA\(3\)/);
    expect((await failure(getInvoiceFa3(sandbox.store, sandbox.auth, "nope"))).code).toBe("invoice_not_found");
  });

  it("reads the format query: ubl by default, fa3, and 400 for anything else", async () => {
    expect(documentFormat({})).toBe("ubl");
    expect(documentFormat({ format: "fa3" })).toBe("fa3");
    const e = await failure(Promise.resolve().then(() => documentFormat({ format: "FA3" })));
    expect([e.status, e.details]).toEqual([400, ["format must be one of the following values: ubl, original, cii, fa3, html, pdf, facturx"]]);
  });
});
