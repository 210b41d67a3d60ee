// Kill the dispatcher mid-session: nothing is sent twice, nothing is lost. A dispatcher process
// (support/dispatcher-process.ts) on a PostgreSQL store sends a KSeF invoice to the fake KSeF, which
// holds the status at 150; the process is killed with SIGKILL once the fake has received the invoice,
// a new process takes the submission over from the store, and the invoice ends delivered with the
// UPO, the fake having received exactly one invoice.
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { sampleCompany, sampleInvoiceRecord } from "@einvoice/core/testing";
import { openPostgresStore, type OpenedPostgresStore } from "@einvoice/postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeKsef, type FakeKsef } from "./support/fake-ksef.js";
import { ublInvoice } from "./support/ubl.js";

const DATABASE_URL = process.env.DATABASE_URL;
const NIP = "5260250995";
const TOKEN = "20261122-EC-0123456789-ABCDEF0123-45|nip-5260250995|0123456789abcdef";
const here = dirname(fileURLToPath(import.meta.url));

async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!DATABASE_URL)("kill the dispatcher mid-session (ksefNetwork on PostgreSQL)", () => {
  const schema = `einvoice_ksef_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  let opened: OpenedPostgresStore;
  let fake: FakeKsef;
  const children = new Set<ChildProcess>();

  beforeAll(async () => {
    opened = await openPostgresStore({ databaseUrl: DATABASE_URL!, schema });
    fake = await startFakeKsef({ nip: NIP, token: TOKEN });
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    await fake?.close();
    await opened?.close();
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  });

  async function startDispatcher(): Promise<{ child: ChildProcess; output: () => string }> {
    const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", join(here, "support/dispatcher-process.ts")], {
      cwd: join(here, ".."),
      env: { ...process.env, DATABASE_URL, DATABASE_SCHEMA: schema, KSEF_URL: fake.url, KSEF_NIP: NIP, KSEF_TOKEN: TOKEN },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.add(child);
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    await until("the dispatcher process to start", () => (out.includes("ready") ? true : child.exitCode !== null ? Promise.reject(new Error(out)) : undefined), 90_000);
    return { child, output: () => out };
  }

  it("nothing is sent twice, nothing is lost: one invoice reaches KSeF and the submission ends delivered with its UPO", async () => {
    const { store } = opened;
    const company = sampleCompany({ name: "Dostawca Sp. z o.o.", country: "PL", legalEntityId: "1" });
    const keyId = randomUUID();
    await store.createAccount({
      account: { id: randomUUID(), email: `${keyId}@example.com`, companyId: company.id, createdAt: company.createdAt },
      company,
      apiKey: { id: keyId, companyId: company.id, prefix: `einv_${keyId.slice(0, 8)}`, hash: "ab".repeat(32), createdAt: company.createdAt, lastUsedAt: null, revokedAt: null },
    });
    const { xml } = ublInvoice({ id: `FV/${randomUUID().slice(0, 8)}`, lines: [{ name: "Usługa", quantity: "1", price: "100.00", cat: { id: "S", percent: "23" } }] });
    const invoice = sampleInvoiceRecord(company.id, { network: "ksef", targetNetwork: "ksef", currency: "PLN", recipient: { name: "Nabywca", endpointId: "9945:PL5213017228", vatId: "PL5213017228", country: "PL" } });
    expect((await store.insertSubmission({ invoice, document: new TextEncoder().encode(xml), client: { id: randomUUID(), key: "9945:pl5213017228", endpointId: "9945:PL5213017228", name: "Nabywca", vatId: "PL5213017228", country: "PL" } })).inserted).toBe(true);

    fake.holdStatus();
    const first = await startDispatcher();
    await until("the fake KSeF to receive the invoice", () => (fake.invoicesSent === 1 ? true : undefined));
    first.child.kill("SIGKILL");
    await until("the first dispatcher to die", () => (first.child.signalCode === "SIGKILL" ? true : undefined));
    expect((await store.getInvoice(company.id, invoice.id))?.status).toBe("sending");

    fake.releaseStatus();
    const second = await startDispatcher();
    const done = await until("the submission to be delivered", async () => {
      const r = await store.getInvoice(company.id, invoice.id);
      return r && r.status !== "sending" ? r : undefined;
    });
    expect(done.status, second.output()).toBe("delivered");
    expect(fake.invoicesSent).toBe(1);
    expect(fake.accepted).toHaveLength(1);
    const evidence = await store.getEvidence(company.id, invoice.id);
    expect(evidence).toMatchObject({ kind: "ksef-upo", mediaType: "application/xml", reference: expect.stringMatching(/^5260250995-/), content: expect.stringContaining("<NumerKSeFDokumentu>") });
    expect(done.events.at(-1)?.detail).toContain(`KSeF number ${evidence!.reference}`);
    second.child.kill("SIGKILL");
  }, 180_000);
});
