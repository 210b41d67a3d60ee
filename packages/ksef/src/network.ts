// ksefNetwork: the core's network port on KSeF API 2.x (CIRFMF/ksef-docs, open-api.json).
// One attempt: the invoice, as the core's model the send request carries, is mapped to FA(3) (a
// mapping failure fails the submission, naming the field); the adapter authenticates with the sending
// company's NIP and KSeF token, which the request carries too (the dispatcher reads them with its
// tokenCipher; nothing here asks the store), (challenge, "token|timestampMs"
// under RSA-OAEP, status polling, redeem; refresh of the access token), opens an online session for
// FA (3) with a fresh AES-256 key, sends the encrypted invoice, closes the session and polls the
// invoice status until KSeF decides. The KSeF number is the delivered outcome's detail, the UPO
// (KSeF's official receipt) its evidence. The calls and the authentication live in session.ts (shared
// with receiving, inbound/).
//
// The delivered outcome carries the FA(3) exactly as KSeF accepted it (`transmitted`): the one sent,
// or, in a later attempt, the same bytes written again at the saved creation time (checked by hash).
//
// Durability (state.ts): the session reference, the FA(3)'s hash and creation time are saved (saveState) before the
// invoice is sent, the invoice reference right after KSeF accepts the upload. A later attempt, in this
// process or another after a crash, polls that invoice, or finds it in the session's invoice list by
// its hash, instead of sending it again; a duplicate (440) whose original is in a session this
// submission opened is this submission's own invoice, and is delivered.
import { type DeliveryEvidence, type KsefCredential, type NetworkPort, type SendOutcome, type SendRequest, type TransmittedDocument } from "@einvoice/core";
import { createHash } from "node:crypto";
import { encryptInvoice, newSessionKey } from "./crypto.js";
import { authOf, ksefSession, Stop as CallStop, type Auth } from "./session.js";
import { FA3_SCHEMA_VERSION, FA3_SYSTEM_CODE, Fa3MappingError, correctedInvoices, toFa3, type CorrectedInvoice, type Fa3Options } from "./fa3.js";
import { readState, type KsefState, type KsefUpload } from "./state.js";
import { ksefQrBase, verificationFacts, verificationUrl } from "./verification.js";
import { invoiceOutcome, type KsefInvoiceStatus } from "./status.js";

export interface KsefNetworkOptions {
  /** The API base URL including /v2 (test, demo or production environment). */
  baseUrl: string;
  /**
   * Where the invoices' verification links (KOD I) point when `baseUrl` is not one of KSeF's three
   * environments (whose QR addresses are fixed: `ksefQrBase`); `baseUrl`'s origin by default.
   */
  qrUrl?: string;
  /**
   * A fixed NIP (the authentication context) and KSeF token that send every invoice as that one
   * taxpayer. Without it, each invoice is sent as its company, with the credential its send request
   * carries (`SendRequest.ksefCredential`, which the dispatcher reads with its `tokenCipher`); a
   * company without one fails the attempt, saying how to set it. The token is never logged, never
   * part of an outcome.
   */
  credentials?: KsefCredentials;
  /** How often to poll the authentication and invoice status (ms); 1000 by default. */
  pollIntervalMs?: number;
  /** How long one attempt polls the invoice status before asking for a retry (ms); 60 s by default. */
  statusTimeoutMs?: number;
  /** Per-request timeout (ms); 30 s by default. */
  requestTimeoutMs?: number;
  /** Options of the FA(3) mapping (exchange rate, SystemInfo, buyerUnit). */
  fa3?: Omit<Fa3Options, "createdAt" | "correctedInvoice">;
  /**
   * For a credit note (KOR): a resolver of your own for what KSeF knows of each invoice it corrects
   * (BT-25, BT-26), for the sending company: its KSeF number, or that it was issued outside KSeF;
   * null when unknown (the credit note then fails, saying so). Asked instead of the request's
   * `correctedInvoices` (the KSeF numbers this service got, which the dispatcher looks up and hands
   * over with each credit note on the ksef route); without either, every credit note fails so.
   */
  correctedInvoice?: (companyId: string, ref: { number: string; issueDate: string }) => Promise<CorrectedInvoice | null>;
  /** How long one attempt waits for the UPO of an accepted invoice (ms); 10 s by default. */
  upoTimeoutMs?: number;
  /**
   * How many later attempts may be asked for (outcome retry) while KSeF has no UPO yet for an
   * accepted invoice; 2 by default. After them the invoice is delivered without evidence (the UPO
   * stays in KSeF, by session and KSeF number). Each counts as an attempt of the dispatcher's retry
   * policy: keep it below its maxAttempts.
   */
  upoRetries?: number;
  fetch?: typeof fetch;
}

/** A company's NIP and KSeF token (the core's `KsefCredential`, as the dispatcher hands it in `SendRequest.ksefCredential`). */
export type KsefCredentials = KsefCredential;

/** An answer of KSeF that ends the attempt with this outcome. */
class Stop extends Error {
  constructor(readonly result: SendOutcome) {
    super(result.outcome);
  }
}

/** KSeF's exception code for "no UPO found for these criteria" (not yet generated). */
const UPO_NOT_FOUND = 21178;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function ksefNetwork(options: KsefNetworkOptions): NetworkPort {
  const base = options.baseUrl.replace(/\/+$/, "");
  const qrBase = ksefQrBase(base, options.qrUrl);
  const pollMs = options.pollIntervalMs ?? 1000;
  const statusTimeout = options.statusTimeoutMs ?? 60_000;
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  const upoTimeout = options.upoTimeoutMs ?? 10_000;
  const upoRetries = options.upoRetries ?? 2;
  if (typeof options.credentials === "function") {
    throw new TypeError("ksefNetwork: credentials is a fixed { nip, token } (one taxpayer for every invoice); each company's own credential comes with its send request: give createDispatcher the tokenCipher of the companies' KSeF tokens instead of a resolver");
  }
  const session = ksefSession({ baseUrl: base, ...(options.fetch ? { fetch: options.fetch } : {}), pollIntervalMs: pollMs, statusTimeoutMs: statusTimeout, requestTimeoutMs: requestTimeout });
  const { call, publicKeys, accessToken } = session;
  // The FA(3) an attempt sent, by its request (one object per attempt), for the delivered outcome.
  const sentIn = new WeakMap<SendRequest, { hash: string; fa3: string }>();

  /** Who sends the request's invoice (the fixed credential, else the request's), or the outcome that ends the attempt without one. */
  function authFor(request: SendRequest): Auth {
    const c = options.credentials ?? request.ksefCredential;
    if (c === undefined) {
      throw new Stop({ outcome: "retry", reason: "no KSeF credentials came with the invoice: the dispatcher hands each company's NIP and KSeF token to KSeF only when it has the tokenCipher they are encrypted with (createDispatcher's tokenCipher option)" });
    }
    if (!c) throw new Stop({ outcome: "failed", reason: "the company has no KSeF credentials: an operator sets its NIP and KSeF token with PATCH /admin/companies/{id} (the ksef object), then the invoice is submitted again" });
    return authOf(request.companyId, c);
  }

  /** Saves the state before the next irreversible step; a failed save ends the attempt without it. */
  async function save(request: SendRequest, state: KsefState): Promise<void> {
    try {
      await request.saveState(JSON.stringify(state));
    } catch (e) {
      throw new Stop({ outcome: "retry", reason: `the KSeF delivery state could not be saved (${(e as Error).name}); nothing more was sent` });
    }
  }

  /** The invoice reference of the upload with this hash in the session's invoice list, or null. */
  async function findInSession(upload: KsefUpload, auth: Auth): Promise<string | null> {
    let token: string | undefined;
    for (let page = 0; page < 100; page++) {
      const { json } = await call("GET", `/sessions/${upload.session}/invoices?pageSize=100`, await accessToken(auth), undefined, auth, token ? { headers: { "x-continuation-token": token } } : {});
      const hit = (json?.invoices as { referenceNumber: string; invoiceHash: string }[] | undefined)?.find((i) => i.invoiceHash === upload.hash);
      if (hit) return hit.referenceNumber;
      token = json?.continuationToken ?? undefined;
      if (!token) return null;
    }
    return null;
  }

  /** Polls an upload's invoice status until KSeF decides or the attempt's time is up. */
  async function pollUpload(request: SendRequest, state: KsefState, upload: KsefUpload & { invoice: string }, auth: Auth): Promise<SendOutcome> {
    const deadline = Date.now() + statusTimeout;
    for (;;) {
      const { json } = await call("GET", `/sessions/${upload.session}/invoices/${upload.invoice}`, await accessToken(auth), undefined, auth);
      const st = json.status as KsefInvoiceStatus;
      if (st.code === 200 && json.ksefNumber) {
        state.accepted = { session: upload.session, ksefNumber: json.ksefNumber, hash: upload.hash, upoTries: 0 };
        await save(request, state);
        return evidence(request, state, auth);
      }
      if (st.code === 440) {
        // A duplicate of an invoice this submission uploaded in an earlier session: its own, delivered.
        const original = state.uploads.find((u) => u.session === st.extensions?.["originalSessionReferenceNumber"]);
        const number = st.extensions?.["originalKsefNumber"];
        if (original && number) {
          state.accepted = { session: original.session, ksefNumber: number, hash: original.hash, upoTries: 0 };
          await save(request, state);
          return evidence(request, state, auth);
        }
      }
      const outcome = invoiceOutcome(st, json.ksefNumber);
      if (outcome !== "pending") {
        if (outcome.outcome === "retry" && st.code !== 200) {
          // A session or system error ended this upload: the next attempt uploads again, in a new session.
          upload.dead = true;
          await save(request, state);
        }
        return outcome;
      }
      if (Date.now() > deadline) return { outcome: "retry", reason: `KSeF is still processing the invoice (${st.code} ${st.description})` };
      await sleep(pollMs);
    }
  }

  /**
   * The FA(3) of the request's invoice, written at `createdAt` (DataWytworzeniaFa), from the model
   * the request carries; for a credit note, with what `correctedInvoice` says of each corrected
   * invoice. Throws a Stop: failed for a document that does not map, retry for a corrected invoice
   * still on its way to KSeF or that could not be looked up.
   */
  async function fa3Of(request: SendRequest, createdAt: Date): Promise<string> {
    try {
      const model = request.model();
      const known = new Map<string, CorrectedInvoice | null>();
      // What this service knows of the corrected invoices comes with the request; a resolver of the
      // user's own (one that can also say "issued outside KSeF") is asked instead.
      for (const c of request.correctedInvoices ?? []) known.set(`${c.number}\0${c.issueDate}`, c.ksefNumber ? { ksefNumber: c.ksefNumber } : null);
      if (model.name === "CreditNote" && options.correctedInvoice) {
        for (const ref of correctedInvoices(model)) {
          try {
            known.set(`${ref.number}\0${ref.issueDate}`, await options.correctedInvoice(request.companyId, ref));
          } catch (e) {
            const why = (e as Error).name === "KsefCorrectionPendingError" ? (e as Error).message : `the corrected invoice ${ref.number} could not be looked up (${(e as Error).name})`;
            throw new Stop({ outcome: "retry", reason: why });
          }
        }
      }
      return toFa3(model, { ...options.fa3, createdAt, correctedInvoice: (ref) => known.get(`${ref.number}\0${ref.issueDate}`) ?? null });
    } catch (e) {
      if (e instanceof Stop) throw e;
      if (e instanceof Fa3MappingError) throw new Stop({ outcome: "failed", reason: `the invoice cannot be sent to KSeF as FA(3): ${e.message}` });
      throw new Stop({ outcome: "failed", reason: `the invoice cannot be read for KSeF: ${(e as Error).message}` });
    }
  }

  /**
   * The FA(3) KSeF accepted, exactly as it was sent: the one this attempt sent, or (an earlier
   * attempt sent it) the one written again from the model at its upload's creation time, kept only
   * when its SHA-256 is the accepted one's. Undefined when neither is (an upload saved before the
   * creation time was, a changed mapping or option).
   */
  async function transmittedOf(request: SendRequest, state: KsefState, hash: string): Promise<TransmittedDocument | undefined> {
    const sent = sentIn.get(request);
    let fa3 = sent?.hash === hash ? sent.fa3 : null;
    const upload = state.uploads.find((u) => u.hash === hash && u.createdAt);
    if (fa3 === null && upload?.createdAt) fa3 = await fa3Of(request, new Date(upload.createdAt)).catch(() => null);
    if (fa3 === null || createHash("sha256").update(fa3, "utf8").digest("base64") !== hash) return undefined;
    return { format: "fa3", mediaType: "application/xml", content: fa3 };
  }

  /**
   * The KSeF number and the verification link (KOD I) of the accepted invoice: the seller's NIP and
   * the issue date as the FA(3) carries them (from the request's model, as in any later attempt), the
   * hash of the FA(3) that KSeF accepted. Without them (they were checked when it was mapped) the
   * link is left out; the number stands.
   */
  async function accepted(request: SendRequest, state: KsefState): Promise<{ ksefNumber: string; verificationUrl?: string; transmitted?: TransmittedDocument }> {
    const a = state.accepted!;
    const transmitted = await transmittedOf(request, state, a.hash);
    const kept = { ksefNumber: a.ksefNumber, ...(transmitted ? { transmitted } : {}) };
    try {
      const facts = verificationFacts(request.model());
      if (facts) return { ...kept, verificationUrl: verificationUrl(qrBase, { ...facts, fa3Sha256: a.hash }) };
    } catch {
      // No link: the number is still the outcome's.
    }
    return kept;
  }

  /** The UPO of the accepted invoice as the delivered outcome's evidence; a bounded wait when KSeF has none yet. */
  async function evidence(request: SendRequest, state: KsefState, auth: Auth): Promise<SendOutcome> {
    const a = state.accepted!;
    const detail = `KSeF number ${a.ksefNumber}`;
    const deadline = Date.now() + upoTimeout;
    for (;;) {
      const { status, text } = await call("GET", `/sessions/${a.session}/invoices/ksef/${encodeURIComponent(a.ksefNumber)}/upo`, await accessToken(auth), undefined, auth, { accept: "application/xml", tolerate: [UPO_NOT_FOUND] });
      if (status === 200) {
        const upo: DeliveryEvidence = { kind: "ksef-upo", mediaType: "application/xml", content: text, reference: a.ksefNumber, documentHash: a.hash };
        return { outcome: "delivered", detail, evidence: upo, ...(await accepted(request, state)) };
      }
      if (Date.now() > deadline) break;
      await sleep(pollMs);
    }
    if (a.upoTries < upoRetries) {
      a.upoTries++;
      await save(request, state);
      return { outcome: "retry", reason: `KSeF accepted the invoice as ${detail} but has no UPO for it yet; the next attempt fetches it (the invoice is not sent again)` };
    }
    return { outcome: "delivered", detail: `${detail} (KSeF had no UPO for it after ${upoRetries + 1} attempts; it is in KSeF under session ${a.session})`, ...(await accepted(request, state)) };
  }

  async function attempt(request: SendRequest): Promise<SendOutcome> {
    let state: KsefState;
    try {
      state = readState(request.state);
    } catch {
      return { outcome: "failed", reason: "the saved KSeF delivery state of this submission cannot be read; the invoice may have reached KSeF already, so it is not sent again: look it up in KSeF by its number" };
    }
    const auth = authFor(request);
    if (state.accepted) return evidence(request, state, auth);
    // The last upload that may still be alive: poll it, or find it in its session by its hash.
    const last = state.uploads.at(-1);
    if (last && !last.dead) {
      if (!last.invoice) {
        const found = await findInSession(last, auth);
        if (found) {
          last.invoice = found;
          await save(request, state);
        } else {
          // The upload never reached KSeF's session list: it was not received. If it was, after all,
          // the next upload is answered 440 naming this session, which proves it ours (see pollUpload).
          last.dead = true;
        }
      }
      if (last.invoice) return pollUpload(request, state, last as KsefUpload & { invoice: string }, auth);
    }
    const createdAt = new Date();
    const fa3 = await fa3Of(request, createdAt);
    const access = await accessToken(auth);
    const k = await publicKeys();
    const session = newSessionKey(k.symmetric);
    const body = encryptInvoice(Buffer.from(fa3, "utf8"), session);
    sentIn.set(request, { hash: body.invoiceHash, fa3 });
    const { json: opened } = await call("POST", "/sessions/online", access, { formCode: { systemCode: FA3_SYSTEM_CODE, schemaVersion: FA3_SCHEMA_VERSION, value: "FA" }, encryption: session.encryption }, auth);
    const upload: KsefUpload = { session: opened.referenceNumber, hash: body.invoiceHash, createdAt: createdAt.toISOString() };
    state.uploads.push(upload);
    await save(request, state);
    const { json: accepted } = await call("POST", `/sessions/online/${opened.referenceNumber}/invoices`, access, body, auth);
    upload.invoice = accepted.referenceNumber;
    await save(request, state);
    await call("POST", `/sessions/online/${opened.referenceNumber}/close`, access, undefined, auth);
    return pollUpload(request, state, upload as KsefUpload & { invoice: string }, auth);
  }

  return {
    name: "ksef",
    async send(request) {
      try {
        return await attempt(request);
      } catch (e) {
        if (e instanceof Stop) return e.result;
        if (e instanceof CallStop) return e.result as SendOutcome;
        return { outcome: "retry", reason: `KSeF attempt failed unexpectedly (${(e as Error).name})` };
      }
    },
  };
}
