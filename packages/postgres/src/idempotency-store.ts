// The `IdempotencyStore` port on PostgreSQL: one row per company and Idempotency-Key.
import type { IdempotencyBegin, IdempotencyStore } from "@einvoice/core";
import { DbError } from "./db.js";
import { isId, isPortTime, type StoreContext } from "./sql.js";

/** Every this many keys taken, the expired ones (a bounded batch) are deleted. */
const SWEEP_EVERY = 200;

export function sqlIdempotencyStore({ db, t }: StoreContext): IdempotencyStore {
  let taken = 0;
  return {
    async beginIdempotentRequest({ companyId, key, fingerprint, now, lockedUntil, expiredBefore, resourceId }): Promise<IdempotencyBegin> {
      if (!isId(companyId) || !isId(resourceId)) throw new DbError("beginIdempotentRequest needs a company id and a resource id");
      if (!isPortTime(now) || !isPortTime(lockedUntil) || !isPortTime(expiredBefore)) throw new DbError("beginIdempotentRequest needs port timestamps");
      if (++taken % SWEEP_EVERY === 0) {
        await db.query(`DELETE FROM ${t.idempotencyKeys} WHERE ctid IN (SELECT ctid FROM ${t.idempotencyKeys} WHERE created_at <= $1::timestamptz LIMIT 1000)`, [expiredBefore]);
      }
      // A row that comes back is this request's: new, expired, abandoned, or left in progress by an instance that died.
      // Of concurrent inserts with one key, one inserts; the others see its row (not expired, locked) and get none.
      // The resource id is the earlier request's when this one is its retry (same fingerprint, within the 24 hours):
      // that request may have stored its submission and died before it kept its answer. In the same statement.
      for (let tries = 0; tries < 3; tries++) {
        const { rows } = await db.query<{ resource_id: string }>(
          `INSERT INTO ${t.idempotencyKeys} AS k (company_id, key, fingerprint, created_at, locked_until, resource_id)
           VALUES ($1::uuid, $2, $3, $4::timestamptz, $5::timestamptz, $7::uuid)
           ON CONFLICT (company_id, key) DO UPDATE
             SET fingerprint = EXCLUDED.fingerprint, created_at = EXCLUDED.created_at, locked_until = EXCLUDED.locked_until,
                 response_status = NULL, response_body = NULL, abandoned = false,
                 resource_id = CASE WHEN k.created_at > $6::timestamptz AND k.fingerprint = EXCLUDED.fingerprint AND k.resource_id IS NOT NULL
                                    THEN k.resource_id ELSE EXCLUDED.resource_id END
             WHERE k.created_at <= $6::timestamptz OR (k.response_status IS NULL AND (k.abandoned OR k.locked_until <= $4::timestamptz))
           RETURNING resource_id::text AS resource_id`,
          [companyId, key, fingerprint, now, lockedUntil, expiredBefore, resourceId],
        );
        if (rows.length === 1) return { state: "started", resourceId: rows[0]!.resource_id };
        const held = await db.query<{ fingerprint: string; response_status: number | null; response_body: string | null }>(
          `SELECT fingerprint, response_status, response_body FROM ${t.idempotencyKeys} WHERE company_id = $1::uuid AND key = $2`,
          [companyId, key],
        );
        const row = held.rows[0];
        if (!row) continue; // swept in between: take it now
        if (row.response_status === null || row.response_body === null) return { state: "in_progress", fingerprint: row.fingerprint };
        return { state: "completed", fingerprint: row.fingerprint, status: Number(row.response_status), body: row.response_body };
      }
      throw new DbError("the Idempotency-Key could not be taken");
    },

    async completeIdempotentRequest({ companyId, key, fingerprint, status, body }) {
      await db.query(
        `UPDATE ${t.idempotencyKeys} SET response_status = $4, response_body = $5
         WHERE company_id = $1::uuid AND key = $2 AND fingerprint = $3 AND response_status IS NULL`,
        [companyId, key, fingerprint, status, body],
      );
    },

    async abandonIdempotentRequest({ companyId, key, fingerprint }) {
      // Kept (with its resource id) for a retry of the same request, free for the next one.
      await db.query(`UPDATE ${t.idempotencyKeys} SET abandoned = true WHERE company_id = $1::uuid AND key = $2 AND fingerprint = $3 AND response_status IS NULL`, [
        companyId,
        key,
        fingerprint,
      ]);
    },
  };
}
