// Storing a received document: one document a network delivered, read, judged and stored as an inbound record of its
// company (or kept for the operator when it belongs to no company), with its supplier and its `invoice.received`
// webhook events in the same atomic step. Deduplicated by the network's reference: received again, it adds nothing.
// The inbound poller calls it here; `receiveDocument` (use-cases/receive.ts) is the same through the guarded store.
import { sha256Hex } from "../domain/sha256.js";
import type { InvoiceRecord, Network, NetworkReference } from "../domain/types.js";
import { judgeReceived, mediaTypeOf, type JudgedDocument, type ReceiveSyntax } from "../document/received.js";
import { judgeReceivedAsync } from "../document/default-pool.js";
import { INBOUND_DOCUMENT_MAX_BYTES, INBOUND_ERRORS_MAX, type InboxStore, type ReceivedDocument, type StoredOutcome } from "../ports/inbound.js";
import type { ClientUpsert, Store } from "../ports/store.js";
import { randomUUID } from "node:crypto";
import { DEFAULT_XML_LIMITS, type XmlLimits } from "../document/xml.js";
import { safeMetrics, type MetricsPort } from "../ports/metrics.js";

/**
 * What storing a received document takes of the core's options (`ReceiveOptions` in use-cases/receive.ts is these and
 * the rest of `CoreOptions`): the clock, new ids, XML limits, metrics, and the extra syntaxes to read.
 */
export interface ReceiveSettings {
  /** The time source. Default: `new Date()`. */
  clock?: () => Date;
  /** New ids (lower-cased on use). Default: `crypto.randomUUID`. */
  newId?: () => string;
  /** XML limits (a received document up to INBOUND_DOCUMENT_MAX_BYTES is read whatever `maxBytes` says). */
  limits?: Partial<XmlLimits>;
  /** Where received documents are counted (`inboundReceived`). */
  metrics?: MetricsPort;
  /** Syntaxes besides UBL and CII a received document may be in, tried by their `recognises`: KSeF's `fa3Syntax`. */
  syntaxes?: readonly ReceiveSyntax[];
}

/** What `receiveDocument` takes: the document as the network handed it, its network, and its company (null: look it up). */
export type ReceiveInput = ReceivedDocument & {
  network: Network;
  /** The receiving company; null for a source of the whole server: then the company of `legalEntityId`, if any. */
  companyId: string | null;
};

/** The reference as people read it, for the record's event. */
function referenceText(ref: NetworkReference): string {
  if ("ksefNumber" in ref) return `KSeF number ${ref.ksefNumber}`;
  if ("storecoveGuid" in ref) return `Storecove document ${ref.storecoveGuid}`;
  return `sandbox submission ${ref.submissionId}`;
}

/**
 * The seller as a supplier of the company: keyed by its electronic address (`scheme:lower-cased value`, as clients
 * are), else by its VAT id (`vat:` and the id upper-cased without spaces); null when the document names neither.
 */
export function supplierUpsert(judged: Pick<JudgedDocument, "fields">, id: string): ClientUpsert | null {
  const s = judged.fields.supplier;
  const endpoint = s.endpointId;
  const colon = endpoint === null ? -1 : endpoint.indexOf(":");
  if (endpoint !== null && colon > 0 && colon < endpoint.length - 1) {
    return { id, key: `${endpoint.slice(0, colon)}:${endpoint.slice(colon + 1).toLowerCase()}`, endpointId: endpoint, name: s.name, vatId: s.vatId, country: s.country };
  }
  const vat = s.vatId?.replace(/\s+/g, "").toUpperCase();
  if (vat) return { id, key: `vat:${vat}`, endpointId: endpoint ?? s.vatId!, name: s.name, vatId: s.vatId, country: s.country };
  return null;
}

/**
 * Stores one received document durably and says what became of it (`receiveDocument` without the store's guard: a
 * store failure rejects with the store's own error): `stored` (a new inbound record), `duplicate` (the
 * company already has one with this network reference: nothing added), or `unmatched` (no company: kept for the
 * operator, once per reference).
 *
 * The company is `companyId`, or for a source of the whole server the company whose `legalEntityId` is the document's
 * (`findCompanyByLegalEntity`). The document is read and judged once (`judgeReceived`): its syntax (UBL, CII, a
 * Factur-X PDF, or one of `options.syntaxes` such as FA(3)), the record's fields as an outbound record has them, and
 * the rules' verdict (`valid`, at most 100 errors, warnings). A document that is too large (kept without its bytes),
 * not XML, not an invoice, broken or hostile is stored all the same, invalid, with one finding saying why: this never
 * rejects for the document's content. It rejects only when the store fails (with the store's own error): then
 * nothing may be acknowledged to the network.
 *
 * The record and the seller as a supplier (`supplierUpsert`) are stored with the company's `invoice.received` webhook
 * events, in one atomic step (`InboxStore.insertInbound`).
 *
 * @example const outcome = await storeReceivedDocument(store, { reference: { ksefNumber }, content, network: "ksef", companyId }, { syntaxes: [fa3Syntax] })
 */
export async function storeReceivedDocument(store: Store & InboxStore, input: ReceiveInput, options?: ReceiveSettings): Promise<StoredOutcome> {
  const clock = options?.clock;
  const newId = options?.newId;
  const o = {
    now: () => (clock ? clock() : new Date()).toISOString(),
    newId: () => (newId ? newId().toLowerCase() : randomUUID()),
    limits: options?.limits ? { ...DEFAULT_XML_LIMITS, ...options.limits } : DEFAULT_XML_LIMITS,
    metrics: safeMetrics(options?.metrics),
  };
  const s = store;
  const content = input.content;
  const now = o.now();
  let companyId = input.companyId;
  if (companyId === null) {
    const legalEntityId = input.legalEntityId ?? null;
    companyId = legalEntityId === null ? null : await s.findCompanyByLegalEntity(legalEntityId);
    if (companyId === null) {
      const id = o.newId();
      const kept = content.length <= INBOUND_DOCUMENT_MAX_BYTES;
      const r = await s.insertUnmatched(
        {
          id,
          network: input.network,
          networkReference: { ...input.reference },
          legalEntityId,
          reason:
            legalEntityId === null
              ? "The network named no receiving company (no legal entity id)."
              : `No company of this server has the legal entity id ${JSON.stringify(legalEntityId)}.${kept ? "" : ` The document is larger than ${INBOUND_DOCUMENT_MAX_BYTES} bytes: its bytes are not kept.`}`,
          receivedAt: now,
          mediaType: mediaTypeOf(content),
          sha256: sha256Hex(content),
          size: content.length,
        },
        kept ? content : null,
      );
      o.metrics.inboundReceived?.({ network: input.network, outcome: "unmatched" });
      return { outcome: "unmatched", id: r.id };
    }
  }
  // A large document is judged on a worker thread (the event loop keeps serving); one that may be of an extra syntax
  // (a function cannot go to a worker) is judged here.
  const judged = options?.syntaxes?.length ? await judgeReceived(content, { limits: o.limits, syntaxes: options.syntaxes }) : await judgeReceivedAsync(content, o.limits);
  const invoice = inboundRecord(o.newId(), companyId, input, judged, sha256Hex(content), now);
  const r = await s.insertInbound({
    invoice,
    content: content.length <= INBOUND_DOCUMENT_MAX_BYTES ? content : null,
    supplier: supplierUpsert(judged, o.newId()),
    notify: true,
  });
  const outcome: StoredOutcome = r.inserted ? { outcome: "stored", invoiceId: r.invoice.id } : { outcome: "duplicate", invoiceId: r.existingId };
  o.metrics.inboundReceived?.({ network: input.network, outcome: outcome.outcome });
  return outcome;
}

/** The inbound record of a judged document. */
function inboundRecord(id: string, companyId: string, input: ReceiveInput, judged: JudgedDocument, sha256: string, now: string): InvoiceRecord {
  const f = judged.fields;
  const ref = input.reference;
  const verdict = judged.valid ? "it passes the rules that apply to it" : `${judged.errors.length === 1 ? "1 error" : `${judged.errors.length} errors`}: ${judged.errors[0]?.message.slice(0, 200) ?? "invalid"}`;
  return {
    id,
    companyId,
    status: "received",
    targetNetwork: input.network,
    network: input.network,
    errorMessage: null,
    kind: f.kind,
    billingReference: f.billingReference,
    invoiceNumber: f.invoiceNumber,
    issueDate: f.issueDate,
    dueDate: f.dueDate,
    currency: f.currency,
    totals: f.totals,
    supplier: f.supplier,
    recipient: f.recipient,
    clientId: null,
    ksefNumber: "ksefNumber" in ref ? ref.ksefNumber : null,
    verificationUrl: null,
    sha256,
    size: input.content.length,
    createdAt: now,
    updatedAt: now,
    events: [{ status: "received", at: now, detail: `Received on ${input.network} (${referenceText(ref)}); ${verdict}.` }],
    warnings: judged.warnings.slice(0, INBOUND_ERRORS_MAX),
    duplicateOf: null,
    direction: "inbound",
    supplierId: null,
    inbound: {
      receivedAt: now,
      syntax: judged.syntax,
      valid: judged.valid,
      errors: judged.errors.map((e) => ({ rule: e.rule, message: e.message, location: e.location })),
      networkReference: { ...ref } as NetworkReference,
      mediaType: judged.mediaType,
    },
  };
}
