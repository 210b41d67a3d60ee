// The KSeF 2.0 API calls and authentication shared by sending (network.ts) and receiving (inbound/):
// one call with a bounded read of the answer and KSeF's errors turned into an outcome (429 with its
// Retry-After, 401 forgetting the access token, 5xx a retry, 4xx refused unless tolerated), the
// Ministry's public keys, and a company's access token (challenge, "token|timestampMs" under RSA-OAEP,
// status polling, redeem; refresh of the access token), per company and for the credential it was
// issued for (docs: uwierzytelnianie.md, open-api.json). The token is never part of a reason.
import type { KsefCredential } from "@einvoice/core";
import { createHash, type KeyObject } from "node:crypto";
import { certificateKey, encryptKsefToken } from "./crypto.js";

/** What ends a call (and the operation it was part of): a transient failure (retry) or a refusal (failed). */
export interface CallOutcome {
  outcome: "retry" | "failed";
  reason: string;
  /** KSeF's Retry-After (of a 429), in ms. */
  retryAfterMs?: number;
}

/** An answer of KSeF (or no answer) that ends the operation with this outcome. */
export class Stop extends Error {
  constructor(readonly result: CallOutcome & Record<string, unknown>) {
    super(result.outcome);
  }
}

/** One company's authentication: its credential and the tokens KSeF gave for it. */
export interface Auth {
  companyId: string;
  nip: string;
  token: string;
  /** Which credential the tokens belong to: a changed NIP or token authenticates again. */
  fingerprint: string;
}

export function authOf(companyId: string, c: KsefCredential): Auth {
  return { companyId, nip: c.nip, token: c.token, fingerprint: createHash("sha256").update(`${c.nip}\0${c.token}`).digest("base64url") };
}

interface Tokens {
  access: string;
  accessUntil: number;
  refresh: string;
  refreshUntil: number;
}

export interface CallOptions {
  accept?: string;
  headers?: Record<string, string>;
  /** Exception codes of a 400 answer returned to the caller instead of ending the operation. */
  tolerate?: number[];
  /** HTTP statuses (4xx) returned to the caller instead of ending the operation. */
  tolerateStatus?: number[];
  /** Read the answer as bytes, up to this many (more is cut: `complete` false) instead of refusing it. */
  bytes?: number;
  /** A full URL instead of a path under the base URL (export package parts: no bearer, no base). */
  url?: string;
  /** Aborts the call (a stopping server). */
  signal?: AbortSignal;
}

export interface CallResult {
  status: number;
  json: any;
  text: string;
  headers: Headers;
  /** With `bytes`: the answer's bytes (the first `bytes` of it when `complete` is false). */
  body?: Uint8Array;
  complete?: boolean;
}

/** The largest answer of the KSeF API read as JSON or text (a UPO, a status, a page of metadata): 4 MiB. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A Retry-After header in ms: delay-seconds or an HTTP date (RFC 9110 10.2.3); undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const t = header.trim();
  if (/^\d+$/.test(t)) return Number(t) * 1000;
  const at = Date.parse(t);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

/** The body of `res`, up to `max` bytes: `complete` false when it was longer (the rest is not read; the stream is cancelled). */
export async function readBoundedBytes(res: Response, max: number): Promise<{ body: Uint8Array; complete: boolean }> {
  if (!res.body) return { body: new Uint8Array(0), complete: true };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > max) {
      chunks.push(value.subarray(0, max - size));
      await reader.cancel().catch(() => undefined);
      return { body: Buffer.concat(chunks), complete: false };
    }
    size += value.byteLength;
    chunks.push(value);
  }
  return { body: Buffer.concat(chunks), complete: true };
}

export interface KsefSessionOptions {
  baseUrl: string;
  fetch?: typeof fetch;
  /** How often to poll the authentication status (ms). */
  pollIntervalMs: number;
  /** How long to poll the authentication status (ms). */
  statusTimeoutMs: number;
  /** Per-request timeout (ms). */
  requestTimeoutMs: number;
  /** Aborts every call (a stopping server). */
  signal?: AbortSignal;
}

export interface KsefSession {
  /** A call of the API; `auth` is whose access token the bearer is (a 401 forgets it), null for none. */
  call(method: string, path: string, bearer: string | null, body?: unknown, auth?: Auth | null, extra?: CallOptions): Promise<CallResult>;
  publicKeys(): Promise<{ token: KeyObject; symmetric: KeyObject }>;
  /** The company's access token, authenticating or refreshing when needed. */
  accessToken(auth: Auth): Promise<string>;
}

/** A path with its reference numbers elided, for a reason (never a token: tokens travel in headers). */
const shown = (path: string): string => path.replace(/\/[0-9A-Z-]{20,}/g, "/…");

export function ksefSession(options: KsefSessionOptions): KsefSession {
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? fetch;
  // The access and refresh tokens, per company, for the credential they were issued for.
  const tokensOf = new Map<string, { fingerprint: string; tokens: Tokens }>();
  let keys: { token: KeyObject; symmetric: KeyObject } | null = null;

  async function call(method: string, path: string, bearer: string | null, body?: unknown, auth: Auth | null = null, extra: CallOptions = {}): Promise<CallResult> {
    const headers: Record<string, string> = { accept: extra.accept ?? "application/json", ...extra.headers };
    if (bearer) headers["authorization"] = `Bearer ${bearer}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const where = extra.url ? "GET (export package part)" : `${method} ${shown(path)}`;
    let res: Response;
    try {
      const timeout = AbortSignal.timeout(options.requestTimeoutMs);
      const stops = [options.signal, extra.signal].filter((s): s is AbortSignal => s !== undefined);
      const signal = stops.length ? AbortSignal.any([timeout, ...stops]) : timeout;
      res = await doFetch(extra.url ?? `${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
    } catch (e) {
      throw new Stop({ outcome: "retry", reason: `KSeF is unreachable (${where}: ${(e as Error).name})` });
    }
    // Read up to the cap and no further: a hostile or broken endpoint cannot make the server hold more.
    let text: string | null;
    let bytes: { body: Uint8Array; complete: boolean } | undefined;
    try {
      if (extra.bytes !== undefined && res.status < 300) {
        bytes = await readBoundedBytes(res, extra.bytes);
        text = "";
      } else text = await readBoundedTextOf(res, MAX_ANSWER_BYTES);
    } catch (e) {
      throw new Stop({ outcome: "retry", reason: `KSeF's answer broke off (${where}: ${(e as Error).name})` });
    }
    if (text === null) throw new Stop({ outcome: "retry", reason: `KSeF's answer to ${method} ${path.split("/").slice(0, 3).join("/")} is larger than ${MAX_ANSWER_BYTES} bytes; not read` });
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    if (res.status === 429) {
      const after = retryAfterMs(res.headers.get("retry-after"));
      throw new Stop({ outcome: "retry", reason: "KSeF rate limit (429 Too Many Requests)", ...(after !== undefined ? { retryAfterMs: after } : {}) });
    }
    if (res.status === 401) {
      if (auth) tokensOf.delete(auth.companyId);
      throw new Stop({ outcome: "retry", reason: "KSeF refused the access token (401); authenticating again on the next attempt" });
    }
    if (res.status >= 500) throw new Stop({ outcome: "retry", reason: `KSeF answered ${res.status}` });
    if (res.status >= 400) {
      const detail = json?.exception?.exceptionDetailList?.[0];
      if (extra.tolerateStatus?.includes(res.status)) return { status: res.status, json, text, headers: res.headers };
      if (detail && extra.tolerate?.includes(detail.exceptionCode)) return { status: res.status, json, text, headers: res.headers };
      const said = detail ? `${detail.exceptionCode} ${detail.exceptionDescription}${detail.details?.length ? `: ${detail.details.join("; ")}` : ""}` : json?.detail ?? json?.title ?? `HTTP ${res.status}`;
      throw new Stop({ outcome: "failed", reason: `KSeF refused ${method} ${path.split("/").slice(0, 3).join("/")}: ${said}` });
    }
    return { status: res.status, json, text, headers: res.headers, ...(bytes ? { body: bytes.body, complete: bytes.complete } : {}) };
  }

  async function publicKeys(): Promise<{ token: KeyObject; symmetric: KeyObject }> {
    if (keys) return keys;
    const { json } = await call("GET", "/security/public-key-certificates", null);
    const now = Date.now();
    const pick = (usage: string): KeyObject => {
      const cert = Array.isArray(json) ? (json as any[]).find((c) => c?.usage?.includes(usage) && Date.parse(c.validFrom) <= now && now < Date.parse(c.validTo)) : undefined;
      if (!cert) throw new Stop({ outcome: "retry", reason: `KSeF lists no valid public key certificate for ${usage}` });
      return certificateKey(cert.certificate);
    };
    keys = { token: pick("KsefTokenEncryption"), symmetric: pick("SymmetricKeyEncryption") };
    return keys;
  }

  async function accessToken(auth: Auth): Promise<string> {
    const now = Date.now();
    const held = tokensOf.get(auth.companyId);
    const tokens = held?.fingerprint === auth.fingerprint ? held.tokens : null;
    if (tokens && tokens.accessUntil - 60_000 > now) return tokens.access;
    if (tokens && tokens.refreshUntil - 60_000 > now) {
      const { json } = await call("POST", "/auth/token/refresh", tokens.refresh, undefined, auth);
      const refreshed = { ...tokens, access: json.accessToken.token, accessUntil: Date.parse(json.accessToken.validUntil) };
      tokensOf.set(auth.companyId, { fingerprint: auth.fingerprint, tokens: refreshed });
      return refreshed.access;
    }
    const k = await publicKeys();
    const { json: challenge } = await call("POST", "/auth/challenge", null);
    const { json: init } = await call("POST", "/auth/ksef-token", null, {
      challenge: challenge.challenge,
      contextIdentifier: { type: "Nip", value: auth.nip },
      encryptedToken: encryptKsefToken(auth.token, challenge.timestampMs, k.token),
    });
    const authToken: string = init.authenticationToken.token;
    const deadline = Date.now() + options.statusTimeoutMs;
    for (;;) {
      const { json: st } = await call("GET", `/auth/${init.referenceNumber}`, authToken);
      if (st.status.code === 200) break;
      if (st.status.code >= 400) throw new Stop({ outcome: "failed", reason: `KSeF authentication failed: ${st.status.code} ${st.status.description}${st.status.details?.length ? `: ${st.status.details.join("; ")}` : ""}` });
      if (Date.now() > deadline) throw new Stop({ outcome: "retry", reason: "KSeF authentication is still in progress" });
      await sleep(options.pollIntervalMs);
    }
    const { json: t } = await call("POST", "/auth/token/redeem", authToken);
    const fresh = { access: t.accessToken.token, accessUntil: Date.parse(t.accessToken.validUntil), refresh: t.refreshToken.token, refreshUntil: Date.parse(t.refreshToken.validUntil) };
    tokensOf.set(auth.companyId, { fingerprint: auth.fingerprint, tokens: fresh });
    return fresh.access;
  }

  return { call, publicKeys, accessToken };
}

async function readBoundedTextOf(res: Response, max: number): Promise<string | null> {
  const declared = Number(res.headers.get("content-length") ?? "");
  if (Number.isFinite(declared) && declared > max) {
    await res.body?.cancel().catch(() => undefined);
    return null;
  }
  const { body, complete } = await readBoundedBytes(res, max);
  return complete ? new TextDecoder("utf-8").decode(body) : null;
}
