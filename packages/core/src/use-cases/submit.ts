// submitInvoice: the checks of contract section 1, in order, and the tracked submission they lead to.
import { ApiError, ERROR_STATUS, type ErrorCode } from "../domain/errors.js";
import { checkRecipient } from "../routing/routing.js";
import { companyOf } from "./accounts.js";
import { guardStore, resolveOptions, type CoreOptions, type ResolvedOptions } from "./options.js";
import { readInvoiceAsync, readRequestAsync, type ReadInvoice } from "../document/index.js";
import type { RoutingDecision, Store } from "../ports/store.js";
import { isUuid, type CreditNoteRequest, type InvoiceRequest, type Submission } from "../domain/schemas.js";
import { TARGET_NETWORKS, type AuthContext, type Company, type InvoiceRecord, type Network, type TargetNetwork } from "../domain/types.js";
import { normaliseNip } from "../domain/nip.js";
import { checkSubmitBody, checkSubmitShape } from "../document/request.js";
import { readDataDocument } from "../document/invoice-data/pipeline.js";
import { readAnyDocumentAsync } from "../document/any.js";
import { decodeDocument } from "../document/read.js";
import type { UblRoot } from "../document/ubl.js";

/** The options of the submit calls: the core's, and the id the submission takes. */
export type SubmitOptions = CoreOptions & {
  /**
   * The id the submission is stored under (an `Idempotency-Key`'s `resourceId`, see `idempotent`),
   * instead of a new one. When the company already has a submission with this id (the same request,
   * cut off after it was stored), nothing is checked or stored again: the answer is the one that
   * submission was given (`sending`, or `failed` with its message), whatever became of it since.
   */
  submissionId?: string;
};

/**
 * Submits one base64 UBL invoice for the authenticated company.
 *
 * Runs, in order: body shape (400), eligibility (403), account preconditions (422
 * `no_legal_entity`, `peppol_sending_not_enabled`), the document pipeline (422), then the
 * duplicate rule and routing; where KSeF is delivered to directly (`ksefCredentialsRequired`), a
 * submission routed to `ksef` for a company without a KSeF credential is a 422
 * `ksef_not_configured`, unless it is a duplicate (answered as one). Throws an `ApiError` for the first check that fails; otherwise stores
 * a tracked submission and returns it: `sending`, or `failed` with `errorMessage` (a duplicate, or a
 * route that cannot be taken).
 *
 * @example
 * const auth = await authenticate(store, apiKey)
 * const { submissionId, status } = await submitInvoice(store, auth, { xml: base64, targetNetwork: "auto" })
 */
export async function submitInvoice(store: Store, auth: AuthContext, request: InvoiceRequest, options?: SubmitOptions): Promise<Submission> {
  return submitUbl("Invoice", store, auth, request, options);
}

/**
 * Submits one base64 UBL credit note (root `CreditNote` in namespace
 * `urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2`) for the authenticated company: the
 * same body, checks, order, answers and duplicate rule as `submitInvoice`, through the same
 * pipeline. The recipient is `/CreditNote/cac:AccountingCustomerParty/cac:Party/cbc:EndpointID`.
 * An Invoice sent here is a 422 `invalid_ubl_xml` naming `POST /v1/peppol/invoice`. A credit note
 * routed to KSeF is accepted (a correction invoice, KOR) only with the option `ksefCorrections`;
 * without it, it is stored `failed`: KSeF correction invoices (KOR) are not supported.
 *
 * @example const { submissionId, status } = await submitCreditNote(store, auth, { xml: base64, targetNetwork: "peppol" })
 */
export async function submitCreditNote(store: Store, auth: AuthContext, request: CreditNoteRequest, options?: SubmitOptions): Promise<Submission> {
  return submitUbl("CreditNote", store, auth, request, options);
}

async function submitUbl(root: UblRoot, store: Store, auth: AuthContext, request: unknown, options?: SubmitOptions): Promise<Submission> {
  const body = checkSubmitBody(request, root);
  const o = resolveOptions(options);
  const s = guardStore(store);
  return once(s, o, auth, options?.submissionId, async (id) => {
    const company = await companyOf(s, auth);
    const plan = await planFor(company, body.targetNetwork, o);
    // Large documents are read on a worker thread (see document/pool.ts): the event loop stays free.
    // An invoice given as data is built and checked (its model is the builder's; nothing is parsed).
    const { data, xml, document } = body;
    return submitChecked(
      root,
      s,
      company,
      plan,
      body.targetNetwork,
      async (limits, recipientOptional) =>
        data
          ? readDataDocument(data, limits, root, recipientOptional)
          : document !== undefined
            ? readAnyDocumentAsync(decodeDocument(document, limits), limits, root, recipientOptional)
            : readInvoiceAsync(xml!, limits, root, recipientOptional),
      o,
      id,
    );
  });
}

/** An entry point from the raw bytes of a JSON body: `submitInvoiceBody` and `submitCreditNoteBody`, one per UBL root. */
export type SubmitBody = (
  store: Store,
  auth: AuthContext,
  rawBody: Uint8Array | readonly Uint8Array[],
  options?: SubmitOptions & { transfer?: boolean },
) => Promise<Submission>;

/**
 * `submitInvoice` from the raw bytes of the JSON body, as an HTTP adapter receives them. A large
 * body is parsed, checked and read on a worker thread (its JSON text and its document never exist
 * on the calling thread); a small one as `submitInvoice` does. Same checks, same order, same answers;
 * unparseable JSON is a 400 `bad_request` with a string message. The body may be the chunks it
 * arrived in, in order: a large one is then joined on the worker, not on the calling thread. With
 * `transfer: true` a large body's memory is handed to the worker instead of copied: each buffer
 * that is exactly its own ArrayBuffer (as socket reads are) is empty afterwards.
 *
 * @example app.post("/v1/peppol/invoice", express.raw({ type: "application/json", limit: "10mb" }), async (req, res) => res.json({ data: await submitInvoiceBody(store, auth, req.body) }))
 */
export const submitInvoiceBody: SubmitBody = (store, auth, rawBody, options) => submitUblBody("Invoice", store, auth, rawBody, options);

/**
 * `submitCreditNote` from the raw bytes of the JSON body, as `submitInvoiceBody` is `submitInvoice`'s.
 *
 * @example app.post("/v1/peppol/credit-note", express.raw({ type: "application/json", limit: "10mb" }), async (req, res) => res.json({ data: await submitCreditNoteBody(store, auth, req.body) }))
 */
export const submitCreditNoteBody: SubmitBody = (store, auth, rawBody, options) => submitUblBody("CreditNote", store, auth, rawBody, options);

/** @deprecated The former name of `submitInvoiceBody` (it takes the raw bytes of the body, not parsed JSON), kept so existing callers still build. */
export const submitInvoiceJson = submitInvoiceBody;
/** @deprecated The former name of `submitCreditNoteBody`, kept so existing callers still build. */
export const submitCreditNoteJson = submitCreditNoteBody;

async function submitUblBody(
  root: UblRoot,
  store: Store,
  auth: AuthContext,
  rawBody: Uint8Array | readonly Uint8Array[],
  options?: SubmitOptions & { transfer?: boolean },
): Promise<Submission> {
  const o = resolveOptions(options);
  const s = guardStore(store);
  return once(s, o, auth, options?.submissionId, (id) => submitUblBodyAs(root, s, auth, rawBody, o, options?.transfer === true, id));
}

async function submitUblBodyAs(
  root: UblRoot,
  s: Store,
  auth: AuthContext,
  rawBody: Uint8Array | readonly Uint8Array[],
  o: ResolvedOptions,
  transfer: boolean,
  id: string,
): Promise<Submission> {
  // The company's checks first (its one store read): a company that may not submit on any network
  // costs no document work. The contract puts the body's shape (400) before them, so such a company's
  // body is checked for its shape only (no base64 decoding, no XML), then its refusal is the answer.
  const company = await companyOf(s, auth);
  const plans = await plansByTarget(company, o);
  if (TARGET_NETWORKS.every((t) => plans[t].refusal)) {
    const target = checkSubmitShape(rawBody instanceof Uint8Array ? [rawBody] : rawBody, root);
    throw refusalError(plans[target].refusal!);
  }
  const recipientOptionalFor = TARGET_NETWORKS.filter((t) => plans[t].recipientOptional);
  const read = await readRequestAsync(rawBody, o.limits, { transfer, root, recipientOptionalFor });
  return submitChecked(
    root,
    s,
    company,
    plans[read.targetNetwork],
    read.targetNetwork,
    async () => {
      if (read.doc) return read.doc;
      throw read.error;
    },
    o,
    id,
  );
}

/**
 * Runs a submission under its id: `submissionId` when given (an `Idempotency-Key`'s), else a new one.
 * A given id the company's store already holds is the same request again, cut off after it was
 * stored: answered as that submission was, nothing checked or stored. So is a submission whose store
 * call failed after all (the insert committed, its answer lost, or a concurrent retry's insert won).
 */
async function once(s: Store, o: ResolvedOptions, auth: AuthContext, submissionId: string | undefined, submit: (id: string) => Promise<Submission>): Promise<Submission> {
  if (submissionId === undefined) return submit(o.newId());
  const id = submissionId.toLowerCase();
  if (!isUuid(id)) throw new ApiError("internal_error", "The submissionId option must be a UUID.");
  const made = await s.getInvoice(auth.companyId, id);
  if (made) return answerOf(made);
  try {
    return await submit(id);
  } catch (e) {
    if (e instanceof ApiError && ERROR_STATUS[e.code] < 500) throw e; // refused before anything was stored
    const stored = await s.getInvoice(auth.companyId, id).catch(() => null);
    if (stored) return answerOf(stored);
    throw e;
  }
}

/**
 * The answer a stored submission was given when it was made: `failed` with its message when it was
 * stored failed (its first event says so), else `sending` (it may have been delivered or failed since).
 */
function answerOf(invoice: InvoiceRecord): Submission {
  const first = invoice.events[0];
  if (first?.status === "failed") return { submissionId: invoice.id, success: false, status: "failed", errorMessage: invoice.errorMessage ?? first.detail };
  return { submissionId: invoice.id, success: true, status: "sending" };
}

/**
 * The checks after the body's shape, in order: eligibility and preconditions (the plan of the company,
 * read once by the caller, for the asked target), the document, duplicates and routing.
 */
async function submitChecked(
  root: UblRoot,
  s: Store,
  company: Company | null,
  plan: Plan,
  targetNetwork: TargetNetwork,
  readDocument: (limits: ResolvedOptions["limits"], recipientOptional: boolean) => Promise<ReadInvoice>,
  o: ResolvedOptions,
  id: string,
): Promise<Submission> {
  const body = { targetNetwork };
  // Row 3 needs the network: the routing decided it from the company and the asked target, before the document.
  if (plan.refusal || !company) throw refusalError(plan.refusal ?? NO_COMPANY);

  const readStarted = performance.now();
  let doc: ReadInvoice;
  try {
    doc = await readDocument(o.limits, plan.recipientOptional);
  } finally {
    o.metrics.validationDuration((performance.now() - readStarted) / 1000);
  }
  let decision = plan.decision;
  if (decision.ok && decision.network === "ksef" && root === "CreditNote" && !o.ksefCorrections) {
    // Peppol is suggested only to a company that may send on it (a company in PL may not).
    const peppolOpen = (await refuse(company, "peppol", o)) === null;
    decision = {
      ok: false,
      reason: `KSeF correction invoices (KOR) are sent only through a KSeF connection, and this server has none: a credit note cannot be sent to KSeF here. ${peppolOpen ? 'Send it on Peppol (targetNetwork "peppol") or correct' : "Correct"} the invoice in KSeF directly.`,
    };
  }
  // Participant discovery (row 11): refuse a recipient that cannot receive this document; a failed lookup is noted, not fatal.
  let note: string | null = null;
  if (decision.ok && decision.network === "peppol" && o.discovery && doc.recipient) {
    const check = await checkRecipient(o.discovery, doc.recipient, doc.peppolDocumentType);
    if (check.kind === "refused") decision = { ok: false, reason: check.reason };
    else if (check.kind === "unknown") note = check.note;
  }
  const now = o.now();

  // What KSeF needs of the company and the invoice, checked before anything is stored or sent; after
  // the duplicate rule (row 10 answers first). Direct KSeF delivery authenticates as the company:
  // without its credential nothing could be sent. KSeF takes an invoice only from its seller (BT-31
  // must be the NIP the company authenticates with); it would refuse it later (410) otherwise.
  const ksefProblem = decision.ok && decision.network === "ksef" ? ksefRefusal(root, company, doc, o) : null;
  if (ksefProblem) {
    const earlier = await findDuplicate(s, company.id, doc);
    if (earlier) return counted(o, decision, failed(await insertFailed(s, duplicate(record(id, company.id, doc, body.targetNetwork, null, now, duplicateMessage(root, earlier, doc)), earlier.id))));
    throw ksefProblem;
  }

  if (!decision.ok) {
    const earlier = await findDuplicate(s, company.id, doc);
    const reason = earlier ? duplicateMessage(root, earlier, doc) : decision.reason;
    return counted(o, decision, failed(await insertFailed(s, duplicate(record(id, company.id, doc, body.targetNetwork, null, now, reason), earlier?.id ?? null))));
  }

  const accepted = record(id, company.id, doc, body.targetNetwork, decision.network, now, null, note);
  // A client is one recipient identifier: an invoice without one (a KSeF consumer invoice) counts for none.
  const r = doc.recipient;
  const result = await s.insertSubmission({
    invoice: accepted,
    document: doc.bytes,
    original: doc.original ? { content: doc.original.bytes, mediaType: doc.original.mediaType, syntax: doc.original.syntax } : null,
    client: r
      ? {
          id: o.newId(),
          key: `${r.scheme}:${r.value.toLowerCase()}`,
          endpointId: `${r.scheme}:${r.value}`,
          name: doc.fields.recipient.name,
          vatId: doc.fields.recipient.vatId,
          country: doc.fields.recipient.country,
        }
      : null,
  });
  if (result.inserted) return counted(o, decision, { submissionId: id, success: true, status: "sending" });
  const earlier: Duplicate = { id: result.duplicateOf, rule: result.rule === "number" ? "number" : "sha256" };
  return counted(o, decision, failed(await insertFailed(s, duplicate(record(id, company.id, doc, body.targetNetwork, null, now, duplicateMessage(root, earlier, doc)), earlier.id))));
}

/** Counts a stored submission by the network the routing chose (`none` when it chose none) and its status. */
function counted(o: ResolvedOptions, decision: RoutingDecision, submission: Submission): Submission {
  o.metrics.submission({ network: decision.ok ? decision.network : "none", status: submission.status });
  return submission;
}

/** An earlier submission that is not failed and that this one repeats: the same bytes, or (built from data) the same number. */
interface Duplicate {
  id: string;
  rule: "sha256" | "number";
}

/**
 * For a submission that will be stored `failed` anyway (a route that cannot be taken), the earlier
 * one it repeats, so that it is answered as a duplicate: the same bytes, or for a document built from
 * data, the same kind and number (the rules `Store.insertSubmission` applies to an accepted one).
 */
async function findDuplicate(s: Store, companyId: string, doc: ReadInvoice): Promise<Duplicate | null> {
  const same = await s.findActiveSubmission(companyId, doc.sha256);
  if (same) return { id: same, rule: "sha256" };
  const number = doc.fields.invoiceNumber;
  if (!doc.fromData || number === null) return null;
  const earlier = await s.findActiveNumber(companyId, doc.fields.kind, number);
  return earlier ? { id: earlier, rule: "number" } : null;
}

/** A failed record that repeats `earlier` (when given) says so in `duplicateOf`. */
function duplicate(invoice: InvoiceRecord, earlier: string | null): InvoiceRecord {
  return earlier ? { ...invoice, duplicateOf: earlier } : invoice;
}

/**
 * A refusal of rows 3 and 4, kept as data until it is the answer: the HTTP path plans all three
 * target networks before the body says which one it asks for, and an error object (with its stack)
 * made for each plan that is not taken cost every submission a few microseconds.
 */
interface Refusal {
  code: ErrorCode;
  message: string;
}

const NO_COMPANY: Refusal = { code: "invalid_api_key", message: "The API key belongs to a company that no longer exists." };

function refusalError(r: Refusal): ApiError {
  return new ApiError(r.code, r.message);
}

/** What one target network means for a company: the routing's decision, the refusal (rows 3 and 4) or null, whether the recipient is optional. */
interface Plan {
  decision: RoutingDecision;
  refusal: Refusal | null;
  /** The KSeF route needs no Peppol recipient (row 9 is the Peppol route's). */
  recipientOptional: boolean;
}

async function planFor(company: Company | null, targetNetwork: TargetNetwork, o: ResolvedOptions): Promise<Plan> {
  if (!company) return { decision: { ok: false, reason: "" }, refusal: NO_COMPANY, recipientOptional: false };
  const decision = await o.routing.route({ company, targetNetwork });
  const network = decision.ok ? decision.network : null;
  return { decision, refusal: await refuse(company, network, o), recipientOptional: network === "ksef" };
}

/** The plan of each target network (a body is read once its target is known, on a worker for a large one). */
async function plansByTarget(company: Company | null, o: ResolvedOptions): Promise<Record<TargetNetwork, Plan>> {
  const [auto, peppol, ksef] = await Promise.all(TARGET_NETWORKS.map((t) => planFor(company, t, o)));
  return { auto: auto!, peppol: peppol!, ksef: ksef! };
}

/** On the KSeF route: the company's missing credential (where KSeF is delivered to directly), or an invoice whose seller is not the company's NIP; else null. */
function ksefRefusal(root: UblRoot, company: Company, doc: ReadInvoice, o: ResolvedOptions): ApiError | null {
  const noun = root === "CreditNote" ? "credit note" : "invoice";
  if (!company.ksef) {
    if (!o.ksefCredentialsRequired) return null;
    return new ApiError(
      "ksef_not_configured",
      `The ${noun} is routed to KSeF, and this company has no KSeF credential: an operator must set its NIP and KSeF token (PATCH /admin/companies/{id}, the ksef object) before it can send to KSeF.`,
    );
  }
  const sellerVat = doc.fields.supplier.vatId;
  const seller = sellerVat ? normaliseNip(sellerVat) : null;
  if (seller === company.ksef.nip) return null;
  return new ApiError(
    "ksef_seller_mismatch",
    `KSeF takes an invoice only from its seller: the ${noun}'s seller VAT id (BT-31, cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID) is ${sellerVat ? JSON.stringify(sellerVat) : "absent"}, and this company's KSeF NIP is ${company.ksef.nip}. Write the company's NIP as the seller's VAT id with its country prefix, PL${company.ksef.nip} (EN 16931's BR-CO-09 requires the prefix); nothing was sent.`,
  );
}

async function refuse(company: Company, network: Network | null, o: ResolvedOptions): Promise<Refusal | null> {
  const refusal = await o.eligibility(company, network);
  if (refusal) return refusal;
  if (!company.legalEntityId) {
    return {
      code: "no_legal_entity",
      message: "The company has no legal entity at the access point yet; an operator must register one before invoices can be sent.",
    };
  }
  if (!company.peppolSendingEnabled) {
    return { code: "peppol_sending_not_enabled", message: "Peppol sending is not enabled for this company; an operator must enable it." };
  }
  return null;
}

function duplicateMessage(root: UblRoot, earlier: Duplicate, doc: ReadInvoice): string {
  const noun = root === "CreditNote" ? "credit note" : "invoice";
  if (earlier.rule === "number") {
    return `Duplicate ${noun} number: ${JSON.stringify(doc.fields.invoiceNumber)} (BT-1) is already the number of ${noun} ${earlier.id}, which has not failed; it is not sent. Each ${noun} needs a number of its own: to correct a sent invoice, send a credit note.`;
  }
  return `Duplicate ${noun}: the same XML was already submitted as ${earlier.id}, which has not failed; it is not sent again.`;
}

function record(
  id: string,
  companyId: string,
  doc: ReadInvoice,
  targetNetwork: TargetNetwork,
  network: Network | null,
  now: string,
  errorMessage: string | null,
  note: string | null = null,
): InvoiceRecord {
  const f = doc.fields;
  return {
    id,
    companyId,
    status: errorMessage === null ? "sending" : "failed",
    targetNetwork,
    network,
    errorMessage,
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
    ksefNumber: null,
    verificationUrl: null,
    sha256: doc.sha256,
    // The document as the client sent it: a converted CII or PDF counts as itself, not as the UBL made of it.
    size: doc.original ? doc.original.bytes.length : doc.bytes.length,
    createdAt: now,
    updatedAt: now,
    events: [
      errorMessage === null
        ? { status: "sending", at: now, detail: `Accepted and queued for sending on ${network}.${note ? " " + note : ""}` }
        : { status: "failed", at: now, detail: errorMessage },
    ],
    warnings: doc.warnings,
    duplicateOf: null,
    facts: { peppolDocumentType: doc.peppolDocumentType, ruleSets: doc.ruleSets, ...(doc.original ? { syntax: doc.original.syntax } : {}) },
    ...(doc.fromData ? { fromData: true } : {}),
  };
}

async function insertFailed(s: Store, invoice: InvoiceRecord): Promise<InvoiceRecord> {
  const result = await s.insertSubmission({ invoice, document: null, client: null });
  if (!result.inserted) throw new ApiError("internal_error", `The ${s.name} store refused a failed submission.`);
  return result.invoice;
}

function failed(invoice: InvoiceRecord): Submission {
  return { submissionId: invoice.id, success: false, status: "failed", errorMessage: invoice.errorMessage ?? "Failed." };
}
