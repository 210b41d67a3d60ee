// What every part of the SQL store shares: the tables' qualified names, id and time checks, the keyset order.
import type { Keyset } from "@einvoice/core";
import type { Db } from "./db.js";

/** The qualified names of the schema's tables and functions. */
export interface Tables {
  companies: string;
  accounts: string;
  apiKeys: string;
  clients: string;
  invoices: string;
  documents: string;
  insertAccepted: string;
  webhooks: string;
  webhookEvents: string;
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
    webhooks: `${s}.webhooks`,
    webhookEvents: `${s}.webhook_events`,
    deliveryEvidence: `${s}.delivery_evidence`,
    transmittedDocuments: `${s}.transmitted_documents`,
    idempotencyKeys: `${s}.idempotency_keys`,
  };
}

/** What each port's part of the store is built from. */
export interface StoreContext {
  db: Db;
  t: Tables;
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

/** Orders by (at, id) ascending, as text: the order of the memory store. */
export function compareKey(aAt: string, aId: string, bAt: string, bId: string): number {
  return aAt < bAt ? -1 : aAt > bAt ? 1 : aId < bId ? -1 : aId > bId ? 1 : 0;
}

/** A keyset position the database can compare: a port timestamp and a lower-case UUID. */
export function validKeyset(after: Keyset | null): boolean {
  return after === null || (isPortTime(after.at) && isId(after.id));
}
