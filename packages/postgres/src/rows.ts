// The row mapping, in one place: per table, its columns (name and SQL type) and the two mappings
// between a row and the core's record. The SELECT lists, the INSERT column lists, their
// placeholders and their parameters are all derived from these, so a new column is one entry
// here (plus its migration).
import type { ApiKeyRecord, ClientRecord, Company, InboundFacts, InvoiceRecord, NetworkReference, Party, StoredEvidence, TransmittedDocument, WebhookEventRecord, WebhookRecord } from "@einvoice/core";
import type { Queryable } from "./db.js";
import { iso } from "./sql.js";

export type SqlType = "uuid" | "text" | "boolean" | "integer" | "timestamptz" | "jsonb";

/** A table's columns and its row mapping; `C` are the column names. */
export interface RowMapping<T, C extends string> {
  /** The column names, in the order they were declared. */
  readonly names: readonly C[];
  readonly types: Readonly<Record<C, SqlType>>;
  /**
   * The SELECT (or RETURNING) list for the table or its alias `p` (such as `"i."`): uuids as text,
   * timestamps in the port's ISO form, every column under its own name.
   */
  select(p?: string): string;
  /** `name, name, ...` of `names`, for an INSERT. */
  list(names?: readonly C[]): string;
  /** `$first::type, ...` for `names`, in the same order as `params`. */
  placeholders(names?: readonly C[], first?: number): string;
  /** The placeholder of one column within `placeholders(names, first)`. */
  placeholder(name: C, names?: readonly C[], first?: number): string;
  /** The record's values of `names`, in order. */
  params(record: T, names?: readonly C[]): unknown[];
  /** The record of a row read with `select()`. */
  fromRow(row: Record<string, unknown>): T;
  /** The record of a row whose columns are named `as` + name, as select() gives them (two tables' rows in one, such as api_key_with_company's). */
  fromAliased(row: Record<string, unknown>, as: string): T;
  /** `SELECT <select()> <rest>` on `db`: the record of its first row, or null when it has none. */
  one(db: Queryable, rest: string, params: readonly unknown[]): Promise<T | null>;
  /** `SELECT <select()> <rest>` on `db`: the records of its rows, in its order. */
  all(db: Queryable, rest: string, params: readonly unknown[]): Promise<T[]>;
}

function rowMapping<T, const C extends string>(spec: {
  columns: Record<C, SqlType>;
  toRow(record: T): Record<C, unknown>;
  fromRow(row: Record<C, unknown>): T;
}): RowMapping<T, C> {
  const names = Object.keys(spec.columns) as C[];
  const types = spec.columns;
  const cast = (name: C): string => (types[name] === "text" ? "" : `::${types[name]}`);
  const placeholder = (name: C, of: readonly C[] = names, first = 1): string => {
    const i = of.indexOf(name);
    if (i < 0) throw new Error(`column ${name} is not among the placeholders`);
    return `$${first + i}${cast(name)}`;
  };
  const select = (p = ""): string =>
    names.map((n) => (types[n] === "uuid" ? `${p}${n}::text AS ${n}` : types[n] === "timestamptz" ? iso(`${p}${n}`, n) : `${p}${n}`)).join(", ");
  const fromRow = (row: Record<string, unknown>): T => spec.fromRow(row as Record<C, unknown>);
  const fromAliased = (row: Record<string, unknown>, as: string): T => {
    const own: Record<string, unknown> = {};
    for (const n of names) own[n] = row[`${as}${n}`];
    return fromRow(own);
  };
  return {
    names,
    types,
    select,
    list: (of = names) => of.join(", "),
    placeholders: (of = names, first = 1) => of.map((n, i) => `$${first + i}${cast(n)}`).join(", "),
    placeholder,
    params: (record, of = names) => {
      const row = spec.toRow(record);
      return of.map((n) => row[n]);
    },
    fromRow,
    fromAliased,
    async one(db, rest, params) {
      const { rows } = await db.query(`SELECT ${select()} ${rest}`, params);
      return rows[0] ? fromRow(rows[0]) : null;
    },
    async all(db, rest, params) {
      return (await db.query(`SELECT ${select()} ${rest}`, params)).rows.map(fromRow);
    },
  };
}

const text = (v: unknown): string => String(v);
export const textOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
/** jsonb comes back parsed from both drivers; a string means a driver configured to leave it raw. */
export const json = (v: unknown): unknown => (typeof v === "string" ? JSON.parse(v) : v);
/** A jsonb parameter. */
const jsonParam = (v: unknown): string => JSON.stringify(v);

export const COMPANIES = rowMapping({
  columns: {
    id: "uuid",
    name: "text",
    country: "text",
    enterprise: "boolean",
    subscription: "text",
    legal_entity_id: "text",
    peppol_sending_enabled: "boolean",
    created_at: "timestamptz",
    updated_at: "timestamptz",
    ksef_nip: "text",
    ksef_token_ciphertext: "text",
    ksef_updated_at: "timestamptz",
    participant_ids: "jsonb",
  },
  toRow: (c: Company) => ({
    id: c.id,
    name: c.name,
    country: c.country,
    enterprise: c.enterprise,
    subscription: c.subscription,
    legal_entity_id: c.legalEntityId,
    peppol_sending_enabled: c.peppolSendingEnabled,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    ...ksefColumns(c.ksef),
    participant_ids: jsonParam([...(c.participantIds ?? [])].sort()),
  }),
  fromRow: (r): Company => ({
    id: text(r.id),
    name: text(r.name),
    country: text(r.country),
    enterprise: r.enterprise === true,
    subscription: text(r.subscription) as Company["subscription"],
    legalEntityId: textOrNull(r.legal_entity_id),
    peppolSendingEnabled: r.peppol_sending_enabled === true,
    ksef: r.ksef_nip === null || r.ksef_nip === undefined ? null : { nip: text(r.ksef_nip), tokenCiphertext: text(r.ksef_token_ciphertext), updatedAt: text(r.ksef_updated_at) },
    createdAt: text(r.created_at),
    updatedAt: text(r.updated_at),
    ...participantIdsOf(json(r.participant_ids)),
  }),
});

/**
 * The company's participant identifiers (migration 21), sorted: present only when it has some (a company without
 * any has none, as one created without the field).
 */
function participantIdsOf(v: unknown): { participantIds?: string[] } {
  if (!Array.isArray(v) || v.length === 0) return {};
  return { participantIds: v.map((x) => text(x)).sort() };
}

/** The three columns of a company's KSeF credential (all null without one). */
function ksefColumns(k: Company["ksef"]): { ksef_nip: string | null; ksef_token_ciphertext: string | null; ksef_updated_at: string | null } {
  return { ksef_nip: k?.nip ?? null, ksef_token_ciphertext: k?.tokenCiphertext ?? null, ksef_updated_at: k?.updatedAt ?? null };
}

/** The columns and values a company patch sets: one column per field, three for `ksef`. */
export function companyPatchSets(patch: Partial<Omit<Company, "id" | "createdAt">>): [column: (typeof COMPANIES.names)[number], value: unknown][] {
  const sets: [(typeof COMPANIES.names)[number], unknown][] = [];
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (field === "ksef") sets.push(...(Object.entries(ksefColumns(value as Company["ksef"])) as [(typeof COMPANIES.names)[number], unknown][]));
    else if (COMPANY_PATCH_COLUMNS[field]) sets.push([COMPANY_PATCH_COLUMNS[field]!, value]);
  }
  return sets;
}

/** The column of each field a company patch may set. */
export const COMPANY_PATCH_COLUMNS: Readonly<Record<string, (typeof COMPANIES.names)[number]>> = {
  name: "name",
  country: "country",
  enterprise: "enterprise",
  subscription: "subscription",
  legalEntityId: "legal_entity_id",
  peppolSendingEnabled: "peppol_sending_enabled",
  updatedAt: "updated_at",
};

// A column added to api_keys or companies: replace the function api_key_with_company (migration 16) in its migration too.
export const API_KEYS = rowMapping({
  columns: {
    id: "uuid",
    company_id: "uuid",
    prefix: "text",
    hash: "text",
    created_at: "timestamptz",
    last_used_at: "timestamptz",
    revoked_at: "timestamptz",
    name: "text",
  },
  toRow: (k: ApiKeyRecord) => ({
    id: k.id,
    company_id: k.companyId,
    prefix: k.prefix,
    hash: k.hash,
    created_at: k.createdAt,
    last_used_at: k.lastUsedAt,
    revoked_at: k.revokedAt,
    name: k.name ?? null,
  }),
  fromRow: (r): ApiKeyRecord => ({
    id: text(r.id),
    companyId: text(r.company_id),
    prefix: text(r.prefix),
    hash: text(r.hash),
    createdAt: text(r.created_at),
    lastUsedAt: textOrNull(r.last_used_at),
    revokedAt: textOrNull(r.revoked_at),
    name: textOrNull(r.name),
  }),
});

/** Clients are written only by `insert_accepted` (migration 4); the store reads them. */
export const CLIENTS = rowMapping({
  columns: {
    id: "uuid",
    company_id: "uuid",
    key: "text",
    name: "text",
    endpoint_id: "text",
    vat_id: "text",
    country: "text",
    invoice_count: "integer",
    first_invoice_at: "timestamptz",
    last_invoice_at: "timestamptz",
  },
  toRow: (c: ClientRecord) => ({
    id: c.id,
    company_id: c.companyId,
    key: c.key,
    name: c.name,
    endpoint_id: c.endpointId,
    vat_id: c.vatId,
    country: c.country,
    invoice_count: c.invoiceCount,
    first_invoice_at: c.firstInvoiceAt,
    last_invoice_at: c.lastInvoiceAt,
  }),
  fromRow: (r): ClientRecord => ({
    id: text(r.id),
    companyId: text(r.company_id),
    key: text(r.key),
    name: textOrNull(r.name),
    endpointId: text(r.endpoint_id),
    vatId: textOrNull(r.vat_id),
    country: textOrNull(r.country),
    invoiceCount: Number(r.invoice_count),
    firstInvoiceAt: text(r.first_invoice_at),
    lastInvoiceAt: text(r.last_invoice_at),
  }),
});

function toParty(v: unknown): Party {
  const p = (json(v) ?? {}) as Record<string, unknown>;
  return { name: textOrNull(p.name), endpointId: textOrNull(p.endpointId), vatId: textOrNull(p.vatId), country: textOrNull(p.country) };
}
const partyParam = (p: Party): string => jsonParam({ name: p.name, endpointId: p.endpointId, vatId: p.vatId, country: p.country });

/**
 * The invoice columns of the record. The queue's own columns (attempts, next_attempt_at, lease_*)
 * are the delivery store's. Declared in the order of `insert_accepted`'s first parameters
 * (migration 4), see `INVOICE_WRITE`.
 */
export const INVOICES = rowMapping({
  columns: {
    id: "uuid",
    company_id: "uuid",
    status: "text",
    target_network: "text",
    network: "text",
    error_message: "text",
    invoice_number: "text",
    issue_date: "text",
    due_date: "text",
    currency: "text",
    total_tax_exclusive: "text",
    total_tax_inclusive: "text",
    total_payable: "text",
    supplier: "jsonb",
    recipient: "jsonb",
    sha256: "text",
    size: "integer",
    created_at: "timestamptz",
    updated_at: "timestamptz",
    events: "jsonb",
    warnings: "jsonb",
    document_type: "text",
    billing_reference: "text",
    facts: "jsonb",
    from_data: "boolean",
    client_id: "uuid",
    duplicate_of: "uuid",
    ksef_number: "text",
    verification_url: "text",
    direction: "text",
    inbound: "jsonb",
    supplier_id: "uuid",
  },
  toRow: (inv: InvoiceRecord) => ({
    id: inv.id,
    company_id: inv.companyId,
    status: inv.status,
    target_network: inv.targetNetwork,
    network: inv.network,
    error_message: inv.errorMessage,
    invoice_number: inv.invoiceNumber,
    issue_date: inv.issueDate,
    due_date: inv.dueDate,
    currency: inv.currency,
    total_tax_exclusive: inv.totals.taxExclusive,
    total_tax_inclusive: inv.totals.taxInclusive,
    total_payable: inv.totals.payable,
    supplier: partyParam(inv.supplier),
    recipient: partyParam(inv.recipient),
    sha256: inv.sha256,
    size: inv.size,
    created_at: inv.createdAt,
    updated_at: inv.updatedAt,
    events: jsonParam(inv.events.map((e) => ({ status: e.status, at: e.at, detail: e.detail }))),
    warnings: jsonParam(inv.warnings.map((w) => ({ rule: w.rule, message: w.message, location: w.location }))),
    document_type: inv.kind,
    billing_reference: inv.billingReference,
    facts: inv.facts ? jsonParam({ peppolDocumentType: inv.facts.peppolDocumentType, ruleSets: inv.facts.ruleSets }) : null,
    from_data: inv.fromData === true,
    client_id: inv.clientId,
    duplicate_of: inv.duplicateOf ?? null,
    ksef_number: inv.ksefNumber,
    verification_url: inv.verificationUrl,
    direction: inv.direction ?? "outbound",
    inbound: inv.inbound ? jsonParam(inboundParam(inv.inbound)) : null,
    supplier_id: inv.supplierId ?? null,
  }),
  fromRow: (r): InvoiceRecord => ({
    id: text(r.id),
    companyId: text(r.company_id),
    status: text(r.status) as InvoiceRecord["status"],
    targetNetwork: text(r.target_network) as InvoiceRecord["targetNetwork"],
    network: textOrNull(r.network) as InvoiceRecord["network"],
    errorMessage: textOrNull(r.error_message),
    kind: text(r.document_type) as InvoiceRecord["kind"],
    billingReference: textOrNull(r.billing_reference),
    invoiceNumber: textOrNull(r.invoice_number),
    issueDate: textOrNull(r.issue_date),
    dueDate: textOrNull(r.due_date),
    currency: textOrNull(r.currency),
    totals: {
      taxExclusive: textOrNull(r.total_tax_exclusive),
      taxInclusive: textOrNull(r.total_tax_inclusive),
      payable: textOrNull(r.total_payable),
    },
    supplier: toParty(r.supplier),
    recipient: toParty(r.recipient),
    clientId: textOrNull(r.client_id),
    ksefNumber: textOrNull(r.ksef_number),
    verificationUrl: textOrNull(r.verification_url),
    sha256: text(r.sha256),
    size: Number(r.size),
    createdAt: text(r.created_at),
    updatedAt: text(r.updated_at),
    events: (json(r.events) as Array<Record<string, unknown>>).map((e) => ({
      status: text(e.status) as InvoiceRecord["status"],
      at: text(e.at),
      detail: text(e.detail),
    })),
    warnings: ((json(r.warnings) ?? []) as Array<Record<string, unknown>>).map((w) => ({
      rule: text(w.rule),
      message: text(w.message),
      location: text(w.location),
    })),
    duplicateOf: textOrNull(r.duplicate_of),
    ...factsOf(json(r.facts)),
    ...(r.from_data === true || r.from_data === "t" ? { fromData: true } : {}),
    // A submission keeps the record's shape from before receiving (no direction: outbound); an inbound record has all three.
    ...(r.direction === "inbound" ? { direction: "inbound" as const, inbound: inboundOf(json(r.inbound)), supplierId: textOrNull(r.supplier_id) } : {}),
  }),
});

/** The `inbound` column (migration 21) of an inbound record. */
function inboundParam(f: InboundFacts): InboundFacts {
  return {
    receivedAt: f.receivedAt,
    syntax: f.syntax,
    valid: f.valid,
    errors: f.errors.map((e) => ({ rule: e.rule, message: e.message, location: e.location })),
    networkReference: f.networkReference,
    mediaType: f.mediaType,
  };
}

function inboundOf(v: unknown): InboundFacts {
  const f = (v ?? {}) as Record<string, unknown>;
  return {
    receivedAt: text(f.receivedAt),
    syntax: text(f.syntax) as InboundFacts["syntax"],
    valid: f.valid === true,
    errors: ((f.errors ?? []) as Array<Record<string, unknown>>).map((e) => ({ rule: text(e.rule), message: text(e.message), location: text(e.location) })),
    networkReference: { ...(f.networkReference as NetworkReference) },
    mediaType: text(f.mediaType),
  };
}

/** The `facts` column (migration 12): absent on rows stored before it, so the record has none. */
function factsOf(v: unknown): { facts?: InvoiceRecord["facts"] } {
  if (!v || typeof v !== "object") return {};
  const f = v as { peppolDocumentType?: { id?: unknown; processId?: unknown } | null; ruleSets?: unknown };
  const dt = f.peppolDocumentType;
  return {
    facts: {
      peppolDocumentType: dt ? { id: text(dt.id), processId: typeof dt.processId === "string" ? dt.processId : null } : null,
      ruleSets: Array.isArray(f.ruleSets) ? f.ruleSets.map((x) => text(x)) : [],
    },
  };
}

/**
 * The invoice columns a submission writes: all but `client_id`, which the store sets (null for a
 * failed submission, the upserted client's id in `insert_accepted`), and those a submission does not
 * write there: `duplicate_of` (migration 10, only for failed submissions: `INVOICE_WRITE_FAILED`),
 * `ksef_number` and `verification_url` (migration 11, set by the delivery that KSeF accepted; null
 * until then). In this order they are the first parameters of `insert_accepted` (migration 6, which
 * added `document_type` and `billing_reference` after `warnings`; migration 12, `facts` after them; migration 14, `from_data` after `facts`); a column added later that an
 * accepted submission writes is set by a new version of that function.
 */
const NOT_WRITTEN: readonly string[] = ["client_id", "duplicate_of", "ksef_number", "verification_url", "direction", "inbound", "supplier_id"];
export const INVOICE_WRITE = INVOICES.names.filter((n) => !NOT_WRITTEN.includes(n));
/** The columns of a failed submission: `INVOICE_WRITE` and `duplicate_of` (migration 10). */
export const INVOICE_WRITE_FAILED = [...INVOICE_WRITE, "duplicate_of" as const];

export const WEBHOOKS = rowMapping({
  columns: {
    id: "uuid",
    company_id: "uuid",
    url: "text",
    events: "jsonb",
    secret: "text",
    created_at: "timestamptz",
    deleted_at: "timestamptz",
    previous_secret: "text",
    previous_secret_expires_at: "timestamptz",
  },
  toRow: (w: WebhookRecord) => ({
    id: w.id,
    company_id: w.companyId,
    url: w.url,
    events: jsonParam(w.events),
    secret: w.secret,
    created_at: w.createdAt,
    deleted_at: w.deletedAt,
    previous_secret: w.previousSecret ?? null,
    previous_secret_expires_at: w.previousSecretExpiresAt ?? null,
  }),
  fromRow: (r): WebhookRecord => ({
    id: text(r.id),
    companyId: text(r.company_id),
    url: text(r.url),
    events: json(r.events) as WebhookRecord["events"],
    secret: text(r.secret),
    createdAt: text(r.created_at),
    deletedAt: textOrNull(r.deleted_at),
    previousSecret: textOrNull(r.previous_secret),
    previousSecretExpiresAt: textOrNull(r.previous_secret_expires_at),
  }),
});

/** Webhook events are created by `completeAttempt` and updated by `completeWebhookEvent`. */
export const WEBHOOK_EVENTS = rowMapping({
  columns: {
    id: "uuid",
    webhook_id: "uuid",
    company_id: "uuid",
    type: "text",
    data: "text",
    created_at: "timestamptz",
    status: "text",
    attempts: "integer",
    next_attempt_at: "timestamptz",
    delivered_at: "timestamptz",
    log: "jsonb",
  },
  toRow: (e: WebhookEventRecord) => ({
    id: e.id,
    webhook_id: e.webhookId,
    company_id: e.companyId,
    type: e.type,
    data: e.data,
    created_at: e.createdAt,
    status: e.status,
    attempts: e.attempts,
    next_attempt_at: e.nextAttemptAt,
    delivered_at: e.deliveredAt,
    log: jsonParam(e.log),
  }),
  fromRow: (r): WebhookEventRecord => ({
    id: text(r.id),
    webhookId: text(r.webhook_id),
    companyId: text(r.company_id),
    type: text(r.type) as WebhookEventRecord["type"],
    createdAt: text(r.created_at),
    data: text(r.data),
    status: text(r.status) as WebhookEventRecord["status"],
    attempts: Number(r.attempts),
    nextAttemptAt: textOrNull(r.next_attempt_at),
    deliveredAt: textOrNull(r.delivered_at),
    log: json(r.log) as WebhookEventRecord["log"],
  }),
});

/** Delivery evidence is written by `completeAttempt` with a delivered attempt (migration 7) and read by `getEvidence`. */
export const DELIVERY_EVIDENCE = rowMapping({
  columns: {
    invoice_id: "uuid",
    company_id: "uuid",
    network: "text",
    kind: "text",
    media_type: "text",
    content: "text",
    reference: "text",
    document_hash: "text",
    delivered_at: "timestamptz",
  },
  toRow: (e: StoredEvidence & { companyId: string }) => ({
    invoice_id: e.invoiceId,
    company_id: e.companyId,
    network: e.network,
    kind: e.kind,
    media_type: e.mediaType,
    content: e.content,
    reference: e.reference,
    document_hash: e.documentHash,
    delivered_at: e.deliveredAt,
  }),
  fromRow: (r): StoredEvidence => ({
    invoiceId: text(r.invoice_id),
    network: text(r.network) as StoredEvidence["network"],
    kind: text(r.kind),
    mediaType: text(r.media_type),
    content: text(r.content),
    reference: textOrNull(r.reference),
    documentHash: textOrNull(r.document_hash),
    deliveredAt: text(r.delivered_at),
  }),
});

/** The document a network transmitted, written by `completeAttempt` with a delivered attempt (migration 15) and read by `getTransmittedDocument`. */
export const TRANSMITTED_DOCUMENTS = rowMapping({
  columns: { invoice_id: "uuid", company_id: "uuid", format: "text", media_type: "text", content: "text" },
  toRow: (d: TransmittedDocument & { invoiceId: string; companyId: string }) => ({
    invoice_id: d.invoiceId,
    company_id: d.companyId,
    format: d.format,
    media_type: d.mediaType,
    content: d.content,
  }),
  fromRow: (r): TransmittedDocument => ({ format: text(r.format), mediaType: text(r.media_type), content: text(r.content) }),
});

export { text };
