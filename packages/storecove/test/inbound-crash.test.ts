// Kill the inbound pollers at random moments: receiving through Storecove's pull queue loses nothing and duplicates
// nothing. A fake Storecove (in this process, on loopback) holds documents for the legal entities of two companies,
// for a legal entity no company has, and two queue items that are no document at all. Poller processes
// (support/inbound-poller-process.ts: createInboundPoller with storecoveInbound on one PostgreSQL schema) drain the
// queue, two of them at once most of the time; the test kills the one that runs with SIGKILL, at moments chosen by a
// seeded random generator (as it fetches a document, as it acknowledges an item whose record is committed, or after a
// random delay), and starts another. Every request of a poller goes through a proxy here that knows which process sent
// it; at each DELETE it reads PostgreSQL for the item's record before letting it through.
//
// At the end: every document is stored once, for its company, with its bytes; the others once each for the operator;
// the queue is empty; no item was deleted before its record was committed; and no two processes ran the queue at once.
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { InvoiceRecord } from "@einvoice/core";
import { sampleCompany, seededRandom as random } from "@einvoice/core/testing";
import { openPostgresStore, type OpenedPostgresStore } from "@einvoice/postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeStorecove, type FakeStorecove } from "./support/fake-storecove.js";

const DATABASE_URL = process.env.DATABASE_URL;
const SEED = Number(process.env.CRASH_SEED ?? 20261129);
const LEASE_MS = 1_500;
const here = dirname(fileURLToPath(import.meta.url));


async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A UBL invoice from a seller with an electronic address (its supplier), numbered `n`. */
const ubl = (n: string, seller: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0</cbc:CustomizationID>
  <cbc:ProfileID>urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</cbc:ProfileID>
  <cbc:ID>${n}</cbc:ID>
  <cbc:IssueDate>2026-11-20</cbc:IssueDate>
  <cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>
  <cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
  <cac:AccountingSupplierParty><cac:Party><cbc:EndpointID schemeID="0106">${seller}</cbc:EndpointID><cac:PartyLegalEntity><cbc:RegistrationName>Seller ${seller}</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingSupplierParty>
  <cac:AccountingCustomerParty><cac:Party><cbc:EndpointID schemeID="0106">87654321</cbc:EndpointID><cac:PartyLegalEntity><cbc:RegistrationName>Buyer</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingCustomerParty>
  <cac:LegalMonetaryTotal><cbc:LineExtensionAmount currencyID="EUR">100.00</cbc:LineExtensionAmount><cbc:TaxExclusiveAmount currencyID="EUR">100.00</cbc:TaxExclusiveAmount><cbc:TaxInclusiveAmount currencyID="EUR">121.00</cbc:TaxInclusiveAmount><cbc:PayableAmount currencyID="EUR">121.00</cbc:PayableAmount></cac:LegalMonetaryTotal>
</Invoice>`;

interface Poller {
  n: number;
  child: ChildProcess;
  output: () => string;
  /** When the test killed it (epoch ms), or null. */
  killedAt: number | null;
}

/** The runs a poller's output says it made: [start, end] (an open one ends when it was killed). */
function runsOf(p: Poller): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  let open: number | null = null;
  for (const line of p.output().split("\n")) {
    const m = /^run (start|end) \S+ (\d+)$/.exec(line);
    if (!m) continue;
    if (m[1] === "start") open = Number(m[2]);
    else if (open !== null) {
      runs.push([open, Number(m[2])]);
      open = null;
    }
  }
  if (open !== null) runs.push([open, p.killedAt ?? Date.now()]);
  return runs;
}

describe.skipIf(!DATABASE_URL)("kill -9 the inbound pollers draining Storecove's queue (storecoveInbound on PostgreSQL)", () => {
  const schema = `einvoice_scin_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  let opened: OpenedPostgresStore;
  let fake: FakeStorecove;
  let db: pg.Pool;
  let proxy: Server;
  let proxyUrl = "";
  const pollers: Poller[] = [];
  /** Problems the proxy found (a DELETE before the record was committed), said at the end. */
  const violations: string[] = [];
  /** What each queue item must have become before its DELETE: the record of `companyId`, or a document for no company. */
  const expected = new Map<string, { ref: string; companyId: string | null }>();
  /**
   * The next kill: once `after` items are acknowledged, the sender of the next request of this kind is killed before
   * the request reaches Storecove (`timer`: the sender of the next request, `delayMs` later). Decided here, at the
   * request, so that the test's own pace never lets the pollers run past the moment.
   */
  let plan: { mode: "doc" | "delete" | "timer" | "pause"; after: number; delayMs: number } | null = null;
  /** The poller stopped with SIGSTOP (`pause`), and how many items were acknowledged then. */
  let paused: { p: Poller; at: number } | null = null;
  let total = 0;
  const acknowledged = () => total - fake.inbound.queue.length;
  const kills: string[] = [];

  function kill(p: Poller, why: string): void {
    if (p.killedAt !== null) return;
    p.killedAt = Date.now();
    p.child.kill("SIGKILL");
    kills.push(`${why} #${p.n}`);
  }

  beforeAll(async () => {
    opened = await openPostgresStore({ databaseUrl: DATABASE_URL!, schema });
    db = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
    fake = await startFakeStorecove();
    const upstream = new URL(fake.baseUrl);
    proxy = createServer((req, res) => {
      void (async () => {
        const m = /^\/p(\d+)(\/.*)$/.exec(req.url ?? "");
        const p = m ? pollers.find((x) => x.n === Number(m[1])) : undefined;
        if (!m || !p || p.killedAt !== null) return void req.socket.destroy();
        const path = m[2]!;
        const del = req.method === "DELETE" ? /\/webhook_instances\/([^/]+)$/.exec(path) : null;
        if (del) {
          // Acknowledged only once stored: the item's record must be committed now (read on another connection).
          const guid = decodeURIComponent(del[1]!);
          const e = expected.get(guid);
          if (!e) violations.push(`DELETE of an unknown queue item ${guid}`);
          else {
            const { rows } = e.companyId
              ? await db.query(`SELECT count(*)::int AS n FROM "${schema}".invoices WHERE company_id = $1 AND network_ref = $2 AND direction = 'inbound'`, [e.companyId, e.ref])
              : await db.query(`SELECT count(*)::int AS n FROM "${schema}".unmatched_documents WHERE network_ref = $1`, [e.ref]);
            if (rows[0].n !== 1) violations.push(`DELETE of queue item ${guid} with ${rows[0].n} records of ${e.ref} committed`);
          }
        }
        if (plan && acknowledged() >= plan.after) {
          const { mode, delayMs } = plan;
          if (mode === "timer") {
            plan = null;
            setTimeout(() => kill(p, `${delayMs} ms after a request`), delayMs);
          } else if (mode === "pause" && req.method === "GET" && path.includes("/received_documents/")) {
            // Stopped as it fetches a document: the request goes on to Storecove, its answer waits in the socket.
            plan = null;
            paused = { p, at: acknowledged() };
            p.child.kill("SIGSTOP");
          } else if ((mode === "delete" && del) || (mode === "doc" && req.method === "GET" && path.includes("/received_documents/"))) {
            plan = null;
            kill(p, `at ${mode}`);
            return void req.socket.destroy();
          }
        }
        const up = request({ host: upstream.hostname, port: upstream.port, method: req.method, path, headers: req.headers }, (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        });
        up.on("error", () => res.destroy());
        req.pipe(up);
      })().catch((e: unknown) => {
        violations.push(`proxy: ${(e as Error).message}`);
        res.destroy();
      });
    });
    proxy.listen(0, "127.0.0.1");
    await new Promise((r) => proxy.once("listening", r));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const p of pollers) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
    await Promise.all(pollers.map((p) => (p.child.exitCode === null && p.child.signalCode === null ? new Promise((r) => p.child.once("exit", r)) : undefined)));
    proxy?.closeAllConnections();
    await new Promise((r) => (proxy ? proxy.close(r) : r(undefined)));
    await fake?.close();
    await opened?.close();
    await db?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db?.end();
  });

  let count = 0;
  async function startPoller(): Promise<Poller> {
    const n = ++count;
    const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", join(here, "support/inbound-poller-process.ts")], {
      cwd: join(here, ".."),
      env: { ...process.env, DATABASE_URL, DATABASE_SCHEMA: schema, STORECOVE_URL: `${proxyUrl}/p${n}/api/v2`, STORECOVE_API_KEY: fake.apiKey, POLLER_OWNER: `poller-${n}`, LEASE_MS: String(LEASE_MS) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    const p: Poller = { n, child, output: () => out, killedAt: null };
    pollers.push(p);
    // Started, or killed by the test before it was (then it never will be).
    await until(`poller ${n} to start`, () => (out.includes("ready\n") || p.killedAt !== null ? true : child.exitCode !== null ? Promise.reject(new Error(out)) : undefined), 90_000);
    return p;
  }
  const alive = () => pollers.filter((p) => p.killedAt === null);

  it("stores every document once for its company and every other once for the operator, acknowledging each only once stored, across kill -9 and two instances", async () => {
    const rnd = random(SEED);
    const { store } = opened;
    const a = sampleCompany({ name: "Alpha B.V.", legalEntityId: "12345" });
    const b = sampleCompany({ name: "Beta N.V.", country: "BE", legalEntityId: "777" });
    for (const company of [a, b]) {
      const keyId = randomUUID();
      await store.createAccount({
        account: { id: randomUUID(), email: `${keyId}@example.com`, companyId: company.id, createdAt: company.createdAt },
        company,
        apiKey: { id: keyId, companyId: company.id, prefix: `einv_${keyId.slice(0, 8)}`, hash: "ab".repeat(32), createdAt: company.createdAt, lastUsedAt: null, revokedAt: null },
      });
    }
    // A webhook for invoice.received at each company: one event per document stored, never two.
    const webhooks = new Map<string, string>();
    for (const company of [a, b]) {
      const webhook = { id: randomUUID(), companyId: company.id, url: "https://hooks.example.com/einvoice", events: ["invoice.received" as const], secret: "s".repeat(32), createdAt: new Date().toISOString(), deletedAt: null };
      expect(await store.insertWebhook(webhook)).toBe(true);
      webhooks.set(company.id, webhook.id);
    }
    // 60 documents in a mixed order (26 for each company, 8 for a legal entity nobody has), and two items that are
    // no document at all (kept for the operator under the item's guid).
    const contents = new Map<string, string>();
    const owners = [...Array<string | null>(26).fill(a.id), ...Array<string | null>(26).fill(b.id), ...Array<string | null>(8).fill(null)];
    for (let i = owners.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [owners[i], owners[j]] = [owners[j]!, owners[i]!];
    }
    for (const [i, owner] of owners.entries()) {
      const xml = ubl(`INV-${i}`, String(10_000_000 + (i % 5)));
      const legalEntity = owner === a.id ? 12345 : owner === b.id ? 777 : 999;
      const { instanceGuid, documentGuid } = fake.inbound.receive(legalEntity, xml);
      expected.set(instanceGuid, { ref: `storecove:${documentGuid}`, companyId: owner });
      contents.set(documentGuid, xml);
      if (i === 20 || i === 40) {
        const g = fake.inbound.enqueueRaw(i === 20 ? "this is no JSON" : JSON.stringify({ event_type: "invoice_response", document_guid: null }))!;
        expected.set(g, { ref: `storecove:${g}`, companyId: null });
      }
    }
    total = fake.inbound.queue.length;
    expect(total).toBe(62);

    // Two instances from the start; each kill takes the one running the queue, and another is started in its place
    // (while the survivor takes the queue over once the lease expires).
    const started: Array<Promise<Poller>> = [];
    const background = () => {
      const p = startPoller();
      p.catch(() => undefined); // said by Promise.all(started) below
      started.push(p);
    };
    background();
    background();
    const modes = ["delete", "doc", "timer", "delete"] as const;
    const thresholds = [5, 18, 31, 44].map((t) => t + Math.floor(rnd() * 6));
    for (const [k, after] of thresholds.entries()) {
      const before = kills.length;
      plan = { mode: modes[k]!, after, delayMs: Math.floor(rnd() * 150) };
      // (Or the queue drained first: the count of kills below says so.)
      await until(`kill ${k + 1} (${modes[k]} after ${after} items)`, () => (kills.length > before || fake.inbound.queue.length === 0 ? true : undefined));
      if (alive().length < 2) background();
    }
    await Promise.all(started);

    await until("the queue to be drained", () => (fake.inbound.queue.length === 0 ? true : undefined), 120_000);
    const outputs = () => `seed ${SEED}; kills ${kills.join(", ")}\n${pollers.map((p) => `--- poller ${p.n}\n${p.output()}`).join("\n")}`;
    expect(violations, outputs()).toEqual([]);

    // Every document of a company once, as received; nothing else in its inbox.
    for (const company of [a, b]) {
      const page = await store.listInvoices(company.id, { limit: 200, after: null, status: null, clientId: null, direction: "inbound" });
      const refs = page.map((r: InvoiceRecord) => (r.inbound!.networkReference as { storecoveGuid: string }).storecoveGuid);
      const want = [...expected.values()].filter((e) => e.companyId === company.id).map((e) => e.ref.slice("storecove:".length));
      expect(refs.length, outputs()).toBe(26);
      expect(new Set(refs).size).toBe(26);
      expect([...refs].sort()).toEqual([...want].sort());
      // Its sellers as suppliers, each document counted once (5 sellers).
      const suppliers = await store.listSuppliers(company.id, { limit: 100, after: null });
      expect(suppliers).toHaveLength(5);
      expect(suppliers.reduce((sum, x) => sum + x.invoiceCount, 0), outputs()).toBe(26);
      const events = await store.listWebhookEvents(company.id, webhooks.get(company.id)!, 500);
      expect(events.map((e) => e.type)).toEqual(Array(26).fill("invoice.received"));
      expect(events.map((e) => JSON.parse(e.data).invoice.id as string).sort(), outputs()).toEqual(page.map((r) => r.id).sort());
      for (const r of page) {
        expect(r.status).toBe("received");
        const bytes = await store.getDocument(company.id, r.id);
        expect(Buffer.from(bytes!).toString("utf8")).toBe(contents.get((r.inbound!.networkReference as { storecoveGuid: string }).storecoveGuid));
      }
    }
    // The others once each, for the operator.
    const unmatched = await store.listUnmatched({ limit: 200, after: null });
    const wantUnmatched = [...expected.values()].filter((e) => e.companyId === null).map((e) => e.ref);
    expect(unmatched.map((u) => `storecove:${(u.networkReference as { storecoveGuid: string }).storecoveGuid}`).sort()).toEqual([...wantUnmatched].sort());
    expect(await store.countUnmatched()).toBe(10);
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM "${schema}".invoices`);
    expect(rows[0].n).toBe(52);

    // Kills between storing and acknowledging happened: those items were taken again, and found stored.
    const fetched = new Map<string, number>();
    for (const line of fake.inbound.log) if (line.startsWith("GET doc ")) fetched.set(line, (fetched.get(line) ?? 0) + 1);
    expect([...fetched.values()].some((n) => n > 1), outputs()).toBe(true);

    // One process ran the queue at a time (the lease), although two ran most of the time.
    const runs = pollers.flatMap((p) => runsOf(p).map(([s, e]) => ({ n: p.n, s, e })));
    expect(new Set(runs.map((r) => r.n)).size, outputs()).toBeGreaterThan(2);
    for (const x of runs) for (const y of runs) if (x.n < y.n) expect(x.e <= y.s || y.e <= x.s, `runs of pollers ${x.n} and ${y.n} overlap\n${outputs()}`).toBe(true);
    expect(kills, outputs()).toHaveLength(modes.length);
    if (process.env.CRASH_DEBUG) console.log(outputs());
    for (const p of alive()) kill(p, "at the end");
  }, 240_000);

  it("takes over the work of an instance stopped (SIGSTOP) past its lease as it fetched a document; resumed, that one stores nothing twice and stops", async () => {
    const { store } = opened;
    for (const p of alive()) kill(p, "before");
    const c = sampleCompany({ name: "Gamma GmbH", country: "DE", legalEntityId: "4242" });
    const keyId = randomUUID();
    await store.createAccount({
      account: { id: randomUUID(), email: `${keyId}@example.com`, companyId: c.id, createdAt: c.createdAt },
      company: c,
      apiKey: { id: keyId, companyId: c.id, prefix: `einv_${keyId.slice(0, 8)}`, hash: "ab".repeat(32), createdAt: c.createdAt, lastUsedAt: null, revokedAt: null },
    });
    const webhook = { id: randomUUID(), companyId: c.id, url: "https://hooks.example.com/einvoice", events: ["invoice.received" as const], secret: "s".repeat(32), createdAt: new Date().toISOString(), deletedAt: null };
    expect(await store.insertWebhook(webhook)).toBe(true);
    const contents = new Map<string, string>();
    for (let i = 0; i < 20; i++) {
      const xml = ubl(`C-${i}`, String(20_000_000 + (i % 2)));
      const { instanceGuid, documentGuid } = fake.inbound.receive(4242, xml);
      expected.set(instanceGuid, { ref: `storecove:${documentGuid}`, companyId: c.id });
      contents.set(documentGuid, xml);
    }
    total += 20;
    const start = acknowledged();
    const outputs = () => `kills ${kills.join(", ")}\n${pollers.map((p) => `--- poller ${p.n}\n${p.output()}`).join("\n")}`;

    plan = { mode: "pause", after: start + 3, delayMs: 0 };
    await Promise.all([startPoller(), startPoller()]);
    const stopped = await until("a poller stopped as it fetches a document", () => paused ?? undefined);
    // The other takes the queue over once the stopped one's lease expired, and goes on.
    await until("the queue taken over", () => (acknowledged() >= stopped.at + 5 ? true : undefined)).catch((e: Error) => Promise.reject(new Error(`${e.message}\n${outputs()}`)));
    stopped.p.child.kill("SIGCONT");
    await until("the queue to be drained", () => (fake.inbound.queue.length === 0 ? true : undefined));
    // Resumed, it finds its lease lost (at its next renewal, or at its run's end) and stops.
    await until("the resumed poller to see its lease lost", () => (/lost its lease|lease was lost/.test(stopped.p.output()) ? true : undefined), 30_000).catch((e: Error) =>
      Promise.reject(new Error(`${e.message}\n${outputs()}`)),
    );
    expect(violations, outputs()).toEqual([]);

    const page = await store.listInvoices(c.id, { limit: 200, after: null, status: null, clientId: null, direction: "inbound" });
    const refs = page.map((r) => (r.inbound!.networkReference as { storecoveGuid: string }).storecoveGuid);
    expect([...refs].sort(), outputs()).toEqual([...contents.keys()].sort());
    for (const r of page) expect(Buffer.from((await store.getDocument(c.id, r.id))!).toString("utf8")).toBe(contents.get((r.inbound!.networkReference as { storecoveGuid: string }).storecoveGuid));
    const events = await store.listWebhookEvents(c.id, webhook.id, 500);
    expect(events.map((e) => JSON.parse(e.data).invoice.id as string).sort()).toEqual(page.map((r) => r.id).sort());
    const suppliers = await store.listSuppliers(c.id, { limit: 100, after: null });
    expect(suppliers.reduce((sum, x) => sum + x.invoiceCount, 0)).toBe(20);
    // The document it was fetching when it was stopped was fetched again by the other.
    const fetched = fake.inbound.log.filter((l) => l.startsWith("GET doc ") && contents.has(l.slice("GET doc ".length)));
    expect(fetched.length).toBeGreaterThan(new Set(fetched).size);
    for (const p of alive()) kill(p, "at the end");
  }, 240_000);
});
