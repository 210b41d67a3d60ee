// The `Store` port on PostgreSQL: accounts, companies, API keys, submissions, invoices and clients.
import type { ApiKeyRecord, ClientRecord, CreateAccountResult, Keyset, InsertSubmissionResult, InvoiceRecord, NewSubmission, Store } from "@einvoice/core";
import { DbError, type Queryable } from "./db.js";
import { decodeDocument } from "./documents.js";
import { API_KEYS, CLIENTS, COMPANIES, companyPatchSets, DELIVERY_EVIDENCE, INVOICES, INVOICE_WRITE, INVOICE_WRITE_FAILED, TRANSMITTED_DOCUMENTS } from "./rows.js";
import { isId, isPortTime, validKeyset, type StoreContext, Rollback, rollbackWith } from "./sql.js";

/** Thrown inside a transaction to roll it back; never leaves the store. */
/**
 * Locks the company's row until the transaction ends (FOR NO KEY UPDATE: it serialises the
 * company's key and webhook changes, but not the inserts that reference the company).
 */
export async function lockCompanyRow(tx: Queryable, companies: string, companyId: string): Promise<void> {
  await tx.query(`SELECT id FROM ${companies} WHERE id = $1::uuid FOR NO KEY UPDATE`, [companyId]);
}

/** How many times a duplicate whose winner vanished (it failed meanwhile) is retried. */
const DUPLICATE_RETRIES = 5;

/** The arguments of `insert_accepted` (migration 4) after the invoice's: the client's six, then the document's two. */
const ACCEPTED_EXTRA_ARGS = 8;
// The document's bytes (the last but one) are cast: that picks migration 17's function, which takes bytea.
const INSERT_ACCEPTED_ARGS = Array.from({ length: INVOICE_WRITE.length + ACCEPTED_EXTRA_ARGS }, (_, i) =>
  i === INVOICE_WRITE.length + ACCEPTED_EXTRA_ARGS - 2 ? `$${i + 1}::bytea` : `$${i + 1}`,
).join(", ");

/** The `Store` port. The duplicate rule lives in the database (see `insertSubmission`). */
export function sqlStorePort({ db, t, documents }: StoreContext): Omit<Store, "name"> {
  const lockCompany = (tx: Queryable, companyId: string) => lockCompanyRow(tx, t.companies, companyId);
  /** Inserts a failed submission's invoice: no client, not queued for delivery. */
  async function insertFailedInvoice(tx: Queryable, inv: InvoiceRecord): Promise<void> {
    await tx.query(
      `INSERT INTO ${t.invoices} (${INVOICES.list(INVOICE_WRITE_FAILED)}, client_id, attempts, next_attempt_at)
       VALUES (${INVOICES.placeholders(INVOICE_WRITE_FAILED)}, NULL, 0, NULL)`,
      INVOICES.params(inv, INVOICE_WRITE_FAILED),
    );
  }

  /** Inserts an accepted submission in one call (migration 4's insert_accepted); returns its client's id (null without a client). */
  async function insertAccepted(inv: InvoiceRecord, client: NewSubmission["client"], document: Uint8Array | null, original: NewSubmission["original"] = null): Promise<string | null> {
    const doc = document ? await documents.encode(document) : null;
    const params: unknown[] = [
      ...INVOICES.params(inv, INVOICE_WRITE),
      client?.id ?? null,
      client?.key ?? null,
      client?.endpointId ?? null,
      client?.name ?? null,
      client?.vatId ?? null,
      client?.country ?? null,
      doc?.bytes ?? null,
      doc?.encoding ?? null,
    ];
    const insert = async (q: Queryable): Promise<string | null> => {
      // Every accepted submission runs it: prepared once per connection where the driver was opened with `prepare`.
      const { rows } = await q.query<{ client_id: string | null }>(`SELECT ${t.insertAccepted}(${INSERT_ACCEPTED_ARGS})::text AS client_id`, params, { prepare: true });
      if (rows.length !== 1) throw new DbError("the submission was not stored");
      return rows[0]!.client_id ?? null;
    };
    if (!original) return insert(db);
    // A converted document (a CII, a PDF) keeps what was submitted too, in the same transaction: both or neither.
    const kept = await documents.encode(original.content);
    return db.transaction(async (tx) => {
      const clientId = await insert(tx);
      await tx.query(
        `INSERT INTO ${t.originalDocuments} (invoice_id, company_id, syntax, media_type, content, content_encoding) VALUES ($1::uuid, $2::uuid, $3, $4, $5::bytea, $6)`,
        [inv.id, inv.companyId, original.syntax, original.mediaType, kept.bytes, kept.encoding],
      );
      return clientId;
    });
  }

  async function activeSubmission(q: Queryable, companyId: string, sha256: string): Promise<string | null> {
    const { rows } = await q.query<{ id: string }>(
      `SELECT id::text AS id FROM ${t.invoices} WHERE company_id = $1::uuid AND sha256 = $2 AND status <> 'failed' AND direction = 'outbound' LIMIT 1`,
      [companyId, sha256],
    );
    return rows[0]?.id ?? null;
  }

  /** The company's earliest active submission of this kind and number, the one of the same document (sha256) first; null when none. */
  async function activeNumber(q: Queryable, companyId: string, kind: string, invoiceNumber: string, sha256: string | null): Promise<{ id: string; same: boolean } | null> {
    const { rows } = await q.query<{ id: string; same: boolean | null }>(
      `SELECT id::text AS id, sha256 = $4 AS same FROM ${t.invoices}
       WHERE company_id = $1::uuid AND invoice_number = $2 AND document_type = $3 AND status <> 'failed' AND direction = 'outbound'
       ORDER BY sha256 = $4 DESC NULLS LAST, created_at, id LIMIT 1`,
      [companyId, invoiceNumber, kind, sha256],
    );
    const r = rows[0];
    return r ? { id: r.id, same: r.same === true } : null;
  }

  async function insertApiKeyRow(q: Queryable, key: ApiKeyRecord): Promise<void> {
    await q.query(`INSERT INTO ${t.apiKeys} (${API_KEYS.list()}) VALUES (${API_KEYS.placeholders()})`, API_KEYS.params(key));
  }

  return {
    async createAccount({ account, company, apiKey }): Promise<CreateAccountResult> {
      return rollbackWith(() =>
        db.transaction(async (tx) => {
          await tx.query(`INSERT INTO ${t.companies} (${COMPANIES.list()}) VALUES (${COMPANIES.placeholders()})`, COMPANIES.params(company));
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
      return COMPANIES.one(db, `FROM ${t.companies} WHERE id = $1::uuid`, [companyId]);
    },

    async updateCompany(companyId, patch) {
      if (!isId(companyId)) return null;
      const sets: string[] = [];
      const params: unknown[] = [companyId];
      for (const [column, value] of companyPatchSets(patch)) {
        params.push(value);
        sets.push(`${column} = $${params.length}::${COMPANIES.types[column]}`);
      }
      const { rows } = sets.length
        ? await db.query(`UPDATE ${t.companies} SET ${sets.join(", ")} WHERE id = $1::uuid RETURNING ${COMPANIES.select()}`, params)
        : await db.query(`SELECT ${COMPANIES.select()} FROM ${t.companies} WHERE id = $1::uuid`, params);
      return rows[0] ? COMPANIES.fromRow(rows[0]) : null;
    },

    async insertApiKey(key, limit) {
      if (limit?.maxActive === undefined) {
        await insertApiKeyRow(db, key);
        return true;
      }
      const max = limit.maxActive;
      return db.transaction(async (tx) => {
        // The company's row lock serialises the count and the insert with any other key change of
        // this company (other servers on the same database included); it does not block submissions.
        await lockCompany(tx, key.companyId);
        const { rows } = await tx.query(`SELECT count(*)::integer AS n FROM ${t.apiKeys} WHERE company_id = $1::uuid AND revoked_at IS NULL`, [key.companyId]);
        if (Number(rows[0]!.n) >= max) return false;
        await insertApiKeyRow(tx, key);
        return true;
      });
    },

    async getApiKey(id) {
      if (!isId(id)) return null;
      return API_KEYS.one(db, `FROM ${t.apiKeys} WHERE id = $1::uuid`, [id]);
    },

    async getApiKeyWithCompany(id) {
      if (!isId(id)) return null;
      // One call (migration 16): the key's columns named k_*, its company's c_* (null when the company is gone).
      const { rows } = await db.query(`SELECT * FROM ${t.apiKeyWithCompany}($1::uuid)`, [id]);
      const row = rows[0];
      if (!row) return null;
      return { apiKey: API_KEYS.fromAliased(row, "k_"), company: row.c_id === null || row.c_id === undefined ? null : COMPANIES.fromAliased(row, "c_") };
    },

    async listApiKeys(companyId) {
      if (!isId(companyId)) return [];
      return API_KEYS.all(db, `FROM ${t.apiKeys} AS k WHERE company_id = $1::uuid AND revoked_at IS NULL ORDER BY k.created_at, k.id`, [companyId]);
    },

    async revokeApiKey(companyId, id, at) {
      if (!isId(companyId) || !isId(id)) return "not_found";
      return db.transaction(async (tx) => {
        // Under the company's row lock, the count of active keys is the one the update acts on: two
        // revocations of the company's last two keys run one after the other, and the second sees one key.
        await lockCompany(tx, companyId);
        const { rows } = await tx.query(
          `SELECT count(*)::integer AS n, bool_or(id = $2::uuid) AS mine FROM ${t.apiKeys} WHERE company_id = $1::uuid AND revoked_at IS NULL`,
          [companyId, id],
        );
        if (!rows[0]!.mine) return "not_found" as const;
        if (Number(rows[0]!.n) <= 1) return "last_key" as const;
        await tx.query(`UPDATE ${t.apiKeys} SET revoked_at = $3::timestamptz WHERE id = $2::uuid AND company_id = $1::uuid AND revoked_at IS NULL`, [companyId, id, at]);
        return "revoked" as const;
      });
    },

    async touchApiKey(id, at) {
      if (!isId(id)) return;
      await db.query(`UPDATE ${t.apiKeys} SET last_used_at = $2::timestamptz WHERE id = $1::uuid`, [id, at]);
    },

    async insertSubmission({ invoice, document, client, original }: NewSubmission): Promise<InsertSubmissionResult> {
      const stored: InvoiceRecord = { ...invoice, clientId: null };
      if (stored.status === "failed") {
        // A failed submission is always stored and creates no client.
        // Encoded before the transaction: a large document is not deflated while it holds the database.
        const doc = document ? await documents.encode(document) : null;
        await db.transaction(async (tx) => {
          await insertFailedInvoice(tx, stored);
          if (doc) {
            await tx.query(
              `INSERT INTO ${t.documents} (invoice_id, company_id, content, content_encoding) VALUES ($1::uuid, $2::uuid, $3::bytea, $4)`,
              [stored.id, stored.companyId, doc.bytes, doc.encoding],
            );
          }
        });
        // `stored` is already this call's own copy: nothing is read back or cloned again.
        return { inserted: true, invoice: stored };
      }
      // The number rule (a document built from data): an earlier active one of its kind and number,
      // sent as xml or built, refuses it. Among built ones, the unique partial index
      // invoices_active_number_key (migration 14) settles concurrent submissions below.
      const number = stored.fromData && stored.invoiceNumber !== null ? stored.invoiceNumber : null;
      const byNumber = async (): Promise<InsertSubmissionResult | null> => {
        const earlier = await activeNumber(db, stored.companyId, stored.kind, number!, stored.sha256);
        if (!earlier) return null;
        return earlier.same ? { inserted: false, duplicateOf: earlier.id } : { inserted: false, duplicateOf: earlier.id, rule: "number" };
      };
      for (let attempt = 0; ; attempt++) {
        if (number !== null) {
          const refused = await byNumber();
          if (refused) return refused;
        }
        try {
          // One statement, so one round trip and atomic by itself: the client upsert, the invoice
          // (with its client), the document. The unique partial index refuses a second active
          // submission of the document; the error undoes the whole statement, client count included.
          const clientId = await insertAccepted(stored, client, document, document ? original : null);
          // What was written is what the caller gave, with the client's id: nothing read back, nothing cloned.
          return { inserted: true, invoice: { ...stored, clientId } };
        } catch (e) {
          if (!(e instanceof DbError && e.code === "23505")) throw e;
          if (e.constraint === "invoices_active_sha256_key") {
            // Under READ COMMITTED the winner is visible once it has committed.
            const winner = await activeSubmission(db, stored.companyId, stored.sha256);
            if (winner) return { inserted: false, duplicateOf: winner };
          } else if (e.constraint !== "invoices_active_number_key" || number === null) {
            throw e;
          }
          // The winner failed or rolled back in between (or, for the number, is found at the top): try again.
          if (attempt >= DUPLICATE_RETRIES) throw new DbError("could not settle a concurrent duplicate submission");
        }
      }
    },

    async findActiveSubmission(companyId, sha256) {
      if (!isId(companyId)) return null;
      return activeSubmission(db, companyId, sha256);
    },

    async findActiveNumber(companyId, kind, invoiceNumber) {
      if (!isId(companyId)) return null;
      return (await activeNumber(db, companyId, kind, invoiceNumber, null))?.id ?? null;
    },

    async getInvoice(companyId, id) {
      if (!isId(companyId) || !isId(id)) return null;
      return INVOICES.one(db, `FROM ${t.invoices} WHERE company_id = $1::uuid AND id = $2::uuid`, [companyId, id]);
    },

    async getEvidence(companyId, invoiceId) {
      if (!isId(companyId) || !isId(invoiceId)) return null;
      return DELIVERY_EVIDENCE.one(db, `FROM ${t.deliveryEvidence} WHERE company_id = $1::uuid AND invoice_id = $2::uuid`, [companyId, invoiceId]);
    },

    async getTransmittedDocument(companyId, invoiceId) {
      if (!isId(companyId) || !isId(invoiceId)) return null;
      return TRANSMITTED_DOCUMENTS.one(db, `FROM ${t.transmittedDocuments} WHERE company_id = $1::uuid AND invoice_id = $2::uuid`, [companyId, invoiceId]);
    },

    async getDocument(companyId, invoiceId) {
      if (!isId(companyId) || !isId(invoiceId)) return null;
      const { rows } = await db.query(
        `SELECT encode(d.content, 'hex') AS document_hex, d.content_encoding FROM ${t.documents} AS d JOIN ${t.invoices} AS i ON i.id = d.invoice_id WHERE i.company_id = $1::uuid AND d.invoice_id = $2::uuid`,
        [companyId, invoiceId],
      );
      const r = rows[0];
      if (!r) return null;
      return decodeDocument(Buffer.from(String(r.document_hex), "hex"), typeof r.content_encoding === "string" ? r.content_encoding : "identity");
    },

    async getOriginalDocument(companyId, invoiceId) {
      if (!isId(companyId) || !isId(invoiceId)) return null;
      const { rows } = await db.query(
        `SELECT encode(content, 'hex') AS content_hex, content_encoding, media_type, syntax FROM ${t.originalDocuments} WHERE company_id = $1::uuid AND invoice_id = $2::uuid`,
        [companyId, invoiceId],
      );
      const r = rows[0];
      if (!r) return null;
      const content = await decodeDocument(Buffer.from(String(r.content_hex), "hex"), String(r.content_encoding));
      return { content, mediaType: String(r.media_type), syntax: String(r.syntax) };
    },

    async listInvoices(companyId, { limit, after, status, clientId, kind, invoiceNumber, ksefNumber, issueDateFrom, issueDateTo, createdFrom, createdTo, direction, supplierId }) {
      if (!isId(companyId) || (clientId !== null && !isId(clientId)) || !validKeyset(after)) return [];
      if (supplierId != null && !isId(supplierId)) return [];
      if ((createdFrom != null && !isPortTime(createdFrom)) || (createdTo != null && !isPortTime(createdTo))) return [];
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
      if (kind) {
        // The column keeps its first name: document_type holds the record's kind.
        params.push(kind);
        where.push(`document_type = $${params.length}`);
      }
      if (invoiceNumber != null) {
        params.push(invoiceNumber);
        where.push(`invoice_number = $${params.length}`);
      }
      if (ksefNumber != null) {
        params.push(ksefNumber);
        where.push(`ksef_number = $${params.length}`);
      }
      // issue_date is the XML's text: its date part compares as text (YYYY-MM-DD); NULL never matches.
      if (issueDateFrom != null) {
        params.push(issueDateFrom);
        where.push(`left(issue_date, 10) >= $${params.length}`);
      }
      if (issueDateTo != null) {
        params.push(issueDateTo);
        where.push(`left(issue_date, 10) <= $${params.length}`);
      }
      if (createdFrom != null) {
        params.push(createdFrom);
        where.push(`created_at >= $${params.length}::timestamptz`);
      }
      if (createdTo != null) {
        params.push(createdTo);
        where.push(`created_at < $${params.length}::timestamptz`);
      }
      if (clientId !== null) {
        params.push(clientId);
        where.push(`client_id = $${params.length}::uuid`);
      }
      // Literals, not parameters, so that a generic plan (PGlite prepares every statement) still picks its index: an
      // inbound record's status is always 'received' (and a submission's never is), so the inbound list reads
      // invoices_company_status_created_idx.
      if (direction === "inbound") where.push(`direction = 'inbound' AND status = 'received'`);
      else if (direction === "outbound") where.push(`direction = 'outbound'`);
      if (supplierId != null) {
        params.push(supplierId);
        where.push(`supplier_id = $${params.length}::uuid`);
      }
      params.push(limit);
      return INVOICES.all(
        db,
        `FROM ${t.invoices} WHERE ${where.join(" AND ")}
         ORDER BY ${t.invoices}.created_at DESC, ${t.invoices}.id DESC LIMIT $${params.length}::integer`,
        params,
      );
    },

    async listClients(companyId, query) {
      return listCounterparties(db, t.clients, companyId, query);
    },
  };
}

/**
 * A company's clients or suppliers (the two tables have one shape): newest `last_invoice_at` first, then `id`, strictly
 * after the keyset `after`, at most `limit`. An id or keyset in another form names no row.
 */
export function listCounterparties(db: Queryable, table: string, companyId: string, { limit, after }: { limit: number; after: Keyset | null }): Promise<ClientRecord[]> {
  if (!isId(companyId) || !validKeyset(after)) return Promise.resolve([]);
  const params: unknown[] = [companyId];
  let keyset = "";
  if (after) {
    params.push(after.at, after.id);
    keyset = `AND (last_invoice_at, id) < ($2::timestamptz, $3::uuid)`;
  }
  params.push(limit);
  return CLIENTS.all(
    db,
    `FROM ${table} WHERE company_id = $1::uuid ${keyset}
     ORDER BY ${table}.last_invoice_at DESC, ${table}.id DESC LIMIT $${params.length}::integer`,
    params,
  );
}
