// A request while the database is away is a 503 storage_unavailable with Retry-After (not a 500), and
// stores nothing; once the database is back the same request is taken as new. In-process, over HTTP.
import { randomBytes, randomUUID } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import type { Store } from "@einvoice/core";
import pg from "pg";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { b64, invoiceXml } from "../../core/test/support/ubl.js";
import { fromPGlite, postgresStore } from "../../postgres/src/index.js";
import { openStore } from "../../../examples/server/src/store.js";
import { startTcpProxy } from "../../../examples/server/test/support/tcp-proxy.js";
import { answers, eligibleAccount, makeApp } from "./support/app.js";
import { undocumentedAnswers } from "./support/openapi-check.js";

afterAll(() => {
  expect(undocumentedAnswers(answers)).toEqual([]);
});

const DATABASE_URL = process.env.DATABASE_URL;
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
const body = () => ({ xml: b64(invoiceXml({ id: `INV-${randomUUID()}` })) });

/** The app on `store`, an eligible company, and the requests a client makes. */
async function clientOf(store: Store) {
  const logs: Array<{ obj: Record<string, unknown>; msg: string }> = [];
  const { app } = makeApp({ store, logger: { error: (obj, msg) => logs.push({ obj, msg }) } });
  const { apiKey } = await eligibleAccount(app);
  return {
    logs,
    submit: (b: unknown, key?: string) => {
      const r = request(app).post("/v1/peppol/invoice").set(bearer(apiKey));
      return (key ? r.set("Idempotency-Key", key) : r).send(b as object);
    },
    list: () => request(app).get("/v1/invoices?limit=100").set(bearer(apiKey)),
    read: (id: string) => request(app).get(`/v1/invoices/${id}`).set(bearer(apiKey)),
    validate: (b: unknown) => request(app).post("/v1/validate").set(bearer(apiKey)).send(b as object),
  };
}

/** Every answer is 503 storage_unavailable with a Retry-After of a few seconds. */
function expectUnavailable(r: request.Response) {
  expect([r.status, r.body, r.headers["retry-after"]]).toEqual([503, { code: "storage_unavailable", message: expect.stringMatching(/retry/i) }, "5"]);
}

describe("the embedded store (PGlite) closed", () => {
  it("submit, reads and validate answer 503 storage_unavailable with Retry-After, logged once each without the cause's message", async () => {
    const pglite = await PGlite.create();
    const c = await clientOf(await postgresStore({ db: fromPGlite(pglite), schema: "away" }));
    const first = await c.submit(body());
    expect(first.body.data.status).toBe("sending");
    await pglite.close();
    const before = c.logs.length;
    expectUnavailable(await c.submit(body()));
    expectUnavailable(await c.submit(body(), randomUUID()));
    expectUnavailable(await c.list());
    expectUnavailable(await c.read(first.body.data.submissionId));
    expectUnavailable(await c.validate(body()));
    const logged = c.logs.slice(before);
    expect(logged).toHaveLength(5);
    for (const l of logged) expect(l.obj).toMatchObject({ code: "storage_unavailable", cause: "DbError" });
  });
});

describe.skipIf(!DATABASE_URL)("a PostgreSQL server that goes away (DATABASE_URL, through a proxy that is cut)", () => {
  const url = new URL(DATABASE_URL ?? "postgres://x@127.0.0.1:5432/x");
  const schema = `einvoice_away_${randomBytes(5).toString("hex")}`;
  afterAll(async () => {
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  it("answers 503 storage_unavailable with Retry-After while it is away, stores nothing, and takes the same submission once it is back", async () => {
    const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    const through = new URL(DATABASE_URL!);
    through.hostname = "127.0.0.1";
    through.port = String(proxy.port);
    const opened = await openStore({ dataDir: "", databaseUrl: through.toString(), schema });
    try {
      const c = await clientOf(opened.store);
      const first = await c.submit(body());
      expect(first.body.data.status).toBe("sending");
      proxy.cut();
      const payload = body();
      expectUnavailable(await c.submit(payload));
      expectUnavailable(await c.submit(payload, "retry-me"));
      expectUnavailable(await c.list());
      expectUnavailable(await c.read(first.body.data.submissionId));
      expectUnavailable(await c.validate(payload));
      proxy.restore();
      // Nothing was half-stored: the same bytes are a new submission, not a duplicate.
      const again = await c.submit(payload);
      expect(again.body.data).toMatchObject({ status: "sending", success: true });
      expect((await c.list()).body.data).toHaveLength(2);
    } finally {
      await opened.close();
      await proxy.close();
    }
  });
});
