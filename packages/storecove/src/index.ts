// @einvoice/storecove: delivers invoices through Storecove's `POST /document_submissions`, keeps the
// evidence of the transmission (`GET /document_submissions/{guid}/evidence/sending`), looks
// participants up with its discovery API, and receives documents through its pull queue (inbound.ts).
import { PARTICIPANT_SCHEMES, readBoundedText, type NetworkPort, type SendOutcome, type SendRequest } from "@einvoice/core";
import { isTransientStatus, parseRetryAfter, storecoveHttp } from "./http.js";

export { parseRetryAfter } from "./http.js";

export interface StorecoveOptions {
  /** The API root, such as `https://<host>/api/v2` (no trailing slash needed). */
  baseUrl: string;
  /** The Storecove API key (sent as a bearer token; never logged or put in a reason). */
  apiKey: string;
  /** The fetch to use. Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Per-request timeout. Default 30 s. */
  timeoutMs?: number;
  /** Adapter name in events. Default `storecove`. */
  name?: string;
  /**
   * How long one attempt waits, after Storecove accepted the submission, for the evidence of its
   * transmission (`GET /document_submissions/{guid}/evidence/sending` answers 404 until then).
   * Default 5 s; past it the submission is delivered without evidence (Storecove has it; the
   * event says that no evidence was kept).
   */
  evidenceWaitMs?: number;
  /** How often it asks for the evidence while waiting. Default 1 s. */
  evidencePollMs?: number;
}

/** What the adapter saves with `saveState`: the guid Storecove gave the submission. */
interface SavedState {
  storecove: { guid: string };
}

/** The submission guid of an earlier attempt's saved state, or null. */
export function savedGuid(state: string | null): string | null {
  if (!state) return null;
  try {
    const v = JSON.parse(state) as Partial<SavedState> | null;
    const guid = v?.storecove?.guid;
    return typeof guid === "string" && /^[0-9A-Za-z-]{1,100}$/.test(guid) ? guid : null;
  } catch {
    return null;
  }
}

/** Storecove names identifier schemes as the Peppol code list's scheme ids (`0208` is `BE:EN`). */
const SCHEME_NAMES = new Map(PARTICIPANT_SCHEMES.map(([code, schemeId]) => [code, schemeId]));

/** The Storecove scheme name of an ISO 6523 code, or the code itself when the list has none. */
export function storecoveScheme(iso6523: string): string {
  return SCHEME_NAMES.get(iso6523) ?? iso6523;
}

/** The JSON body of one document submission. */
export function documentSubmissionBody(req: SendRequest): Record<string, unknown> {
  const legalEntityId = /^[0-9]+$/.test(req.legalEntityId) ? Number(req.legalEntityId) : req.legalEntityId;
  return {
    legalEntityId,
    idempotencyGuid: req.idempotencyKey,
    routing: {
      eIdentifiers: req.routing.recipient ? [{ scheme: storecoveScheme(req.routing.recipient.scheme), id: req.routing.recipient.value }] : [],
    },
    document: {
      documentType: "invoice",
      rawDocumentData: { document: Buffer.from(req.document).toString("base64"), parse: true },
    },
  };
}

interface ErrorModel {
  source?: unknown;
  details?: unknown;
}

function describeErrors(body: unknown): string {
  const list = Array.isArray(body) ? (body as ErrorModel[]) : body && typeof body === "object" ? [body as ErrorModel] : [];
  const parts = list
    .map((e) => [e.source, e.details].filter((x) => typeof x === "string" && x.length > 0).join(": "))
    .filter((s) => s.length > 0);
  const text = parts.join("; ");
  return text.length > 500 ? text.slice(0, 500) + "…" : text;
}

function isIdempotencyReplay(body: unknown): boolean {
  const list = Array.isArray(body) ? (body as ErrorModel[]) : [];
  return list.some((e) => String(e.source ?? "").toLowerCase().includes("idempotency") || /idempotency/i.test(String(e.details ?? "")));
}

/** Storecove's answer, read once. */
interface Answer {
  status: number;
  text: string;
  body: unknown;
  headers: Headers;
}

/**
 * A network port that submits each invoice to Storecove as raw UBL (`parse: true`), on behalf of
 * the company's legal entity, routed to the recipient's Peppol identifier, with the submission id
 * as `idempotencyGuid` (a resend is recognised by Storecove, and answered as delivered here).
 *
 * Storecove's 200 means it accepted the submission and is responsible for the transmission on
 * Peppol: the outcome is delivered. The adapter saves the submission's guid (`saveState`, so that
 * an attempt after a crash never submits again), then asks for the evidence of the transmission
 * (`GET /document_submissions/{guid}/evidence/sending`) for up to `evidenceWaitMs`: once Storecove
 * has it, the delivered outcome carries it (kind `storecove`, Storecove's JSON as it gave it,
 * reference its transmission id); when it has not come by then (404), or asking fails, the
 * submission is delivered without evidence and the event says why.
 *
 * Outcomes of the submission: 200 as above; 422 failed with Storecove's reasons (a repeated
 * idempotencyGuid: delivered, without evidence, since that answer names no guid); 429 and 5xx,
 * 408, timeouts and connection errors: retry (honouring Retry-After); 401, 403 and 404 (our
 * credentials or legal entity): retry, so that an operator can fix them before the bound; other
 * 4xx: failed. Asking for the evidence never fails or delays a submission past the wait.
 *
 * @example storecoveNetwork({ baseUrl: process.env.STORECOVE_URL!, apiKey: process.env.STORECOVE_API_KEY! })
 */
export function storecoveNetwork(options: StorecoveOptions): NetworkPort {
  const http = storecoveHttp({ baseUrl: options.baseUrl, apiKey: options.apiKey, fetch: options.fetch, timeoutMs: options.timeoutMs ?? 30_000 });
  const name = options.name ?? "storecove";
  const evidenceWaitMs = options.evidenceWaitMs ?? 5_000;
  const evidencePollMs = options.evidencePollMs ?? 1000;

  /** One call; a `retry` outcome when Storecove could not be reached or did not answer in time. */
  async function call(method: "GET" | "POST", path: string, body?: unknown): Promise<Answer | { outcome: "retry"; reason: string }> {
    const r = await http.request({ method, path, body });
    if ("outcome" in r) return { outcome: "retry", reason: r.reason };
    const res = r.res;
    // Read up to the cap (4 MiB) and no further.
    const text = await readBoundedText(res).catch(() => "");
    if (text === null) return { outcome: "retry", reason: "Storecove's answer is larger than 4 MiB; it was not read." };
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    return { status: res.status, text, body: parsed, headers: res.headers };
  }

  /** A transient answer (429, 408, 5xx) as a retry with Storecove's hint, or null. */
  function transient(a: Answer, what: string): SendOutcome | null {
    if (!isTransientStatus(a.status)) return null;
    const retryAfterMs = parseRetryAfter(a.headers.get("retry-after"));
    return { outcome: "retry", reason: `Storecove answered ${a.status}${a.status === 429 ? " (rate limited)" : ""}${what}.`, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  }

  /** Submits the document: Storecove's guid for it, or the outcome that ends the attempt. */
  async function submit(req: SendRequest): Promise<{ guid: string } | SendOutcome> {
    const a = await call("POST", "/document_submissions", documentSubmissionBody(req));
    if ("outcome" in a) return a;
    if (a.status >= 200 && a.status < 300) {
      const guid = a.body && typeof a.body === "object" && typeof (a.body as { guid?: unknown }).guid === "string" ? (a.body as { guid: string }).guid : null;
      return guid ? { guid } : { outcome: "delivered", detail: "Storecove accepted it (its answer named no submission guid, so there is no evidence to ask for)." };
    }
    if (a.status === 422) {
      if (isIdempotencyReplay(a.body)) return { outcome: "delivered", detail: "Storecove already had this submission (same idempotencyGuid)." };
      const reasons = describeErrors(a.body);
      return { outcome: "failed", reason: `Storecove refused the invoice (422)${reasons ? `: ${reasons}` : "."}` };
    }
    const t = transient(a, "");
    if (t) return t;
    if (a.status === 401 || a.status === 403 || a.status === 404) {
      return { outcome: "retry", reason: `Storecove answered ${a.status}: check the API key and the company's legal entity id.` };
    }
    const reasons = describeErrors(a.body);
    return { outcome: "failed", reason: `Storecove answered ${a.status}${reasons ? `: ${reasons}` : "."}` };
  }

  /** Delivered (Storecove accepted it and is responsible for the transmission), with no evidence kept, and why. */
  function withoutEvidence(guid: string, why: string): SendOutcome {
    return { outcome: "delivered", detail: `Storecove accepted it as submission ${guid}; no evidence of the transmission is kept: ${why}` };
  }

  /** Asks for the evidence of the transmission until it comes or `evidenceWaitMs` has passed. */
  async function evidenceOf(guid: string): Promise<SendOutcome> {
    const deadline = Date.now() + evidenceWaitMs;
    const path = `/document_submissions/${encodeURIComponent(guid)}/evidence/sending`;
    for (;;) {
      const a = await call("GET", path);
      if ("outcome" in a) return withoutEvidence(guid, a.reason);
      if (a.status === 200 && a.body && typeof a.body === "object") {
        const ev = (a.body as { evidence?: { transmission_id?: unknown; message_id?: unknown } }).evidence;
        const transmission = typeof ev?.transmission_id === "string" && ev.transmission_id ? ev.transmission_id : null;
        const reference = transmission ?? (typeof ev?.message_id === "string" && ev.message_id ? ev.message_id : guid);
        return {
          outcome: "delivered",
          detail: `Storecove transmitted it (submission ${guid}${transmission ? `, transmission ${transmission}` : ""}).`,
          evidence: { kind: "storecove", mediaType: "application/json", content: a.text, reference, documentHash: null },
        };
      }
      if (a.status !== 404) return withoutEvidence(guid, `Storecove answered ${a.status} when asked for it.`);
      if (Date.now() + evidencePollMs > deadline) {
        return withoutEvidence(guid, `Storecove had not transmitted it within ${Math.round(evidenceWaitMs / 1000)} s.`);
      }
      await new Promise((r) => setTimeout(r, evidencePollMs));
    }
  }

  return {
    name,
    async send(req: SendRequest): Promise<SendOutcome> {
      if (!req.routing.recipient) return { outcome: "failed", reason: "Storecove routes a document to its recipient's identifier, and this invoice names none (cac:AccountingCustomerParty/cac:Party/cbc:EndpointID)." };
      let guid = savedGuid(req.state);
      if (!guid) {
        const submitted = await submit(req);
        if ("outcome" in submitted) return submitted;
        guid = submitted.guid;
        // Saved before anything else, so that no later attempt submits again. When the save is
        // refused (the dispatcher lost its lease), this attempt's outcome is not recorded anyway,
        // and a resend is still recognised by its idempotencyGuid.
        await req.saveState(JSON.stringify({ storecove: { guid } } satisfies SavedState)).catch(() => undefined);
      }
      return evidenceOf(guid);
    },
  };
}
export { storecoveDiscovery, storecoveDocumentType, STORECOVE_DOCUMENT_TYPES, type StorecoveDiscoveryOptions } from "./discovery.js";
export { storecoveInbound, readItemBody, type StorecoveInboundOptions, type StorecoveInboundSource, type StorecoveReceived, type PoisonRecord } from "./inbound.js";
