// The library surface of invoices as data: submitInvoice / submitCreditNote take {invoice} / {creditNote}.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ApiError, buildUbl, getInvoice, submitCreditNote, submitInvoice, type InvoiceDataInput } from "../src/index.js";
import { setup } from "./support/setup.js";

const EXAMPLES = join(fileURLToPath(import.meta.url), "../../../../examples");
const example = (name: string) => JSON.parse(readFileSync(join(EXAMPLES, name), "utf8")) as InvoiceDataInput;

describe("submitInvoice / submitCreditNote with the document as data", () => {
  it("build, check and submit an invoice and a credit note through the same pipeline", async () => {
    const { store, auth, options } = await setup();
    const inv = await submitInvoice(store, auth, { invoice: example("invoice.json"), targetNetwork: "peppol" }, options);
    expect(inv).toMatchObject({ success: true, status: "sending" });
    expect(await getInvoice(store, auth, inv.submissionId)).toMatchObject({ invoiceNumber: "INV-2026-0001", network: "peppol", totals: { payable: "1295.31" } });
    const cn = await submitCreditNote(store, auth, { creditNote: example("credit-note.json") }, options);
    expect(await getInvoice(store, auth, cn.submissionId)).toMatchObject({ kind: "creditNote", billingReference: "INV-2026-0001" });
  });

  it("refuses a built document that breaks a fatal rule with invalid_ubl_xml items carrying the JSON path", async () => {
    const { store, auth, options } = await setup();
    const data = example("invoice.json");
    const e = await submitInvoice(store, auth, { invoice: { ...data, currency: "EUX" } }, options).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).code).toBe("invalid_ubl_xml");
    expect((e as ApiError).errors).toEqual(expect.arrayContaining([expect.objectContaining({ rule: "BR-CL-04", path: "/currency" })]));
  });
});

describe("the number rule of documents sent as data (docs/api.md, Duplicates)", () => {
  const b64 = (xml: string) => Buffer.from(xml, "utf8").toString("base64");

  it("answers a second invoice with an active invoice's number, in other bytes, failed as a duplicate naming the earlier one", async () => {
    const { store, auth, options } = await setup();
    const data = example("invoice.json");
    const first = await submitInvoice(store, auth, { invoice: data, targetNetwork: "peppol" }, options);
    expect(first.status).toBe("sending");
    const again = await submitInvoice(store, auth, { invoice: { ...data, notes: ["A corrected text."] }, targetNetwork: "peppol" }, options);
    expect(again).toMatchObject({ success: false, status: "failed" });
    expect(again.errorMessage).toBe(
      `Duplicate invoice number: "INV-2026-0001" (BT-1) is already the number of invoice ${first.submissionId}, which has not failed; it is not sent. Each invoice needs a number of its own: to correct a sent invoice, send a credit note.`,
    );
    expect(await getInvoice(store, auth, again.submissionId)).toMatchObject({ status: "failed", duplicateOf: first.submissionId, invoiceNumber: "INV-2026-0001" });
    // The same data again is the same document: the sha256 rule answers, as for xml.
    const same = await submitInvoice(store, auth, { invoice: data, targetNetwork: "peppol" }, options);
    expect(same.errorMessage).toMatch(/^Duplicate invoice: the same XML was already submitted as /);
    // Another number goes through.
    expect((await submitInvoice(store, auth, { invoice: { ...data, number: "INV-2026-0002" }, targetNetwork: "peppol" }, options)).status).toBe("sending");
  });

  it("refuses data whose number an active invoice sent as xml has, while xml itself is held to the same-bytes rule only", async () => {
    const { store, auth, options } = await setup();
    const data = example("invoice.json");
    const xmlFirst = await submitInvoice(store, auth, { xml: b64(buildUbl({ ...data, notes: ["As xml."] })), targetNetwork: "peppol" }, options);
    expect(xmlFirst.status).toBe("sending");
    const asData = await submitInvoice(store, auth, { invoice: data, targetNetwork: "peppol" }, options);
    expect(asData.status).toBe("failed");
    expect((await getInvoice(store, auth, asData.submissionId)).duplicateOf).toBe(xmlFirst.submissionId);
    // xml with the number again, in other bytes: accepted (contract row 10 is about the bytes).
    const xmlAgain = await submitInvoice(store, auth, { xml: b64(buildUbl({ ...data, notes: ["As xml, again."] })), targetNetwork: "peppol" }, options);
    expect(xmlAgain.status).toBe("sending");
  });

  it("takes a credit note numbered like an invoice (another document), and refuses a second credit note with that number", async () => {
    const { store, auth, options } = await setup();
    const invoice = example("invoice.json");
    const creditNote = example("credit-note.json");
    expect((await submitInvoice(store, auth, { invoice, targetNetwork: "peppol" }, options)).status).toBe("sending");
    const cn = await submitCreditNote(store, auth, { creditNote: { ...creditNote, number: invoice.number }, targetNetwork: "peppol" }, options);
    expect(cn.status).toBe("sending");
    const cn2 = await submitCreditNote(store, auth, { creditNote: { ...creditNote, number: invoice.number, notes: ["Second."] }, targetNetwork: "peppol" }, options);
    expect(cn2.errorMessage).toMatch(new RegExp(`^Duplicate credit note number: "INV-2026-0001" \\(BT-1\\) is already the number of credit note ${cn.submissionId}`));
  });

  it("frees the number once the earlier submission failed, and answers a refused route as the duplicate it is", async () => {
    const { store, auth, options } = await setup();
    let refuse = true;
    const o = { ...options, routing: { name: "test", route: () => (refuse ? { ok: false as const, reason: "No route today." } : { ok: true as const, network: "peppol" as const }) } };
    const data = example("invoice.json");
    const refused = await submitInvoice(store, auth, { invoice: data }, o);
    expect(refused).toMatchObject({ status: "failed", errorMessage: "No route today." });
    refuse = false;
    const sent = await submitInvoice(store, auth, { invoice: { ...data, notes: ["Once more."] } }, o);
    expect(sent.status).toBe("sending");
    // Refused by the route but repeating the number of an active one: the duplicate is the answer.
    refuse = true;
    const again = await submitInvoice(store, auth, { invoice: { ...data, notes: ["And again."] } }, o);
    expect(again.errorMessage).toMatch(new RegExp(`^Duplicate invoice number: .* ${sent.submissionId},`));
    expect((await getInvoice(store, auth, again.submissionId)).duplicateOf).toBe(sent.submissionId);
  });
});
