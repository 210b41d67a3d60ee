// The schema as versioned migrations, applied at start under an advisory lock.
import { createHash } from "node:crypto";
import { DbError, type Db, type Queryable } from "./db.js";

/** One step of the schema. `statements` get the quoted schema name; each is one SQL statement. */
export interface Migration {
  version: number;
  name: string;
  statements(schema: string): string[];
}

/**
 * Every table carries `company_id` (the tenant) and every query of the store filters on it.
 * Timestamps are `timestamptz(3)`: the port's ISO strings have milliseconds. Amounts are text:
 * the XML's decimal strings, never numbers.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "initial",
    statements: (s) => [
      `CREATE TABLE ${s}.companies (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        country text NOT NULL,
        enterprise boolean NOT NULL,
        subscription text NOT NULL,
        legal_entity_id text,
        peppol_sending_enabled boolean NOT NULL,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`,
      `CREATE TABLE ${s}.accounts (
        id uuid PRIMARY KEY,
        email text NOT NULL,
        company_id uuid NOT NULL REFERENCES ${s}.companies (id),
        created_at timestamptz(3) NOT NULL,
        CONSTRAINT accounts_email_key UNIQUE (email)
      )`,
      `CREATE INDEX accounts_company_idx ON ${s}.accounts (company_id)`,
      `CREATE TABLE ${s}.api_keys (
        id uuid PRIMARY KEY,
        company_id uuid NOT NULL REFERENCES ${s}.companies (id),
        prefix text NOT NULL,
        hash text NOT NULL,
        created_at timestamptz(3) NOT NULL,
        last_used_at timestamptz(3),
        revoked_at timestamptz(3)
      )`,
      `CREATE INDEX api_keys_company_active_idx ON ${s}.api_keys (company_id, created_at, id) WHERE revoked_at IS NULL`,
      `CREATE TABLE ${s}.clients (
        id uuid PRIMARY KEY,
        company_id uuid NOT NULL REFERENCES ${s}.companies (id),
        key text NOT NULL,
        endpoint_id text NOT NULL,
        name text,
        vat_id text,
        country text,
        invoice_count integer NOT NULL,
        first_invoice_at timestamptz(3) NOT NULL,
        last_invoice_at timestamptz(3) NOT NULL,
        CONSTRAINT clients_company_key_key UNIQUE (company_id, key),
        CONSTRAINT clients_company_id_key UNIQUE (company_id, id)
      )`,
      `CREATE INDEX clients_company_last_invoice_idx ON ${s}.clients (company_id, last_invoice_at DESC, id DESC)`,
      `CREATE TABLE ${s}.invoices (
        id uuid PRIMARY KEY,
        company_id uuid NOT NULL REFERENCES ${s}.companies (id),
        status text NOT NULL,
        target_network text NOT NULL,
        network text,
        error_message text,
        invoice_number text,
        issue_date text,
        due_date text,
        currency text,
        total_tax_exclusive text,
        total_tax_inclusive text,
        total_payable text,
        supplier jsonb NOT NULL,
        recipient jsonb NOT NULL,
        client_id uuid,
        sha256 text NOT NULL,
        size integer NOT NULL,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        events jsonb NOT NULL,
        CONSTRAINT invoices_client_fkey FOREIGN KEY (company_id, client_id) REFERENCES ${s}.clients (company_id, id)
      )`,
      // Newest first, ties by id: the keyset of GET /v1/invoices, with and without its filters.
      `CREATE INDEX invoices_company_created_idx ON ${s}.invoices (company_id, created_at DESC, id DESC)`,
      `CREATE INDEX invoices_company_status_created_idx ON ${s}.invoices (company_id, status, created_at DESC, id DESC)`,
      `CREATE INDEX invoices_company_client_created_idx ON ${s}.invoices (company_id, client_id, created_at DESC, id DESC) WHERE client_id IS NOT NULL`,
      // The duplicate rule, kept by the database: one submission per company and document that has not failed.
      `CREATE UNIQUE INDEX invoices_active_sha256_key ON ${s}.invoices (company_id, sha256) WHERE status <> 'failed'`,
      `CREATE TABLE ${s}.documents (
        invoice_id uuid PRIMARY KEY REFERENCES ${s}.invoices (id),
        company_id uuid NOT NULL,
        content bytea NOT NULL
      )`,
    ],
  },
  {
    version: 2,
    name: "delivery queue",
    statements: (s) => [
      // The dispatcher's queue: attempts made, when the next is due, and who holds the lease until when.
      `ALTER TABLE ${s}.invoices
        ADD COLUMN attempts integer NOT NULL DEFAULT 0,
        ADD COLUMN next_attempt_at timestamptz(3),
        ADD COLUMN lease_owner text,
        ADD COLUMN lease_until timestamptz(3)`,
      `UPDATE ${s}.invoices SET next_attempt_at = created_at WHERE status = 'sending'`,
      // Across companies: the dispatcher serves them all. Oldest due first.
      `CREATE INDEX invoices_delivery_due_idx ON ${s}.invoices (next_attempt_at, id) WHERE status = 'sending'`,
    ],
  },
  {
    version: 3,
    name: "webhooks",
    statements: (s) => [
      `CREATE TABLE ${s}.webhooks (
        id uuid PRIMARY KEY,
        company_id uuid NOT NULL REFERENCES ${s}.companies (id),
        url text NOT NULL,
        events jsonb NOT NULL,
        secret text NOT NULL,
        created_at timestamptz(3) NOT NULL,
        deleted_at timestamptz(3),
        CONSTRAINT webhooks_company_id_key UNIQUE (company_id, id)
      )`,
      `CREATE INDEX webhooks_company_idx ON ${s}.webhooks (company_id, created_at, id) WHERE deleted_at IS NULL`,
      // One row per event and webhook: the queue of the webhook sender, and the deliveries users see.
      `CREATE TABLE ${s}.webhook_events (
        id uuid PRIMARY KEY,
        webhook_id uuid NOT NULL,
        company_id uuid NOT NULL,
        type text NOT NULL,
        data text NOT NULL,
        created_at timestamptz(3) NOT NULL,
        status text NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz(3),
        delivered_at timestamptz(3),
        log jsonb NOT NULL DEFAULT '[]'::jsonb,
        lease_owner text,
        lease_until timestamptz(3),
        CONSTRAINT webhook_events_webhook_fkey FOREIGN KEY (company_id, webhook_id) REFERENCES ${s}.webhooks (company_id, id)
      )`,
      `CREATE INDEX webhook_events_due_idx ON ${s}.webhook_events (next_attempt_at, id) WHERE status = 'pending'`,
      `CREATE INDEX webhook_events_webhook_idx ON ${s}.webhook_events (company_id, webhook_id, created_at DESC, id DESC)`,
    ],
  },
  {
    version: 4,
    name: "deflated documents, one-call accepted write, no foreign-key checks on the submission path",
    statements: (s) => [
      // The three rows of a submission are written by one call (below) and no row of these tables is
      // ever deleted or re-keyed, so these checks could never fail; each cost a lookup on every write,
      // and the one on companies also locked the company's row (FOR KEY SHARE) on every submission,
      // which on a server turns concurrent submissions of one company into MultiXact traffic.
      // clients (company_id, id) existed only as the target of invoices_client_fkey.
      `ALTER TABLE ${s}.invoices DROP CONSTRAINT invoices_company_id_fkey`,
      `ALTER TABLE ${s}.invoices DROP CONSTRAINT invoices_client_fkey`,
      `ALTER TABLE ${s}.documents DROP CONSTRAINT documents_invoice_id_fkey`,
      `ALTER TABLE ${s}.clients DROP CONSTRAINT clients_company_id_key`,
      // The store deflates documents itself (zlib, about 5x smaller for UBL); rows written before stay 'identity'.
      `ALTER TABLE ${s}.documents
        ADD COLUMN content_encoding text NOT NULL DEFAULT 'identity'
        CONSTRAINT documents_content_encoding_check CHECK (content_encoding IN ('identity', 'deflate'))`,
      // Already compressed: no second compression by TOAST (pglz) on the write path, and rows of
      // up to 8 KiB (a deflated invoice of about 40 KiB) stay in the table's own page instead of
      // going to the TOAST table (one more row and index entry per write).
      `ALTER TABLE ${s}.documents ALTER COLUMN content SET STORAGE EXTERNAL`,
      `ALTER TABLE ${s}.documents SET (toast_tuple_target = 8160)`,
      // The write of an accepted submission: the client upsert, the invoice with its client and the
      // document, in one call whose statements' plans PL/pgSQL keeps for the session (a plain
      // statement of the same three INSERTs is planned again on every call). Atomic: the caller's
      // statement is one. A second active submission of the same document fails on the unique
      // partial index invoices_active_sha256_key and undoes all of it. Returns the client's id.
      `CREATE FUNCTION ${s}.insert_accepted(
        p_id uuid, p_company_id uuid, p_status text, p_target_network text, p_network text, p_error_message text,
        p_invoice_number text, p_issue_date text, p_due_date text, p_currency text,
        p_total_tax_exclusive text, p_total_tax_inclusive text, p_total_payable text,
        p_supplier jsonb, p_recipient jsonb, p_sha256 text, p_size integer,
        p_created_at timestamptz, p_updated_at timestamptz, p_events jsonb,
        p_client_id uuid, p_client_key text, p_client_endpoint_id text, p_client_name text, p_client_vat_id text, p_client_country text,
        p_content_hex text, p_content_encoding text
      ) RETURNS uuid LANGUAGE plpgsql AS $body$
      DECLARE
        v_client_id uuid;
      BEGIN
        IF p_client_key IS NOT NULL THEN
          INSERT INTO ${s}.clients AS cl (id, company_id, key, endpoint_id, name, vat_id, country, invoice_count, first_invoice_at, last_invoice_at)
          VALUES (p_client_id, p_company_id, p_client_key, p_client_endpoint_id, p_client_name, p_client_vat_id, p_client_country, 1, p_created_at, p_created_at)
          ON CONFLICT (company_id, key) DO UPDATE SET
            invoice_count = cl.invoice_count + 1,
            last_invoice_at = EXCLUDED.last_invoice_at,
            name = EXCLUDED.name,
            vat_id = EXCLUDED.vat_id,
            country = EXCLUDED.country
          RETURNING cl.id INTO v_client_id;
        END IF;
        INSERT INTO ${s}.invoices (id, company_id, status, target_network, network, error_message, invoice_number, issue_date, due_date,
          currency, total_tax_exclusive, total_tax_inclusive, total_payable, supplier, recipient, sha256, size, created_at, updated_at, events,
          client_id, attempts, next_attempt_at)
        VALUES (p_id, p_company_id, p_status, p_target_network, p_network, p_error_message, p_invoice_number, p_issue_date, p_due_date,
          p_currency, p_total_tax_exclusive, p_total_tax_inclusive, p_total_payable, p_supplier, p_recipient, p_sha256, p_size, p_created_at, p_updated_at, p_events,
          v_client_id, 0, CASE WHEN p_status = 'sending' THEN p_created_at END);
        IF p_content_hex IS NOT NULL THEN
          INSERT INTO ${s}.documents (invoice_id, company_id, content, content_encoding)
          VALUES (p_id, p_company_id, decode(p_content_hex, 'hex'), p_content_encoding);
        END IF;
        RETURN v_client_id;
      END
      $body$`,
    ],
  },
  {
    version: 5,
    name: "the warning rules a document breaks, kept with its invoice",
    statements: (s) => [
      // Validation (EN 16931 / Peppol BIS 3) keeps the warnings of an accepted document; rows written before have none.
      `ALTER TABLE ${s}.invoices ADD COLUMN warnings jsonb NOT NULL DEFAULT '[]'::jsonb`,
      // insert_accepted takes the warnings after the events (the order of INVOICE_WRITE in rows.ts).
      `DROP FUNCTION ${s}.insert_accepted`,
      `CREATE FUNCTION ${s}.insert_accepted(
        p_id uuid, p_company_id uuid, p_status text, p_target_network text, p_network text, p_error_message text,
        p_invoice_number text, p_issue_date text, p_due_date text, p_currency text,
        p_total_tax_exclusive text, p_total_tax_inclusive text, p_total_payable text,
        p_supplier jsonb, p_recipient jsonb, p_sha256 text, p_size integer,
        p_created_at timestamptz, p_updated_at timestamptz, p_events jsonb, p_warnings jsonb,
        p_client_id uuid, p_client_key text, p_client_endpoint_id text, p_client_name text, p_client_vat_id text, p_client_country text,
        p_content_hex text, p_content_encoding text
      ) RETURNS uuid LANGUAGE plpgsql AS $body$
      DECLARE
        v_client_id uuid;
      BEGIN
        IF p_client_key IS NOT NULL THEN
          INSERT INTO ${s}.clients AS cl (id, company_id, key, endpoint_id, name, vat_id, country, invoice_count, first_invoice_at, last_invoice_at)
          VALUES (p_client_id, p_company_id, p_client_key, p_client_endpoint_id, p_client_name, p_client_vat_id, p_client_country, 1, p_created_at, p_created_at)
          ON CONFLICT (company_id, key) DO UPDATE SET
            invoice_count = cl.invoice_count + 1,
            last_invoice_at = EXCLUDED.last_invoice_at,
            name = EXCLUDED.name,
            vat_id = EXCLUDED.vat_id,
            country = EXCLUDED.country
          RETURNING cl.id INTO v_client_id;
        END IF;
        INSERT INTO ${s}.invoices (id, company_id, status, target_network, network, error_message, invoice_number, issue_date, due_date,
          currency, total_tax_exclusive, total_tax_inclusive, total_payable, supplier, recipient, sha256, size, created_at, updated_at, events, warnings,
          client_id, attempts, next_attempt_at)
        VALUES (p_id, p_company_id, p_status, p_target_network, p_network, p_error_message, p_invoice_number, p_issue_date, p_due_date,
          p_currency, p_total_tax_exclusive, p_total_tax_inclusive, p_total_payable, p_supplier, p_recipient, p_sha256, p_size, p_created_at, p_updated_at, p_events, p_warnings,
          v_client_id, 0, CASE WHEN p_status = 'sending' THEN p_created_at END);
        IF p_content_hex IS NOT NULL THEN
          INSERT INTO ${s}.documents (invoice_id, company_id, content, content_encoding)
          VALUES (p_id, p_company_id, decode(p_content_hex, 'hex'), p_content_encoding);
        END IF;
        RETURN v_client_id;
      END
      $body$`,
    ],
  },
  {
    version: 6,
    name: "credit notes: the document type of every invoice record and its billing reference (BT-25)",
    statements: (s) => [
      // Every row written before is an invoice (only POST /v1/peppol/invoice existed) without a billing reference.
      `ALTER TABLE ${s}.invoices ADD COLUMN document_type text NOT NULL DEFAULT 'invoice' CHECK (document_type IN ('invoice', 'creditNote'))`,
      `ALTER TABLE ${s}.invoices ADD COLUMN billing_reference text`,
      // insert_accepted takes both after the warnings (the order of INVOICE_WRITE in rows.ts).
      `DROP FUNCTION ${s}.insert_accepted`,
      `CREATE FUNCTION ${s}.insert_accepted(
        p_id uuid, p_company_id uuid, p_status text, p_target_network text, p_network text, p_error_message text,
        p_invoice_number text, p_issue_date text, p_due_date text, p_currency text,
        p_total_tax_exclusive text, p_total_tax_inclusive text, p_total_payable text,
        p_supplier jsonb, p_recipient jsonb, p_sha256 text, p_size integer,
        p_created_at timestamptz, p_updated_at timestamptz, p_events jsonb, p_warnings jsonb, p_document_type text, p_billing_reference text,
        p_client_id uuid, p_client_key text, p_client_endpoint_id text, p_client_name text, p_client_vat_id text, p_client_country text,
        p_content_hex text, p_content_encoding text
      ) RETURNS uuid LANGUAGE plpgsql AS $body$
      DECLARE
        v_client_id uuid;
      BEGIN
        IF p_client_key IS NOT NULL THEN
          INSERT INTO ${s}.clients AS cl (id, company_id, key, endpoint_id, name, vat_id, country, invoice_count, first_invoice_at, last_invoice_at)
          VALUES (p_client_id, p_company_id, p_client_key, p_client_endpoint_id, p_client_name, p_client_vat_id, p_client_country, 1, p_created_at, p_created_at)
          ON CONFLICT (company_id, key) DO UPDATE SET
            invoice_count = cl.invoice_count + 1,
            last_invoice_at = EXCLUDED.last_invoice_at,
            name = EXCLUDED.name,
            vat_id = EXCLUDED.vat_id,
            country = EXCLUDED.country
          RETURNING cl.id INTO v_client_id;
        END IF;
        INSERT INTO ${s}.invoices (id, company_id, status, target_network, network, error_message, invoice_number, issue_date, due_date,
          currency, total_tax_exclusive, total_tax_inclusive, total_payable, supplier, recipient, sha256, size, created_at, updated_at, events, warnings, document_type, billing_reference,
          client_id, attempts, next_attempt_at)
        VALUES (p_id, p_company_id, p_status, p_target_network, p_network, p_error_message, p_invoice_number, p_issue_date, p_due_date,
          p_currency, p_total_tax_exclusive, p_total_tax_inclusive, p_total_payable, p_supplier, p_recipient, p_sha256, p_size, p_created_at, p_updated_at, p_events, p_warnings, p_document_type, p_billing_reference,
          v_client_id, 0, CASE WHEN p_status = 'sending' THEN p_created_at END);
        IF p_content_hex IS NOT NULL THEN
          INSERT INTO ${s}.documents (invoice_id, company_id, content, content_encoding)
          VALUES (p_id, p_company_id, decode(p_content_hex, 'hex'), p_content_encoding);
        END IF;
        RETURN v_client_id;
      END
      $body$`,
    ],
  },
  {
    version: 7,
    name: "delivery state of a submission and delivery evidence of an invoice",
    statements: (s) => [
      // What a network saved during earlier attempts (a reference of an irreversible upload), so
      // that the next attempt asks for the status instead of sending again; cleared on a final status.
      `ALTER TABLE ${s}.invoices ADD COLUMN delivery_state text`,
      // One row per delivered invoice that came with evidence (up to 1 MiB), apart from the
      // invoices table so that its rows (read by every list) stay small.
      `CREATE TABLE ${s}.delivery_evidence (
        invoice_id uuid PRIMARY KEY,
        company_id uuid NOT NULL,
        network text NOT NULL,
        kind text NOT NULL,
        media_type text NOT NULL,
        content text NOT NULL,
        reference text,
        document_hash text,
        delivered_at timestamptz(3) NOT NULL
      )`,
    ],
  },
  {
    version: 8,
    name: "KSeF: the company's NIP and its KSeF token, encrypted by the core (never in clear)",
    statements: (s) => [
      `ALTER TABLE ${s}.companies ADD COLUMN ksef_nip text`,
      `ALTER TABLE ${s}.companies ADD COLUMN ksef_token_ciphertext text`,
      `ALTER TABLE ${s}.companies ADD COLUMN ksef_updated_at timestamptz(3)`,
      // All three or none: a NIP without its token (or the reverse) is no credential.
      `ALTER TABLE ${s}.companies ADD CONSTRAINT companies_ksef_whole CHECK (
        (ksef_nip IS NULL AND ksef_token_ciphertext IS NULL AND ksef_updated_at IS NULL) OR
        (ksef_nip IS NOT NULL AND ksef_token_ciphertext IS NOT NULL AND ksef_updated_at IS NOT NULL))`,
    ],
  },
  {
    version: 9,
    name: "Invoices by number (GET /v1/invoices?invoiceNumber=, the corrected invoice of a KSeF KOR)",
    statements: (s) => [
      `CREATE INDEX invoices_company_number_idx ON ${s}.invoices (company_id, invoice_number, created_at DESC, id DESC) WHERE invoice_number IS NOT NULL`,
    ],
  },
  {
    version: 10,
    name: "Idempotency-Keys of the submit endpoints; a duplicate names the submission it repeats",
    statements: (s) => [
      // Set on failed duplicates only (insert_accepted does not write it: accepted submissions are no duplicates).
      `ALTER TABLE ${s}.invoices ADD COLUMN duplicate_of uuid`,
      `CREATE TABLE ${s}.idempotency_keys (
        company_id uuid NOT NULL REFERENCES ${s}.companies (id),
        key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
        fingerprint text NOT NULL,
        created_at timestamptz(3) NOT NULL,
        locked_until timestamptz(3) NOT NULL,
        response_status integer,
        response_body text,
        PRIMARY KEY (company_id, key),
        CHECK ((response_status IS NULL) = (response_body IS NULL))
      )`,
      `CREATE INDEX idempotency_keys_created_idx ON ${s}.idempotency_keys (created_at)`,
    ],
  },
  {
    version: 11,
    name: "KSeF: the invoice's KSeF number and verification link (KOD I) on the record; invoices by KSeF number",
    statements: (s) => [
      // Set by the delivery that KSeF accepted (completeAttempt), null before and on Peppol.
      `ALTER TABLE ${s}.invoices ADD COLUMN ksef_number text`,
      `ALTER TABLE ${s}.invoices ADD COLUMN verification_url text`,
      `CREATE INDEX invoices_company_ksef_number_idx ON ${s}.invoices (company_id, ksef_number, created_at DESC, id DESC) WHERE ksef_number IS NOT NULL`,
    ],
  },
  {
    version: 12,
    name: "the document pipeline's facts of a submission (Peppol document type and process, rule sets applied), so delivery does not read the document again",
    statements: (s) => [
      // {peppolDocumentType: {id, processId} | null, ruleSets: [...]}; null on rows written before.
      `ALTER TABLE ${s}.invoices ADD COLUMN facts jsonb`,
      // insert_accepted takes them after the billing reference (the order of INVOICE_WRITE in rows.ts).
      `DROP FUNCTION ${s}.insert_accepted`,
      `CREATE FUNCTION ${s}.insert_accepted(
        p_id uuid, p_company_id uuid, p_status text, p_target_network text, p_network text, p_error_message text,
        p_invoice_number text, p_issue_date text, p_due_date text, p_currency text,
        p_total_tax_exclusive text, p_total_tax_inclusive text, p_total_payable text,
        p_supplier jsonb, p_recipient jsonb, p_sha256 text, p_size integer,
        p_created_at timestamptz, p_updated_at timestamptz, p_events jsonb, p_warnings jsonb, p_document_type text, p_billing_reference text, p_facts jsonb,
        p_client_id uuid, p_client_key text, p_client_endpoint_id text, p_client_name text, p_client_vat_id text, p_client_country text,
        p_content_hex text, p_content_encoding text
      ) RETURNS uuid LANGUAGE plpgsql AS $body$
      DECLARE
        v_client_id uuid;
      BEGIN
        IF p_client_key IS NOT NULL THEN
          INSERT INTO ${s}.clients AS cl (id, company_id, key, endpoint_id, name, vat_id, country, invoice_count, first_invoice_at, last_invoice_at)
          VALUES (p_client_id, p_company_id, p_client_key, p_client_endpoint_id, p_client_name, p_client_vat_id, p_client_country, 1, p_created_at, p_created_at)
          ON CONFLICT (company_id, key) DO UPDATE SET
            invoice_count = cl.invoice_count + 1,
            last_invoice_at = EXCLUDED.last_invoice_at,
            name = EXCLUDED.name,
            vat_id = EXCLUDED.vat_id,
            country = EXCLUDED.country
          RETURNING cl.id INTO v_client_id;
        END IF;
        INSERT INTO ${s}.invoices (id, company_id, status, target_network, network, error_message, invoice_number, issue_date, due_date,
          currency, total_tax_exclusive, total_tax_inclusive, total_payable, supplier, recipient, sha256, size, created_at, updated_at, events, warnings, document_type, billing_reference, facts,
          client_id, attempts, next_attempt_at)
        VALUES (p_id, p_company_id, p_status, p_target_network, p_network, p_error_message, p_invoice_number, p_issue_date, p_due_date,
          p_currency, p_total_tax_exclusive, p_total_tax_inclusive, p_total_payable, p_supplier, p_recipient, p_sha256, p_size, p_created_at, p_updated_at, p_events, p_warnings, p_document_type, p_billing_reference, p_facts,
          v_client_id, 0, CASE WHEN p_status = 'sending' THEN p_created_at END);
        IF p_content_hex IS NOT NULL THEN
          INSERT INTO ${s}.documents (invoice_id, company_id, content, content_encoding)
          VALUES (p_id, p_company_id, decode(p_content_hex, 'hex'), p_content_encoding);
        END IF;
        RETURN v_client_id;
      END
      $body$`,
    ],
  },
  {
    version: 13,
    name: "Rotation: API keys get a name; a webhook keeps its previous secret for a while after a rotation",
    statements: (s) => [
      `ALTER TABLE ${s}.api_keys ADD COLUMN name text`,
      `ALTER TABLE ${s}.webhooks ADD COLUMN previous_secret text`,
      `ALTER TABLE ${s}.webhooks ADD COLUMN previous_secret_expires_at timestamptz(3)`,
    ],
  },
  {
    version: 14,
    name: "The number rule: a document built from the invoice as data is refused while the company has an active one of its kind with the same number",
    statements: (s) => [
      // Set on submissions whose document the service built from InvoiceData (invoice / creditNote);
      // every row written before was sent as xml (or built before the rule, which did not apply then).
      `ALTER TABLE ${s}.invoices ADD COLUMN from_data boolean NOT NULL DEFAULT false`,
      // The number rule, kept by the database among documents built from data: one active one per
      // company, kind and number. (An earlier one sent as xml is found by the store's look-up before
      // the insert; xml submissions themselves are held to the sha256 rule only.)
      `CREATE UNIQUE INDEX invoices_active_number_key ON ${s}.invoices (company_id, document_type, invoice_number) WHERE status <> 'failed' AND from_data`,
      // insert_accepted takes from_data after the facts (the order of INVOICE_WRITE in rows.ts): a
      // second function of that name, one argument longer. Migration 12's stays, so that instances of
      // the previous version keep writing (from_data false) during a rolling upgrade.
      `CREATE FUNCTION ${s}.insert_accepted(
        p_id uuid, p_company_id uuid, p_status text, p_target_network text, p_network text, p_error_message text,
        p_invoice_number text, p_issue_date text, p_due_date text, p_currency text,
        p_total_tax_exclusive text, p_total_tax_inclusive text, p_total_payable text,
        p_supplier jsonb, p_recipient jsonb, p_sha256 text, p_size integer,
        p_created_at timestamptz, p_updated_at timestamptz, p_events jsonb, p_warnings jsonb, p_document_type text, p_billing_reference text, p_facts jsonb, p_from_data boolean,
        p_client_id uuid, p_client_key text, p_client_endpoint_id text, p_client_name text, p_client_vat_id text, p_client_country text,
        p_content_hex text, p_content_encoding text
      ) RETURNS uuid LANGUAGE plpgsql AS $body$
      DECLARE
        v_client_id uuid;
      BEGIN
        IF p_client_key IS NOT NULL THEN
          INSERT INTO ${s}.clients AS cl (id, company_id, key, endpoint_id, name, vat_id, country, invoice_count, first_invoice_at, last_invoice_at)
          VALUES (p_client_id, p_company_id, p_client_key, p_client_endpoint_id, p_client_name, p_client_vat_id, p_client_country, 1, p_created_at, p_created_at)
          ON CONFLICT (company_id, key) DO UPDATE SET
            invoice_count = cl.invoice_count + 1,
            last_invoice_at = EXCLUDED.last_invoice_at,
            name = EXCLUDED.name,
            vat_id = EXCLUDED.vat_id,
            country = EXCLUDED.country
          RETURNING cl.id INTO v_client_id;
        END IF;
        INSERT INTO ${s}.invoices (id, company_id, status, target_network, network, error_message, invoice_number, issue_date, due_date,
          currency, total_tax_exclusive, total_tax_inclusive, total_payable, supplier, recipient, sha256, size, created_at, updated_at, events, warnings, document_type, billing_reference, facts, from_data,
          client_id, attempts, next_attempt_at)
        VALUES (p_id, p_company_id, p_status, p_target_network, p_network, p_error_message, p_invoice_number, p_issue_date, p_due_date,
          p_currency, p_total_tax_exclusive, p_total_tax_inclusive, p_total_payable, p_supplier, p_recipient, p_sha256, p_size, p_created_at, p_updated_at, p_events, p_warnings, p_document_type, p_billing_reference, p_facts, p_from_data,
          v_client_id, 0, CASE WHEN p_status = 'sending' THEN p_created_at END);
        IF p_content_hex IS NOT NULL THEN
          INSERT INTO ${s}.documents (invoice_id, company_id, content, content_encoding)
          VALUES (p_id, p_company_id, decode(p_content_hex, 'hex'), p_content_encoding);
        END IF;
        RETURN v_client_id;
      END
      $body$`,
    ],
  },
  {
    version: 15,
    name: "the document a network transmitted for a delivered invoice (KSeF: the FA(3) it accepted), served at GET /v1/invoices/{id}/document?format=fa3",
    statements: (s) => [
      // One row per delivered invoice whose network sent another form than the UBL, written with the
      // delivered status (completeAttempt); apart from the invoices table, as the evidence is.
      `CREATE TABLE ${s}.transmitted_documents (
        invoice_id uuid PRIMARY KEY,
        company_id uuid NOT NULL,
        format text NOT NULL,
        media_type text NOT NULL,
        content text NOT NULL
      )`,
    ],
  },
  {
    version: 16,
    name: "authentication reads an API key and its company in one call (api_key_with_company), so a submission need not read the company again",
    statements: (s) => [
      // PL/pgSQL keeps the plan of its query for the session: under PGlite a join planned at each call
      // cost as much as a second query (0.46 ms against 0.25 for the key alone), this call as little as
      // the key alone. The columns are the row mappings' (rows.ts, API_KEYS and COMPANIES) as their
      // select() gives them, named k_* and c_*; a column added to either table replaces this function
      // in the same migration (the store conformance suite compares the two reads column by column).
      `CREATE FUNCTION ${s}.api_key_with_company(p_id uuid) RETURNS TABLE (
        k_id text, k_company_id text, k_prefix text, k_hash text, k_created_at text, k_last_used_at text, k_revoked_at text, k_name text,
        c_id text, c_name text, c_country text, c_enterprise boolean, c_subscription text, c_legal_entity_id text,
        c_peppol_sending_enabled boolean, c_created_at text, c_updated_at text, c_ksef_nip text, c_ksef_token_ciphertext text, c_ksef_updated_at text
      ) LANGUAGE plpgsql STABLE AS $body$
      BEGIN
        RETURN QUERY SELECT k.id::text, k.company_id::text, k.prefix, k.hash,
          to_char(k.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          to_char(k.last_used_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          to_char(k.revoked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          k.name,
          c.id::text, c.name, c.country, c.enterprise, c.subscription, c.legal_entity_id, c.peppol_sending_enabled,
          to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          to_char(c.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          c.ksef_nip, c.ksef_token_ciphertext,
          to_char(c.ksef_updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
        FROM ${s}.api_keys AS k LEFT JOIN ${s}.companies AS c ON c.id = k.company_id
        WHERE k.id = p_id;
      END
      $body$`,
    ],
  },
  {
    version: 17,
    name: "insert_accepted takes the document as bytea (sent in binary), and a server with lz4 compresses documents itself instead of the store deflating them",
    statements: (s) => [
      // insert_accepted takes the document's bytes as bytea, sent in the protocol's binary format,
      // instead of hex text decoded in SQL (twice the bytes on the wire, a hex encode in the store and
      // a decode in the server). A third function of that name: the store calls it with the document
      // parameter cast to bytea, which only this one takes; migration 14's (the same arguments with
      // text there) stays for instances of the previous version during a rolling upgrade, and an
      // untyped parameter still resolves to it (the string category wins).
      `CREATE FUNCTION ${s}.insert_accepted(
        p_id uuid, p_company_id uuid, p_status text, p_target_network text, p_network text, p_error_message text,
        p_invoice_number text, p_issue_date text, p_due_date text, p_currency text,
        p_total_tax_exclusive text, p_total_tax_inclusive text, p_total_payable text,
        p_supplier jsonb, p_recipient jsonb, p_sha256 text, p_size integer,
        p_created_at timestamptz, p_updated_at timestamptz, p_events jsonb, p_warnings jsonb, p_document_type text, p_billing_reference text, p_facts jsonb, p_from_data boolean,
        p_client_id uuid, p_client_key text, p_client_endpoint_id text, p_client_name text, p_client_vat_id text, p_client_country text,
        p_content bytea, p_content_encoding text
      ) RETURNS uuid LANGUAGE plpgsql AS $body$
      DECLARE
        v_client_id uuid;
      BEGIN
        IF p_client_key IS NOT NULL THEN
          INSERT INTO ${s}.clients AS cl (id, company_id, key, endpoint_id, name, vat_id, country, invoice_count, first_invoice_at, last_invoice_at)
          VALUES (p_client_id, p_company_id, p_client_key, p_client_endpoint_id, p_client_name, p_client_vat_id, p_client_country, 1, p_created_at, p_created_at)
          ON CONFLICT (company_id, key) DO UPDATE SET
            invoice_count = cl.invoice_count + 1,
            last_invoice_at = EXCLUDED.last_invoice_at,
            name = EXCLUDED.name,
            vat_id = EXCLUDED.vat_id,
            country = EXCLUDED.country
          RETURNING cl.id INTO v_client_id;
        END IF;
        INSERT INTO ${s}.invoices (id, company_id, status, target_network, network, error_message, invoice_number, issue_date, due_date,
          currency, total_tax_exclusive, total_tax_inclusive, total_payable, supplier, recipient, sha256, size, created_at, updated_at, events, warnings, document_type, billing_reference, facts, from_data,
          client_id, attempts, next_attempt_at)
        VALUES (p_id, p_company_id, p_status, p_target_network, p_network, p_error_message, p_invoice_number, p_issue_date, p_due_date,
          p_currency, p_total_tax_exclusive, p_total_tax_inclusive, p_total_payable, p_supplier, p_recipient, p_sha256, p_size, p_created_at, p_updated_at, p_events, p_warnings, p_document_type, p_billing_reference, p_facts, p_from_data,
          v_client_id, 0, CASE WHEN p_status = 'sending' THEN p_created_at END);
        IF p_content IS NOT NULL THEN
          INSERT INTO ${s}.documents (invoice_id, company_id, content, content_encoding)
          VALUES (p_id, p_company_id, p_content, p_content_encoding);
        END IF;
        RETURN v_client_id;
      END
      $body$`,
      // On a server built with lz4 (PostgreSQL 14 and later, as Debian's packages are) the column
      // compresses again, with lz4: the store then sends documents as they are (documents.ts,
      // documentCompression). Rows of up to 8 KiB still stay as they are in the table's own page
      // (toast_tuple_target, migration 4); a larger one is compressed in place. Without lz4 (PGlite's
      // WebAssembly build, a server built without it, or before 14, where the clause is a syntax
      // error) the ALTER fails as a whole and is undone: the column stays EXTERNAL and the store keeps
      // deflating. Rows written before keep their encoding.
      `DO $do$
      BEGIN
        ALTER TABLE ${s}.documents ALTER COLUMN content SET STORAGE EXTENDED, ALTER COLUMN content SET COMPRESSION lz4;
      EXCEPTION WHEN feature_not_supported OR syntax_error THEN
        NULL;
      END
      $do$`,
    ],
  },
  {
    version: 18,
    name: "Idempotency-Keys name the submission their request makes, so a retry after a crash finds it; an abandoned key is kept for its retry",
    statements: (s) => [
      // Null on keys taken before this version: their next taker records its own.
      `ALTER TABLE ${s}.idempotency_keys ADD COLUMN resource_id uuid`,
      `ALTER TABLE ${s}.idempotency_keys ADD COLUMN abandoned boolean NOT NULL DEFAULT false`,
    ],
  },
  {
    version: 19,
    name: "fair queues: the claims' index by company, the circuits of the webhook endpoints (a company's URL)",
    statements: (s) => [
      // One row per endpoint that failed since its last success: failures in a row and until when it
      // is paused (ports/queue.ts, EndpointCircuit). A success deletes the row: no row is closed.
      // The fair claims walk the companies with queued items and read each one's oldest due first.
      `CREATE INDEX invoices_delivery_company_due_idx ON ${s}.invoices (company_id, next_attempt_at, id) WHERE status = 'sending'`,
      `CREATE INDEX webhook_events_company_due_idx ON ${s}.webhook_events (company_id, next_attempt_at, id) WHERE status = 'pending'`,
      `CREATE TABLE ${s}.webhook_endpoints (
        company_id uuid NOT NULL,
        url text NOT NULL,
        failures integer NOT NULL,
        paused_until timestamptz(3),
        PRIMARY KEY (company_id, url)
      )`,
    ],
  },
  {
    version: 20,
    name: "the document as submitted when it was converted to the UBL sent (a CII, a Factur-X PDF), served at GET /v1/invoices/{id}/document?format=original",
    statements: (s) => [
      // One row per accepted submission whose document came in another syntax, written in the same transaction as the
      // submission; apart from the documents table (the UBL that is sent), as the transmitted FA(3) is.
      `CREATE TABLE ${s}.original_documents (
        invoice_id uuid PRIMARY KEY,
        company_id uuid NOT NULL,
        syntax text NOT NULL,
        media_type text NOT NULL,
        content bytea NOT NULL,
        content_encoding text NOT NULL DEFAULT 'identity' CHECK (content_encoding IN ('identity', 'deflate'))
      )`,
    ],
  },
  {
    version: 21,
    name: "Receiving: inbound records (direction, inbound facts, supplier), suppliers, documents for no company, participant identifiers, the inbound sources' sync rows and backfill requests",
    statements: (s) => [
      // Every row written before is a submission. A constant default: no rewrite of the table.
      `ALTER TABLE ${s}.invoices
        ADD COLUMN direction text NOT NULL DEFAULT 'outbound' CONSTRAINT invoices_direction_check CHECK (direction IN ('outbound', 'inbound')),
        ADD COLUMN inbound jsonb,
        ADD COLUMN network_ref text,
        ADD COLUMN supplier_id uuid`,
      // The duplicate rule of submissions (migration 1) no longer covers inbound records: a company may receive the
      // bytes it sent, or the same bytes under two references. Same name: insertSubmission tells the rule by it.
      `DROP INDEX ${s}.invoices_active_sha256_key`,
      `CREATE UNIQUE INDEX invoices_active_sha256_key ON ${s}.invoices (company_id, sha256) WHERE status <> 'failed' AND direction = 'outbound'`,
      // Once per network reference (networkReferenceKey: ksef:<number>, storecove:<guid>, sandbox:<id>) and company.
      `CREATE UNIQUE INDEX invoices_network_ref_key ON ${s}.invoices (company_id, network_ref) WHERE network_ref IS NOT NULL`,
      // The keyset list of GET /v1/invoices?supplierId=. Partial: a submission's write does not enter it. (The list by
      // direction needs no index of its own: an inbound record's status is always 'received', so ?direction=inbound
      // reads invoices_company_status_created_idx; one index fewer on every received document's write.)
      `CREATE INDEX invoices_company_supplier_created_idx ON ${s}.invoices (company_id, supplier_id, created_at DESC, id DESC) WHERE supplier_id IS NOT NULL`,
      // A company's suppliers: a namespace of their own, shaped as its clients.
      `CREATE TABLE ${s}.suppliers (
        id uuid PRIMARY KEY,
        company_id uuid NOT NULL,
        key text NOT NULL,
        endpoint_id text NOT NULL,
        name text,
        vat_id text,
        country text,
        invoice_count integer NOT NULL,
        first_invoice_at timestamptz(3) NOT NULL,
        last_invoice_at timestamptz(3) NOT NULL,
        CONSTRAINT suppliers_company_key_key UNIQUE (company_id, key)
      )`,
      `CREATE INDEX suppliers_company_last_invoice_idx ON ${s}.suppliers (company_id, last_invoice_at DESC, id DESC)`,
      // Documents for no company of this server, kept for the operator with their bytes; once per network reference.
      `CREATE TABLE ${s}.unmatched_documents (
        id uuid PRIMARY KEY,
        network text NOT NULL,
        network_ref text NOT NULL,
        network_reference jsonb NOT NULL,
        legal_entity_id text,
        reason text NOT NULL,
        received_at timestamptz(3) NOT NULL,
        media_type text NOT NULL,
        sha256 text NOT NULL,
        size integer NOT NULL,
        content bytea,
        content_encoding text NOT NULL DEFAULT 'identity' CHECK (content_encoding IN ('identity', 'deflate')),
        CONSTRAINT unmatched_documents_network_ref_key UNIQUE (network_ref)
      )`,
      `CREATE INDEX unmatched_documents_received_idx ON ${s}.unmatched_documents (received_at DESC, id DESC)`,
      // The sandbox's participant identifiers: each receives for one company at most (the primary key). The company's
      // row repeats its own (sorted), so that reading a company (and api_key_with_company) reads no other table.
      `CREATE TABLE ${s}.participant_ids (
        participant_id text PRIMARY KEY,
        company_id uuid NOT NULL
      )`,
      `CREATE INDEX participant_ids_company_idx ON ${s}.participant_ids (company_id)`,
      `ALTER TABLE ${s}.companies ADD COLUMN participant_ids jsonb NOT NULL DEFAULT '[]'::jsonb`,
      // Storecove's queue finds a document's company by its legal entity.
      `CREATE INDEX companies_legal_entity_idx ON ${s}.companies (legal_entity_id, created_at, id) WHERE legal_entity_id IS NOT NULL`,
      // One row per source and scope (a company id, or * for a source of the whole server): its mark and its lease.
      `CREATE TABLE ${s}.inbound_syncs (
        source text NOT NULL,
        scope text NOT NULL,
        state text,
        next_run_at timestamptz(3) NOT NULL,
        lease_owner text,
        lease_until timestamptz(3),
        updated_at timestamptz(3) NOT NULL,
        PRIMARY KEY (source, scope)
      )`,
      `CREATE INDEX inbound_syncs_due_idx ON ${s}.inbound_syncs (source, next_run_at, scope)`,
      `CREATE TABLE ${s}.inbound_backfills (
        id uuid PRIMARY KEY,
        source text NOT NULL,
        scope text NOT NULL,
        from_at timestamptz(3) NOT NULL,
        to_at timestamptz(3) NOT NULL,
        requested_at timestamptz(3) NOT NULL
      )`,
      `CREATE INDEX inbound_backfills_sync_idx ON ${s}.inbound_backfills (source, scope, requested_at, id)`,
      // Companies that already have a KSeF credential receive from KSeF from now on.
      `INSERT INTO ${s}.inbound_syncs (source, scope, state, next_run_at, updated_at)
       SELECT 'ksef', id::text, NULL, now(), now() FROM ${s}.companies WHERE ksef_nip IS NOT NULL
       ON CONFLICT DO NOTHING`,
      // The company's columns of api_key_with_company (migration 16) gain participant_ids (c_participant_ids).
      `DROP FUNCTION ${s}.api_key_with_company(uuid)`,
      `CREATE FUNCTION ${s}.api_key_with_company(p_id uuid) RETURNS TABLE (
        k_id text, k_company_id text, k_prefix text, k_hash text, k_created_at text, k_last_used_at text, k_revoked_at text, k_name text,
        c_id text, c_name text, c_country text, c_enterprise boolean, c_subscription text, c_legal_entity_id text,
        c_peppol_sending_enabled boolean, c_created_at text, c_updated_at text, c_ksef_nip text, c_ksef_token_ciphertext text, c_ksef_updated_at text,
        c_participant_ids jsonb
      ) LANGUAGE plpgsql STABLE AS $body$
      BEGIN
        RETURN QUERY SELECT k.id::text, k.company_id::text, k.prefix, k.hash,
          to_char(k.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          to_char(k.last_used_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          to_char(k.revoked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          k.name,
          c.id::text, c.name, c.country, c.enterprise, c.subscription, c.legal_entity_id, c.peppol_sending_enabled,
          to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          to_char(c.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          c.ksef_nip, c.ksef_token_ciphertext,
          to_char(c.ksef_updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          c.participant_ids
        FROM ${s}.api_keys AS k LEFT JOIN ${s}.companies AS c ON c.id = k.company_id
        WHERE k.id = p_id;
      END
      $body$`,
      // The write of a received document, in one call (as insert_accepted for a submission): refused when the company
      // has the network reference already (answers that record's id, o_inserted false), else the supplier upsert, the
      // invoice with its supplier, its document, and one invoice.received event per subscribed webhook of the company.
      // Atomic: a concurrent insert of the same reference that commits first makes this one fail on
      // invoices_network_ref_key, which undoes all of it (the store then answers the winner's id). The event's data
      // is p_event_head || the supplier's id as a JSON string (or null) || p_event_tail: the supplier's id is known
      // only here. The invoice's arguments are insert_accepted's (INVOICE_WRITE in rows.ts), then its inbound columns and
      // its KSeF number and link (a document received from KSeF has its number from the start).
      `CREATE FUNCTION ${s}.insert_inbound(
        p_id uuid, p_company_id uuid, p_status text, p_target_network text, p_network text, p_error_message text,
        p_invoice_number text, p_issue_date text, p_due_date text, p_currency text,
        p_total_tax_exclusive text, p_total_tax_inclusive text, p_total_payable text,
        p_supplier jsonb, p_recipient jsonb, p_sha256 text, p_size integer,
        p_created_at timestamptz, p_updated_at timestamptz, p_events jsonb, p_warnings jsonb, p_document_type text, p_billing_reference text, p_facts jsonb, p_from_data boolean,
        p_inbound jsonb, p_network_ref text, p_ksef_number text, p_verification_url text,
        p_supplier_new_id uuid, p_supplier_key text, p_supplier_endpoint_id text, p_supplier_name text, p_supplier_vat_id text, p_supplier_country text,
        p_content bytea, p_content_encoding text,
        p_notify boolean, p_event_head text, p_event_tail text,
        OUT o_inserted boolean, OUT o_id uuid
      ) LANGUAGE plpgsql AS $body$
      DECLARE
        v_supplier_id uuid;
      BEGIN
        SELECT i.id INTO o_id FROM ${s}.invoices AS i WHERE i.company_id = p_company_id AND i.network_ref = p_network_ref;
        IF FOUND THEN
          o_inserted := false;
          RETURN;
        END IF;
        IF p_supplier_key IS NOT NULL THEN
          INSERT INTO ${s}.suppliers AS sp (id, company_id, key, endpoint_id, name, vat_id, country, invoice_count, first_invoice_at, last_invoice_at)
          VALUES (p_supplier_new_id, p_company_id, p_supplier_key, p_supplier_endpoint_id, p_supplier_name, p_supplier_vat_id, p_supplier_country, 1, p_created_at, p_created_at)
          ON CONFLICT (company_id, key) DO UPDATE SET
            invoice_count = sp.invoice_count + 1,
            last_invoice_at = EXCLUDED.last_invoice_at,
            name = EXCLUDED.name,
            vat_id = EXCLUDED.vat_id,
            country = EXCLUDED.country
          RETURNING sp.id INTO v_supplier_id;
        END IF;
        INSERT INTO ${s}.invoices (id, company_id, status, target_network, network, error_message, invoice_number, issue_date, due_date,
          currency, total_tax_exclusive, total_tax_inclusive, total_payable, supplier, recipient, sha256, size, created_at, updated_at, events, warnings, document_type, billing_reference, facts, from_data,
          direction, inbound, network_ref, ksef_number, verification_url, supplier_id, client_id, attempts, next_attempt_at)
        VALUES (p_id, p_company_id, p_status, p_target_network, p_network, p_error_message, p_invoice_number, p_issue_date, p_due_date,
          p_currency, p_total_tax_exclusive, p_total_tax_inclusive, p_total_payable, p_supplier, p_recipient, p_sha256, p_size, p_created_at, p_updated_at, p_events, p_warnings, p_document_type, p_billing_reference, p_facts, p_from_data,
          'inbound', p_inbound, p_network_ref, p_ksef_number, p_verification_url, v_supplier_id, NULL, 0, NULL);
        IF p_content IS NOT NULL THEN
          INSERT INTO ${s}.documents (invoice_id, company_id, content, content_encoding)
          VALUES (p_id, p_company_id, p_content, p_content_encoding);
        END IF;
        IF p_notify THEN
          INSERT INTO ${s}.webhook_events (id, webhook_id, company_id, type, data, created_at, status, attempts, next_attempt_at, delivered_at, log)
          SELECT gen_random_uuid(), w.id, p_company_id, 'invoice.received',
            p_event_head || coalesce('"' || v_supplier_id::text || '"', 'null') || p_event_tail,
            p_created_at, 'pending', 0, p_created_at, NULL, '[]'::jsonb
          FROM ${s}.webhooks AS w
          WHERE w.company_id = p_company_id AND w.deleted_at IS NULL AND w.events ? 'invoice.received'
          ORDER BY w.created_at, w.id;
        END IF;
        o_inserted := true;
        o_id := v_supplier_id;
      END
      $body$`,
    ],
  },
];

/** The schema version this package writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Checks a schema name (letters, digits, underscores) and returns it quoted for SQL. */
export function quoteSchema(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw new DbError(`invalid schema name ${JSON.stringify(schema)}: use letters, digits and underscores (at most 63)`);
  }
  return `"${schema}"`;
}

/** The advisory lock key of one schema's migrations: a stable signed 64-bit number. */
function lockKey(schema: string): string {
  const digest = createHash("sha256").update(`einvoice:migrate:${schema}`).digest();
  return digest.readBigInt64BE(0).toString();
}

export interface MigrateResult {
  /** The version before this call (0 for an empty schema). */
  from: number;
  /** The version now. */
  to: number;
}

/**
 * Brings `schema` to the latest version: creates it when missing, then applies the pending
 * migrations in one transaction, holding a transaction-scoped advisory lock so that processes
 * starting together apply each migration once. Idempotent. Refuses a schema newer than this package.
 *
 * @example await migrate(fromPg(pool), { schema: "einvoice" })
 */
export async function migrate(db: Db, options: { schema?: string } = {}): Promise<MigrateResult> {
  const schema = options.schema ?? "einvoice";
  const s = quoteSchema(schema);
  return db.transaction(async (tx) => {
    await tx.query(`SELECT 1 AS locked FROM pg_advisory_xact_lock(${lockKey(schema)})`);
    // CREATE SCHEMA checks the CREATE privilege even with IF NOT EXISTS: only ask when it is missing.
    const exists = await tx.query(`SELECT 1 AS present FROM pg_namespace WHERE nspname = $1`, [schema]);
    if (exists.rows.length === 0) await tx.query(`CREATE SCHEMA ${s}`);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`,
    );
    const from = await currentVersion(tx, s);
    if (from > SCHEMA_VERSION) {
      throw new DbError(
        `the database schema ${JSON.stringify(schema)} is at version ${from}, newer than this @einvoice/postgres knows (${SCHEMA_VERSION}); upgrade the package`,
      );
    }
    for (const m of MIGRATIONS) {
      if (m.version <= from) continue;
      for (const statement of m.statements(s)) await tx.query(statement);
      await tx.query(`INSERT INTO ${s}.schema_migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
    }
    return { from, to: SCHEMA_VERSION };
  });
}

async function currentVersion(tx: Queryable, s: string): Promise<number> {
  const { rows } = await tx.query<{ version: number | string | null }>(`SELECT max(version) AS version FROM ${s}.schema_migrations`);
  return Number(rows[0]?.version ?? 0);
}
