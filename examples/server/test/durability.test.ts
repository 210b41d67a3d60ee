// Kill -9 loses nothing accepted; several servers on one database behave as one service;
// a SIGKILL during delivery still gives exactly one delivery per submission, counted at the network.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeStorecove } from "../../../packages/storecove/test/support/fake-storecove.js";
import { eligibleAccount, invoiceB64, waitFor } from "./support/helpers.js";
import { json, startServer } from "./support/server-process.js";
import { seedDataDir } from "./support/pglite-template.js";
import { tempDir } from "./support/server-suite.js";

const ADMIN = "durability-test-admin-token";
const DATABASE_URL = process.env.DATABASE_URL;

/** Fires `n` distinct submissions at once, kills the server with SIGKILL while they are under way, and returns those answered `sending`. */
async function burstThenKill(server: Awaited<ReturnType<typeof startServer>>, apiKey: string, n: number) {
  const accepted: Array<{ id: string; xml: string }> = [];
  let answered = 0;
  const requests = Array.from({ length: n }, (_, i) => {
    const xml = invoiceB64(`BURST-${randomUUID()}`, `BUYER${i}`);
    return json(server.base, "POST", "/v1/peppol/invoice", { xml }, apiKey)
      .then((r) => {
        answered++;
        if (r.status === 200 && r.body.data.status === "sending") accepted.push({ id: r.body.data.submissionId, xml });
      })
      .catch(() => undefined); // cut off by the kill
  });
  await waitFor("a part of the burst to be answered", async () => (answered >= n / 4 ? true : undefined), 30_000, 5);
  await server.kill();
  await Promise.all(requests);
  return accepted;
}

async function expectAllKept(base: string, apiKey: string, accepted: Array<{ id: string; xml: string }>) {
  expect((await json(base, "GET", "/v1/company", undefined, apiKey)).status).toBe(200); // the key survived
  for (const { id, xml } of accepted) {
    const got = await json(base, "GET", `/v1/invoices/${id}`, undefined, apiKey);
    expect(got.status).toBe(200);
    const again = await json(base, "POST", "/v1/peppol/invoice", { xml }, apiKey);
    expect(again.body.data).toMatchObject({ status: "failed", errorMessage: expect.stringContaining(id) });
  }
}

/** Bursts submissions at a server, kills it with SIGKILL, restarts it on the same store, checks nothing accepted was lost. */
async function killRestartAndCheck(env: Record<string, string | undefined>): Promise<void> {
  const first = await startServer(env);
  const { apiKey } = await eligibleAccount(first.base, ADMIN);
  const accepted = await burstThenKill(first, apiKey, 60);
  expect(accepted.length).toBeGreaterThan(0);
  const second = await startServer(env);
  try {
    await expectAllKept(second.base, apiKey, accepted);
  } finally {
    await second.kill();
  }
}

describe("kill -9 on the embedded store (PGlite)", () => {
  const dataDir = tempDir("crash");
  beforeAll(() => seedDataDir(dataDir)); // made and migrated, as after a first start (support/pglite-template.ts)

  it("keeps every submission answered sending, the API key and the duplicate rule", () =>
    killRestartAndCheck({ DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, DATABASE_URL: undefined, DISPATCHER: "off" }), 120_000);
});

describe.skipIf(!DATABASE_URL)("on a PostgreSQL server (DATABASE_URL)", () => {
  const schema = `einvoice_e2e_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const env = { DATABASE_URL, DATABASE_SCHEMA: schema, ADMIN_TOKEN: ADMIN, DISPATCHER: "off" };
  afterAll(async () => {
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  });

  it("kill -9 keeps every submission answered sending, the API key and the duplicate rule", () => killRestartAndCheck(env), 120_000);

  it("two servers on one database accept exactly one of 50 parallel identical submissions", async () => {
    const [a, b] = await Promise.all([startServer(env), startServer(env)]);
    try {
      const { apiKey } = await eligibleAccount(a.base, ADMIN);
      expect((await json(b.base, "GET", "/v1/company", undefined, apiKey)).status).toBe(200); // one service
      const xml = invoiceB64(`TWIN-${randomUUID()}`);
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => json(i % 2 ? a.base : b.base, "POST", "/v1/peppol/invoice", { xml }, apiKey)),
      );
      expect(answers.every((r) => r.status === 200)).toBe(true);
      const sending = answers.filter((r) => r.body.data.status === "sending");
      expect(sending).toHaveLength(1);
      const winner = sending[0]!.body.data.submissionId;
      for (const r of answers.filter((x) => x.body.data.status === "failed")) expect(r.body.data.errorMessage).toContain(winner);
    } finally {
      await Promise.all([a.kill(), b.kill()]);
    }
  }, 120_000);
});

describe("kill -9 during delivery", () => {
  const dataDir = tempDir("sendkill");
  beforeAll(() => seedDataDir(dataDir)); // made and migrated, as after a first start (support/pglite-template.ts)

  it("delivers each submission exactly once after the restart, counted at the access point", async () => {
    const ap = await startFakeStorecove({ delayMs: 3000 });
    const env = {
      DATA_DIR: dataDir,
      ADMIN_TOKEN: ADMIN,
      DATABASE_URL: undefined,
      STORECOVE_URL: ap.baseUrl,
      STORECOVE_API_KEY: ap.apiKey,
      DISPATCH_LEASE_MS: "2000",
    };
    try {
      const first = await startServer(env);
      const { apiKey } = await eligibleAccount(first.base, ADMIN);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await json(first.base, "POST", "/v1/peppol/invoice", { xml: invoiceB64(`SEND-${i}-${randomUUID()}`, `B${i}`) }, apiKey);
        ids.push(r.body.data.submissionId);
      }
      // The dispatcher has sent them; the access point is still answering some: kill the server now.
      await waitFor("sends in flight", async () => (ap.requests.length >= 5 ? true : undefined), 20_000, 10);
      const inFlightAtKill = ap.requests.length - ap.accepted.size;
      await first.kill();
      expect(inFlightAtKill).toBeGreaterThan(0);

      const second = await startServer(env);
      try {
        for (const id of ids) {
          const inv = await waitFor(`${id} delivered`, async () => {
            const r = await json(second.base, "GET", `/v1/invoices/${id}`, undefined, apiKey);
            return r.body.data.status === "delivered" ? r.body.data : undefined;
          }, 30_000, 200);
          const detail: string = inv.events.at(-1).detail;
          expect(detail).toMatch(/same idempotencyGuid|Storecove transmitted it/);
          // A transmission the adapter saw through keeps Storecove's evidence; a replay's answer names no submission, so it has none.
          const evidence = await json(second.base, "GET", `/v1/invoices/${id}/evidence`, undefined, apiKey);
          if (detail.includes("transmitted")) expect(evidence.body.data).toMatchObject({ kind: "storecove", reference: `tx-${ap.accepted.get(id)!.guid}` });
          else expect(evidence.body.code).toBe("evidence_not_available");
        }
        expect([...ap.accepted.keys()].sort()).toEqual([...ids].sort());
        // The sends cut off by the kill were made again after the restart, with the same idempotencyGuid.
        expect(ap.requests.length).toBeGreaterThanOrEqual(5 + inFlightAtKill);
      } finally {
        await second.kill();
      }
    } finally {
      await ap.close();
    }
  }, 120_000);
});
