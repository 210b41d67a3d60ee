// The library surface of invoices as data: submitInvoice / submitCreditNote take {invoice} / {creditNote}.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ApiError, getInvoice, submitCreditNote, submitInvoice, type InvoiceDataInput } from "../src/index.js";
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
    expect(await getInvoice(store, auth, cn.submissionId)).toMatchObject({ documentType: "creditNote", billingReference: "INV-2026-0001" });
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
