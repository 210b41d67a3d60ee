// A credit note on the example server (issue 19): POST /v1/peppol/credit-note, sending to delivered on
// the sandbox network, with its signed webhook event carrying kind and billingReference.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { verifyWebhookSignature } from "@einvoice/core";
import { describe, expect, it } from "vitest";
import { CORPUS_DIR } from "../../../packages/core/test/support/corpus.js";
import { eligibleAccount, waitFor } from "./support/helpers.js";
import { json } from "./support/server-process.js";
import { serverSuite } from "./support/server-suite.js";

const ADMIN = "credit-note-test-admin-token";

describe("example server: a credit note", () => {
  const suite = serverSuite("credit-note", { ADMIN_TOKEN: ADMIN, WEBHOOK_ALLOW_PRIVATE: "true", SANDBOX_DELAY_MS: "20" });

  it("goes from sending to delivered, with its webhook event", async () => {
    const receiver = await suite.receiver();
    const server = await suite.start();
    const { apiKey } = await eligibleAccount(server.base, ADMIN);
    const { secret } = (await json(server.base, "POST", "/v1/webhooks", { url: receiver.url }, apiKey)).body.data;
    const xml = readFileSync(join(CORPUS_DIR, "openpeppol-bis3/snippets/Snippet-cn.xml")).toString("base64");
    const submitted = await json(server.base, "POST", "/v1/peppol/credit-note", { xml, targetNetwork: "peppol" }, apiKey);
    expect(submitted.status).toBe(200);
    expect(submitted.body.data.status).toBe("sending");
    const id = submitted.body.data.submissionId as string;
    const event = await waitFor("the credit note's event", async () => receiver.received.find((r) => JSON.parse(r.body).data.invoice.id === id), 30_000);
    expect(JSON.parse(event.body).data.invoice).toMatchObject({ status: "delivered", kind: "creditNote", billingReference: "123" });
    expect(verifyWebhookSignature(secret, String(event.headers["einvoice-signature"]), event.body)).toBe(true);
    const read = await json(server.base, "GET", `/v1/invoices/${id}`, undefined, apiKey);
    expect(read.body.data).toMatchObject({ status: "delivered", kind: "creditNote" });
    expect(read.body.data.events.map((e: { status: string }) => e.status)).toEqual(["sending", "delivered"]);
  }, 90_000);
});
