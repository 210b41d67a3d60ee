// Checks of the SQL store beyond the port's conformance suite, run on PGlite and on a PostgreSQL server.
import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { deflateRawSync } from "node:zlib";
import { ApiError, getInvoice, MAX_IDENTIFIER_LENGTH, submitCreditNote, submitInvoice, tokenCipher, updateCompany, type Store } from "@einvoice/core";
import { sampleCompany, sampleInvoiceRecord } from "@einvoice/core/testing";
import { describe, expect, it } from "vitest";
import { corpusPath } from "../../../../testdata/index.js";
import { eligibleCompany } from "../../../core/test/support/company.js";
import { b64, invoiceXml } from "../../../core/test/support/ubl.js";
import { DbError, MIGRATIONS, SCHEMA_VERSION, migrate, postgresStore, type Db } from "../../src/index.js";
import { INVOICE_WRITE, INVOICES } from "../../src/rows.js";

export interface Harness {
  /** A new connection to the one shared database (a new pool on a server; the same instance for PGlite). */
  connect(): Db;
  /** A fresh, unused schema name. */
  schema(): string;
}

const baseExample = () => new Uint8Array(readFileSync(corpusPath("openpeppol-bis3/examples/base-example.xml")));
const LATER = "2099-01-01T00:00:00.000Z";

const SQL_WORDS = /\b(SELECT|INSERT|UPDATE|DELETE|VALUES|WHERE)\b/;

async function signUp(store: Store) {
  const company = sampleCompany();
  const keyId = randomUUID();
  const r = await store.createAccount({
    account: { id: randomUUID(), email: `${randomUUID()}@example.com`, companyId: company.id, createdAt: company.createdAt },
    company,
    apiKey: { id: keyId, companyId: company.id, prefix: "einv_x", hash: "cd".repeat(32), createdAt: company.createdAt, lastUsedAt: null, revokedAt: null },
  });
  expect(r).toEqual({ created: true });
  return { company, keyId };
}

function accepted(companyId: string, overrides: Parameters<typeof sampleInvoiceRecord>[1] = {}) {
  const invoice = sampleInvoiceRecord(companyId, overrides);
  return {
    invoice,
    document: new TextEncoder().encode("<Invoice/>"),
    client: { id: randomUUID(), key: "0208:0123456789", endpointId: "0208:0123456789", name: "Buyer", vatId: null, country: "BE" },
  };
}

/** Registers the regression tests; `harness` is called in each test (after the suite's beforeAll). */
export function testRegressions(label: string, harness: () => Harness): void {
  /** A migrated store on a fresh schema of its own, with one company signed up. */
  const storeWithCompany = async () => {
    const h = harness();
    const db = h.connect();
    const schema = h.schema();
    const store = await postgresStore({ db, schema });
    const { company } = await signUp(store);
    return { db, schema, store, company };
  };
  describe(`postgres store regressions: ${label}`, () => {
    describe("long identifiers (issue 26, finding 3)", () => {
      const errorOf = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e);

      it("refuses an invoice number, a corrected invoice's number or a buyer endpoint over the limit with a 422 naming it, never a 500; the limit itself is stored", async () => {
        const h = harness();
        const store = await postgresStore({ db: h.connect(), schema: h.schema() });
        const auth = await eligibleCompany(store);
        // Random, so that PostgreSQL cannot compress it: it refused index rows this long (54000), a 500 before.
        const long = randomBytes(3_000).toString("base64url").slice(0, 3_000);
        const e1 = await errorOf(submitInvoice(store, auth, { xml: b64(invoiceXml({ id: long })) }));
        expect(e1).toBeInstanceOf(ApiError);
        expect(e1).toMatchObject({ code: "invalid_ubl_xml", status: 422, message: expect.stringMatching(/invoice number \(BT-1, cbc:ID\) has 3000 characters; einvoice stores identifiers of at most 256/) });
        // Four-byte characters: 256 of them are 1 KiB, within the index row PostgreSQL allows.
        const max = "😀".repeat(MAX_IDENTIFIER_LENGTH);
        const ok = await submitInvoice(store, auth, { xml: b64(invoiceXml({ id: max })) });
        expect(ok).toMatchObject({ success: true, status: "sending" });
        expect((await getInvoice(store, auth, ok.submissionId)).invoiceNumber).toBe(max);

        const endpoint = await errorOf(submitInvoice(store, auth, { xml: b64(invoiceXml({ id: "E-1", scheme: "9930", endpoint: randomBytes(3_000).toString("hex") })) }));
        expect(endpoint).toMatchObject({ code: "invalid_ubl_xml", message: expect.stringMatching(/buyer's electronic address \(BT-49/) });

        const cn = readFileSync(corpusPath("openpeppol-bis3/snippets/Snippet-cn.xml"), "utf8");
        const longCn = cn.replace(/(<cac:InvoiceDocumentReference>\s*<cbc:ID>)[^<]*/, `$1${long}`);
        expect(longCn).not.toBe(cn);
        const e2 = await errorOf(submitCreditNote(store, auth, { xml: b64(longCn), targetNetwork: "peppol" }));
        expect(e2).toMatchObject({ code: "invalid_ubl_xml", status: 422, message: expect.stringMatching(/number of the invoice it corrects \(BT-25/) });
        const longId = cn.replace(/(<\/cbc:CustomizationID>[\s\S]*?<cbc:ID>)[^<]*/, `$1${long}`);
        const e3 = await errorOf(submitCreditNote(store, auth, { xml: b64(longId), targetNetwork: "peppol" }));
        expect(e3).toMatchObject({ code: "invalid_ubl_xml", message: expect.stringMatching(/credit note number \(BT-1, cbc:ID\) has 3000 characters/) });
      });
    });

    describe("migrations", () => {
      it("applies every migration once and is a no-op the second time", async () => {
        const h = harness();
        const db = h.connect();
        const schema = h.schema();
        expect(await migrate(db, { schema })).toEqual({ from: 0, to: SCHEMA_VERSION });
        expect(await migrate(db, { schema })).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
        const { rows } = await db.query<{ version: number }>(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`);
        expect(rows.map((r) => Number(r.version))).toEqual(MIGRATIONS.map((m) => m.version));
      });

      it("lets four connections migrate one fresh schema at once, leaving one row per version", async () => {
        const h = harness();
        const schema = h.schema();
        const dbs = [h.connect(), h.connect(), h.connect(), h.connect()];
        const results = await Promise.all(dbs.map((db) => migrate(db, { schema })));
        // Exactly one of them found the schema empty; the others waited for its lock and found it done.
        expect(results.filter((r) => r.from === 0)).toHaveLength(1);
        expect(results.every((r) => r.to === SCHEMA_VERSION)).toBe(true);
        const { rows } = await dbs[0]!.query<{ version: number; n: string | number }>(
          `SELECT version, count(*)::integer AS n FROM "${schema}".schema_migrations GROUP BY version ORDER BY version`,
        );
        expect(rows.map((r) => [Number(r.version), Number(r.n)])).toEqual(MIGRATIONS.map((m) => [m.version, 1]));
      });

      it("refuses a schema newer than the package, with a message that holds no SQL", async () => {
        const h = harness();
        const db = h.connect();
        const schema = h.schema();
        await migrate(db, { schema });
        await db.query(`INSERT INTO "${schema}".schema_migrations (version, name) VALUES (999, 'from the future')`);
        const error = await postgresStore({ db, schema }).then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(DbError);
        expect((error as Error).message).toMatch(/version 999, newer/);
        expect((error as Error).message).not.toMatch(SQL_WORDS);
      });

      it("refuses a schema name that is not a plain identifier", async () => {
        const h = harness();
        await expect(postgresStore({ db: h.connect(), schema: 'x"; DROP TABLE y; --' })).rejects.toThrow(/invalid schema name/);
      });
    });

    describe("the database keeps the rules", () => {
      it("has a unique partial index: a second active row with the same sha256 is refused, a failed one is not", async () => {
        const { db, schema, store, company } = await storeWithCompany();
        const first = accepted(company.id);
        expect((await store.insertSubmission(first)).inserted).toBe(true);
        const copy = (id: string, status: string) =>
          db.query(
            `INSERT INTO "${schema}".invoices (id, company_id, status, target_network, supplier, recipient, sha256, size, created_at, updated_at, events)
             SELECT $1::uuid, company_id, $2, target_network, supplier, recipient, sha256, size, created_at, updated_at, events
             FROM "${schema}".invoices WHERE id = $3::uuid`,
            [id, status, first.invoice.id],
          );
        const refused = await copy(randomUUID(), "sending").then(
          () => null,
          (e: unknown) => e,
        );
        expect(refused).toBeInstanceOf(DbError);
        expect((refused as DbError).code).toBe("23505");
        expect((refused as DbError).constraint).toBe("invoices_active_sha256_key");
        await expect(copy(randomUUID(), "failed")).resolves.toBeDefined();
      });

      it("lets exactly one of 50 identical submissions through two separate store instances win", async () => {
        const h = harness();
        const schema = h.schema();
        const a = await postgresStore({ db: h.connect(), schema });
        const b = await postgresStore({ db: h.connect(), schema });
        const { company } = await signUp(a);
        const sha256 = "e".repeat(64);
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).insertSubmission(accepted(company.id, { sha256 }))),
        );
        const winners = results.flatMap((r) => (r.inserted ? [r.invoice] : []));
        expect(winners).toHaveLength(1);
        for (const r of results) if (!r.inserted) expect(r.duplicateOf).toBe(winners[0]!.id);
        const listed = await b.listInvoices(company.id, { limit: 100, after: null, status: null, clientId: null });
        expect(listed.map((r) => r.id)).toEqual([winners[0]!.id]);
        const clients = await a.listClients(company.id, { limit: 10, after: null });
        expect(clients.map((c) => c.invoiceCount)).toEqual([1]);
        // The losers' client upserts and documents went with their refused invoices.
        const { rows } = await h
          .connect()
          .query<{ n: number }>(`SELECT count(*)::integer AS n FROM "${schema}".documents WHERE company_id = $1::uuid`, [company.id]);
        expect(rows).toEqual([{ n: 1 }]);
      });

      it("keeps the number rule of documents built from data (migration 14): of two concurrent submits of one number through two store instances, exactly one is accepted", async () => {
        const h = harness();
        const schema = h.schema();
        const a = await postgresStore({ db: h.connect(), schema });
        const b = await postgresStore({ db: h.connect(), schema });
        const auth = await eligibleCompany(a);
        const data = JSON.parse(readFileSync(new URL("../../../../examples/invoice.json", import.meta.url), "utf8")) as Record<string, unknown>;
        for (let round = 0; round < 5; round++) {
          const number = `RACE-${round}`;
          // The same number, different bytes: the sha256 rule cannot tell them apart, the number rule must.
          const [x, y] = await Promise.all([
            submitInvoice(a, auth, { invoice: { ...data, number, notes: ["first"] } as never, targetNetwork: "peppol" }),
            submitInvoice(b, auth, { invoice: { ...data, number, notes: ["second"] } as never, targetNetwork: "peppol" }),
          ]);
          expect([x.status, y.status].sort()).toEqual(["failed", "sending"]);
          const [winner, loser] = x.status === "sending" ? [x, y] : [y, x];
          expect(loser.errorMessage).toContain(`Duplicate invoice number: "${number}"`);
          expect(loser.errorMessage).toContain(winner.submissionId);
          expect((await getInvoice(a, auth, loser.submissionId)).duplicateOf).toBe(winner.submissionId);
        }
        const { rows } = await h
          .connect()
          .query<{ n: number }>(`SELECT count(*)::integer AS n FROM "${schema}".invoices WHERE company_id = $1::uuid AND status <> 'failed'`, [auth.companyId]);
        expect(rows).toEqual([{ n: 5 }]);
      });

      it("has a unique partial index on the number of active documents built from data, which an xml row does not enter", async () => {
        const { db, schema, store, company } = await storeWithCompany();
        const first = accepted(company.id, { invoiceNumber: "N-1", fromData: true });
        expect((await store.insertSubmission(first)).inserted).toBe(true);
        const copy = (status: string, fromData: boolean) =>
          db.query(
            `INSERT INTO "${schema}".invoices (id, company_id, status, target_network, invoice_number, document_type, from_data, supplier, recipient, sha256, size, created_at, updated_at, events)
             SELECT $1::uuid, company_id, $2, target_network, invoice_number, document_type, $3, supplier, recipient, $4, size, created_at, updated_at, events
             FROM "${schema}".invoices WHERE id = $5::uuid`,
            [randomUUID(), status, fromData, randomUUID(), first.invoice.id],
          );
        const refused = await copy("sending", true).then(
          () => null,
          (e: unknown) => e,
        );
        expect(refused).toBeInstanceOf(DbError);
        expect((refused as DbError).constraint).toBe("invoices_active_number_key");
        await expect(copy("failed", true)).resolves.toBeDefined();
        await expect(copy("sending", false)).resolves.toBeDefined();
      });

      it("keeps the document's bytes for a sending submission", async () => {
        const { db, schema, store, company } = await storeWithCompany();
        const bytes = new Uint8Array([0, 1, 2, 254, 255, 60, 62]);
        // A view into a larger buffer: only its own bytes must be stored.
        const view = new Uint8Array([9, 9, ...bytes, 9]).subarray(2, 2 + bytes.length);
        const sub = { ...accepted(company.id), document: view };
        await store.insertSubmission(sub);
        const { rows } = await db.query<{ hex: string; company_id: string }>(
          `SELECT encode(content, 'hex') AS hex, company_id::text AS company_id FROM "${schema}".documents WHERE invoice_id = $1::uuid`,
          [sub.invoice.id],
        );
        expect(rows).toEqual([{ hex: Buffer.from(bytes).toString("hex"), company_id: company.id }]);
      });
    });

    describe("documents", () => {
      async function claimOne(store: Awaited<ReturnType<typeof postgresStore>>) {
        // Leased past LATER: a second call claims only what came in since.
        const jobs = await store.claimDeliveries({ owner: "test", now: LATER, leaseUntil: "2100-01-01T00:00:00.000Z", limit: 10 });
        expect(jobs).toHaveLength(1);
        return jobs[0]!;
      }
      const storedForm = async (db: Db, schema: string, id: string) =>
        (
          await db.query<{ encoding: string; length: number }>(
            `SELECT content_encoding AS encoding, octet_length(content) AS length FROM "${schema}".documents WHERE invoice_id = $1::uuid`,
            [id],
          )
        ).rows[0];

      /**
       * Whether the server can compress with lz4, asked of the server itself (not through the store):
       * a server built with it takes the setting, PGlite (no lz4 in its WebAssembly build) refuses it.
       */
      const serverHasLz4 = (db: Db) =>
        db
          .transaction(async (tx) => {
            await tx.query("SET LOCAL default_toast_compression = 'lz4'");
            return true;
          })
          .catch((e: unknown) => {
            expect((e as DbError).code).toBe("22023");
            return false;
          });
      const compressionOf = async (db: Db, schema: string, id: string) =>
        (
          await db.query<{ method: string | null; stored: number }>(
            `SELECT pg_column_compression(content) AS method, pg_column_size(content) AS stored FROM "${schema}".documents WHERE invoice_id = $1::uuid`,
            [id],
          )
        ).rows[0]!;
      const toastRows = async (db: Db, schema: string) => {
        const { rows } = await db.query<{ toast: string }>(
          `SELECT reltoastrelid::regclass::text AS toast FROM pg_class WHERE oid = '"${schema}".documents'::regclass`,
        );
        return (await db.query<{ n: number }>(`SELECT count(*)::integer AS n FROM ${rows[0]!.toast}`)).rows[0]!.n;
      };

      it("keeps a UBL invoice compressed in its own row (by the server with lz4 where it has it, else deflated by the store) and gives the dispatcher its exact bytes", async () => {
        const { db, schema, store, company } = await storeWithCompany();
        const xml = baseExample();
        const sub = { ...accepted(company.id), document: xml };
        await store.insertSubmission(sub);
        const form = await storedForm(db, schema, sub.invoice.id);
        const { method, stored } = await compressionOf(db, schema, sub.invoice.id);
        if (await serverHasLz4(db)) {
          // The bytes as they came, compressed by the server: 9,234 bytes in about 3,200.
          expect(form).toEqual({ encoding: "identity", length: xml.length });
          expect(method).toBe("lz4");
          expect(Number(stored)).toBeLessThan(xml.length / 2);
        } else {
          expect(form?.encoding).toBe("deflate");
          expect(Number(form?.length)).toBeLessThan(xml.length / 4);
          expect(method).toBeNull();
        }
        // Either way in the table's own page, out of the TOAST table: one row per document write.
        expect(await toastRows(db, schema)).toBe(0);
        const job = await claimOne(store);
        expect(Buffer.from(job.document).equals(Buffer.from(xml))).toBe(true);
      });

      it("keeps bytes that do not shrink as they are, and round-trips a 600 KiB document compressed (deflated by the store off the event loop, or by the server)", async () => {
        const { db, schema, store, company } = await storeWithCompany();
        const lz4 = await serverHasLz4(db);
        const noise = new Uint8Array(randomBytes(4096));
        const a = { ...accepted(company.id, { sha256: "a".repeat(64) }), document: noise };
        await store.insertSubmission(a);
        expect(await storedForm(db, schema, a.invoice.id)).toEqual({ encoding: "identity", length: 4096 });
        expect((await compressionOf(db, schema, a.invoice.id)).method).toBeNull();
        expect(Buffer.from((await claimOne(store)).document).equals(Buffer.from(noise))).toBe(true);

        // Past the store's inline limit (64 KiB): deflated and inflated on libuv's thread pool, or compressed by the server.
        const xml = baseExample();
        const large = new Uint8Array(Buffer.concat(Array.from({ length: 65 }, () => xml)));
        const b = { ...accepted(company.id, { sha256: "b".repeat(64) }), document: large };
        await store.insertSubmission(b);
        const form = await storedForm(db, schema, b.invoice.id);
        const { method, stored } = await compressionOf(db, schema, b.invoice.id);
        if (lz4) {
          expect(form).toEqual({ encoding: "identity", length: large.length });
          expect(method).toBe("lz4");
          expect(Number(stored)).toBeLessThan(large.length / 4);
        } else {
          expect(form?.encoding).toBe("deflate");
          expect(Number(form?.length)).toBeGreaterThan(16 * 1024);
          expect(Number(form?.length)).toBeLessThan(large.length / 4);
        }
        expect(Buffer.from((await claimOne(store)).document).equals(Buffer.from(large))).toBe(true);
      });

      it("opens with migrate: false before its tables exist, and once migrated writes documents compressed as the column says", async () => {
        const h = harness();
        const db = h.connect();
        const schema = h.schema();
        // A deploy that runs the migrations in a step of its own: the store may come up first.
        const store = await postgresStore({ db, schema, migrate: false });
        await migrate(db, { schema });
        const { company } = await signUp(store);
        const xml = baseExample();
        const sub = { ...accepted(company.id), document: xml };
        await store.insertSubmission(sub);
        expect((await storedForm(db, schema, sub.invoice.id))?.encoding).toBe((await serverHasLz4(db)) ? "identity" : "deflate");
        const back = await store.getDocument(company.id, sub.invoice.id);
        expect(back && Buffer.from(back).equals(Buffer.from(xml))).toBe(true);
      });

      it("keeps every byte value exactly on both writes (an accepted submission's statement and a failed one's transaction), from a view into a larger buffer", async () => {
        const { store, company } = await storeWithCompany();
        const all = Uint8Array.from({ length: 512 }, (_, i) => (i * 7) & 255);
        const view = new Uint8Array([1, 2, 3, ...all, 4]).subarray(3, 3 + all.length);
        const ok = { ...accepted(company.id, { sha256: "c".repeat(64) }), document: view };
        const failed = { ...accepted(company.id, { sha256: "d".repeat(64), status: "failed", errorMessage: "refused" }), document: view, client: null };
        await store.insertSubmission(ok);
        await store.insertSubmission(failed);
        for (const sub of [ok, failed]) {
          const back = await store.getDocument(company.id, sub.invoice.id);
          expect(back && Buffer.from(back).equals(Buffer.from(all))).toBe(true);
        }
      });

      it("keeps the previous version's call of insert_accepted (the document as untyped hex text) writing during a rolling upgrade", async () => {
        const { db, schema, store, company } = await storeWithCompany();
        const { invoice } = accepted(company.id, { sha256: "e".repeat(64) });
        const xml = baseExample();
        // As a store of schema version 16 sent it: every parameter untyped, the document deflated, as hex text.
        const params = [...INVOICES.params(invoice, INVOICE_WRITE), null, null, null, null, null, null, deflateRawSync(xml).toString("hex"), "deflate"];
        const placeholders = params.map((_, i) => `$${i + 1}`).join(", ");
        await db.query(`SELECT "${schema}".insert_accepted(${placeholders})::text AS client_id`, params);
        expect((await storedForm(db, schema, invoice.id))?.encoding).toBe("deflate");
        const back = await store.getDocument(company.id, invoice.id);
        expect(back && Buffer.from(back).equals(Buffer.from(xml))).toBe(true);
      });

      it("reads documents written before migration 4, as they were, after the upgrade", async () => {
        const h = harness();
        const db = h.connect();
        const schema = h.schema();
        const s = `"${schema}"`;
        await db.query(`CREATE SCHEMA ${s}`);
        await db.query(`CREATE TABLE ${s}.schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
        for (const m of MIGRATIONS.filter((m) => m.version <= 3)) {
          for (const statement of m.statements(s)) await db.query(statement);
          await db.query(`INSERT INTO ${s}.schema_migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
        }
        // A version-3 store's rows: a company, a sending invoice due now, its document as plain bytes.
        const company = sampleCompany();
        const invoice = sampleInvoiceRecord(company.id);
        await db.query(
          `INSERT INTO ${s}.companies (id, name, country, enterprise, subscription, legal_entity_id, peppol_sending_enabled, created_at, updated_at)
           VALUES ($1::uuid, 'Old BV', 'NL', true, 'pro', NULL, true, $2::timestamptz, $2::timestamptz)`,
          [company.id, company.createdAt],
        );
        await db.query(
          `INSERT INTO ${s}.invoices (id, company_id, status, target_network, supplier, recipient, sha256, size, created_at, updated_at, events, next_attempt_at)
           VALUES ($1::uuid, $2::uuid, 'sending', 'auto', '{}'::jsonb, '{}'::jsonb, $3, 7, $4::timestamptz, $4::timestamptz, '[]'::jsonb, $4::timestamptz)`,
          [invoice.id, company.id, invoice.sha256, invoice.createdAt],
        );
        await db.query(`INSERT INTO ${s}.documents (invoice_id, company_id, content) VALUES ($1::uuid, $2::uuid, '\\x3c612f3e0a'::bytea)`, [
          invoice.id,
          company.id,
        ]);
        const store = await postgresStore({ db, schema });
        expect(await storedForm(db, schema, invoice.id)).toEqual({ encoding: "identity", length: 5 });
        expect(Buffer.from((await claimOne(store)).document).toString()).toBe("<a/>\n");
      });

      it("refuses a stored document that is not what its encoding says with a DbError that quotes none of it", async () => {
        const { db, schema, store, company } = await storeWithCompany();
        const sub = accepted(company.id);
        await store.insertSubmission(sub);
        await db.query(`UPDATE "${schema}".documents SET content = '\\xdeadbeef'::bytea, content_encoding = 'deflate' WHERE invoice_id = $1::uuid`, [
          sub.invoice.id,
        ]);
        const error = await store.claimDeliveries({ owner: "test", now: LATER, leaseUntil: LATER, limit: 10 }).then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(DbError);
        expect((error as Error).message).toBe("a stored document is not valid DEFLATE data");
      });
    });

    describe("values round trip exactly", () => {
      it("keeps amounts as the strings they were, and timestamps to the millisecond in UTC", async () => {
        const h = harness();
        const store = await postgresStore({ db: h.connect(), schema: h.schema() });
        const { company } = await signUp(store);
        const totals = { taxExclusive: "12345678901234567890.123456789", taxInclusive: "-0.00", payable: "1E+3" };
        const sub = accepted(company.id, {
          totals,
          createdAt: "2026-12-31T23:59:59.999Z",
          updatedAt: "2027-01-01T00:00:00.000Z",
          events: [
            { status: "sending", at: "2026-12-31T23:59:59.999Z", detail: "Accepted: ünïcødé, \"quotes\", <xml> & \\ backslash" },
          ],
          invoiceNumber: "  INV 1 ",
          issueDate: "not-a-date",
        });
        const r = await store.insertSubmission(sub);
        expect(r.inserted).toBe(true);
        const back = await store.getInvoice(company.id, sub.invoice.id);
        expect(back).toEqual({ ...sub.invoice, clientId: sub.client.id });
        expect(back?.totals).toStrictEqual(totals);
        // The keyset compares times in the database: the exact millisecond is "not after" itself.
        const after = { at: "2026-12-31T23:59:59.999Z", id: sub.invoice.id };
        expect(await store.listInvoices(company.id, { limit: 10, after, status: null, clientId: null })).toEqual([]);
        const before = { at: "2027-01-01T00:00:00.000Z", id: sub.invoice.id };
        expect((await store.listInvoices(company.id, { limit: 10, after: before, status: null, clientId: null })).map((i) => i.id)).toEqual([
          sub.invoice.id,
        ]);
      });

      it("keeps a company's nullable fields and booleans", async () => {
        const h = harness();
        const store = await postgresStore({ db: h.connect(), schema: h.schema() });
        const { company } = await signUp(store);
        const updated = await store.updateCompany(company.id, {
          enterprise: true,
          subscription: "pro",
          legalEntityId: "LE-42",
          peppolSendingEnabled: true,
          country: "BE",
          updatedAt: "2026-05-06T07:08:09.010Z",
        });
        const expected = { ...company, enterprise: true, subscription: "pro", legalEntityId: "LE-42", peppolSendingEnabled: true, country: "BE", updatedAt: "2026-05-06T07:08:09.010Z" };
        expect(updated).toEqual(expected);
        expect(await store.getCompany(company.id)).toEqual(expected);
        // Fields that are not columns of a company (id, createdAt) are not changed by a patch.
        const untouched = await store.updateCompany(company.id, { id: randomUUID(), createdAt: "2030-01-01T00:00:00.000Z" } as never);
        expect(untouched).toEqual(expected);
      });
    });

    describe("KSeF credentials", () => {
      it("keep the token only encrypted in the row, and refuse half a credential", async () => {
        const { db, schema, store, company } = await storeWithCompany();
        const token = `secret-ksef-token-${randomUUID()}`;
        await updateCompany(store, company.id, { ksef: { nip: "5260250995", token } }, { tokenCipher: tokenCipher(randomBytes(32)) });
        const { rows } = await db.query(`SELECT * FROM "${schema}".companies WHERE id = $1::uuid`, [company.id]);
        expect(rows).toHaveLength(1);
        expect(JSON.stringify(rows[0])).not.toContain(token);
        expect(rows[0]).toMatchObject({ ksef_nip: "5260250995", ksef_token_ciphertext: expect.stringMatching(/^v1\./) });
        await expect(db.query(`UPDATE "${schema}".companies SET ksef_token_ciphertext = NULL WHERE id = $1::uuid`, [company.id])).rejects.toThrow(/companies_ksef_whole/);
      });
    });

    describe("inputs that name no row", () => {
      it("answers null, false or [] for ids that are not lower-case UUIDs and for impossible keysets", async () => {
        const h = harness();
        const store = await postgresStore({ db: h.connect(), schema: h.schema() });
        const { company, keyId } = await signUp(store);
        const sub = accepted(company.id);
        await store.insertSubmission(sub);
        expect(await store.getApiKey(keyId)).not.toBeNull();
        expect(await store.getApiKey(keyId.toUpperCase())).toBeNull();
        expect(await store.getApiKey("not-a-uuid")).toBeNull();
        expect(await store.getCompany("'; --")).toBeNull();
        expect(await store.getInvoice(company.id, sub.invoice.id.toUpperCase())).toBeNull();
        expect(await store.revokeApiKey(company.id, "nope", "2026-01-01T00:00:00.000Z")).toBe("not_found");
        await expect(store.touchApiKey("nope", "2026-01-01T00:00:00.000Z")).resolves.toBeUndefined();
        expect(await store.listInvoices(company.id, { limit: 10, after: null, status: null, clientId: "nope" })).toEqual([]);
        expect(await store.listInvoices(company.id, { limit: 10, after: { at: "2026-13-45T99:99:99.999Z", id: sub.invoice.id }, status: null, clientId: null })).toEqual([]);
        expect(await store.listClients(company.id, { limit: 10, after: { at: "2026-01-01T00:00:00.000Z", id: "x" } })).toEqual([]);
        expect(await store.findActiveSubmission("nope", sub.invoice.sha256)).toBeNull();
        // ...while the real ones still work.
        expect(await store.findActiveSubmission(company.id, sub.invoice.sha256)).toBe(sub.invoice.id);
      });
    });

    describe("errors and transactions", () => {
      it("turns a database error into a DbError with its SQLSTATE and without the SQL or its parameters", async () => {
        const h = harness();
        const store = await postgresStore({ db: h.connect(), schema: h.schema() });
        const secretish = "s3cr3t-hash-value";
        const error = await store
          .insertApiKey({ id: randomUUID(), companyId: randomUUID(), prefix: "p", hash: secretish, createdAt: "2026-01-01T00:00:00.000Z", lastUsedAt: null, revokedAt: null })
          .then(
            () => null,
            (e: unknown) => e,
          );
        expect(error).toBeInstanceOf(DbError);
        expect((error as DbError).code).toBe("23503");
        const everything = JSON.stringify(error, Object.getOwnPropertyNames(error).filter((k) => k !== "stack")) + String((error as Error).message);
        expect(everything).not.toMatch(SQL_WORDS);
        expect(everything).not.toContain(secretish);
        expect(Object.keys(error as object).sort()).toEqual(["code", "constraint", "name", "unavailable"]);
        // An error of a statement, not of the connection: not the port's "unavailable" (a 500, not a 503).
        expect((error as DbError).unavailable).toBe(false);
      });

      it("rolls a transaction back when its function throws, and rethrows that very error", async () => {
        const h = harness();
        const db = h.connect();
        const schema = h.schema();
        await db.query(`CREATE SCHEMA "${schema}"`);
        await db.query(`CREATE TABLE "${schema}".t (v integer)`);
        const marker = new Error("stop");
        await expect(
          db.transaction(async (tx) => {
            await tx.query(`INSERT INTO "${schema}".t (v) VALUES (1)`);
            throw marker;
          }),
        ).rejects.toBe(marker);
        await db.transaction(async (tx) => {
          await tx.query(`INSERT INTO "${schema}".t (v) VALUES (2)`);
        });
        const { rows } = await db.query<{ v: number }>(`SELECT v FROM "${schema}".t`);
        expect(rows).toEqual([{ v: 2 }]);
      });

      it("reports a failed statement inside a transaction as a DbError and rolls back", async () => {
        const h = harness();
        const db = h.connect();
        const schema = h.schema();
        await db.query(`CREATE SCHEMA "${schema}"`);
        await db.query(`CREATE TABLE "${schema}".t (v integer PRIMARY KEY)`);
        const error = await db
          .transaction(async (tx) => {
            await tx.query(`INSERT INTO "${schema}".t (v) VALUES (1)`);
            await tx.query(`INSERT INTO "${schema}".t (v) VALUES (1)`);
          })
          .then(
            () => null,
            (e: unknown) => e,
          );
        expect(error).toBeInstanceOf(DbError);
        expect((error as DbError).code).toBe("23505");
        expect((await db.query(`SELECT v FROM "${schema}".t`)).rows).toEqual([]);
      });
    });
  });
}
