// Receiving on the example server as a real process (the embedded PostgreSQL store): the environment checked before
// the store opens; the sandbox between two companies; Storecove's pull queue (the fake of its published API) read by the
// inbound poller into the company of the legal entity, a document for no company kept for the operator; KSeF's buyer
// side (the fake KSeF 2.0) synced for a company in PL with its credential, and an operator's backfill taken; /metrics
// and /ready with the poller.
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { verifyWebhookSignature } from "@einvoice/core";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { startFakeStorecove, type FakeStorecove } from "../../../packages/storecove/test/support/fake-storecove.js";
import { toFa3 } from "../../../packages/ksef/src/index.js";
import { startFakeKsef, type FakeKsef } from "../../../packages/ksef/test/support/fake-ksef.js";
import { ublTree } from "../../../packages/ksef/test/support/tree.js";
import { ublInvoice } from "../../../packages/ksef/test/support/ubl.js";
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
      ["INBOUND_LEASE_MS", "500", "INBOUND_LEASE_MS must be a whole number of milliseconds from 3000 to 3600000, not \"500\" (default 300000)."],
    ] as const) {
      const dataDir = join(parent, `never-${name}`);
      const started = startServer({ DATA_DIR: dataDir, DATABASE_URL: undefined, ADMIN_TOKEN: ADMIN, [name]: value });
      await expect(started).rejects.toThrow(`einvoice example server: ${message}`);
      expect(existsSync(dataDir), name).toBe(false);
    }
  });
});

describe("the sandbox between two companies on the example server", () => {
  const suite = serverSuite("receiving-sandbox", { ADMIN_TOKEN: ADMIN, SANDBOX_DELAY_MS: "20", WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RETRY_BASE_MS: "200" });

  it("delivers A's Peppol invoice to B's participant id into B's inbox, announced by a signed invoice.received, counted in /metrics; /ready includes the workers", async () => {
    const receiver = await suite.receiver();
    const server = await suite.start();
    expect(server.output()).toMatch(/^receiving: the sandbox network delivers Peppol invoices to the company receiving on the recipient's participant id/m);
    const a = await eligibleAccount(server.base, ADMIN);
    const b = await eligibleAccount(server.base, ADMIN);
    const patched = await json(server.base, "PATCH", `/admin/companies/${b.companyId}`, { participantIds: ["0106:b-inbox-1"] }, ADMIN);
    expect(patched.body.data.participantIds).toEqual(["0106:b-inbox-1"]);
    const taken = await json(server.base, "PATCH", `/admin/companies/${a.companyId}`, { participantIds: ["0106:B-INBOX-1"] }, ADMIN);
    expect([taken.status, taken.body.code]).toEqual([409, "participant_id_taken"]);
    const hook = await json(server.base, "POST", "/v1/webhooks", { url: receiver.url, events: ["invoice.received"] }, b.apiKey);
    expect(hook.status).toBe(201);

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
    await waitFor("the invoice.received event", async () => (receiver.received.length > 0 ? true : undefined));
    const delivery = receiver.received[0]!;
    expect(verifyWebhookSignature(hook.body.data.secret, delivery.headers["einvoice-signature"] as string, delivery.body)).toBe(true);
    const event = JSON.parse(delivery.body);
    expect([event.type, event.data.invoice.id, event.data.invoice.direction]).toEqual(["invoice.received", got[0].id, "inbound"]);
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

describe("KSeF's buyer side on the example server", () => {
  const NIP = "5260250995";
  const TOKEN = `20261122-EC-${randomBytes(5).toString("hex").toUpperCase()}-0123456789-AB|nip-${NIP}|${randomBytes(32).toString("hex")}`;
  let fake: FakeKsef;
  const suite = serverSuite("receiving-ksef", { ADMIN_TOKEN: ADMIN, KSEF_INBOUND_INTERVAL_S: "1" });
  afterAll(async () => {
    await fake?.close();
  });

  it("syncs the invoices KSeF holds for a company in PL as buyer once its credential is set, each once, as received; a backfill is taken", async () => {
    fake = await startFakeKsef({ nip: NIP, token: TOKEN });
    const fa3 = toFa3(ublTree(ublInvoice({ id: "FV/KSEF/IN/1", lines: [{ name: "Usługa", quantity: "1", price: "100.00", cat: { id: "S", percent: "23" } }] }).xml), {
      createdAt: new Date("2026-03-02T09:00:00Z"),
    });
    const ksefNumber = fake.buyer.receive({ buyerNip: NIP, content: fa3, permanentStorageDate: "2026-03-02T10:00:00.000000+00:00" });
    const server = await suite.start({ KSEF_URL: fake.url, KSEF_TOKEN_KEY: randomBytes(32).toString("base64") });
    expect(server.output()).toMatch(/^receiving: KSeF at 127\.0\.0\.1:\d+ every 1 s per company in PL with a KSeF credential \(KSEF_INBOUND_INTERVAL_S\); the sandbox network delivers/m);
    const pl = await eligibleAccount(server.base, ADMIN, "PL");
    const set = await json(server.base, "PATCH", `/admin/companies/${pl.companyId}`, { ksef: { nip: NIP, token: TOKEN } }, ADMIN);
    expect(set.status).toBe(200);

    const got = await waitFor(
      "the KSeF invoice in the company's inbox",
      async () => {
        const r = await json(server.base, "GET", "/v1/invoices?direction=inbound", undefined, pl.apiKey);
        return r.body.data.length > 0 ? r.body.data : undefined;
      },
      30_000,
    );
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ network: "ksef", syntax: "fa3", valid: true, invoiceNumber: "FV/KSEF/IN/1", ksefNumber, networkReference: { ksefNumber } });
    const doc = await fetch(`${server.base}/v1/invoices/${got[0].id}/document`, { headers: { authorization: `Bearer ${pl.apiKey}` } });
    expect(await doc.text()).toBe(fa3);
    const asData = await fetch(`${server.base}/v1/invoices/${got[0].id}/document`, { headers: { authorization: `Bearer ${pl.apiKey}`, accept: "application/json" } });
    expect(((await asData.json()) as { number: string }).number).toBe("FV/KSEF/IN/1");

    // The operator asks for March again: the request is kept, then taken by the company's sync; nothing is received twice.
    const backfill = await json(server.base, "POST", `/admin/companies/${pl.companyId}/ksef/backfill`, { from: "2026-03-01", to: "2026-04-01" }, ADMIN);
    expect([backfill.status, backfill.body.data.source]).toEqual([202, "ksef"]);
    await waitFor(
      "the backfill taken by the sync",
      async () => {
        const r = await json(server.base, "GET", "/admin/inbound/syncs?source=ksef", undefined, ADMIN);
        const row = r.body.data.find((s: { scope: string }) => s.scope === pl.companyId);
        return row && row.requests.length === 0 && row.state ? row : undefined;
      },
      30_000,
    );
    const syncs = await json(server.base, "GET", "/admin/inbound/syncs?source=ksef", undefined, ADMIN);
    expect(JSON.stringify(syncs.body)).not.toContain(TOKEN);
    expect((await json(server.base, "GET", "/v1/invoices?direction=inbound", undefined, pl.apiKey)).body.data).toHaveLength(1);
    const text = await metricsOf(server.base);
    expect(sample(text, 'einvoice_inbound_documents_total{network="ksef",outcome="stored"}')).toBe(1);
    expect(sample(text, 'einvoice_inbound_runs_total{source="ksef",outcome="ok"}')).toBeGreaterThanOrEqual(1);
  });
});

describe("kill -9 between storing and acknowledging", () => {
  let fake: FakeStorecove;
  // A killed instance's lease runs out after INBOUND_LEASE_MS: then the restarted one takes the queue over.
  const suite = serverSuite("receiving-kill", { ADMIN_TOKEN: ADMIN, STORECOVE_RECEIVE_INTERVAL_S: "1", INBOUND_LEASE_MS: "3000" });
  afterAll(async () => {
    await fake?.close();
  });

  it("a document stored and never acknowledged is received again after the restart and stored once", async () => {
    fake = await startFakeStorecove();
    const more = { STORECOVE_URL: fake.baseUrl, STORECOVE_API_KEY: fake.apiKey };
    let server = await suite.start(more);
    const c = await eligibleAccount(server.base, ADMIN);
    const inbox = async () => (await json(server.base, "GET", "/v1/invoices?direction=inbound&limit=100", undefined, c.apiKey)).body.data as { invoiceNumber: string }[];
    // Storecove refuses every acknowledgement: the first document is stored, its queue item stays first.
    fake.inbound.deleteFaults.push(...Array.from({ length: 1000 }, () => ({ status: 503 })));
    const first = fake.inbound.receive(12345, Buffer.from(invoiceB64("KILL-0"), "base64"));
    for (let i = 1; i < 3; i++) fake.inbound.receive(12345, Buffer.from(invoiceB64(`KILL-${i}`), "base64"));
    await waitFor("the first document stored", async () => ((await inbox()).length === 1 ? true : undefined), 30_000);
    await waitFor("its acknowledgement refused", async () => (fake.inbound.log.includes(`DELETE ${first.instanceGuid}`) ? true : undefined));
    await server.kill();

    fake.inbound.deleteFaults.length = 0;
    server = await suite.start(more);
    await waitFor("the queue emptied", async () => (fake.inbound.queue.length === 0 ? true : undefined), 30_000);
    const numbers = (await inbox()).map((i) => i.invoiceNumber).sort();
    expect(numbers).toEqual(["KILL-0", "KILL-1", "KILL-2"]);
    // The first document was fetched again after the restart, and found stored.
    expect(fake.inbound.log.filter((l) => l === `GET doc ${first.documentGuid}`).length).toBeGreaterThanOrEqual(2);
    const text = await metricsOf(server.base);
    expect(sample(text, 'einvoice_inbound_documents_total{network="peppol",outcome="duplicate"}')).toBeGreaterThanOrEqual(1);
  });
});

const DATABASE_URL = process.env.DATABASE_URL;

describe.skipIf(!DATABASE_URL)("two instances on one PostgreSQL reading Storecove's queue", () => {
  const schema = `einvoice_inbound_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const env = { DATABASE_URL, DATABASE_SCHEMA: schema, ADMIN_TOKEN: ADMIN, STORECOVE_RECEIVE_INTERVAL_S: "1", RATE_LIMIT_PER_MINUTE: "0" };
  let fake: FakeStorecove;
  afterAll(async () => {
    await fake?.close();
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  });

  it("stores every queued document once whichever instance takes the queue; after one stops, the other takes the queue over", async () => {
    fake = await startFakeStorecove();
    const more = { ...env, STORECOVE_URL: fake.baseUrl, STORECOVE_API_KEY: fake.apiKey };
    const a = await startServer(more);
    const b = await startServer(more);
    try {
      const c = await eligibleAccount(a.base, ADMIN); // legal entity 12345
      const inbox = async () => (await json(b.base, "GET", "/v1/invoices?direction=inbound&limit=100", undefined, c.apiKey)).body.data as { invoiceNumber: string }[];
      for (let i = 0; i < 8; i++) fake.inbound.receive(12345, Buffer.from(invoiceB64(`TWO-${i}`), "base64"));
      await waitFor("the first eight, each once", async () => ((await inbox()).length >= 8 && fake.inbound.queue.length === 0 ? true : undefined), 30_000);
      expect((await inbox()).map((i) => i.invoiceNumber).sort()).toEqual(Array.from({ length: 8 }, (_, i) => `TWO-${i}`));

      expect(await a.stop()).toBe(0);
      for (let i = 8; i < 12; i++) fake.inbound.receive(12345, Buffer.from(invoiceB64(`TWO-${i}`), "base64"));
      await waitFor("the next four, taken by the other instance", async () => ((await inbox()).length >= 12 && fake.inbound.queue.length === 0 ? true : undefined), 30_000);
      const all = (await inbox()).map((i) => i.invoiceNumber);
      expect(all).toHaveLength(12);
      expect(new Set(all).size).toBe(12);
      const client = new pg.Client({ connectionString: DATABASE_URL });
      await client.connect();
      const { rows } = await client.query(`SELECT count(*)::int AS n FROM ${schema}.invoices WHERE company_id = $1`, [c.companyId]);
      await client.end();
      expect(rows[0].n).toBe(12);
    } finally {
      await a.kill().catch(() => undefined);
      await b.kill().catch(() => undefined);
    }
  });
});
