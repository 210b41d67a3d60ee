// A local stand-in for Storecove's document_submissions API, following its published OpenAPI
// description: bearer auth, 200 {guid}, 422 [{source, details}], a repeated idempotencyGuid is a 422.
// Recipient ids steer failures: "unreachable" (422), "flaky" (503 twice), "ratelimit" (429 once,
// Retry-After: 1), "slow" (answers after 2 s once). Also its discovery API (POST /discovery/exists, /discovery/receives),
// and GET /document_submissions/{guid}/evidence/{evidence_type} (DocumentSubmissionEvidence: network,
// sender, receiver, evidence {message_id, transmission_id, receiving_accesspoint, timestamp, xml},
// documents [{document (an expiring URL), expires_at, mime_type}]), 404 until the submission is transmitted:
// at once, except for recipients "untransmitted" (never), "lateevidence" (after two asks), "evidencedown" (503).
// Receiving (`inbound`): the pull queue of webhook instances as Storecove's OpenAPI describes it (GET /webhook_instances/
// answers the oldest WebhookInstance {guid, body} not yet deleted, one at a time, or 204 when none waits; an item not
// deleted is answered again; DELETE /webhook_instances/{guid} 204, 404 when unknown) and the received documents
// (GET /received_documents/{guid}/{format}?syntax=json|original; `json` is the only packaging of the answer, with the
// original syntax's bytes base64 in `original`), each for a legal entity, with failure modes per document.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeStorecove {
  baseUrl: string;
  apiKey: string;
  /** Accepted submissions by idempotencyGuid. */
  accepted: Map<string, { guid: string; body: Record<string, unknown> }>;
  /** Every POST received, accepted or not. */
  requests: Array<Record<string, unknown> | null>;
  /** Every discovery request body (exists and receives). */
  discoveryRequests: Array<Record<string, unknown> | null>;
  /** Every evidence request, as `guid/evidence_type`. */
  evidenceRequests: string[];
  inbound: FakeInbound;
  close(): Promise<void>;
}

/**
 * How the fake answers for one received document: `gone404`/`gone410` (Storecove no longer has it), `error500` (always),
 * `flaky500` (503 once), `ratelimit` (429 with `Retry-After: 7` once), `slow` (answers after 3 s, once), `drop` (the
 * connection breaks off mid-body, once), `huge` (an answer of 64 MiB, streamed while the client reads), `raw` (the
 * bytes themselves as `application/xml`, not the JSON answer), `noOriginal` (JSON without `original`).
 */
export type DocumentFault = "gone404" | "gone410" | "error500" | "flaky500" | "ratelimit" | "slow" | "drop" | "huge" | "raw" | "noOriginal";

export interface FakeInbound {
  /** Webhook instances not deleted, oldest first. */
  queue: Array<{ guid: string | null; body: string }>;
  /** Received documents by guid. */
  documents: Map<string, { legalEntityId: number; content: Buffer; fault?: DocumentFault }>;
  /** In order: `GET queue`, `GET doc <guid>`, `DELETE <guid>` (and what a test adds, such as its store's calls). */
  log: string[];
  /** Answers for the next queue GETs, before the queue (status, Retry-After). */
  queueFaults: Array<{ status: number; retryAfter?: string }>;
  /** Answers for the next DELETEs, before deleting. */
  deleteFaults: Array<{ status: number; retryAfter?: string }>;
  /** Bytes of `huge` answers written before the client went away. */
  hugeBytesSent: number;
  /** Storecove received a document for a legal entity: it is kept and a `received_document` event queued. */
  receive(legalEntityId: number, content: string | Buffer, fault?: DocumentFault): { instanceGuid: string; documentGuid: string };
  /** Queues an item with this body as it is (hostile bodies), or with no guid at all (`guid: null`). */
  enqueueRaw(body: string, guid?: string | null): string | null;
}

const LEGAL_ENTITIES = new Set([12345]);

function send(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers });
  res.end(body === undefined ? undefined : JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | null> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  try {
    const v = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    return v && typeof v === "object" && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

function validate(body: Record<string, unknown>): Array<{ source: string; details: string }> {
  const errors: Array<{ source: string; details: string }> = [];
  if (typeof body.legalEntityId !== "number" || !Number.isInteger(body.legalEntityId)) errors.push({ source: "legalEntityId", details: "must be an integer" });
  else if (!LEGAL_ENTITIES.has(body.legalEntityId)) errors.push({ source: "legalEntityId", details: "LegalEntity not found" });
  if (typeof body.idempotencyGuid !== "string") errors.push({ source: "idempotencyGuid", details: "must be a string" });
  const routing = body.routing as { eIdentifiers?: Array<{ scheme?: unknown; id?: unknown }> } | undefined;
  const ids = routing?.eIdentifiers;
  if (!Array.isArray(ids) || ids.length === 0 || ids.some((i) => typeof i.scheme !== "string" || typeof i.id !== "string")) {
    errors.push({ source: "routing.eIdentifiers", details: "at least one identifier with scheme and id is required" });
  }
  const doc = body.document as { documentType?: unknown; rawDocumentData?: { document?: unknown; parse?: unknown } } | undefined;
  if (doc?.documentType !== "invoice") errors.push({ source: "document.documentType", details: "must be invoice" });
  const raw = doc?.rawDocumentData;
  if (typeof raw?.document !== "string" || !Buffer.from(raw.document, "base64").toString("utf8").trimStart().startsWith("<")) {
    errors.push({ source: "document.rawDocumentData.document", details: "must be a base64 encoded XML document" });
  }
  if (raw?.parse !== true) errors.push({ source: "document.rawDocumentData.parse", details: "only parse == true is supported" });
  return errors;
}

/** Storecove's discovery document types (DiscoverableParticipant.documentTypes). */
const DISCOVERY_TYPES = new Set(["invoice", "invoice_response", "order", "ordering", "order_response", "selfbilling"]);

/**
 * POST /discovery/exists and /discovery/receives: a DiscoverableParticipant in, `{code: "OK" | "NOK"}` out.
 * Identifiers steer the answers (any case): "unregistered" is not on the network; "nodoctype" is, but
 * receives orders only; "discoverydown" answers 503; "slowdiscovery" answers after 3 s.
 */
async function discovery(res: ServerResponse, receives: boolean, body: Record<string, unknown> | null): Promise<void> {
  const errors: Array<{ source: string; details: string }> = [];
  if (!body) return send(res, 422, [{ source: "body", details: "invalid JSON" }]);
  if (body.network !== "peppol") errors.push({ source: "network", details: "must be peppol" });
  if (body.metaScheme !== "iso6523-actorid-upis") errors.push({ source: "metaScheme", details: "must be iso6523-actorid-upis" });
  if (typeof body.scheme !== "string" || body.scheme === "") errors.push({ source: "scheme", details: "is required" });
  if (typeof body.identifier !== "string" || body.identifier === "") errors.push({ source: "identifier", details: "is required" });
  const types = body.documentTypes;
  if (receives && (!Array.isArray(types) || types.length === 0 || types.some((t) => !DISCOVERY_TYPES.has(String(t))))) {
    errors.push({ source: "documentTypes", details: `must be a non-empty list of ${[...DISCOVERY_TYPES].join(", ")}` });
  }
  if (errors.length > 0) return send(res, 422, errors);
  const id = String(body.identifier).toLowerCase();
  if (id.includes("discoverydown")) return send(res, 503, { message: "Service Unavailable" });
  if (id.includes("slowdiscovery")) await new Promise((r) => setTimeout(r, 3000));
  if (id.includes("unregistered")) return send(res, 200, { code: "NOK", email: false });
  if (!receives) return send(res, 200, { code: "OK", email: false });
  const asked = (types as string[]).map(String);
  const ok = id.includes("nodoctype") ? asked.every((t) => t === "order") : true;
  send(res, 200, { code: ok ? "OK" : "NOK", email: false });
}

export async function startFakeStorecove(options: { delayMs?: number } = {}): Promise<FakeStorecove> {
  const apiKey = `fake-${randomUUID()}`;
  const accepted = new Map<string, { guid: string; body: Record<string, unknown> }>();
  const requests: Array<Record<string, unknown> | null> = [];
  const discoveryRequests: Array<Record<string, unknown> | null> = [];
  const calls = new Map<string, number>();
  const evidenceRequests: string[] = [];
  const evidenceAsks = new Map<string, number>();
  let port = 0;

  /** DocumentSubmissionEvidence of an accepted submission, once it is transmitted; null until then. */
  function evidenceOf(guid: string): Record<string, unknown> | null | "down" {
    const submission = [...accepted.values()].find((a) => a.guid === guid);
    if (!submission) return null;
    const id = (submission.body.routing as { eIdentifiers: Array<{ scheme: string; id: string }> }).eIdentifiers[0]!;
    const recipient = id.id.toLowerCase();
    const asks = (evidenceAsks.get(guid) ?? 0) + 1;
    evidenceAsks.set(guid, asks);
    if (recipient.includes("evidencedown")) return "down";
    if (recipient.includes("untransmitted") || (recipient.includes("lateevidence") && asks <= 2)) return null;
    const messageId = `${guid}@fake-storecove`;
    const timestamp = "2026-11-22 10:00:00";
    return {
      network: "peppol",
      sender: `${submission.body.legalEntityId}`,
      receiver: `${id.scheme}:${id.id}`,
      evidence: {
        message_id: messageId,
        transmission_id: `tx-${guid}`,
        receiving_accesspoint: "CN=PNO000001, O=Fake Receiving AP, C=NO",
        timestamp,
        xml: `<?xml version="1.0" encoding="UTF-8"?><eb:Receipt xmlns:eb="http://docs.oasis-open.org/ebxml-msg/ebms/v3.0/ns/core/200704/"><eb:RefToMessageId>${messageId}</eb:RefToMessageId></eb:Receipt>`,
      },
      documents: [{ document: `http://127.0.0.1:${port}/fake-documents/${guid}.xml`, expires_at: "2026-11-22 11:00:00", mime_type: "application/xml" }],
    };
  }

  const inbound: FakeInbound = {
    queue: [],
    documents: new Map(),
    log: [],
    queueFaults: [],
    deleteFaults: [],
    hugeBytesSent: 0,
    receive(legalEntityId, content, fault) {
      const documentGuid = randomUUID();
      inbound.documents.set(documentGuid, { legalEntityId, content: Buffer.isBuffer(content) ? content : Buffer.from(content, "utf8"), ...(fault ? { fault } : {}) });
      // The received_document webhook's body: its document_guid (the received documents endpoint's guid) and
      // receive_guid (what a response document refers to), and the legal entity it was received for.
      const body = JSON.stringify({ event_type: "received_document", event: "received", document_guid: documentGuid, receive_guid: randomUUID(), legal_entity_id: legalEntityId });
      return { instanceGuid: inbound.enqueueRaw(body) as string, documentGuid };
    },
    enqueueRaw(body, guid) {
      const g = guid === undefined ? randomUUID() : guid;
      inbound.queue.push({ guid: g, body });
      return g;
    },
  };
  const documentAsks = new Map<string, number>();

  async function receiving(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    if (req.method === "GET" && url.pathname === "/api/v2/webhook_instances/") {
      if (req.headers.authorization !== `Bearer ${apiKey}`) return send(res, 401), true;
      inbound.log.push("GET queue");
      const fault = inbound.queueFaults.shift();
      if (fault) return send(res, fault.status, { message: "fault" }, fault.retryAfter ? { "retry-after": fault.retryAfter } : {}), true;
      const head = inbound.queue[0];
      if (!head) return send(res, 204), true;
      // An item without a guid is a broken answer of the queue (hostile): sent as it is.
      return send(res, 200, head.guid === null ? { body: head.body } : { guid: head.guid, body: head.body }), true;
    }
    const del = req.method === "DELETE" ? /^\/api\/v2\/webhook_instances\/([^/]+)$/.exec(url.pathname) : null;
    if (del) {
      if (req.headers.authorization !== `Bearer ${apiKey}`) return send(res, 401), true;
      const guid = decodeURIComponent(del[1]!);
      inbound.log.push(`DELETE ${guid}`);
      const fault = inbound.deleteFaults.shift();
      if (fault) return send(res, fault.status, { message: "fault" }, fault.retryAfter ? { "retry-after": fault.retryAfter } : {}), true;
      const i = inbound.queue.findIndex((q) => q.guid === guid);
      if (i < 0) return send(res, 404, { message: "Not Found" }), true;
      inbound.queue.splice(i, 1);
      return send(res, 204), true;
    }
    const doc = req.method === "GET" ? /^\/api\/v2\/received_documents\/([^/]+)\/([^/]+)$/.exec(url.pathname) : null;
    if (!doc) return false;
    if (req.headers.authorization !== `Bearer ${apiKey}`) return send(res, 401), true;
    const guid = decodeURIComponent(doc[1]!);
    inbound.log.push(`GET doc ${guid}`);
    const syntax = url.searchParams.get("syntax") ?? "json";
    if (doc[2] !== "json") return send(res, 404, { message: "Not Found" }), true;
    if (syntax !== "json" && syntax !== "original") return send(res, 422, [{ source: "syntax", details: "must be json or original" }]), true;
    const found = inbound.documents.get(guid);
    if (!found) return send(res, 404, { message: "Not Found" }), true;
    const n = (documentAsks.get(guid) ?? 0) + 1;
    documentAsks.set(guid, n);
    const f = found.fault;
    if (f === "gone404") return send(res, 404, { message: "Not Found" }), true;
    if (f === "gone410") return send(res, 410, { message: "Gone" }), true;
    if (f === "error500" || (f === "flaky500" && n === 1)) return send(res, f === "error500" ? 500 : 503, { message: "Server Error" }), true;
    if (f === "ratelimit" && n === 1) return send(res, 429, { message: "Too Many Requests" }, { "retry-after": "7" }), true;
    if (f === "slow" && n === 1) await new Promise((r) => setTimeout(r, 3000));
    if (syntax === "json") return send(res, 200, { guid, legal_entity_id: found.legalEntityId, document: { documentType: "invoice" } }), true;
    if (f === "raw") {
      res.writeHead(200, { "content-type": "application/xml" });
      return res.end(found.content), true;
    }
    const answer = JSON.stringify(f === "noOriginal" ? { guid, direction: "incoming" } : { guid, direction: "incoming", original: found.content.toString("base64") });
    if (f === "drop" && n === 1) {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(answer)) });
      res.write(answer.slice(0, Math.floor(answer.length / 2)));
      await new Promise((r) => setTimeout(r, 20));
      res.socket?.destroy();
      return true;
    }
    if (f === "huge") {
      // 64 MiB of base64, written as fast as the client reads it, until it goes away.
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(64 * 1024, "A");
      res.write(`{"guid":"${guid}","direction":"incoming","original":"`);
      let closed = false;
      res.on("close", () => (closed = true));
      for (let sent = 0; sent < 64 * 1024 * 1024 && !closed; sent += chunk.length) {
        const ok = res.write(chunk);
        inbound.hugeBytesSent += chunk.length;
        if (!ok) {
          await new Promise<void>((resolve) => {
            const done = () => {
              res.off("drain", done);
              res.off("close", done);
              resolve();
            };
            res.on("drain", done);
            res.on("close", done);
          });
        }
      }
      if (!closed) res.end('"}');
      return true;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(answer);
    return true;
  }

  const server: Server = createServer(async (req, res) => {
    if (await receiving(req, res, new URL(req.url ?? "/", "http://fake"))) return;
    const evidence = req.method === "GET" ? /^\/api\/v2\/document_submissions\/([^/]+)\/evidence\/([^/]+)$/.exec(req.url ?? "") : null;
    if (evidence) {
      if (req.headers.authorization !== `Bearer ${apiKey}`) return send(res, 401);
      const [, guid, type] = evidence as unknown as [string, string, string];
      evidenceRequests.push(`${guid}/${type}`);
      // Peppol has no clearing evidence; an unknown type is an unknown resource.
      if (type !== "sending") return send(res, 404, { message: "Not Found" });
      const found = evidenceOf(decodeURIComponent(guid));
      if (found === "down") return send(res, 503, { message: "Service Unavailable" });
      return found ? send(res, 200, found) : send(res, 404, { message: "Not Found" });
    }
    if (req.method === "POST" && (req.url === "/api/v2/discovery/exists" || req.url === "/api/v2/discovery/receives")) {
      if (req.headers.authorization !== `Bearer ${apiKey}`) return send(res, 401);
      const body = await readJson(req);
      discoveryRequests.push(body);
      return discovery(res, req.url.endsWith("/receives"), body);
    }
    if (req.method !== "POST" || req.url !== "/api/v2/document_submissions") return send(res, 404);
    if (req.headers.authorization !== `Bearer ${apiKey}`) return send(res, 401);
    const body = await readJson(req);
    requests.push(body);
    if (!body) return send(res, 422, [{ source: "body", details: "invalid JSON" }]);
    const errors = validate(body);
    if (errors.length > 0) return send(res, 422, errors);
    // A slow access point: the request is received now, answered (and accepted) later.
    if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
    const guid = body.idempotencyGuid as string;
    if (accepted.has(guid)) return send(res, 422, [{ source: "idempotencyGuid", details: "A document with this idempotencyGuid has already been submitted" }]);
    const recipient = String((body.routing as { eIdentifiers: Array<{ id: string }> }).eIdentifiers[0]!.id).toLowerCase();
    const n = (calls.get(guid) ?? 0) + 1;
    calls.set(guid, n);
    if (recipient.includes("unreachable")) return send(res, 422, [{ source: "routing", details: "The receiver could not be found on the Peppol network" }]);
    if (recipient.includes("flaky") && n <= 2) return send(res, 503, { message: "Service Unavailable" });
    if (recipient.includes("ratelimit") && n === 1) return send(res, 429, undefined, { "retry-after": "1" });
    if (recipient.includes("slow") && n === 1) await new Promise((r) => setTimeout(r, 2000));
    const result = { guid: randomUUID() };
    accepted.set(guid, { guid: result.guid, body });
    send(res, 200, result);
  });
  server.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v2`,
    apiKey,
    accepted,
    requests,
    discoveryRequests,
    evidenceRequests,
    inbound,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
