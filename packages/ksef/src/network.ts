// ksefNetwork: the core's network port on KSeF API 2.x (CIRFMF/ksef-docs, open-api.json).
// One attempt: the UBL invoice is mapped to FA(3) (a mapping failure fails the submission, naming the
// field); the adapter looks up the sending company's NIP and KSeF token (`credentials`), authenticates
// with them (challenge, "token|timestampMs"
// under RSA-OAEP, status polling, redeem; refresh of the access token), opens an online session for
// FA (3) with a fresh AES-256 key, sends the encrypted invoice, closes the session and polls the
// invoice status until KSeF decides. The KSeF number is the delivered outcome's detail.
import type { NetworkPort, SendOutcome, SendRequest } from "@einvoice/core";
import { createHash, type KeyObject } from "node:crypto";
import { certificateKey, encryptInvoice, encryptKsefToken, newSessionKey } from "./crypto.js";
import { FA3_SCHEMA_VERSION, FA3_SYSTEM_CODE, Fa3MappingError, toFa3, type Fa3Options } from "./fa3.js";
import { readUbl } from "./read.js";
import { invoiceOutcome, type KsefInvoiceStatus } from "./status.js";

export interface KsefNetworkOptions {
  /** The API base URL including /v2 (test, demo or production environment). */
  baseUrl: string;
  /**
   * Who sends: the company's NIP (the authentication context) and KSeF token, by the company id of
   * the submission; null when the company has none (the attempt fails, saying how to set them).
   * A fixed `{ nip, token }` sends every invoice as that one taxpayer. The token is never logged,
   * never part of an outcome.
   */
  credentials: KsefCredentials | ((companyId: string) => Promise<KsefCredentials | null>);
  /** How often to poll the authentication and invoice status (ms); 1000 by default. */
  pollIntervalMs?: number;
  /** How long one attempt polls the invoice status before asking for a retry (ms); 60 s by default. */
  statusTimeoutMs?: number;
  /** Per-request timeout (ms); 30 s by default. */
  requestTimeoutMs?: number;
  /** Options of the FA(3) mapping (exchange rate, SystemInfo). */
  fa3?: Omit<Fa3Options, "createdAt">;
  fetch?: typeof fetch;
}

export interface KsefCredentials {
  nip: string;
  token: string;
}

/** An answer of KSeF that ends the attempt with this outcome. */
class Stop extends Error {
  constructor(readonly result: SendOutcome) {
    super(result.outcome);
  }
}

interface Tokens {
  access: string;
  accessUntil: number;
  refresh: string;
  refreshUntil: number;
}

/** One company's authentication: its credential and the tokens KSeF gave for it. */
interface Auth {
  companyId: string;
  nip: string;
  token: string;
  /** Which credential the tokens belong to: a changed NIP or token authenticates again. */
  fingerprint: string;
}

interface Sent {
  companyId: string;
  session: string;
  invoice: string;
}

const fingerprint = (c: KsefCredentials): string => createHash("sha256").update(`${c.nip}\0${c.token}`).digest("base64url");

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface KsefNetwork extends NetworkPort {
  /** The UPO (official receipt, XML) of a delivered invoice, by the submission's idempotency key. */
  upo(idempotencyKey: string): Promise<string | null>;
}

export function ksefNetwork(options: KsefNetworkOptions): KsefNetwork {
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? fetch;
  const poll = options.pollIntervalMs ?? 1000;
  const statusTimeout = options.statusTimeoutMs ?? 60_000;
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  const lookup = typeof options.credentials === "function" ? options.credentials : ((fixed) => async () => fixed)(options.credentials);
  // The access and refresh tokens, per company, for the credential they were issued for.
  const tokensOf = new Map<string, { fingerprint: string; tokens: Tokens }>();
  let keys: { token: KeyObject; symmetric: KeyObject } | null = null;
  // Idempotency: an invoice already sent for a key is polled again, never sent twice.
  const sent = new Map<string, Sent>();
  const ksefNumbers = new Map<string, Sent & { ksefNumber: string }>();

  /** The company's credential, or the outcome that ends the attempt without one. */
  async function authFor(companyId: string): Promise<Auth> {
    let c: KsefCredentials | null;
    try {
      c = await lookup(companyId);
    } catch (e) {
      throw new Stop({ outcome: "retry", reason: (e as Error).name === "KsefCredentialsError" ? (e as Error).message : `the company's KSeF credentials could not be read (${(e as Error).name})` });
    }
    if (!c) throw new Stop({ outcome: "failed", reason: "the company has no KSeF credentials: an operator sets its NIP and KSeF token with PATCH /admin/companies/{id} (the ksef object), then the invoice is submitted again" });
    return { companyId, nip: c.nip, token: c.token, fingerprint: fingerprint(c) };
  }

  /** A call of the API; `auth` is whose access token the bearer is (a 401 forgets it), null for none. */
  async function call(method: string, path: string, bearer: string | null, body?: unknown, auth: Auth | null = null): Promise<{ status: number; json: any; text: string }> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (bearer) headers["authorization"] = `Bearer ${bearer}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    let res: Response;
    try {
      res = await doFetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(requestTimeout) });
    } catch (e) {
      throw new Stop({ outcome: "retry", reason: `KSeF is unreachable (${method} ${path.replace(/\/[0-9A-Z-]{20,}/g, "/…")}: ${(e as Error).name})` });
    }
    const text = await res.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    if (res.status === 429) {
      const after = Number(res.headers.get("retry-after"));
      throw new Stop({ outcome: "retry", reason: "KSeF rate limit (429 Too Many Requests)", ...(Number.isFinite(after) && after >= 0 ? { retryAfterMs: after * 1000 } : {}) });
    }
    if (res.status === 401) {
      if (auth) tokensOf.delete(auth.companyId);
      throw new Stop({ outcome: "retry", reason: "KSeF refused the access token (401); authenticating again on the next attempt" });
    }
    if (res.status >= 500) throw new Stop({ outcome: "retry", reason: `KSeF answered ${res.status}` });
    if (res.status >= 400) {
      const detail = json?.exception?.exceptionDetailList?.[0];
      const said = detail ? `${detail.exceptionCode} ${detail.exceptionDescription}${detail.details?.length ? `: ${detail.details.join("; ")}` : ""}` : json?.detail ?? json?.title ?? `HTTP ${res.status}`;
      throw new Stop({ outcome: "failed", reason: `KSeF refused ${method} ${path.split("/").slice(0, 3).join("/")}: ${said}` });
    }
    return { status: res.status, json, text };
  }

  async function publicKeys(): Promise<{ token: KeyObject; symmetric: KeyObject }> {
    if (keys) return keys;
    const { json } = await call("GET", "/security/public-key-certificates", null);
    const now = Date.now();
    const pick = (usage: string): KeyObject => {
      const cert = (json as any[]).find((c) => c.usage?.includes(usage) && Date.parse(c.validFrom) <= now && now < Date.parse(c.validTo));
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
    const deadline = Date.now() + statusTimeout;
    for (;;) {
      const { json: st } = await call("GET", `/auth/${init.referenceNumber}`, authToken);
      if (st.status.code === 200) break;
      if (st.status.code >= 400) throw new Stop({ outcome: "failed", reason: `KSeF authentication failed: ${st.status.code} ${st.status.description}${st.status.details?.length ? `: ${st.status.details.join("; ")}` : ""}` });
      if (Date.now() > deadline) throw new Stop({ outcome: "retry", reason: "KSeF authentication is still in progress" });
      await sleep(poll);
    }
    const { json: t } = await call("POST", "/auth/token/redeem", authToken);
    const fresh = { access: t.accessToken.token, accessUntil: Date.parse(t.accessToken.validUntil), refresh: t.refreshToken.token, refreshUntil: Date.parse(t.refreshToken.validUntil) };
    tokensOf.set(auth.companyId, { fingerprint: auth.fingerprint, tokens: fresh });
    return fresh.access;
  }

  async function status(s: Sent, key: string, auth: Auth): Promise<SendOutcome> {
    const deadline = Date.now() + statusTimeout;
    for (;;) {
      const access = await accessToken(auth);
      const { json } = await call("GET", `/sessions/${s.session}/invoices/${s.invoice}`, access, undefined, auth);
      const outcome = invoiceOutcome(json.status as KsefInvoiceStatus, json.ksefNumber);
      if (outcome !== "pending") {
        if (outcome.outcome === "delivered") ksefNumbers.set(key, { ...s, ksefNumber: json.ksefNumber });
        if (outcome.outcome !== "retry") return outcome;
        // A session or system error: the next attempt sends the invoice again, in a new session.
        sent.delete(key);
        return outcome;
      }
      if (Date.now() > deadline) return { outcome: "retry", reason: `KSeF is still processing the invoice (${json.status.code} ${json.status.description})` };
      await sleep(poll);
    }
  }

  async function attempt(request: SendRequest): Promise<SendOutcome> {
    const earlier = sent.get(request.idempotencyKey);
    if (earlier) return status(earlier, request.idempotencyKey, await authFor(earlier.companyId));
    let fa3: string;
    try {
      fa3 = toFa3(readUbl(request.document), options.fa3);
    } catch (e) {
      if (e instanceof Fa3MappingError) return { outcome: "failed", reason: `the invoice cannot be sent to KSeF as FA(3): ${e.message}` };
      return { outcome: "failed", reason: `the invoice cannot be read for KSeF: ${(e as Error).message}` };
    }
    const auth = await authFor(request.companyId);
    const access = await accessToken(auth);
    const k = await publicKeys();
    const session = newSessionKey(k.symmetric);
    const { json: opened } = await call("POST", "/sessions/online", access, { formCode: { systemCode: FA3_SYSTEM_CODE, schemaVersion: FA3_SCHEMA_VERSION, value: "FA" }, encryption: session.encryption }, auth);
    const { json: accepted } = await call("POST", `/sessions/online/${opened.referenceNumber}/invoices`, access, encryptInvoice(Buffer.from(fa3, "utf8"), session), auth);
    const s: Sent = { companyId: request.companyId, session: opened.referenceNumber, invoice: accepted.referenceNumber };
    sent.set(request.idempotencyKey, s);
    await call("POST", `/sessions/online/${opened.referenceNumber}/close`, access, undefined, auth);
    return status(s, request.idempotencyKey, auth);
  }

  return {
    name: "ksef",
    async send(request) {
      try {
        return await attempt(request);
      } catch (e) {
        if (e instanceof Stop) return e.result;
        return { outcome: "retry", reason: `KSeF attempt failed unexpectedly (${(e as Error).name})` };
      }
    },
    async upo(idempotencyKey) {
      const d = ksefNumbers.get(idempotencyKey);
      if (!d) return null;
      try {
        const auth = await authFor(d.companyId);
        const { text } = await call("GET", `/sessions/${d.session}/invoices/ksef/${d.ksefNumber}/upo`, await accessToken(auth), undefined, auth);
        return text;
      } catch (e) {
        if (e instanceof Stop) return null;
        throw e;
      }
    },
  };
}
