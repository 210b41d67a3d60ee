// Receiving on the example server as a real process (the embedded PostgreSQL store): the environment checked before
// the store opens; the sandbox between two companies; Storecove's pull queue (the fake of its published API) read by the
// inbound poller into the company of the legal entity, a document for no company kept for the operator; /metrics and
// /ready with the poller.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startFakeStorecove, type FakeStorecove } from "../../../packages/storecove/test/support/fake-storecove.js";
import { eligibleAccount, invoiceB64, waitFor } from "./support/helpers.js";
import { json, startServer } from "./support/server-process.js";
import { serverSuite, tempDir } from "./support/server-suite.js";

const ADMIN = "receiving-test-admin-token-0123456789";

/** The value of one sample (`name{labels} value`), or undefined when it is not there. */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split("\n")) if (line.startsWith(series + " ")) return Number(line.slice(series.length + 1));
  return undefined;
}
const metricsOf = async (base: string) => (await fetch(`${base}/metrics`)).text();

describe("receiving settings", () => {
  const parent = tempDir("receiving-env");

  it("stops at once, before the store opens, for a malformed interval or INBOUND value, naming the variable", async () => {
    for (const [name, value, message] of [
      ["KSEF_INBOUND_INTERVAL_S", "0", "KSEF_INBOUND_INTERVAL_S must be a whole number of seconds from 1 to 86400, not \"0\" (default 900)."],
      ["STORECOVE_RECEIVE_INTERVAL_S", "1m", "STORECOVE_RECEIVE_INTERVAL_S must be a whole number of seconds from 1 to 86400, not \"1m\" (default 60)."],
      ["INBOUND", "maybe", "INBOUND must be on or off, not \"maybe\"."],
    ] as const) {
      const dataDir = join(parent, `never-${name}`);
      const started = startServer({ DATA_DIR: dataDir, DATABASE_URL: undefined, ADMIN_TOKEN: ADMIN, [name]: value });
      await expect(started).rejects.toThrow(`einvoice example server: ${message}`);
      expect(existsSync(dataDir), name).toBe(false);
    }
  });
});

describe("the sandbox between two companies on the example server", () => {
  const suite = serverSuite("receiving-sandbox", { ADMIN_TOKEN: ADMIN, SANDBOX_DELAY_MS: "20" });

  it("delivers A's Peppol invoice to B's participant id into B's inbox, counted in /metrics; /ready includes the workers", async () => {
    const server = await suite.start();
    expect(server.output()).toMatch(/^receiving: the sandbox network delivers Peppol invoices to the company receiving on the recipient's participant id/m);
    const a = await eligibleAccount(server.base, ADMIN);
    const b = await eligibleAccount(server.base, ADMIN);
    const patched = await json(server.base, "PATCH", `/admin/companies/${b.companyId}`, { participantIds: ["0106:b-inbox-1"] }, ADMIN);
    expect(patched.body.data.participantIds).toEqual(["0106:b-inbox-1"]);
    const taken = await json(server.base, "PATCH", `/admin/companies/${a.companyId}`, { participantIds: ["0106:B-INBOX-1"] }, ADMIN);
    expect([taken.status, taken.body.code]).toEqual([409, "participant_id_taken"]);

    const sent = await json(server.base, "POST", "/v1/peppol/invoice", { xml: invoiceB64("SRV-A-B-1", "B-Inbox-1") }, a.apiKey);
    expect(sent.body.data.status).toBe("sending");
    const got = await waitFor("B's inbox", async () => {
      const r = await json(server.base, "GET", "/v1/invoices?direction=inbound", undefined, b.apiKey);
      return r.body.data.length > 0 ? r.body.data : undefined;
    });
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ direction: "inbound", status: "received", invoiceNumber: "SRV-A-B-1", networkReference: { submissionId: sent.body.data.submissionId }, valid: true });
    const sentDoc = await (await fetch(`${server.base}/v1/invoices/${sent.body.data.submissionId}/document`, { headers: { authorization: `Bearer ${a.apiKey}` } })).arrayBuffer();
    const gotDoc = await (await fetch(`${server.base}/v1/invoices/${got[0].id}/document`, { headers: { authorization: `Bearer ${b.apiKey}` } })).arrayBuffer();
    expect(Buffer.compare(Buffer.from(gotDoc), Buffer.from(sentDoc))).toBe(0);
    expect((await json(server.base, "GET", `/v1/invoices/${got[0].id}`, undefined, a.apiKey)).status).toBe(404);
    const suppliers = await json(server.base, "GET", "/v1/suppliers", undefined, b.apiKey);
    expect(suppliers.body.data.map((s: { endpointId: string; invoiceCount: number }) => [s.endpointId, s.invoiceCount])).toEqual([["0106:12345678", 1]]);

    const text = await metricsOf(server.base);
    expect(sample(text, 'einvoice_inbound_documents_total{network="peppol",outcome="stored"}')).toBe(1);
    expect(sample(text, "einvoice_inbound_unmatched")).toBe(0);
    const ready = await json(server.base, "GET", "/ready");
    expect([ready.status, ready.body.checks]).toEqual([200, { store: "ok", workers: "ok" }]);
  });
});

describe("Storecove's pull queue on the example server", () => {
  let fake: FakeStorecove;
  const suite = serverSuite("receiving-storecove", { ADMIN_TOKEN: ADMIN, STORECOVE_RECEIVE_INTERVAL_S: "1" });
  afterAll(async () => {
    await fake?.close();
  });

  it("stores each queued document for the company of its legal entity, keeps one for no company for the operator, acknowledges both", async () => {
    fake = await startFakeStorecove();
    const server = await suite.start({ STORECOVE_URL: fake.baseUrl, STORECOVE_API_KEY: fake.apiKey });
    expect(server.output()).toMatch(/^receiving: Storecove's pull queue at 127\.0\.0\.1:\d+ every 1 s \(STORECOVE_RECEIVE_INTERVAL_S\)$/m);
    const c = await eligibleAccount(server.base, ADMIN); // legal entity 12345
    const mine = Buffer.from(invoiceB64("SC-IN-1", "12345678"), "base64");
    fake.inbound.receive(12345, mine);
    fake.inbound.receive(424242, Buffer.from(invoiceB64("SC-NOBODY-1"), "base64"));

    const got = await waitFor(
      "the document in the company's inbox and the queue emptied",
      async () => {
        const r = await json(server.base, "GET", "/v1/invoices?direction=inbound", undefined, c.apiKey);
        return r.body.data.length === 1 && fake.inbound.queue.length === 0 ? r.body.data[0] : undefined;
      },
      30_000,
    );
    expect(got).toMatchObject({ network: "peppol", invoiceNumber: "SC-IN-1", networkReference: { storecoveGuid: expect.any(String) } });
    const doc = await fetch(`${server.base}/v1/invoices/${got.id}/document`, { headers: { authorization: `Bearer ${c.apiKey}` } });
    expect(Buffer.compare(Buffer.from(await doc.arrayBuffer()), mine)).toBe(0);

    const unmatched = await json(server.base, "GET", "/admin/inbound/unmatched", undefined, ADMIN);
    expect(unmatched.body.data).toHaveLength(1);
    expect(unmatched.body.data[0]).toMatchObject({ network: "peppol", legalEntityId: "424242" });
    const syncs = await json(server.base, "GET", "/admin/inbound/syncs?source=storecove", undefined, ADMIN);
    expect(syncs.body.data.map((s: { source: string; scope: string }) => [s.source, s.scope])).toEqual([["storecove", "*"]]);

    const text = await metricsOf(server.base);
    expect(sample(text, "einvoice_inbound_unmatched")).toBe(1);
    expect(sample(text, 'einvoice_inbound_documents_total{network="peppol",outcome="stored"}')).toBe(1);
    expect(sample(text, 'einvoice_inbound_documents_total{network="peppol",outcome="unmatched"}')).toBe(1);
    expect(sample(text, 'einvoice_inbound_runs_total{source="storecove",outcome="ok"}')).toBeGreaterThanOrEqual(1);
    expect((await json(server.base, "GET", "/ready")).status).toBe(200);
    // A graceful stop ends the poller too.
    expect(await server.stop()).toBe(0);
  });
});
