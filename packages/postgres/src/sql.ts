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
  idempotencyKeys: string;
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
    idempotencyKeys: `${s}.idempotency_keys`,
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
 * The core's fair claim (ports/queue.ts `pickClaims` with `ClaimFairness`) as three CTEs ending in
 * `due` (the ids to lease, locked, SKIP LOCKED, with their `claim_rank`: see `byClaim`): `candidates` selects the claimable rows (`id`,
 * `company_id`, `next_attempt_at`); a row's rank is its company's places taken (`held`, a jsonb
 * object of company id to count, or when NULL `owner`'s live leases on its company's rows) plus its
 * company's candidates before it in claim order; none of rank `perCompany` or more (a NULL
 * `perCompany`: no cap); taken by rank, then claim order. `queued(alias)` is the queue's own
 * condition (its status), checked again with the claim rule on the locked row.
 */
export function fairDue(p: { table: string; queued: (alias: string) => string; candidates: string; now: string; owner: string; limit: string; perCompany: string; held: string }): string {
  return `held AS (
      SELECT q.company_id, count(*)::integer AS n FROM ${p.table} AS q
      WHERE ${p.held}::jsonb IS NULL AND ${p.queued("q.")} AND ${leasedByAt("q.", p.owner, p.now)}
      GROUP BY q.company_id
      UNION ALL
      SELECT h.key::uuid, h.value::integer FROM jsonb_each_text(coalesce(${p.held}::jsonb, '{}'::jsonb)) AS h
    ), candidates AS (${p.candidates}
    ), ranked AS (
      SELECT c.id, c.next_attempt_at,
        coalesce(h.n, 0) + row_number() OVER (PARTITION BY c.company_id ORDER BY ${queueOrder("c.")}) - 1 AS rank
      FROM candidates AS c LEFT JOIN held AS h ON h.company_id = c.company_id
    ), due AS (
      SELECT q.id, r.rank AS claim_rank FROM ranked AS r JOIN ${p.table} AS q ON q.id = r.id
      WHERE (${p.perCompany}::integer IS NULL OR r.rank < ${p.perCompany}::integer) AND ${p.queued("q.")} AND ${claimableAt("q.", p.now)}
      ORDER BY r.rank, ${queueOrder("r.")}
      LIMIT ${p.limit}::integer
      FOR UPDATE OF q SKIP LOCKED
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
