// The sandbox between two companies of one server, end to end over HTTP: A sends on Peppol to a participant id the
// operator gave B; the dispatcher's sandbox network delivers it into B's inbox; B lists it (direction inbound), reads
// it as received byte for byte and as data, and gets the signed invoice.received webhook; A lists it as outbound and
// cannot read B's record. Every answer is checked against the OpenAPI document.
import { createDispatcher, createWebhookSender, memoryStore, sandboxInbox, sandboxNetwork, verifyWebhookSignature, type Dispatcher, type WebhookSender } from "@einvoice/core";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReceiver, type Receiver } from "../../core/test/support/receiver.js";
import { b64, invoiceXml } from "../../core/test/support/ubl.js";
import { ADMIN_TOKEN, answers, eligibleAccount, makeApp } from "./support/app.js";
import { undocumentedAnswers } from "./support/openapi-check.js";

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const raw = (req: request.Test) =>
  req.buffer(true).parse((res, cb) => {
    const chunks: Buffer[] = [];
    res.on("data", (c: Buffer) => chunks.push(c));
    res.on("end", () => cb(null, Buffer.concat(chunks)));
  });

describe("the sandbox between two companies", () => {
  const store = memoryStore();
  const { app } = makeApp({ store, webhookTargets: { allowPrivate: true } });
  let dispatcher: Dispatcher;
  let sender: WebhookSender;
  let receiver: Receiver;

  beforeAll(async () => {
    dispatcher = createDispatcher({ store, networks: { peppol: sandboxNetwork({ delayMs: 0, inbox: sandboxInbox(store) }), ksef: sandboxNetwork({ delayMs: 0 }) } });
    sender = createWebhookSender({ store, targets: { allowPrivate: true } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await dispatcher.stop();
    await sender.stop();
    await receiver.close();
    expect(answers.length).toBeGreaterThan(15);
    expect(undocumentedAnswers(answers)).toEqual([]);
  });

  it("A's Peppol invoice to B's participant id lands in B's inbox once: listed, read as sent byte for byte and as data, announced by a signed webhook", async () => {
    const a = await eligibleAccount(app);
    const b = await eligibleAccount(app);
    const patched = await request(app).patch(`/admin/companies/${b.companyId}`).set(admin).send({ participantIds: ["0106:B-Receives-Here"] });
    expect([patched.status, patched.body.data.participantIds]).toEqual([200, ["0106:b-receives-here"]]);
    const hook = await request(app).post("/v1/webhooks").set(bearer(b.apiKey)).send({ url: receiver.url, events: ["invoice.received"] });
    expect([hook.status, hook.body.data.events]).toEqual([201, ["invoice.received"]]);

    // The recipient as A writes it: another case, compared as recipients are.
    const xml = invoiceXml({ id: "A-TO-B-1", scheme: "0106", endpoint: "B-RECEIVES-HERE", sellerVat: "DE123456789" });
    const submitted = await request(app).post("/v1/peppol/invoice").set(bearer(a.apiKey)).send({ xml: b64(xml) });
    expect(submitted.body.data.status).toBe("sending");
    const sentId = submitted.body.data.submissionId as string;
    // To an identifier nobody here receives on: delivered to the sandbox only.
    const elsewhere = await request(app).post("/v1/peppol/invoice").set(bearer(a.apiKey)).send({ xml: b64(invoiceXml({ id: "A-TO-X-1", scheme: "0106", endpoint: "nobody-here" })) });
    expect(elsewhere.body.data.status).toBe("sending");
    expect(await dispatcher.runOnce()).toBe(2);

    const inbox = await request(app).get("/v1/invoices").query({ direction: "inbound" }).set(bearer(b.apiKey));
    expect(inbox.body.data).toHaveLength(1);
    const got = inbox.body.data[0];
    expect(got).toMatchObject({
      direction: "inbound",
      status: "received",
      network: "peppol",
      invoiceNumber: "A-TO-B-1",
      syntax: "ubl",
      valid: true,
      networkReference: { submissionId: sentId },
      supplier: { endpointId: "0106:12345678", vatId: "DE123456789" },
    });
    expect(got.id).not.toBe(sentId);

    // As received: the bytes A's submission sent, exactly.
    const sentBytes = await raw(request(app).get(`/v1/invoices/${sentId}/document`).set(bearer(a.apiKey)));
    const receivedBytes = await raw(request(app).get(`/v1/invoices/${got.id}/document`).set(bearer(b.apiKey)));
    expect([receivedBytes.status, receivedBytes.headers["content-type"]]).toEqual([200, expect.stringContaining("application/xml")]);
    expect(Buffer.compare(receivedBytes.body as Buffer, sentBytes.body as Buffer)).toBe(0);
    expect((receivedBytes.body as Buffer).toString("utf8")).toBe(xml);
    const asData = await request(app).get(`/v1/invoices/${got.id}/document`).set(bearer(b.apiKey)).set("Accept", "application/json");
    expect([asData.status, asData.body.number, asData.body.totals.payable]).toEqual([200, "A-TO-B-1", "121.00"]);

    // A sees its submission delivered, outbound; B's record is not A's to read, nor A's B's.
    const aList = await request(app).get("/v1/invoices").set(bearer(a.apiKey));
    expect(aList.body.data.map((i: { id: string; direction: string; status: string }) => [i.direction, i.status])).toEqual([
      ["outbound", "delivered"],
      ["outbound", "delivered"],
    ]);
    for (const [key, id] of [[a.apiKey, got.id], [b.apiKey, sentId]] as const) {
      const res = await request(app).get(`/v1/invoices/${id}`).set(bearer(key));
      expect([res.status, res.body.code]).toEqual([404, "invoice_not_found"]);
      expect((await request(app).get(`/v1/invoices/${id}/document`).set(bearer(key))).status).toBe(404);
    }
    // B's supplier is A's seller; B's clients are untouched.
    const suppliers = await request(app).get("/v1/suppliers").set(bearer(b.apiKey));
    expect(suppliers.body.data.map((s: { id: string; invoiceCount: number }) => [s.id, s.invoiceCount])).toEqual([[got.supplierId, 1]]);

    // The webhook: one invoice.received event, signed with B's secret, carrying the record as GET shows it.
    expect(await sender.runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    const delivery = receiver.received[0]!;
    expect(verifyWebhookSignature(hook.body.data.secret, delivery.headers["einvoice-signature"] as string, delivery.body)).toBe(true);
    const event = JSON.parse(delivery.body);
    expect(event.type).toBe("invoice.received");
    const now = (await request(app).get(`/v1/invoices/${got.id}`).set(bearer(b.apiKey))).body.data;
    expect(event.data.invoice).toEqual(now);

    // Delivered again (a retry after a crash between storing and answering): nothing more.
    const inbox2 = sandboxInbox(store);
    const req = { submissionId: sentId, routing: { network: "peppol", recipient: { scheme: "0106", value: "b-receives-here" } }, document: Buffer.from(xml) };
    expect(await inbox2.deliver(req as never)).toEqual({ outcome: "duplicate", invoiceId: got.id });
    expect((await request(app).get("/v1/invoices").query({ direction: "inbound" }).set(bearer(b.apiKey))).body.data).toHaveLength(1);
  });
});
