// @einvoice/storecove: delivers invoices through Storecove's `POST /document_submissions`, and looks participants up with its discovery API.
import { PARTICIPANT_SCHEMES, type NetworkPort, type SendOutcome, type SendRequest } from "@einvoice/core";

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
      eIdentifiers: [{ scheme: storecoveScheme(req.routing.recipient.scheme), id: req.routing.recipient.value }],
    },
    document: {
      documentType: "invoice",
      rawDocumentData: { document: Buffer.from(req.document).toString("base64"), parse: true },
    },
  };
}

/** Seconds or an HTTP date, as `Retry-After` may carry; in milliseconds, or undefined. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
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

/**
 * A network port that submits each invoice to Storecove as raw UBL (`parse: true`), on behalf of
 * the company's legal entity, routed to the recipient's Peppol identifier, with the submission id
 * as `idempotencyGuid` (a resend is recognised by Storecove, and answered as delivered here).
 *
 * Outcomes: 200 delivered; 422 failed with Storecove's reasons (a repeated idempotencyGuid:
 * delivered); 429 and 5xx, 408, timeouts and connection errors: retry (honouring Retry-After);
 * 401, 403 and 404 (our credentials or legal entity): retry, so that an operator can fix them
 * before the bound; other 4xx: failed.
 *
 * @example storecoveNetwork({ baseUrl: process.env.STORECOVE_URL!, apiKey: process.env.STORECOVE_API_KEY! })
 */
export function storecoveNetwork(options: StorecoveOptions): NetworkPort {
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const name = options.name ?? "storecove";

  return {
    name,
    async send(req: SendRequest): Promise<SendOutcome> {
      let res: Response;
      try {
        res = await doFetch(`${base}/document_submissions`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${options.apiKey}` },
          body: JSON.stringify(documentSubmissionBody(req)),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (e) {
        const timedOut = e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError");
        return { outcome: "retry", reason: timedOut ? `Storecove did not answer within ${timeoutMs} ms.` : "Storecove could not be reached." };
      }
      const text = await res.text().catch(() => "");
      let body: unknown = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = null;
      }
      const status = res.status;
      if (status >= 200 && status < 300) {
        const guid = body && typeof body === "object" && typeof (body as { guid?: unknown }).guid === "string" ? (body as { guid: string }).guid : null;
        return { outcome: "delivered", detail: guid ? `Storecove accepted it as submission ${guid}.` : "Storecove accepted it." };
      }
      if (status === 422) {
        if (isIdempotencyReplay(body)) return { outcome: "delivered", detail: "Storecove already had this submission (same idempotencyGuid)." };
        const reasons = describeErrors(body);
        return { outcome: "failed", reason: `Storecove refused the invoice (422)${reasons ? `: ${reasons}` : "."}` };
      }
      if (status === 429 || status === 408 || status >= 500) {
        const retryAfterMs = parseRetryAfter(res.headers.get("retry-after"));
        return {
          outcome: "retry",
          reason: `Storecove answered ${status}${status === 429 ? " (rate limited)" : ""}.`,
          ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        };
      }
      if (status === 401 || status === 403 || status === 404) {
        return { outcome: "retry", reason: `Storecove answered ${status}: check the API key and the company's legal entity id.` };
      }
      const reasons = describeErrors(body);
      return { outcome: "failed", reason: `Storecove answered ${status}${reasons ? `: ${reasons}` : "."}` };
    },
  };
}
export { storecoveDiscovery, storecoveDocumentType, STORECOVE_DOCUMENT_TYPES, type StorecoveDiscoveryOptions } from "./discovery.js";
