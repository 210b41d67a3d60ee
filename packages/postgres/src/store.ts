// postgresStore: the storage port on PostgreSQL (a server through `pg`, or embedded PGlite). No business rules here.
import type {
  AttemptRecord,
  ApiKeyRecord,
  DeliveryJob,
  DeliveryStore,
  ClientRecord,
  Company,
  CreateAccountResult,
  InsertSubmissionResult,
  InvoiceRecord,
  Keyset,
  NewSubmission,
  Party,
  Store,
  WebhookEventRecord,
  WebhookJob,
  WebhookRecord,
  WebhookStore,
} from "@einvoice/core";
import { randomUUID } from "node:crypto";
import { DbError, type Db, type Queryable } from "./db.js";
import { decodeDocument, encodeDocument } from "./documents.js";
import { migrate, quoteSchema } from "./migrations.js";

export interface PostgresStoreOptions {
  /** The database, through `fromPg(pool)` or `fromPGlite(pglite)`. */
  db: Db;
  /** The PostgreSQL schema that holds the tables; created when missing. Default `einvoice`. */
  schema?: string;
  /** Apply pending migrations before returning (default true). Pass false when you run `migrate` yourself. */
  migrate?: boolean;
}

export interface PostgresStore extends Store, DeliveryStore, WebhookStore {
  readonly name: "postgres";
  /** The schema the store uses. */
  readonly schema: string;
  close(): Promise<void>;
}

/** Ids of the core are lower-case UUIDs; anything else names no row (as in the memory store). */
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const isId = (s: string): boolean => ID.test(s);

/** A port timestamp (`2026-01-02T03:04:05.678Z`) that PostgreSQL reads back unchanged. */
const isPortTime = (s: string): boolean => {
  const t = Date.parse(s);
  return !Number.isNaN(t) && new Date(t).toISOString() === s;
};

/** Formats a timestamptz column back into the port's form, whatever the session's time zone. */
const iso = (col: string, as: string = col.replace(/^.*\./, "")): string =>
  `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${as}`;

const COMPANY_COLUMNS = [
  "id::text AS id",
  "name",
  "country",
  "enterprise",
  "subscription",
  "legal_entity_id",
  "peppol_sending_enabled",
  iso("created_at"),
  iso("updated_at"),
].join(", ");

const API_KEY_COLUMNS = [
  "id::text AS id",
  "company_id::text AS company_id",
  "prefix",
  "hash",
  iso("created_at"),
  iso("last_used_at"),
  iso("revoked_at"),
].join(", ");

const CLIENT_COLUMNS = [
  "id::text AS id",
  "company_id::text AS company_id",
  "key",
  "name",
  "endpoint_id",
  "vat_id",
  "country",
  "invoice_count",
  iso("first_invoice_at"),
  iso("last_invoice_at"),
].join(", ");

/** The invoice columns, for the table or its alias `p` (such as `i.`). */
const invoiceColumns = (p = ""): string =>
  [
    `${p}id::text AS id`,
    `${p}company_id::text AS company_id`,
    ...["status", "target_network", "network", "error_message", "invoice_number", "issue_date", "due_date", "currency"],
    ...["total_tax_exclusive", "total_tax_inclusive", "total_payable", "supplier", "recipient"],
    `${p}client_id::text AS client_id`,
    "sha256",
    "size",
    iso(`${p}created_at`),
    iso(`${p}updated_at`),
    "events",
  ]
    .map((c) => (/^[a-z_0-9]+$/.test(c) ? `${p}${c}` : c))
    .join(", ");

const INVOICE_COLUMNS = invoiceColumns();

type R = Record<string, unknown>;

const text = (v: unknown): string => String(v);
const textOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
/** jsonb comes back parsed from both drivers; a string means a driver configured to leave it raw. */
const json = (v: unknown): unknown => (typeof v === "string" ? JSON.parse(v) : v);

function toCompany(r: R): Company {
  return {
    id: text(r.id),
    name: text(r.name),
    country: text(r.country),
    enterprise: r.enterprise === true,
    subscription: text(r.subscription) as Company["subscription"],
    legalEntityId: textOrNull(r.legal_entity_id),
    peppolSendingEnabled: r.peppol_sending_enabled === true,
    createdAt: text(r.created_at),
    updatedAt: text(r.updated_at),
  };
}

function toApiKey(r: R): ApiKeyRecord {
  return {
    id: text(r.id),
    companyId: text(r.company_id),
    prefix: text(r.prefix),
    hash: text(r.hash),
    createdAt: text(r.created_at),
    lastUsedAt: textOrNull(r.last_used_at),
    revokedAt: textOrNull(r.revoked_at),
  };
}

function toClient(r: R): ClientRecord {
  return {
    id: text(r.id),
    companyId: text(r.company_id),
    key: text(r.key),
    name: textOrNull(r.name),
    endpointId: text(r.endpoint_id),
    vatId: textOrNull(r.vat_id),
    country: textOrNull(r.country),
    invoiceCount: Number(r.invoice_count),
    firstInvoiceAt: text(r.first_invoice_at),
    lastInvoiceAt: text(r.last_invoice_at),
  };
}

function toParty(v: unknown): Party {
  const p = (json(v) ?? {}) as Record<string, unknown>;
  return {
    name: textOrNull(p.name),
    endpointId: textOrNull(p.endpointId),
    vatId: textOrNull(p.vatId),
    country: textOrNull(p.country),
  };
}

function toInvoice(r: R): InvoiceRecord {
  const events = json(r.events) as Array<Record<string, unknown>>;
  return {
    id: text(r.id),
    companyId: text(r.company_id),
    status: text(r.status) as InvoiceRecord["status"],
    targetNetwork: text(r.target_network) as InvoiceRecord["targetNetwork"],
    network: textOrNull(r.network) as InvoiceRecord["network"],
    errorMessage: textOrNull(r.error_message),
    invoiceNumber: textOrNull(r.invoice_number),
    issueDate: textOrNull(r.issue_date),
    dueDate: textOrNull(r.due_date),
    currency: textOrNull(r.currency),
    totals: {
      taxExclusive: textOrNull(r.total_tax_exclusive),
      taxInclusive: textOrNull(r.total_tax_inclusive),
      payable: textOrNull(r.total_payable),
    },
    supplier: toParty(r.supplier),
    recipient: toParty(r.recipient),
    clientId: textOrNull(r.client_id),
    sha256: text(r.sha256),
    size: Number(r.size),
    createdAt: text(r.created_at),
    updatedAt: text(r.updated_at),
    events: events.map((e) => ({ status: text(e.status) as InvoiceRecord["status"], at: text(e.at), detail: text(e.detail) })),
  };
}

const partyJson = (p: Party): string =>
  JSON.stringify({ name: p.name, endpointId: p.endpointId, vatId: p.vatId, country: p.country });

/** The columns a company patch may set, by field of `Company`. */
const COMPANY_PATCH_COLUMNS: Record<string, { column: string; cast: string }> = {
  name: { column: "name", cast: "text" },
  country: { column: "country", cast: "text" },
  enterprise: { column: "enterprise", cast: "boolean" },
  subscription: { column: "subscription", cast: "text" },
  legalEntityId: { column: "legal_entity_id", cast: "text" },
  peppolSendingEnabled: { column: "peppol_sending_enabled", cast: "boolean" },
  updatedAt: { column: "updated_at", cast: "timestamptz" },
};

/** Thrown inside a transaction to roll it back; never leaves the store. */
class Rollback<T> {
  constructor(readonly result: T) {}
}

async function rollbackWith<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof Rollback) return e.result as T;
    throw e;
  }
}

/** How many times a duplicate whose winner vanished (it failed meanwhile) is retried. */
const DUPLICATE_RETRIES = 5;

/**
 * The storage port on PostgreSQL. Applies the schema's pending migrations first (see `migrate`).
 * The duplicate rule lives in the database (a unique partial index on `(company_id, sha256)`
 * for submissions that have not failed), so any number of processes can share one database.
 *
 * @example
 * const store = await postgresStore({ db: fromPGlite(await PGlite.create("./data")) })
 * const store = await postgresStore({ db: fromPg(new pg.Pool({ connectionString: process.env.DATABASE_URL })) })
 */
export async function postgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const { db } = options;
  const schema = options.schema ?? "einvoice";
  const s = quoteSchema(schema);
  if (options.migrate !== false) await migrate(db, { schema });

  const t = {
    companies: `${s}.companies`,
    accounts: `${s}.accounts`,
    apiKeys: `${s}.api_keys`,
    clients: `${s}.clients`,
    invoices: `${s}.invoices`,
    documents: `${s}.documents`,
    insertAccepted: `${s}.insert_accepted`,
    webhooks: `${s}.webhooks`,
    webhookEvents: `${s}.webhook_events`,
  };

  let closed = false;

  async function insertInvoice(tx: Queryable, inv: InvoiceRecord, onConflictActive: boolean): Promise<boolean> {
    const { rows } = await tx.query(
      `INSERT INTO ${t.invoices} (${INVOICE_INSERT_COLUMNS}, client_id, attempts, next_attempt_at)
       VALUES (${INVOICE_INSERT_VALUES}, NULL, 0, CASE WHEN $3 = 'sending' THEN $18::timestamptz END)
       ${onConflictActive ? `ON CONFLICT (company_id, sha256) WHERE status <> 'failed' DO NOTHING` : ""}
       RETURNING id`,
      invoiceParams(inv),
    );
    return rows.length === 1;
  }

  /** Inserts an accepted submission in one call (migration 4's insert_accepted); returns its client's id (null without a client). */
  async function insertAccepted(inv: InvoiceRecord, client: NewSubmission["client"], document: Uint8Array | null): Promise<string | null> {
    const doc = document ? await encodeDocument(document) : null;
    const params: unknown[] = [
      ...invoiceParams(inv),
      client?.id ?? null,
      client?.key ?? null,
      client?.endpointId ?? null,
      client?.name ?? null,
      client?.vatId ?? null,
      client?.country ?? null,
      doc?.hex ?? null,
      doc?.encoding ?? null,
    ];
    const { rows } = await db.query<{ client_id: string | null }>(`SELECT ${t.insertAccepted}(${INSERT_ACCEPTED_ARGS})::text AS client_id`, params);
    if (rows.length !== 1) throw new DbError("the submission was not stored");
    return rows[0]!.client_id ?? null;
  }

  async function activeSubmission(q: Queryable, companyId: string, sha256: string): Promise<string | null> {
    const { rows } = await q.query<{ id: string }>(
      `SELECT id::text AS id FROM ${t.invoices} WHERE company_id = $1::uuid AND sha256 = $2 AND status <> 'failed' LIMIT 1`,
      [companyId, sha256],
    );
    return rows[0]?.id ?? null;
  }

  const store: PostgresStore = {
    name: "postgres",
    schema,

    async createAccount({ account, company, apiKey }): Promise<CreateAccountResult> {
      return rollbackWith(() =>
        db.transaction(async (tx) => {
          await tx.query(
            `INSERT INTO ${t.companies} (id, name, country, enterprise, subscription, legal_entity_id, peppol_sending_enabled, created_at, updated_at)
             VALUES ($1::uuid, $2, $3, $4::boolean, $5, $6, $7::boolean, $8::timestamptz, $9::timestamptz)`,
            [
              company.id,
              company.name,
              company.country,
              company.enterprise,
              company.subscription,
              company.legalEntityId,
              company.peppolSendingEnabled,
              company.createdAt,
              company.updatedAt,
            ],
          );
          // A concurrent sign-up with the same email waits here for the other to commit or roll back.
          const inserted = await tx.query(
            `INSERT INTO ${t.accounts} (id, email, company_id, created_at) VALUES ($1::uuid, $2, $3::uuid, $4::timestamptz)
             ON CONFLICT (email) DO NOTHING RETURNING id`,
            [account.id, account.email, account.companyId, account.createdAt],
          );
          if (inserted.rows.length === 0) throw new Rollback<CreateAccountResult>({ created: false, reason: "email_taken" });
          await insertApiKeyRow(tx, apiKey);
          return { created: true } as const;
        }),
      );
    },

    async getCompany(companyId) {
      if (!isId(companyId)) return null;
      const { rows } = await db.query(`SELECT ${COMPANY_COLUMNS} FROM ${t.companies} WHERE id = $1::uuid`, [companyId]);
      return rows[0] ? toCompany(rows[0]) : null;
    },

    async updateCompany(companyId, patch) {
      if (!isId(companyId)) return null;
      const sets: string[] = [];
      const params: unknown[] = [companyId];
      for (const [field, value] of Object.entries(patch)) {
        const target = COMPANY_PATCH_COLUMNS[field];
        if (!target || value === undefined) continue;
        params.push(value);
        sets.push(`${target.column} = $${params.length}::${target.cast}`);
      }
      const { rows } = sets.length
        ? await db.query(`UPDATE ${t.companies} SET ${sets.join(", ")} WHERE id = $1::uuid RETURNING ${COMPANY_COLUMNS}`, params)
        : await db.query(`SELECT ${COMPANY_COLUMNS} FROM ${t.companies} WHERE id = $1::uuid`, params);
      return rows[0] ? toCompany(rows[0]) : null;
    },

    async insertApiKey(key) {
      await insertApiKeyRow(db, key);
    },

    async getApiKey(id) {
      if (!isId(id)) return null;
      const { rows } = await db.query(`SELECT ${API_KEY_COLUMNS} FROM ${t.apiKeys} WHERE id = $1::uuid`, [id]);
      return rows[0] ? toApiKey(rows[0]) : null;
    },

    async listApiKeys(companyId) {
      if (!isId(companyId)) return [];
      const { rows } = await db.query(
        `SELECT ${API_KEY_COLUMNS} FROM ${t.apiKeys} AS k WHERE company_id = $1::uuid AND revoked_at IS NULL ORDER BY k.created_at, k.id`,
        [companyId],
      );
      return rows.map(toApiKey);
    },

    async revokeApiKey(companyId, id, at) {
      if (!isId(companyId) || !isId(id)) return false;
      const { rows } = await db.query(
        `UPDATE ${t.apiKeys} SET revoked_at = $3::timestamptz WHERE id = $2::uuid AND company_id = $1::uuid AND revoked_at IS NULL RETURNING id`,
        [companyId, id, at],
      );
      return rows.length === 1;
    },

    async touchApiKey(id, at) {
      if (!isId(id)) return;
      await db.query(`UPDATE ${t.apiKeys} SET last_used_at = $2::timestamptz WHERE id = $1::uuid`, [id, at]);
    },

    async insertSubmission({ invoice, document, client }: NewSubmission): Promise<InsertSubmissionResult> {
      const stored: InvoiceRecord = { ...invoice, clientId: null };
      if (stored.status === "failed") {
        // A failed submission is always stored and creates no client.
        // Deflated before the transaction: a large document is not compressed while it holds the database.
        const doc = document ? await encodeDocument(document) : null;
        await db.transaction(async (tx) => {
          await insertInvoice(tx, stored, false);
          if (doc) {
            await tx.query(
              `INSERT INTO ${t.documents} (invoice_id, company_id, content, content_encoding) VALUES ($1::uuid, $2::uuid, decode($3, 'hex'), $4)`,
              [stored.id, stored.companyId, doc.hex, doc.encoding],
            );
          }
        });
        return { inserted: true, invoice: structuredClone(stored) };
      }
      for (let attempt = 0; ; attempt++) {
        try {
          // One statement, so one round trip and atomic by itself: the client upsert, the invoice
          // (with its client), the document. The unique partial index refuses a second active
          // submission of the document; the error undoes the whole statement, client count included.
          const clientId = await insertAccepted(stored, client, document);
          return { inserted: true, invoice: { ...structuredClone(stored), clientId } };
        } catch (e) {
          if (!(e instanceof DbError && e.code === "23505" && e.constraint === "invoices_active_sha256_key")) throw e;
          // Under READ COMMITTED the winner is visible once it has committed.
          const winner = await activeSubmission(db, stored.companyId, stored.sha256);
          if (winner) return { inserted: false, duplicateOf: winner };
          // The winner failed or rolled back in between: try again.
          if (attempt >= DUPLICATE_RETRIES) throw new DbError("could not settle a concurrent duplicate submission");
        }
      }
    },

    async findActiveSubmission(companyId, sha256) {
      if (!isId(companyId)) return null;
      return activeSubmission(db, companyId, sha256);
    },

    async getInvoice(companyId, id) {
      if (!isId(companyId) || !isId(id)) return null;
      const { rows } = await db.query(`SELECT ${INVOICE_COLUMNS} FROM ${t.invoices} WHERE company_id = $1::uuid AND id = $2::uuid`, [
        companyId,
        id,
      ]);
      return rows[0] ? toInvoice(rows[0]) : null;
    },

    async listInvoices(companyId, { limit, after, status, clientId }) {
      if (!isId(companyId) || (clientId !== null && !isId(clientId)) || !validKeyset(after)) return [];
      const where = ["company_id = $1::uuid"];
      const params: unknown[] = [companyId];
      if (after) {
        params.push(after.at, after.id);
        where.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
      }
      if (status !== null) {
        params.push(status);
        where.push(`status = $${params.length}`);
      }
      if (clientId !== null) {
        params.push(clientId);
        where.push(`client_id = $${params.length}::uuid`);
      }
      params.push(limit);
      const { rows } = await db.query(
        `SELECT ${INVOICE_COLUMNS} FROM ${t.invoices} WHERE ${where.join(" AND ")}
         ORDER BY ${t.invoices}.created_at DESC, ${t.invoices}.id DESC LIMIT $${params.length}::integer`,
        params,
      );
      return rows.map(toInvoice);
    },

    async listClients(companyId, { limit, after }: { limit: number; after: Keyset | null }) {
      if (!isId(companyId) || !validKeyset(after)) return [];
      const params: unknown[] = [companyId];
      let keyset = "";
      if (after) {
        params.push(after.at, after.id);
        keyset = `AND (last_invoice_at, id) < ($2::timestamptz, $3::uuid)`;
      }
      params.push(limit);
      const { rows } = await db.query(
        `SELECT ${CLIENT_COLUMNS} FROM ${t.clients} WHERE company_id = $1::uuid ${keyset}
         ORDER BY ${t.clients}.last_invoice_at DESC, ${t.clients}.id DESC LIMIT $${params.length}::integer`,
        params,
      );
      return rows.map(toClient);
    },

    async claimDeliveries({ owner, now, leaseUntil, limit }): Promise<DeliveryJob[]> {
      if (!isPortTime(now) || !isPortTime(leaseUntil)) throw new DbError("claimDeliveries needs port timestamps");
      // SKIP LOCKED: a row another dispatcher is claiming right now is left to it; its lease then
      // keeps this claim away (the row is re-checked once the other claim commits).
      const { rows } = await db.query(
        `WITH due AS (
           SELECT id FROM ${t.invoices}
           WHERE status = 'sending' AND next_attempt_at <= $1::timestamptz
             AND (lease_until IS NULL OR lease_until <= $1::timestamptz)
           ORDER BY next_attempt_at, id
           LIMIT $2::integer
           FOR UPDATE SKIP LOCKED
         )
         UPDATE ${t.invoices} AS i SET lease_owner = $3, lease_until = $4::timestamptz
         FROM due LEFT JOIN ${t.documents} AS d ON d.invoice_id = due.id
         WHERE i.id = due.id
         RETURNING ${invoiceColumns("i.")},
           i.attempts, ${iso("i.next_attempt_at", "due_at")}, encode(d.content, 'hex') AS document_hex, d.content_encoding`,
        [now, limit, owner, leaseUntil],
      );
      rows.sort((a, b) => compareKey(text(a.due_at), text(a.id), text(b.due_at), text(b.id)));
      const jobs: DeliveryJob[] = [];
      for (const r of rows) {
        const content = Buffer.from(typeof r.document_hex === "string" ? r.document_hex : "", "hex");
        jobs.push({
          invoice: toInvoice(r),
          document: await decodeDocument(content, typeof r.content_encoding === "string" ? r.content_encoding : "identity"),
          attempts: Number(r.attempts),
        });
      }
      return jobs;
    },

    async completeAttempt(a: AttemptRecord): Promise<InvoiceRecord | null> {
      if (!isId(a.id)) return null;
      return db.transaction(async (tx) => {
        const { rows } = await tx.query(
          `UPDATE ${t.invoices} SET
             status = $3, error_message = $4, updated_at = $5::timestamptz, attempts = $6::integer,
             next_attempt_at = $7::timestamptz, lease_owner = NULL, lease_until = NULL,
             events = events || $8::jsonb
           WHERE id = $1::uuid AND lease_owner = $2
           RETURNING ${INVOICE_COLUMNS}`,
          [
            a.id,
            a.owner,
            a.status,
            a.errorMessage,
            a.updatedAt,
            a.attempts,
            a.nextAttemptAt,
            JSON.stringify([{ status: a.event.status, at: a.event.at, detail: a.event.detail }]),
          ],
        );
        const updated = rows[0] ? toInvoice(rows[0]) : null;
        if (updated && a.notify) {
          // In the same transaction as the change: one event per subscribed webhook of the company.
          const hooks = await tx.query<{ id: string }>(
            `SELECT id::text AS id FROM ${t.webhooks}
             WHERE company_id = $1::uuid AND deleted_at IS NULL AND events ? $2 ORDER BY created_at, id`,
            [updated.companyId, a.notify.type],
          );
          for (const h of hooks.rows) {
            await tx.query(
              `INSERT INTO ${t.webhookEvents} (id, webhook_id, company_id, type, data, created_at, status, next_attempt_at)
               VALUES ($1::uuid, $2::uuid, $3::uuid, $4, $5, $6::timestamptz, 'pending', $6::timestamptz)`,
              [randomUUID(), h.id, updated.companyId, a.notify.type, a.notify.data, a.updatedAt],
            );
          }
        }
        return updated;
      });
    },

    async insertWebhook(w: WebhookRecord) {
      await db.query(
        `INSERT INTO ${t.webhooks} (id, company_id, url, events, secret, created_at, deleted_at)
         VALUES ($1::uuid, $2::uuid, $3, $4::jsonb, $5, $6::timestamptz, $7::timestamptz)`,
        [w.id, w.companyId, w.url, JSON.stringify(w.events), w.secret, w.createdAt, w.deletedAt],
      );
    },

    async listWebhooks(companyId) {
      if (!isId(companyId)) return [];
      const { rows } = await db.query(
        `SELECT ${WEBHOOK_COLUMNS} FROM ${t.webhooks} AS w WHERE company_id = $1::uuid AND deleted_at IS NULL ORDER BY w.created_at, w.id`,
        [companyId],
      );
      return rows.map(toWebhook);
    },

    async getWebhook(companyId, id) {
      if (!isId(companyId) || !isId(id)) return null;
      const { rows } = await db.query(
        `SELECT ${WEBHOOK_COLUMNS} FROM ${t.webhooks} WHERE company_id = $1::uuid AND id = $2::uuid AND deleted_at IS NULL`,
        [companyId, id],
      );
      return rows[0] ? toWebhook(rows[0]) : null;
    },

    async deleteWebhook(companyId, id, at) {
      if (!isId(companyId) || !isId(id) || !isPortTime(at)) return false;
      const { rows } = await db.query(
        `UPDATE ${t.webhooks} SET deleted_at = $3::timestamptz
         WHERE company_id = $1::uuid AND id = $2::uuid AND deleted_at IS NULL RETURNING id`,
        [companyId, id, at],
      );
      return rows.length === 1;
    },

    async claimWebhookEvents({ owner, now, leaseUntil, limit }): Promise<WebhookJob[]> {
      if (!isPortTime(now) || !isPortTime(leaseUntil)) throw new DbError("claimWebhookEvents needs port timestamps");
      const { rows } = await db.query(
        `WITH due AS (
           SELECT e.id FROM ${t.webhookEvents} AS e
           JOIN ${t.webhooks} AS w ON w.company_id = e.company_id AND w.id = e.webhook_id AND w.deleted_at IS NULL
           WHERE e.status = 'pending' AND e.next_attempt_at <= $1::timestamptz
             AND (e.lease_until IS NULL OR e.lease_until <= $1::timestamptz)
           ORDER BY e.next_attempt_at, e.id
           LIMIT $2::integer
           FOR UPDATE OF e SKIP LOCKED
         )
         UPDATE ${t.webhookEvents} AS e SET lease_owner = $3, lease_until = $4::timestamptz
         FROM due, ${t.webhooks} AS w
         WHERE e.id = due.id AND w.company_id = e.company_id AND w.id = e.webhook_id
         RETURNING ${WEBHOOK_EVENT_COLUMNS}, w.url, w.secret, ${iso("e.next_attempt_at", "due_at")}`,
        [now, limit, owner, leaseUntil],
      );
      return rows
        .sort((a, b) => compareKey(text(a.due_at), text(a.id), text(b.due_at), text(b.id)))
        .map((r) => ({ event: toWebhookEvent(r), url: text(r.url), secret: text(r.secret) }));
    },

    async completeWebhookEvent(input) {
      if (!isId(input.id)) return false;
      const { rows } = await db.query(
        `UPDATE ${t.webhookEvents} SET
           status = $3, attempts = $4::integer, next_attempt_at = $5::timestamptz, delivered_at = $6::timestamptz,
           log = (SELECT coalesce(jsonb_agg(x ORDER BY n), '[]'::jsonb) FROM (
                    SELECT x, n FROM jsonb_array_elements(log || $7::jsonb) WITH ORDINALITY AS a(x, n)
                    ORDER BY n DESC LIMIT 20) AS last),
           lease_owner = NULL, lease_until = NULL
         WHERE id = $1::uuid AND lease_owner = $2
         RETURNING id`,
        [
          input.id,
          input.owner,
          input.status,
          input.attempts,
          input.nextAttemptAt,
          input.deliveredAt,
          JSON.stringify([
            { at: input.attempt.at, statusCode: input.attempt.statusCode, error: input.attempt.error, durationMs: input.attempt.durationMs },
          ]),
        ],
      );
      return rows.length === 1;
    },

    async listWebhookEvents(companyId, webhookId, limit) {
      if (!isId(companyId) || !isId(webhookId)) return [];
      const { rows } = await db.query(
        `SELECT ${WEBHOOK_EVENT_COLUMNS} FROM ${t.webhookEvents} AS e
         WHERE e.company_id = $1::uuid AND e.webhook_id = $2::uuid
         ORDER BY e.created_at DESC, e.id DESC LIMIT $3::integer`,
        [companyId, webhookId, limit],
      );
      return rows.map(toWebhookEvent);
    },

    async releaseDelivery(id, owner) {
      if (!isId(id)) return;
      await db.query(`UPDATE ${t.invoices} SET lease_owner = NULL, lease_until = NULL WHERE id = $1::uuid AND lease_owner = $2`, [id, owner]);
    },

    async close() {
      if (closed) return;
      closed = true;
      await db.close?.();
    },
  };

  async function insertApiKeyRow(q: Queryable, key: ApiKeyRecord): Promise<void> {
    await q.query(
      `INSERT INTO ${t.apiKeys} (id, company_id, prefix, hash, created_at, last_used_at, revoked_at)
       VALUES ($1::uuid, $2::uuid, $3, $4, $5::timestamptz, $6::timestamptz, $7::timestamptz)`,
      [key.id, key.companyId, key.prefix, key.hash, key.createdAt, key.lastUsedAt, key.revokedAt],
    );
  }

  return store;
}

/** Orders by (at, id) ascending, as text: the order of the memory store. */
function compareKey(aAt: string, aId: string, bAt: string, bId: string): number {
  return aAt < bAt ? -1 : aAt > bAt ? 1 : aId < bId ? -1 : aId > bId ? 1 : 0;
}

/** A keyset position the database can compare: a port timestamp and a lower-case UUID. */
function validKeyset(after: Keyset | null): boolean {
  return after === null || (isPortTime(after.at) && isId(after.id));
}

const WEBHOOK_COLUMNS = [
  "id::text AS id",
  "company_id::text AS company_id",
  "url",
  "events",
  "secret",
  iso("created_at"),
  iso("deleted_at"),
].join(", ");

const WEBHOOK_EVENT_COLUMNS = [
  "e.id::text AS id",
  "e.webhook_id::text AS webhook_id",
  "e.company_id::text AS company_id",
  "e.type",
  "e.data",
  iso("e.created_at", "created_at"),
  "e.status",
  "e.attempts",
  iso("e.next_attempt_at", "next_attempt_at"),
  iso("e.delivered_at", "delivered_at"),
  "e.log",
].join(", ");

function toWebhook(r: Record<string, unknown>): WebhookRecord {
  return {
    id: text(r.id),
    companyId: text(r.company_id),
    url: text(r.url),
    events: json(r.events) as WebhookRecord["events"],
    secret: text(r.secret),
    createdAt: text(r.created_at),
    deletedAt: textOrNull(r.deleted_at),
  };
}

function toWebhookEvent(r: Record<string, unknown>): WebhookEventRecord {
  return {
    id: text(r.id),
    webhookId: text(r.webhook_id),
    companyId: text(r.company_id),
    type: text(r.type) as WebhookEventRecord["type"],
    createdAt: text(r.created_at),
    data: text(r.data),
    status: text(r.status) as WebhookEventRecord["status"],
    attempts: Number(r.attempts),
    nextAttemptAt: textOrNull(r.next_attempt_at),
    deliveredAt: textOrNull(r.delivered_at),
    log: json(r.log) as WebhookEventRecord["log"],
  };
}

const INVOICE_INSERT_COLUMNS = `id, company_id, status, target_network, network, error_message, invoice_number, issue_date, due_date,
  currency, total_tax_exclusive, total_tax_inclusive, total_payable, supplier, recipient,
  sha256, size, created_at, updated_at, events`;

/** The placeholders of `invoiceParams`, in `INVOICE_INSERT_COLUMNS` order ($18 is created_at). */
const INVOICE_INSERT_VALUES = `$1::uuid, $2::uuid, $3, $4, $5, $6, $7, $8, $9,
  $10, $11, $12, $13, $14::jsonb, $15::jsonb,
  $16, $17::integer, $18::timestamptz, $19::timestamptz, $20::jsonb`;

function invoiceParams(inv: InvoiceRecord): unknown[] {
  return [
    inv.id,
    inv.companyId,
    inv.status,
    inv.targetNetwork,
    inv.network,
    inv.errorMessage,
    inv.invoiceNumber,
    inv.issueDate,
    inv.dueDate,
    inv.currency,
    inv.totals.taxExclusive,
    inv.totals.taxInclusive,
    inv.totals.payable,
    partyJson(inv.supplier),
    partyJson(inv.recipient),
    inv.sha256,
    inv.size,
    inv.createdAt,
    inv.updatedAt,
    JSON.stringify(inv.events.map((e) => ({ status: e.status, at: e.at, detail: e.detail }))),
  ];
}

/** The placeholders of insert_accepted: `invoiceParams`, then the client's six, then the document's two. */
const INSERT_ACCEPTED_ARGS = Array.from({ length: 28 }, (_, i) => `$${i + 1}`).join(", ");
