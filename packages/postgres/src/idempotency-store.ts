// The `IdempotencyStore` port on PostgreSQL: one row per company and Idempotency-Key.
import type { IdempotencyBegin, IdempotencyStore } from "@einvoice/core";
import { DbError } from "./db.js";
import { isId, isPortTime, type StoreContext } from "./sql.js";

/** Every this many keys taken, the expired ones (a bounded batch) are deleted. */
const SWEEP_EVERY = 200;

export function sqlIdempotencyStore({ db, t }: StoreContext): IdempotencyStore {
  let taken = 0;
  return {
    async beginIdempotentRequest({ companyId, key, fingerprint, now, lockedUntil, expiredBefore }): Promise<IdempotencyBegin> {
      if (!isId(companyId)) throw new DbError("beginIdempotentRequest needs a company id");
      if (!isPortTime(now) || !isPortTime(lockedUntil) || !isPortTime(expiredBefore)) throw new DbError("beginIdempotentRequest needs port timestamps");
      if (++taken % SWEEP_EVERY === 0) {
        await db.query(`DELETE FROM ${t.idempotencyKeys} WHERE ctid IN (SELECT ctid FROM ${t.idempotencyKeys} WHERE created_at <= $1::timestamptz LIMIT 1000)`, [expiredBefore]);
      }
      // A row that comes back is this request's: new, expired, or left in progress by an instance that died.
      // Of concurrent inserts with one key, one inserts; the others see its row (not expired, locked) and get none.
      for (let tries = 0; tries < 3; tries++) {
        const { rows } = await db.query(
          `INSERT INTO ${t.idempotencyKeys} AS k (company_id, key, fingerprint, created_at, locked_until)
           VALUES ($1::uuid, $2, $3, $4::timestamptz, $5::timestamptz)
           ON CONFLICT (company_id, key) DO UPDATE
             SET fingerprint = EXCLUDED.fingerprint, created_at = EXCLUDED.created_at, locked_until = EXCLUDED.locked_until,
                 response_status = NULL, response_body = NULL
             WHERE k.created_at <= $6::timestamptz OR (k.response_status IS NULL AND k.locked_until <= $4::timestamptz)
           RETURNING 1 AS taken`,
          [companyId, key, fingerprint, now, lockedUntil, expiredBefore],
        );
        if (rows.length === 1) return { state: "started" };
        const held = await db.query<{ fingerprint: string; response_status: number | null; response_body: string | null }>(
          `SELECT fingerprint, response_status, response_body FROM ${t.idempotencyKeys} WHERE company_id = $1::uuid AND key = $2`,
          [companyId, key],
        );
        const row = held.rows[0];
        if (!row) continue; // abandoned in between: take it now
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
      await db.query(`DELETE FROM ${t.idempotencyKeys} WHERE company_id = $1::uuid AND key = $2 AND fingerprint = $3 AND response_status IS NULL`, [
        companyId,
        key,
        fingerprint,
      ]);
    },
  };
}
