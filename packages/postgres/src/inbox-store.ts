// The `InboxStore` port on PostgreSQL: received documents (inbound invoice records, written in one call by
// migration 21's insert_inbound), suppliers, documents for no company, participant identifiers, and the inbound
// sources' sync rows (their marks and leases) with the operators' backfill requests.
import {
  networkReferenceKey,
  receivedEventData,
  type BackfillRequest,
  type Company,
  type InboundSync,
  type InboxStore,
  type InsertInboundResult,
  type InvoiceRecord,
  type NetworkReference,
  type NewInbound,
  type UnmatchedDocument,
} from "@einvoice/core";
import { randomUUID } from "node:crypto";
import { DbError, type Queryable, type Row } from "./db.js";
import { decodeDocument } from "./documents.js";
import { CLIENTS, COMPANIES, INVOICES, INVOICE_WRITE, json, text, textOrNull } from "./rows.js";
import { iso, isId, isPortTime, validKeyset, type StoreContext, Rollback, rollbackWith } from "./sql.js";
import { listCounterparties } from "./store-port.js";

/** How many times an insert that lost to a concurrent one with the same reference looks for the winner (it may have rolled back). */
const DUPLICATE_RETRIES = 5;

/** insert_inbound's arguments (migration 21): the invoice's as insert_accepted's, then the inbound facts, the reference, the KSeF number and link, the supplier's six, the document's two, the event's three. */
const INSERT_INBOUND_ARGS = [
  INVOICES.placeholders(INVOICE_WRITE),
  ...[
    "::jsonb", // p_inbound
    "", // p_network_ref
    "", // p_ksef_number
    "", // p_verification_url
    "::uuid", // p_supplier_new_id
    "",
    "",
    "",
    "",
    "",
    "::bytea", // p_content
    "",
    "::boolean", // p_notify
    "",
    "",
  ].map((cast, i) => `$${INVOICE_WRITE.length + 1 + i}${cast}`),
].join(", ");

/** The supplier's id in an event's data while it is unknown (the store learns it in the database): never in a document. */
const SUPPLIER_SLOT = `supplier-${randomUUID()}`;

/** `receivedEventData(invoice)` cut around its `supplierId` value: insert_inbound puts the supplier's id (or null) between the two. */
function eventDataAround(invoice: InvoiceRecord): { head: string; tail: string } {
  const data = receivedEventData({ ...invoice, supplierId: SUPPLIER_SLOT });
  const slot = JSON.stringify(SUPPLIER_SLOT);
  const at = data.lastIndexOf(slot);
  if (at < 0 || data.indexOf(slot) !== at) throw new DbError("the invoice.received event data has no single place for the supplier");
  return { head: data.slice(0, at), tail: data.slice(at + slot.length) };
}

const UNMATCHED_COLUMNS = `id::text AS id, network, network_reference, legal_entity_id, reason, ${iso("received_at")}, media_type, sha256, size`;

function unmatchedOf(r: Row): UnmatchedDocument {
  return {
    id: text(r.id),
    network: text(r.network) as UnmatchedDocument["network"],
    networkReference: { ...(json(r.network_reference) as NetworkReference) },
    legalEntityId: textOrNull(r.legal_entity_id),
    reason: text(r.reason),
    receivedAt: text(r.received_at),
    mediaType: text(r.media_type),
    sha256: text(r.sha256),
    size: Number(r.size),
  };
}

const SYNC_COLUMNS = `source, scope, state, ${iso("next_run_at")}`;
const BACKFILL_COLUMNS = `id::text AS id, scope, ${iso("from_at")}, ${iso("to_at")}, ${iso("requested_at")}`;

const needsTime = (method: string, ...times: (string | null | undefined)[]): void => {
  for (const t of times) if (t !== undefined && t !== null && !isPortTime(t)) throw new DbError(`${method} needs port timestamps`);
};

/** PostgreSQL's deadlock_detected. */
const DEADLOCK = "40P01";

/** How many times a page of received documents is tried again after losing to a concurrent one (each loss means that one committed). */
const MANY_RETRIES = 20;

/** One insert_inbound call, ready to run. */
interface InboundCall {
  params: unknown[];
  stored: InvoiceRecord;
  ref: string;
  /** The company and the supplier key (or none): the first part of the order concurrent pages take their locks in. */
  group: string;
  /** It has a supplier: its upsert locks the supplier's row before the reference is inserted. */
  supplied: boolean;
}

export function sqlInboxStore({ db, t, documents }: StoreContext): InboxStore {
  /** Checks a received document and makes its insert_inbound arguments. */
  async function inboundCall({ invoice, content, supplier, notify }: NewInbound, method: string): Promise<InboundCall> {
    if (!invoice.inbound) throw new DbError(`${method} needs an inbound record (its inbound facts)`);
    if (!isId(invoice.companyId) || !isId(invoice.id)) throw new DbError(`${method} needs lower-case UUIDs`);
    const ref = networkReferenceKey(invoice.inbound.networkReference);
    const stored: InvoiceRecord = { ...invoice, direction: "inbound", clientId: null, supplierId: null };
    const event = notify ? eventDataAround(stored) : null;
    // Encoded before the call: a large document is not deflated while it holds the database.
    const doc = content ? await documents.encode(content) : null;
    const params: unknown[] = [
      ...INVOICES.params(stored, INVOICE_WRITE),
      JSON.stringify({
        receivedAt: stored.inbound!.receivedAt,
        syntax: stored.inbound!.syntax,
        valid: stored.inbound!.valid,
        errors: stored.inbound!.errors.map((e) => ({ rule: e.rule, message: e.message, location: e.location })),
        networkReference: stored.inbound!.networkReference,
        mediaType: stored.inbound!.mediaType,
      }),
      ref,
      stored.ksefNumber,
      stored.verificationUrl,
      supplier?.id ?? null,
      supplier?.key ?? null,
      supplier?.endpointId ?? null,
      supplier?.name ?? null,
      supplier?.vatId ?? null,
      supplier?.country ?? null,
      doc?.bytes ?? null,
      doc?.encoding ?? null,
      event !== null,
      event?.head ?? null,
      event?.tail ?? null,
    ];
    return { params, stored, ref, group: `${invoice.companyId}\u0000${supplier ? `1${supplier.key}` : "0"}`, supplied: supplier !== null };
  }

  /** Runs one insert_inbound call. */
  async function runInbound(q: Queryable, call: InboundCall): Promise<InsertInboundResult> {
    const { rows } = await q.query<{ o_inserted: boolean; o_id: string | null }>(
      `SELECT o_inserted, o_id::text AS o_id FROM ${t.insertInbound}(${INSERT_INBOUND_ARGS})`,
      call.params,
      { prepare: true },
    );
    const r = rows[0];
    if (!r) throw new DbError("the received document was not stored");
    if (r.o_inserted !== true) return { inserted: false, existingId: text(r.o_id) };
    return { inserted: true, invoice: { ...call.stored, supplierId: r.o_id ?? null } };
  }

  /** The company's record with this reference key, or null. */
  async function recordWithReference(q: Queryable, companyId: string, ref: string): Promise<string | null> {
    const { rows } = await q.query<{ id: string }>(`SELECT id::text AS id FROM ${t.invoices} WHERE company_id = $1::uuid AND network_ref = $2`, [companyId, ref]);
    return rows[0]?.id ?? null;
  }

  /** The backfill requests of `source` for these scopes, by scope, oldest first. */
  async function requestsOf(source: string, scopes: string[]): Promise<Map<string, BackfillRequest[]>> {
    const by = new Map<string, BackfillRequest[]>();
    if (scopes.length === 0) return by;
    const { rows } = await db.query(
      `SELECT ${BACKFILL_COLUMNS} FROM ${t.inboundBackfills}
       WHERE source = $1 AND scope IN (SELECT jsonb_array_elements_text($2::jsonb)) ORDER BY requested_at, id`,
      [source, JSON.stringify(scopes)],
    );
    for (const r of rows) {
      const list = by.get(text(r.scope)) ?? [];
      list.push({ id: text(r.id), from: text(r.from_at), to: text(r.to_at), requestedAt: text(r.requested_at) });
      by.set(text(r.scope), list);
    }
    return by;
  }

  async function syncsOf(source: string, rows: Row[]): Promise<InboundSync[]> {
    const requests = await requestsOf(
      source,
      rows.map((r) => text(r.scope)),
    );
    return rows.map((r) => {
      const sync: InboundSync = {
        source: text(r.source),
        scope: text(r.scope),
        state: textOrNull(r.state),
        nextRunAt: text(r.next_run_at),
        requests: requests.get(text(r.scope)) ?? [],
      };
      // Only the operator's list selects the lease.
      const owner = textOrNull(r.lease_owner);
      const until = textOrNull(r.lease_until);
      if (owner !== null && until !== null) sync.lease = { owner, until };
      return sync;
    });
  }

  return {
    async insertInbound(input: NewInbound): Promise<InsertInboundResult> {
      const call = await inboundCall(input, "insertInbound");
      for (let attempt = 0; ; attempt++) {
        try {
          // One statement, atomic by itself: the reference check, the supplier, the invoice, the document, the events.
          return await runInbound(db, call);
        } catch (e) {
          if (e instanceof DbError && e.code === DEADLOCK && attempt < DUPLICATE_RETRIES) continue;
          if (!(e instanceof DbError && e.code === "23505" && e.constraint === "invoices_network_ref_key")) throw e;
          // A concurrent insert of the reference committed first: under READ COMMITTED it is visible now.
          const winner = await recordWithReference(db, input.invoice.companyId, call.ref);
          if (winner) return { inserted: false, existingId: winner };
          if (attempt >= DUPLICATE_RETRIES) throw new DbError("could not settle a concurrent duplicate received document");
        }
      }
    },

    async insertInboundMany(inputs: NewInbound[]): Promise<InsertInboundResult[]> {
      if (inputs.length === 0) return [];
      // Checked and encoded before the transaction: a bad item fails the call with nothing written, and no document is
      // deflated while the transaction holds its locks.
      const calls: InboundCall[] = [];
      for (const input of inputs) calls.push(await inboundCall(input, "insertInboundMany"));
      // The items in one order every call shares, so that concurrent pages take their locks in the same order and wait
      // for each other instead of deadlocking: by company and supplier key (each supplier's row is locked by its first
      // upsert, before any of its documents' references: within one supplier the documents keep the order given, so
      // its counts and dates are those of one insertInbound after another), the documents without a supplier by
      // reference. The results go back in the order given.
      const cmp = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);
      const order = calls
        .map((_, i) => i)
        .sort((a, b) => {
          const ca = calls[a]!;
          const cb = calls[b]!;
          return cmp(ca.group, cb.group) || (ca.supplied ? 0 : cmp(ca.ref, cb.ref)) || a - b;
        });
      for (let attempt = 0; ; attempt++) {
        try {
          return await db.transaction(async (tx) => {
            const results: InsertInboundResult[] = new Array(calls.length);
            // In one transaction, a later item with an earlier one's reference finds it (insert_inbound's own check).
            for (const i of order) results[i] = await runInbound(tx, calls[i]!);
            return results;
          });
        } catch (e) {
          // A concurrent page (or insert) with one of these references committed first, or the database broke a
          // deadlock: the whole page rolled back; again, it finds what committed meanwhile.
          const retry = e instanceof DbError && (e.code === DEADLOCK || e.code === "40001" || (e.code === "23505" && e.constraint === "invoices_network_ref_key"));
          if (!retry) throw e;
          if (attempt >= MANY_RETRIES) throw new DbError("could not settle concurrent pages of received documents");
        }
      }
    },

    async listSuppliers(companyId, query) {
      return listCounterparties(db, t.suppliers, companyId, query);
    },

    async getSupplier(companyId, id) {
      if (!isId(companyId) || !isId(id)) return null;
      return CLIENTS.one(db, `FROM ${t.suppliers} WHERE company_id = $1::uuid AND id = $2::uuid`, [companyId, id]);
    },

    async insertUnmatched(doc, content) {
      if (!isId(doc.id)) throw new DbError("insertUnmatched needs a lower-case UUID");
      needsTime("insertUnmatched", doc.receivedAt);
      const ref = networkReferenceKey(doc.networkReference);
      const kept = content ? await documents.encode(content) : null;
      const { rows } = await db.query<{ id: string }>(
        `INSERT INTO ${t.unmatchedDocuments}
           (id, network, network_ref, network_reference, legal_entity_id, reason, received_at, media_type, sha256, size, content, content_encoding)
         VALUES ($1::uuid, $2, $3, $4::jsonb, $5, $6, $7::timestamptz, $8, $9, $10::integer, $11::bytea, $12)
         ON CONFLICT (network_ref) DO NOTHING RETURNING id::text AS id`,
        [
          doc.id,
          doc.network,
          ref,
          JSON.stringify(doc.networkReference),
          doc.legalEntityId,
          doc.reason,
          doc.receivedAt,
          doc.mediaType,
          doc.sha256,
          doc.size,
          kept?.bytes ?? null,
          kept?.encoding ?? "identity",
        ],
      );
      if (rows[0]) return { inserted: true, id: rows[0].id };
      // The insert waited for a concurrent one of the reference to commit: it is visible now.
      const first = await db.query<{ id: string }>(`SELECT id::text AS id FROM ${t.unmatchedDocuments} WHERE network_ref = $1`, [ref]);
      if (!first.rows[0]) throw new DbError("could not settle a concurrent document for no company");
      return { inserted: false, id: first.rows[0].id };
    },

    async listUnmatched({ limit, after }) {
      if (!validKeyset(after)) return [];
      const params: unknown[] = [];
      let keyset = "";
      if (after) {
        params.push(after.at, after.id);
        keyset = `WHERE (received_at, id) < ($1::timestamptz, $2::uuid)`;
      }
      params.push(limit);
      const { rows } = await db.query(
        `SELECT ${UNMATCHED_COLUMNS} FROM ${t.unmatchedDocuments} ${keyset}
         ORDER BY ${t.unmatchedDocuments}.received_at DESC, ${t.unmatchedDocuments}.id DESC LIMIT $${params.length}::integer`,
        params,
      );
      return rows.map(unmatchedOf);
    },

    async getUnmatchedContent(id) {
      if (!isId(id)) return null;
      const { rows } = await db.query(`SELECT encode(content, 'hex') AS content_hex, content_encoding FROM ${t.unmatchedDocuments} WHERE id = $1::uuid`, [id]);
      const r = rows[0];
      if (!r || r.content_hex === null || r.content_hex === undefined) return null;
      return decodeDocument(Buffer.from(String(r.content_hex), "hex"), String(r.content_encoding));
    },

    async countUnmatched() {
      const { rows } = await db.query<{ n: number }>(`SELECT count(*)::integer AS n FROM ${t.unmatchedDocuments}`);
      return Number(rows[0]?.n ?? 0);
    },

    async setParticipantIds(companyId, participantIds, at) {
      if (!isId(companyId)) return null;
      needsTime("setParticipantIds", at);
      // Sorted: concurrent calls insert shared identifiers in one order (no deadlock), and the company's row keeps them so.
      const ids = JSON.stringify([...new Set(participantIds)].sort());
      type Answer = { ok: true; company: Company } | { ok: false; takenBy: string; participantId: string } | null;
      return rollbackWith<Answer>(() =>
        db.transaction(async (tx) => {
          const locked = await tx.query(`SELECT id FROM ${t.companies} WHERE id = $1::uuid FOR NO KEY UPDATE`, [companyId]);
          if (locked.rows.length === 0) return null;
          await tx.query(
            `DELETE FROM ${t.participantIds} WHERE company_id = $1::uuid AND participant_id NOT IN (SELECT jsonb_array_elements_text($2::jsonb))`,
            [companyId, ids],
          );
          // A concurrent call that inserted one of them first makes this wait for its end: then it is seen below.
          await tx.query(
            `INSERT INTO ${t.participantIds} (participant_id, company_id)
             SELECT x.v, $1::uuid FROM jsonb_array_elements_text($2::jsonb) WITH ORDINALITY AS x(v, n) ORDER BY x.n
             ON CONFLICT (participant_id) DO NOTHING`,
            [companyId, ids],
          );
          const taken = await tx.query<{ participant_id: string; company_id: string }>(
            `SELECT p.participant_id, p.company_id::text AS company_id
             FROM ${t.participantIds} AS p JOIN jsonb_array_elements_text($2::jsonb) WITH ORDINALITY AS x(v, n) ON p.participant_id = x.v
             WHERE p.company_id <> $1::uuid ORDER BY x.n LIMIT 1`,
            [companyId, ids],
          );
          const other = taken.rows[0];
          if (other) throw new Rollback<Answer>({ ok: false, takenBy: other.company_id, participantId: other.participant_id });
          const { rows } = await tx.query(
            `UPDATE ${t.companies} SET participant_ids = $2::jsonb, updated_at = $3::timestamptz WHERE id = $1::uuid RETURNING ${COMPANIES.select()}`,
            [companyId, ids, at],
          );
          return { ok: true as const, company: COMPANIES.fromRow(rows[0]!) };
        }),
      );
    },

    async findCompanyByParticipant(participantId) {
      const { rows } = await db.query<{ id: string }>(`SELECT company_id::text AS id FROM ${t.participantIds} WHERE participant_id = $1`, [participantId]);
      return rows[0]?.id ?? null;
    },

    async findCompanyByLegalEntity(legalEntityId) {
      const { rows } = await db.query<{ id: string }>(
        `SELECT id::text AS id FROM ${t.companies} WHERE legal_entity_id = $1 ORDER BY created_at, id LIMIT 1`,
        [legalEntityId],
      );
      return rows[0]?.id ?? null;
    },

    async ensureInboundSync({ source, scope, now }) {
      needsTime("ensureInboundSync", now);
      await db.query(
        `INSERT INTO ${t.inboundSyncs} (source, scope, state, next_run_at, updated_at) VALUES ($1, $2, NULL, $3::timestamptz, $3::timestamptz)
         ON CONFLICT (source, scope) DO NOTHING`,
        [source, scope, now],
      );
    },

    async claimInboundSyncs({ source, owner, now, leaseUntil, limit }) {
      needsTime("claimInboundSyncs", now, leaseUntil);
      if (!(limit > 0)) return [];
      // SKIP LOCKED: a row another process is claiming right now is left to it; a row whose claim committed is
      // checked again (its lease then keeps it out).
      const { rows } = await db.query(
        `WITH due AS (
           SELECT q.source, q.scope FROM ${t.inboundSyncs} AS q
           WHERE q.source = $1 AND q.next_run_at <= $3::timestamptz AND (q.lease_until IS NULL OR q.lease_until <= $3::timestamptz)
           ORDER BY q.next_run_at, q.scope LIMIT $5::integer
           FOR UPDATE SKIP LOCKED
         )
         UPDATE ${t.inboundSyncs} AS s SET lease_owner = $2, lease_until = $4::timestamptz, updated_at = $3::timestamptz
         FROM due WHERE s.source = due.source AND s.scope = due.scope
         RETURNING s.source, s.scope, s.state, ${iso("s.next_run_at", "next_run_at")}`,
        [source, owner, now, leaseUntil, limit],
      );
      rows.sort((a, b) => (text(a.next_run_at) < text(b.next_run_at) ? -1 : text(a.next_run_at) > text(b.next_run_at) ? 1 : text(a.scope) < text(b.scope) ? -1 : 1));
      return syncsOf(source, rows);
    },

    async saveInboundSync({ source, scope, owner, state, takenRequests, leaseUntil, nextRunAt }) {
      needsTime("saveInboundSync", leaseUntil, nextRunAt);
      // One statement: the mark (and the lease or its end) only while `owner` holds the lease, and the requests taken with it.
      const { rows } = await db.query<{ n: number }>(
        `WITH saved AS (
           UPDATE ${t.inboundSyncs} SET
             state = $4,
             next_run_at = coalesce($6::timestamptz, next_run_at),
             lease_owner = CASE WHEN $6::timestamptz IS NULL THEN lease_owner END,
             lease_until = CASE WHEN $6::timestamptz IS NOT NULL THEN NULL ELSE coalesce($5::timestamptz, lease_until) END,
             updated_at = now()
           WHERE source = $1 AND scope = $2 AND lease_owner = $3
           RETURNING 1 AS one
         ), taken AS (
           DELETE FROM ${t.inboundBackfills}
           WHERE EXISTS (SELECT 1 FROM saved) AND source = $1 AND scope = $2 AND id::text IN (SELECT jsonb_array_elements_text($7::jsonb))
           RETURNING 1 AS one
         )
         SELECT (SELECT count(*) FROM saved)::integer AS n, (SELECT count(*) FROM taken)::integer AS taken`,
        [source, scope, owner, state, leaseUntil ?? null, nextRunAt ?? null, JSON.stringify(takenRequests ?? [])],
      );
      return Number(rows[0]?.n ?? 0) > 0;
    },

    async releaseInboundSync({ source, scope, owner }) {
      // It was due when it was claimed (its next_run_at is kept): free, it is due again at once.
      await db.query(`UPDATE ${t.inboundSyncs} SET lease_owner = NULL, lease_until = NULL, updated_at = now() WHERE source = $1 AND scope = $2 AND lease_owner = $3`, [
        source,
        scope,
        owner,
      ]);
    },

    async requestBackfill({ source, scope, request }) {
      if (!isId(request.id)) throw new DbError("requestBackfill needs a lower-case UUID");
      needsTime("requestBackfill", request.from, request.to, request.requestedAt);
      // Due at the request at the latest (a row due earlier stays so).
      await db.transaction(async (tx) => {
        await tx.query(
          `INSERT INTO ${t.inboundSyncs} AS s (source, scope, state, next_run_at, updated_at) VALUES ($1, $2, NULL, $3::timestamptz, $3::timestamptz)
           ON CONFLICT (source, scope) DO UPDATE SET next_run_at = least(s.next_run_at, EXCLUDED.next_run_at), updated_at = EXCLUDED.updated_at`,
          [source, scope, request.requestedAt],
        );
        await tx.query(
          `INSERT INTO ${t.inboundBackfills} (id, source, scope, from_at, to_at, requested_at)
           VALUES ($1::uuid, $2, $3, $4::timestamptz, $5::timestamptz, $6::timestamptz) ON CONFLICT (id) DO NOTHING`,
          [request.id, source, scope, request.from, request.to, request.requestedAt],
        );
      });
    },

    async listInboundSyncs(source) {
      const { rows } = await db.query(`SELECT ${SYNC_COLUMNS}, lease_owner, ${iso("lease_until")} FROM ${t.inboundSyncs} WHERE source = $1 ORDER BY scope COLLATE "C"`, [source]);
      return syncsOf(source, rows);
    },
  };
}
