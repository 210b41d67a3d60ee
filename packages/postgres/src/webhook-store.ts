// The `WebhookStore` port on PostgreSQL: webhooks and the queue of their events. The queue's rules are
// the core's (ports/queue.ts), stated in SQL by sql.ts or passed as parameters (WEBHOOK_LOG_LENGTH).
import { WEBHOOK_LOG_LENGTH, type WebhookJob, type WebhookStore } from "@einvoice/core";
import { DbError } from "./db.js";
import { WEBHOOKS, WEBHOOK_EVENTS, text, textOrNull } from "./rows.js";
import { byClaim, claimableAt, fairDue, heldParam, iso, isId, isPortTime, leaseHeldBy, queueOrder, type StoreContext } from "./sql.js";
import { lockCompanyRow } from "./store-port.js";

export function sqlWebhookStore({ db, t }: StoreContext): WebhookStore {
  return {
    async insertWebhook(w, limit) {
      const insert = `INSERT INTO ${t.webhooks} (${WEBHOOKS.list()}) VALUES (${WEBHOOKS.placeholders()})`;
      if (limit?.max === undefined) {
        await db.query(insert, WEBHOOKS.params(w));
        return true;
      }
      const max = limit.max;
      return db.transaction(async (tx) => {
        // Under the company's row lock the count is the one the insert acts on (see lockCompanyRow).
        await lockCompanyRow(tx, t.companies, w.companyId);
        const { rows } = await tx.query(`SELECT count(*)::integer AS n FROM ${t.webhooks} WHERE company_id = $1::uuid AND deleted_at IS NULL`, [w.companyId]);
        if (Number(rows[0]!.n) >= max) return false;
        await tx.query(insert, WEBHOOKS.params(w));
        return true;
      });
    },

    async listWebhooks(companyId) {
      if (!isId(companyId)) return [];
      return WEBHOOKS.all(db, `FROM ${t.webhooks} AS w WHERE company_id = $1::uuid AND deleted_at IS NULL ORDER BY w.created_at, w.id`, [companyId]);
    },

    async getWebhook(companyId, id) {
      if (!isId(companyId) || !isId(id)) return null;
      return WEBHOOKS.one(db, `FROM ${t.webhooks} WHERE company_id = $1::uuid AND id = $2::uuid AND deleted_at IS NULL`, [companyId, id]);
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

    async rotateWebhookSecret(companyId, id, { secret, previousSecretExpiresAt }) {
      if (!isId(companyId) || !isId(id)) return null;
      if (!isPortTime(previousSecretExpiresAt)) throw new DbError("rotateWebhookSecret needs a port timestamp");
      const { rows } = await db.query(
        `UPDATE ${t.webhooks} AS w SET previous_secret = w.secret, previous_secret_expires_at = $4::timestamptz, secret = $3
         WHERE w.company_id = $1::uuid AND w.id = $2::uuid AND w.deleted_at IS NULL
         RETURNING ${WEBHOOKS.select("w.")}`,
        [companyId, id, secret, previousSecretExpiresAt],
      );
      return rows[0] ? WEBHOOKS.fromRow(rows[0]) : null;
    },

    async claimWebhookEvents({ owner, now, leaseUntil, limit, perCompany, held }): Promise<WebhookJob[]> {
      if (!isPortTime(now) || !isPortTime(leaseUntil)) throw new DbError("claimWebhookEvents needs port timestamps");
      // The candidates keep the endpoints' circuits (circuitAt): none of an open endpoint's events; of a
      // half-open one (paused_until passed) only its oldest due, while none of its events is leased.
      const { rows } = await db.query(
        `WITH RECURSIVE ${fairDue({
          table: t.webhookEvents,
          queued: (a) => `${a}status = 'pending'`,
          claimable: (company) => `
            SELECT q.id, q.company_id, q.next_attempt_at FROM ${t.webhookEvents} AS q
            WHERE q.status = 'pending' AND q.company_id = ${company} AND ${claimableAt("q.", "$1::timestamptz")} AND q.id IN (
              SELECT c.id FROM (
                SELECT e.id, e.company_id, w.url, ep.paused_until,
                  row_number() OVER (PARTITION BY w.url ORDER BY ${queueOrder("e.")}) AS nth
                FROM ${t.webhookEvents} AS e
                JOIN ${t.webhooks} AS w ON w.company_id = e.company_id AND w.id = e.webhook_id AND w.deleted_at IS NULL
                LEFT JOIN ${t.webhookEndpoints} AS ep ON ep.company_id = e.company_id AND ep.url = w.url
                WHERE e.status = 'pending' AND e.company_id = ${company} AND ${claimableAt("e.", "$1::timestamptz")}
                  AND (ep.paused_until IS NULL OR ep.paused_until <= $1::timestamptz)
              ) AS c
              WHERE c.paused_until IS NULL OR (c.nth = 1 AND NOT EXISTS (
                SELECT 1 FROM ${t.webhookEvents} AS l
                JOIN ${t.webhooks} AS lw ON lw.company_id = l.company_id AND lw.id = l.webhook_id AND lw.deleted_at IS NULL
                WHERE l.company_id = c.company_id AND lw.url = c.url AND l.status = 'pending' AND l.lease_until > $1::timestamptz)))
            ORDER BY ${queueOrder("q.")}`,
          now: "$1::timestamptz",
          owner: "$3",
          limit: "$2",
          perCompany: "$5",
          held: "$6",
        })}
         UPDATE ${t.webhookEvents} AS e SET lease_owner = $3, lease_until = $4::timestamptz
         FROM due, ${t.webhooks} AS w LEFT JOIN ${t.webhookEndpoints} AS ep ON ep.company_id = w.company_id AND ep.url = w.url
         WHERE e.id = due.id AND w.company_id = e.company_id AND w.id = e.webhook_id
         RETURNING ${WEBHOOK_EVENTS.select("e.")}, w.url, w.secret,
           CASE WHEN w.previous_secret_expires_at > $1::timestamptz THEN w.previous_secret END AS previous_secret, -- previousSecretSigns
           coalesce(ep.failures, 0) AS endpoint_failures, due.claim_rank, ${iso("e.next_attempt_at", "due_at")}`,
        [now, limit, owner, leaseUntil, perCompany ?? null, heldParam(held)],
      );
      return rows
        .sort(byClaim)
        .map((r) => ({
          event: WEBHOOK_EVENTS.fromRow(r),
          url: text(r.url),
          secret: text(r.secret),
          previousSecret: textOrNull(r.previous_secret),
          endpointFailures: Number(r.endpoint_failures),
        }));
    },

    async completeWebhookEvent(input) {
      if (!isId(input.id)) return false;
      const circuit = input.circuit ?? null;
      if (circuit && !isPortTime(circuit.pauseUntil)) throw new DbError("completeWebhookEvent needs a port timestamp as the circuit's pauseUntil");
      // The attempt and its endpoint's circuit (circuitAfter) in one statement: a success deletes the
      // endpoint's row (closed), a failure counts and, from the threshold, pauses it.
      const { rows } = await db.query(
        `WITH done AS (
           UPDATE ${t.webhookEvents} SET
             status = $3, attempts = $4::integer, next_attempt_at = $5::timestamptz, delivered_at = $6::timestamptz,
             log = (SELECT coalesce(jsonb_agg(x ORDER BY n), '[]'::jsonb) FROM (
                      SELECT x, n FROM jsonb_array_elements(log || $7::jsonb) WITH ORDINALITY AS a(x, n)
                      ORDER BY n DESC LIMIT $8::integer) AS last),
             lease_owner = NULL, lease_until = NULL
           WHERE id = $1::uuid AND ${leaseHeldBy("$2")}
           RETURNING id, company_id, webhook_id
         ), target AS (
           SELECT d.company_id, w.url FROM done AS d JOIN ${t.webhooks} AS w ON w.company_id = d.company_id AND w.id = d.webhook_id
           WHERE $9::integer IS NOT NULL
         ), closed AS (
           DELETE FROM ${t.webhookEndpoints} AS ep USING target
           WHERE $3 = 'delivered' AND ep.company_id = target.company_id AND ep.url = target.url
           RETURNING 1
         ), failed AS (
           INSERT INTO ${t.webhookEndpoints} AS ep (company_id, url, failures, paused_until)
           SELECT company_id, url, 1, CASE WHEN 1 >= $9::integer THEN $10::timestamptz END FROM target WHERE $3 <> 'delivered'
           ON CONFLICT (company_id, url) DO UPDATE SET
             failures = ep.failures + 1,
             paused_until = CASE WHEN ep.failures + 1 >= $9::integer THEN greatest(ep.paused_until, $10::timestamptz) ELSE ep.paused_until END
           RETURNING 1
         )
         SELECT id FROM done`,
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
          WEBHOOK_LOG_LENGTH,
          circuit?.threshold ?? null,
          circuit?.pauseUntil ?? null,
        ],
      );
      return rows.length === 1;
    },

    async listWebhookEvents(companyId, webhookId, limit) {
      if (!isId(companyId) || !isId(webhookId)) return [];
      const { rows } = await db.query(
        `SELECT ${WEBHOOK_EVENTS.select("e.")} FROM ${t.webhookEvents} AS e
         WHERE e.company_id = $1::uuid AND e.webhook_id = $2::uuid
         ORDER BY e.created_at DESC, e.id DESC LIMIT $3::integer`,
        [companyId, webhookId, limit],
      );
      return rows.map(WEBHOOK_EVENTS.fromRow);
    },
  };
}
