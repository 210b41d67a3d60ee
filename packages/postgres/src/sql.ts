// What every part of the SQL store shares: the tables' qualified names, id and time checks, the keyset order.
import { claimOrder, type Keyset } from "@einvoice/core";
import type { Db } from "./db.js";
import type { DocumentCompressionOf } from "./documents.js";

/** The qualified names of the schema's tables and functions. */
export interface Tables {
  companies: string;
  accounts: string;
  apiKeys: string;
  clients: string;
  invoices: string;
  documents: string;
  insertAccepted: string;
  apiKeyWithCompany: string;
  webhooks: string;
  webhookEvents: string;
  webhookEndpoints: string;
  deliveryEvidence: string;
  transmittedDocuments: string;
  originalDocuments: string;
  idempotencyKeys: string;
  suppliers: string;
  unmatchedDocuments: string;
  participantIds: string;
  inboundSyncs: string;
  inboundBackfills: string;
  insertInbound: string;
}

/** The tables of the quoted schema `s`. */
export function tablesOf(s: string): Tables {
  return {
    companies: `${s}.companies`,
    accounts: `${s}.accounts`,
    apiKeys: `${s}.api_keys`,
    clients: `${s}.clients`,
    invoices: `${s}.invoices`,
    documents: `${s}.documents`,
    insertAccepted: `${s}.insert_accepted`,
    apiKeyWithCompany: `${s}.api_key_with_company`,
    webhooks: `${s}.webhooks`,
    webhookEvents: `${s}.webhook_events`,
    webhookEndpoints: `${s}.webhook_endpoints`,
    deliveryEvidence: `${s}.delivery_evidence`,
    transmittedDocuments: `${s}.transmitted_documents`,
    originalDocuments: `${s}.original_documents`,
    idempotencyKeys: `${s}.idempotency_keys`,
    suppliers: `${s}.suppliers`,
    unmatchedDocuments: `${s}.unmatched_documents`,
    participantIds: `${s}.participant_ids`,
    inboundSyncs: `${s}.inbound_syncs`,
    inboundBackfills: `${s}.inbound_backfills`,
    insertInbound: `${s}.insert_inbound`,
  };
}

/** What each port's part of the store is built from. */
export interface StoreContext {
  db: Db;
  t: Tables;
  /** Who compresses documents: the server (lz4) or the store (zlib), asked at the first write; see documents.ts. */
  documents: DocumentCompressionOf;
}

/** Ids of the core are lower-case UUIDs; anything else names no row (as in the memory store). */
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const isId = (s: string): boolean => ID.test(s);

/** A port timestamp (`2026-01-02T03:04:05.678Z`) that PostgreSQL reads back unchanged. */
export const isPortTime = (s: string): boolean => {
  const t = Date.parse(s);
  return !Number.isNaN(t) && new Date(t).toISOString() === s;
};

/** Formats a timestamptz column back into the port's form, whatever the session's time zone. */
export const iso = (col: string, as: string = col.replace(/^.*\./, "")): string =>
  `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${as}`;

/**
 * The core's claim rule (ports/queue.ts `isClaimable`) on the columns of a queue table (`alias` with its
 * dot): due at `now` (next_attempt_at at or before it) and free (no lease, or one that ran out at or
 * before it). With `ORDER BY` queueOrder(alias), the core's `claimOrder`.
 */
export const claimableAt = (alias: string, now: string): string =>
  `${alias}next_attempt_at <= ${now} AND (${alias}lease_until IS NULL OR ${alias}lease_until <= ${now})`;

/** The core's `claimOrder` in SQL: the oldest due first, then by id. */
export const queueOrder = (alias: string): string => `${alias}next_attempt_at, ${alias}id`;

/** The core's `holdsLease` in SQL: the owner, not the expiry (a NULL owner never equals). */
export const leaseHeldBy = (owner: string): string => `lease_owner = ${owner}`;

/** The core's `leasedBy` in SQL: `owner` holds the row under a lease still running at `now`. */
export const leasedByAt = (alias: string, owner: string, now: string): string => `${alias}lease_owner = ${owner} AND ${alias}lease_until > ${now}`;

/**
 * The core's fair claim (ports/queue.ts `pickClaims` with `ClaimFairness`) as CTEs ending in `due`
 * (the ids to lease, with their `claim_rank`: see `byClaim`); the statement must open with
 * `WITH RECURSIVE`. `companies` walks the companies with queued rows on the index
 * `(company_id, next_attempt_at, id)` (one probe a company, not a scan of the queue). A company's
 * places taken are `held` (a jsonb object of company id to count) or, when that is NULL, `owner`'s
 * live leases on its rows. For each company, `claimable(company)` (a `SELECT q.id, q.company_id,
 * q.next_attempt_at FROM <table> AS q WHERE ... ORDER BY` claim order) is read only as far as the
 * company may still take (`perCompany` less its places taken, at most `limit`; a NULL `perCompany`:
 * `limit`), each row locked `FOR UPDATE SKIP LOCKED` as it is read: a row another claim holds or has
 * just leased (its WHERE is checked again on the locked row) is passed over for the next one, as a
 * plain queue claim does. The rank of a row is its company's places taken plus its company's rows
 * before it; the claim takes `limit` rows by rank, then claim order (the rest of what was locked is
 * let go at commit).
 */
export function fairDue(p: { table: string; queued: (alias: string) => string; claimable: (company: string) => string; now: string; owner: string; limit: string; perCompany: string; held: string }): string {
  const cap = `${p.perCompany}::integer`;
  const limit = `${p.limit}::integer`;
  return `companies AS (
      (SELECT q.company_id FROM ${p.table} AS q WHERE ${p.queued("q.")} ORDER BY q.company_id LIMIT 1)
      UNION ALL
      SELECT (SELECT q.company_id FROM ${p.table} AS q WHERE ${p.queued("q.")} AND q.company_id > co.company_id ORDER BY q.company_id LIMIT 1)
      FROM companies AS co WHERE co.company_id IS NOT NULL
    ), held AS MATERIALIZED (
      SELECT q.company_id, count(*)::integer AS n FROM ${p.table} AS q
      WHERE ${p.held}::jsonb IS NULL AND ${p.queued("q.")} AND ${leasedByAt("q.", p.owner, p.now)}
      GROUP BY q.company_id
      UNION ALL
      SELECT h.key::uuid, h.value::integer FROM jsonb_each_text(coalesce(${p.held}::jsonb, '{}'::jsonb)) AS h
    ), taken AS MATERIALIZED (
      SELECT co.company_id, coalesce(sum(h.n), 0)::integer AS n FROM companies AS co LEFT JOIN held AS h ON h.company_id = co.company_id
      WHERE co.company_id IS NOT NULL GROUP BY co.company_id
    ), candidates AS MATERIALIZED (
      SELECT x.id, x.company_id, x.next_attempt_at, tk.n AS taken FROM taken AS tk CROSS JOIN LATERAL (
        ${p.claimable("tk.company_id")}
        LIMIT CASE WHEN ${cap} IS NULL THEN ${limit} ELSE greatest(0, least(${cap} - tk.n, ${limit})) END
        FOR UPDATE OF q SKIP LOCKED
      ) AS x
    ), due AS (
      SELECT r.id, r.rank AS claim_rank FROM (
        SELECT c.id, c.next_attempt_at, c.taken + row_number() OVER (PARTITION BY c.company_id ORDER BY ${queueOrder("c.")}) - 1 AS rank
        FROM candidates AS c
      ) AS r
      ORDER BY r.rank, ${queueOrder("r.")}
      LIMIT ${limit}
    )`;
}

/** The order of the claimed rows (an UPDATE returns them in any order): by rank (`claim_rank`), then the core's claimOrder (`due_at`, `id`). */
export function byClaim(a: Record<string, unknown>, b: Record<string, unknown>): number {
  return Number(a.claim_rank) - Number(b.claim_rank) || claimOrder({ id: String(a.id), nextAttemptAt: String(a.due_at) }, { id: String(b.id), nextAttemptAt: String(b.due_at) });
}

/** A keyset position the database can compare: a port timestamp and a lower-case UUID. */
export function validKeyset(after: Keyset | null): boolean {
  return after === null || (isPortTime(after.at) && isId(after.id));
}

/** `ClaimInput.held` as the claims' jsonb parameter: null when absent, only well-formed company ids and counts. */
export function heldParam(held: Readonly<Record<string, number>> | undefined): string | null {
  if (!held) return null;
  const kept: Record<string, number> = {};
  for (const [company, n] of Object.entries(held)) if (isId(company) && Number.isInteger(n) && n > 0) kept[company] = n;
  return JSON.stringify(kept);
}

/** Thrown inside a transaction to roll it back with an answer (`rollbackWith`); never leaves the store. */
export class Rollback<T> {
  constructor(readonly result: T) {}
}

/** Runs a transaction that may end with `throw new Rollback(answer)`: the answer, after the rollback. */
export async function rollbackWith<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof Rollback) return e.result as T;
    throw e;
  }
}
