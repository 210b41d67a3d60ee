// The `DeliveryStore` port on PostgreSQL: the dispatcher's queue, kept in the invoices table
// (attempts, next_attempt_at, lease_owner, lease_until), and the webhook events an attempt enqueues.
// The queue's rules are the core's (ports/queue.ts): this file states them in SQL (claimableAt,
// fairDue, leaseHeldBy in sql.ts) and takes the rest as parameters (keepsDeliveryState; claimOrder in byClaim).
import { keepsDeliveryState, type AttemptRecord, type DeliveryJob, type DeliveryStore, type InvoiceRecord, type WebhookEventRecord } from "@einvoice/core";
import { randomUUID } from "node:crypto";
import { DbError } from "./db.js";
import { decodeDocument } from "./documents.js";
import { DELIVERY_EVIDENCE, INVOICES, TRANSMITTED_DOCUMENTS, WEBHOOK_EVENTS, text } from "./rows.js";
import { byClaim, claimableAt, fairDue, heldParam, iso, isId, isPortTime, leaseHeldBy, queueOrder, type StoreContext } from "./sql.js";

export function sqlDeliveryStore({ db, t }: StoreContext): DeliveryStore {
  return {
    async claimDeliveries({ owner, now, leaseUntil, limit, perCompany, held }): Promise<DeliveryJob[]> {
      if (!isPortTime(now) || !isPortTime(leaseUntil)) throw new DbError("claimDeliveries needs port timestamps");
      // SKIP LOCKED: a row another dispatcher is claiming right now is left to it; its lease then
      // keeps this claim away (the row is re-checked once the other claim commits).
      const { rows } = await db.query(
        `WITH RECURSIVE ${fairDue({
          table: t.invoices,
          queued: (a) => `${a}status = 'sending'`,
          claimable: (company) => `SELECT q.id, q.company_id, q.next_attempt_at FROM ${t.invoices} AS q
            WHERE q.status = 'sending' AND q.company_id = ${company} AND ${claimableAt("q.", "$1::timestamptz")}
            ORDER BY ${queueOrder("q.")}`,
          now: "$1::timestamptz",
          owner: "$3",
          limit: "$2",
          perCompany: "$5",
          held: "$6",
        })}
         UPDATE ${t.invoices} AS i SET lease_owner = $3, lease_until = $4::timestamptz
         FROM due LEFT JOIN ${t.documents} AS d ON d.invoice_id = due.id
         WHERE i.id = due.id
         RETURNING ${INVOICES.select("i.")},
           i.attempts, i.delivery_state, due.claim_rank, ${iso("i.next_attempt_at", "due_at")}, encode(d.content, 'hex') AS document_hex, d.content_encoding`,
        [now, limit, owner, leaseUntil, perCompany ?? null, heldParam(held)],
      );
      rows.sort(byClaim);
      const jobs: DeliveryJob[] = [];
      for (const r of rows) {
        const content = Buffer.from(typeof r.document_hex === "string" ? r.document_hex : "", "hex");
        jobs.push({
          invoice: INVOICES.fromRow(r),
          document: await decodeDocument(content, typeof r.content_encoding === "string" ? r.content_encoding : "identity"),
          attempts: Number(r.attempts),
          state: typeof r.delivery_state === "string" ? r.delivery_state : null,
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
             events = events || $8::jsonb,
             delivery_state = CASE WHEN $11::boolean THEN delivery_state END,
             ksef_number = CASE WHEN $3 = 'delivered' AND $9::text IS NOT NULL THEN $9::text ELSE ksef_number END,
             verification_url = CASE WHEN $3 = 'delivered' AND $9::text IS NOT NULL THEN $10::text ELSE verification_url END
           WHERE id = $1::uuid AND ${leaseHeldBy("$2")}
           RETURNING ${INVOICES.select()}`,
          [
            a.id,
            a.owner,
            a.status,
            a.errorMessage,
            a.updatedAt,
            a.attempts,
            a.nextAttemptAt,
            JSON.stringify([{ status: a.event.status, at: a.event.at, detail: a.event.detail }]),
            a.ksef?.ksefNumber ?? null,
            a.ksef?.verificationUrl ?? null,
            keepsDeliveryState(a.status),
          ],
        );
        const updated = rows[0] ? INVOICES.fromRow(rows[0]) : null;
        if (updated && updated.status === "delivered" && updated.network && a.evidence) {
          // With the status, in the same transaction: a delivered invoice's evidence is never lost, nor kept for an undelivered one.
          const { kind, mediaType, content, reference, documentHash } = a.evidence;
          const row = { invoiceId: updated.id, companyId: updated.companyId, network: updated.network, kind, mediaType, content, reference, documentHash, deliveredAt: a.updatedAt };
          await tx.query(
            `INSERT INTO ${t.deliveryEvidence} (${DELIVERY_EVIDENCE.list()}) VALUES (${DELIVERY_EVIDENCE.placeholders()})
             ON CONFLICT (invoice_id) DO NOTHING`,
            DELIVERY_EVIDENCE.params(row),
          );
        }
        if (updated && updated.status === "delivered" && a.transmitted) {
          // With the status too: the document KSeF accepted is kept exactly when the invoice is delivered.
          const row = { invoiceId: updated.id, companyId: updated.companyId, ...a.transmitted };
          await tx.query(
            `INSERT INTO ${t.transmittedDocuments} (${TRANSMITTED_DOCUMENTS.list()}) VALUES (${TRANSMITTED_DOCUMENTS.placeholders()})
             ON CONFLICT (invoice_id) DO NOTHING`,
            TRANSMITTED_DOCUMENTS.params(row),
          );
        }
        if (updated && a.notify) {
          // In the same transaction as the change: one event per subscribed webhook of the company.
          const hooks = await tx.query<{ id: string }>(
            `SELECT id::text AS id FROM ${t.webhooks}
             WHERE company_id = $1::uuid AND deleted_at IS NULL AND events ? $2 ORDER BY created_at, id`,
            [updated.companyId, a.notify.type],
          );
          for (const h of hooks.rows) {
            const event: WebhookEventRecord = {
              id: randomUUID(),
              webhookId: h.id,
              companyId: updated.companyId,
              type: a.notify.type,
              data: a.notify.data,
              createdAt: a.updatedAt,
              status: "pending",
              attempts: 0,
              nextAttemptAt: a.updatedAt,
              deliveredAt: null,
              log: [],
            };
            await tx.query(
              `INSERT INTO ${t.webhookEvents} (${WEBHOOK_EVENTS.list()}) VALUES (${WEBHOOK_EVENTS.placeholders()})`,
              WEBHOOK_EVENTS.params(event),
            );
          }
        }
        return updated;
      });
    },

    async saveDeliveryState({ id, owner, state }) {
      if (!isId(id)) return false;
      const { rows } = await db.query(
        `UPDATE ${t.invoices} SET delivery_state = $3 WHERE id = $1::uuid AND ${leaseHeldBy("$2")} AND status = 'sending' RETURNING 1 AS saved`,
        [id, owner, state],
      );
      return rows.length > 0;
    },

    async releaseDelivery(id, owner) {
      if (!isId(id)) return;
      await db.query(`UPDATE ${t.invoices} SET lease_owner = NULL, lease_until = NULL WHERE id = $1::uuid AND ${leaseHeldBy("$2")}`, [id, owner]);
    },

    async countQueued() {
      // The dispatcher's partial index (WHERE status = 'sending') holds exactly these rows.
      const { rows } = await db.query<{ n: number }>(`SELECT count(*)::integer AS n FROM ${t.invoices} WHERE status = 'sending'`);
      return Number(rows[0]?.n ?? 0);
    },
  };
}
