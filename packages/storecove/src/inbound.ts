// Receiving through Storecove: its pull queue of webhook instances (`GET /webhook_instances/`, `DELETE
// /webhook_instances/{guid}`) and its received documents (`GET /received_documents/{guid}/{format}`), as Storecove's
// published OpenAPI description names them. One run drains the queue, item by item, and acknowledges an item only
// after `store` resolved for it.
import { INBOUND_DOCUMENT_MAX_BYTES, readBoundedText, type InboundRun, type InboundRunResult, type InboundSource, type ReceivedDocument } from "@einvoice/core";
import { isTransientStatus, noAnswer, parseRetryAfter, storecoveHttp, type NoAnswer, type StorecoveHttp } from "./http.js";

export interface StorecoveInboundOptions {
  /** The API root, such as `https://<host>/api/v2` (no trailing slash needed). */
  baseUrl: string;
  /** The Storecove API key (sent as a bearer token; never logged or put in a note). */
  apiKey: string;
  /** The fetch to use. Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Per request, reading its body included. Default 30 s. */
  timeoutMs?: number;
  /** When to run again after the queue was found empty, or after a failure without `Retry-After`. Default 60 s. */
  intervalMs?: number;
  /** The most queue items one run takes; with more waiting, the run asks to run again at once. Default 100. */
  maxItemsPerRun?: number;
  /** The largest document kept with its bytes. Default `INBOUND_DOCUMENT_MAX_BYTES` (10 MiB). */
  maxDocumentBytes?: number;
  /** How often a long run extends its lease (`checkpoint`). Default 15 s. */
  checkpointEveryMs?: number;
  /** The most poison items remembered by this process (`poisoned()`). Default 1000. */
  poisonMemory?: number;
}

/**
 * What this source hands to `store`: a `ReceivedDocument`, and, when what arrived is not a document Storecove could
 * give (a queue item that is not a received-document event, a document Storecove no longer has, a document larger
 * than the cap), `problem`: why, for the record's error or the operator's list.
 */
export interface StorecoveReceived extends ReceivedDocument {
  problem?: string;
  /**
   * The document was larger than the cap and `content` is only its first `maxDocumentBytes + 1` bytes (so that `store`
   * keeps a record of it without its bytes); its size and hash are not the whole document's.
   */
  truncated?: boolean;
}

/** A queue item this process could not take as a received document. */
export interface PoisonRecord {
  /** The webhook instance's guid, when it had one. */
  instanceGuid: string | null;
  /** The received document's guid, when the item named one. */
  documentGuid: string | null;
  reason: string;
  at: string;
  /**
   * `kept`: handed to `store` (kept for the operator, or in the company's inbox with its error), then acknowledged.
   * `blocked`: it could not be acknowledged (the queue's answer named no guid): it stays first in Storecove's queue.
   */
  outcome: "kept" | "blocked";
}

export interface StorecoveInboundSource extends InboundSource {
  /** The poison items this process met, oldest first (at most `poisonMemory`). */
  poisoned(): PoisonRecord[];
}

/** The webhook instance body's event type for a received document. */
const RECEIVED_DOCUMENT = "received_document";
const GUID = /^[0-9A-Za-z-]{1,100}$/;
/** JSON around the base64 text of a document: its other properties, at most. */
const ENVELOPE_ALLOWANCE = 64 * 1024;

/** A webhook instance's body, read: what a received-document event names, or why it is not one. */
type ItemBody =
  | { ok: true; documentGuid: string; legalEntityId: string | null }
  | { ok: false; documentGuid: string | null; reason: string };

/** Reads a webhook instance body: `{"event_type": "received_document", "document_guid": ..., "legal_entity_id": ...}`. */
export function readItemBody(body: unknown): ItemBody {
  let v: unknown = body;
  if (typeof body === "string") {
    try {
      v = JSON.parse(body);
    } catch {
      return { ok: false, documentGuid: null, reason: "The queue item's body is not JSON." };
    }
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) return { ok: false, documentGuid: null, reason: "The queue item's body is not a JSON object." };
  const o = v as Record<string, unknown>;
  const documentGuid = typeof o.document_guid === "string" && GUID.test(o.document_guid) ? o.document_guid : null;
  const type = typeof o.event_type === "string" ? o.event_type : null;
  if (type !== RECEIVED_DOCUMENT) {
    return { ok: false, documentGuid, reason: `The queue item is not a received document (event_type ${type === null ? "missing" : JSON.stringify(type.slice(0, 60))}).` };
  }
  if (!documentGuid) return { ok: false, documentGuid: null, reason: "The received_document event names no valid document_guid." };
  const le = o.legal_entity_id;
  const legalEntityId = typeof le === "number" && Number.isSafeInteger(le) ? String(le) : typeof le === "string" && /^[0-9]{1,20}$/.test(le) ? le : null;
  return { ok: true, documentGuid, legalEntityId };
}

/** The base64 length of `n` bytes. */
function base64Length(n: number): number {
  return 4 * Math.ceil(n / 3);
}

/**
 * Reads a body up to `maxBytes` and no further: its bytes, and whether that was all of it (when not, the rest is not
 * read: the answer is cancelled). Throws when the connection breaks off or the request's signal aborts.
 */
async function readCapped(res: Response, maxBytes: number): Promise<{ bytes: Buffer; complete: boolean }> {
  if (!res.body) return { bytes: Buffer.alloc(0), complete: true };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: Buffer.concat(chunks), complete: true };
    if (size + value.byteLength > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      await reader.cancel().catch(() => undefined);
      return { bytes: Buffer.concat(chunks), complete: false };
    }
    size += value.byteLength;
    chunks.push(value);
  }
}

/**
 * The first bytes of the document in a JSON answer cut off at its cap: the base64 text after `"original":"` decoded,
 * line breaks (escaped or not) skipped; empty when the cut came before it.
 */
export function originalPrefix(answer: Buffer): Buffer {
  const text = answer.toString("latin1");
  const m = /"original"\s*:\s*"/.exec(text);
  if (!m) return Buffer.alloc(0);
  const rest = text.slice(m.index + m[0].length);
  const end = rest.indexOf('"');
  const b64 = (end < 0 ? rest : rest.slice(0, end)).replace(/\\[nr]|\\\/|\s/g, (s) => (s === "\\/" ? "/" : ""));
  if (!/^[A-Za-z0-9+/=]*$/.test(b64)) return Buffer.alloc(0);
  return Buffer.from(b64.slice(0, b64.length - (b64.length % 4)), "base64");
}

/** The media type of a Content-Type header, lower-cased, without parameters. */
function mediaTypeOf(contentType: string | null): string | null {
  const t = contentType?.split(";")[0]?.trim().toLowerCase();
  return t ? t : null;
}

type Fetched =
  | { kind: "document"; content: Uint8Array; mediaType?: string; problem?: string; truncated?: boolean }
  | { kind: "gone"; reason: string }
  | { kind: "stop"; reason: string; retryAfterMs?: number; aborted?: boolean };

/**
 * Receives Peppol documents through Storecove's pull queue (a server-wide source: one run, scope `*`, for every
 * company). A run, as Storecove's OpenAPI description says the queue is used ("GET a WebhookInstance from the queue.
 * After processing it successfully, DELETE it and GET the next one. When a 204 is received, the queue is empty"):
 *
 * 1. `GET /webhook_instances/`: 200 `WebhookInstance {guid, body}` (the body is the JSON text the push webhook would
 *    have posted), or 204 when the queue is empty (the run ends; next run after `intervalMs`).
 * 2. A `received_document` event (`document_guid`, `legal_entity_id`): `GET /received_documents/{document_guid}/json
 *    ?syntax=original` (`Accept: application/json`): the document in its original syntax, base64 in the answer's
 *    `original`; an answer that is not JSON is taken as the document's bytes themselves. Read up to the cap and no
 *    further.
 * 3. `store({ reference: { storecoveGuid: document_guid }, content, mediaType, legalEntityId })`; only once it resolved
 *    (`stored`, `duplicate`, or `unmatched`: no company has that legal entity, kept for the operator),
 *    `DELETE /webhook_instances/{guid}`. A `store` that rejects ends the run without acknowledging: the item is
 *    delivered again by the next run, and stored once (`store` dedupes by the document guid).
 *
 * Poison items. Storecove's queue answers its oldest item until it is deleted, so an item that is never acknowledged
 * blocks every item behind it. Nothing is dropped silently instead: an item that is not a received document (its
 * body not JSON, another event type, no document_guid) or whose document Storecove answers 404 or 410 (gone for good)
 * is handed to `store` as it is: its body's bytes, with `legalEntityId` null (so it is kept for the operator, among
 * the documents for no company) and `problem` saying why, under the document guid it named (else the item's guid);
 * only then is it acknowledged, and it is remembered in `poisoned()`. A document larger than the cap is handed over
 * for its company with only its first `maxDocumentBytes + 1` bytes (`truncated`, `problem` say so): `store` keeps a
 * record of it without bytes, and Storecove keeps the document under its guid. Hostile
 * bytes (not XML, not an invoice) are the document: `store` keeps them with their error. An answer of the queue that
 * names no guid cannot be acknowledged: it is remembered as `blocked` and the run ends with a note.
 *
 * Transient failures (429, 408, 5xx, a timeout, a refused or broken connection, a body cut off) end the run without
 * acknowledging the item at hand, due again after `Retry-After` when Storecove gave one, else after `intervalMs`.
 * 401 and 403 (the API key) and 404 on the queue (no pull webhook configured) end it with a note. At most
 * `maxItemsPerRun` items a run; each request bounded by `timeoutMs`; a long run extends its lease (`checkpoint`).
 * A run never throws for Storecove's answers.
 *
 * @example storecoveInbound({ baseUrl: process.env.STORECOVE_URL!, apiKey: process.env.STORECOVE_API_KEY! })
 */
export function storecoveInbound(options: StorecoveInboundOptions): StorecoveInboundSource {
  const http: StorecoveHttp = storecoveHttp({ baseUrl: options.baseUrl, apiKey: options.apiKey, fetch: options.fetch, timeoutMs: options.timeoutMs ?? 30_000 });
  const intervalMs = options.intervalMs ?? 60_000;
  const maxItems = Math.max(1, options.maxItemsPerRun ?? 100);
  const maxDocumentBytes = options.maxDocumentBytes ?? INBOUND_DOCUMENT_MAX_BYTES;
  // The answer carries the document base64-encoded (possibly with line breaks) in JSON: room for that and no more.
  const maxAnswerBytes = Math.ceil(base64Length(maxDocumentBytes) * 1.05) + ENVELOPE_ALLOWANCE;
  const checkpointEveryMs = options.checkpointEveryMs ?? 15_000;
  const poisonMemory = Math.max(1, options.poisonMemory ?? 1000);
  const poison: PoisonRecord[] = [];

  function remember(record: Omit<PoisonRecord, "at">): void {
    poison.push({ ...record, at: new Date().toISOString() });
    if (poison.length > poisonMemory) poison.splice(0, poison.length - poisonMemory);
  }

  /** The run's end after an answer that is not a success: Retry-After when given, else the interval. */
  function stopFor(status: number, headers: Headers, what: string): { reason: string; retryAfterMs?: number } {
    if (isTransientStatus(status)) {
      const retryAfterMs = parseRetryAfter(headers.get("retry-after"));
      return { reason: `Storecove answered ${status}${status === 429 ? " (rate limited)" : ""} ${what}.`, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
    }
    if (status === 401 || status === 403) return { reason: `Storecove answered ${status} ${what}: check the API key.` };
    return { reason: `Storecove answered ${status} ${what}.` };
  }

  /** `GET /received_documents/{guid}/json?syntax=original`: the document's bytes as received, or why not. */
  async function fetchDocument(documentGuid: string, signal: AbortSignal): Promise<Fetched> {
    const what = `for received document ${documentGuid}`;
    const r = await http.request({ method: "GET", path: `/received_documents/${encodeURIComponent(documentGuid)}/json?syntax=original`, signal });
    if ("outcome" in r) return { kind: "stop", reason: `${r.reason} (${what})`, aborted: r.aborted };
    const { res } = r;
    if (res.status === 404 || res.status === 410) {
      await res.body?.cancel().catch(() => undefined);
      return { kind: "gone", reason: `Storecove answered ${res.status} ${what}: it no longer has it.` };
    }
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => undefined);
      return { kind: "stop", ...stopFor(res.status, res.headers, what) };
    }
    const mediaType = mediaTypeOf(res.headers.get("content-type"));
    const json = mediaType === "application/json" || (mediaType?.endsWith("+json") ?? false);
    let read: { bytes: Buffer; complete: boolean };
    try {
      read = await readCapped(res, json ? maxAnswerBytes : maxDocumentBytes + 1);
    } catch (e) {
      const n: NoAnswer = noAnswer(e, http.timeoutMs, signal, true);
      return { kind: "stop", reason: `${n.reason} (${what})`, aborted: n.aborted };
    }
    const bytes = read.bytes;
    if (!read.complete) {
      // Larger than the cap: not read further. Its first cap + 1 bytes go to `store`, which keeps a record of it
      // without its bytes (their size and hash are those of that prefix: `truncated` says so).
      return {
        kind: "document",
        content: (json ? originalPrefix(bytes) : bytes).subarray(0, maxDocumentBytes + 1),
        truncated: true,
        ...(json || !mediaType ? {} : { mediaType }),
        problem: `The document is larger than ${maxDocumentBytes} bytes; the rest of it was not read. Storecove keeps it as received document ${documentGuid}.`,
      };
    }
    if (!json) return { kind: "document", content: bytes, ...(mediaType ? { mediaType } : {}) };
    // ReceivedDocument: the original syntax's bytes, base64, in `original`.
    let answer: unknown;
    try {
      answer = JSON.parse(bytes.toString("utf8"));
    } catch {
      answer = null;
    }
    const original = answer && typeof answer === "object" ? (answer as { original?: unknown }).original : undefined;
    if (typeof original === "string" && /^[A-Za-z0-9+/=\s]*$/.test(original)) {
      return { kind: "document", content: Buffer.from(original, "base64") };
    }
    // Not the published shape: what Storecove answered is kept as it is, with why.
    return { kind: "document", content: bytes, mediaType: "application/json", problem: `Storecove's answer ${what} carries no base64 "original".` };
  }

  type Ack = { ok: true } | { ok: false; reason: string; retryAfterMs?: number; aborted?: boolean };

  /** `DELETE /webhook_instances/{guid}`; a 404 is an item already acknowledged (by another run). */
  async function acknowledge(instanceGuid: string, signal: AbortSignal): Promise<Ack> {
    const what = `when asked to delete queue item ${instanceGuid}`;
    const r = await http.request({ method: "DELETE", path: `/webhook_instances/${encodeURIComponent(instanceGuid)}`, signal });
    if ("outcome" in r) return { ok: false, reason: `${r.reason} (${what})`, aborted: r.aborted };
    await r.res.body?.cancel().catch(() => undefined);
    if ((r.res.status >= 200 && r.res.status < 300) || r.res.status === 404) return { ok: true };
    return { ok: false, ...stopFor(r.res.status, r.res.headers, what) };
  }

  return {
    name: "storecove",
    network: "peppol",
    scope: "server",
    poisoned: () => poison.slice(),
    async run(ctx: InboundRun): Promise<InboundRunResult> {
      let received = 0;
      let lastCheckpoint = Date.now();
      const end = (nextRunInMs: number, note?: string): InboundRunResult => ({
        state: ctx.state,
        nextRunInMs,
        received,
        ...(note ? { note } : {}),
      });
      const stop = (s: { reason: string; retryAfterMs?: number; aborted?: boolean }): InboundRunResult =>
        end(s.aborted ? 0 : (s.retryAfterMs ?? intervalMs), s.reason);

      for (let taken = 0; taken < maxItems; taken++) {
        if (ctx.signal.aborted) return end(0, "The run was stopped.");
        if (checkpointEveryMs >= 0 && Date.now() - lastCheckpoint >= checkpointEveryMs) {
          try {
            await ctx.checkpoint(ctx.state ?? "{}");
          } catch {
            return end(intervalMs, "The lease was lost; the run stopped without acknowledging more.");
          }
          lastCheckpoint = Date.now();
        }

        // 1. The queue's oldest item.
        const q = await http.request({ method: "GET", path: "/webhook_instances/", signal: ctx.signal });
        if ("outcome" in q) return stop({ ...q, reason: `${q.reason} (the pull queue)` });
        if (q.res.status === 204) {
          await q.res.body?.cancel().catch(() => undefined);
          return end(intervalMs);
        }
        if (q.res.status !== 200) {
          await q.res.body?.cancel().catch(() => undefined);
          if (q.res.status === 404) return end(intervalMs, "Storecove answered 404 for the pull queue: configure a pull-mode webhook for received documents.");
          return stop(stopFor(q.res.status, q.res.headers, "for the pull queue"));
        }
        let text: string | null;
        try {
          text = await readBoundedText(q.res);
        } catch (e) {
          return stop(noAnswer(e, http.timeoutMs, ctx.signal, true));
        }
        let item: unknown = null;
        try {
          item = text ? JSON.parse(text) : null;
        } catch {
          item = null;
        }
        const instanceGuid = item && typeof item === "object" && typeof (item as { guid?: unknown }).guid === "string" && GUID.test((item as { guid: string }).guid) ? (item as { guid: string }).guid : null;
        if (!instanceGuid) {
          // Nothing to acknowledge it by: it stays first in the queue. Remembered once a run, and said.
          const reason = text === null ? "The pull queue's answer is larger than 4 MiB." : "The pull queue's answer names no webhook instance guid.";
          remember({ instanceGuid: null, documentGuid: null, reason, outcome: "blocked" });
          return end(intervalMs, `${reason} It cannot be acknowledged and blocks the queue: see Storecove.`);
        }
        const rawBody = (item as { body?: unknown }).body;
        const body = readItemBody(rawBody);

        // 2. The document (or what the item is, when it is not a received document).
        let doc: StorecoveReceived;
        if (body.ok) {
          const f = await fetchDocument(body.documentGuid, ctx.signal);
          if (f.kind === "stop") return stop(f);
          if (f.kind === "gone") {
            doc = poisonDocument(instanceGuid, body.documentGuid, rawBody, f.reason);
          } else {
            doc = {
              reference: { storecoveGuid: body.documentGuid },
              content: f.content,
              legalEntityId: body.legalEntityId,
              ...(f.mediaType ? { mediaType: f.mediaType } : {}),
              ...(f.problem ? { problem: f.problem } : {}),
              ...(f.truncated ? { truncated: true } : {}),
            };
          }
        } else {
          doc = poisonDocument(instanceGuid, body.documentGuid, rawBody, body.reason);
        }

        // 3. Stored durably, then acknowledged; a store that fails leaves the item in the queue.
        try {
          await ctx.store(doc);
        } catch {
          return end(intervalMs, `Storing received document ${"storecoveGuid" in doc.reference ? doc.reference.storecoveGuid : ""} failed; the queue item was not acknowledged.`);
        }
        received++;
        if (doc.problem && doc.legalEntityId === null) {
          remember({ instanceGuid, documentGuid: body.documentGuid, reason: doc.problem, outcome: "kept" });
        }
        const ack = await acknowledge(instanceGuid, ctx.signal);
        if (!ack.ok) return stop(ack);
      }
      // More may be waiting: due again at once.
      return end(0);
    },
  };
}

/**
 * A queue item that is not a document Storecove can give, as a document for the operator: the item's body's bytes,
 * under the document guid it named (so that its redelivery is found stored), else the item's own guid.
 */
function poisonDocument(instanceGuid: string, documentGuid: string | null, rawBody: unknown, reason: string): StorecoveReceived {
  const text = typeof rawBody === "string" ? rawBody : JSON.stringify(rawBody ?? null);
  let json = true;
  try {
    JSON.parse(text);
  } catch {
    json = false;
  }
  return {
    reference: { storecoveGuid: documentGuid ?? instanceGuid },
    content: Buffer.from(text, "utf8"),
    ...(json ? { mediaType: "application/json" } : {}),
    legalEntityId: null,
    problem: `${reason} (queue item ${instanceGuid})`,
  };
}
