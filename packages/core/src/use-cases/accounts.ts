// Accounts, companies and API keys: sign-up, authentication, key management, operator updates.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { sha256Hex } from "../domain/sha256.js";
import { ApiError, quoteId } from "../domain/errors.js";
import { guardStore, resolveOptions, type CoreOptions } from "./options.js";
import type { Store } from "../ports/store.js";
import { inboxOf, isInboxStore } from "./inbox.js";
import {
  AccountRequestSchema,
  ApiKeyRequestSchema,
  CompanyPatchSchema,
  isUuid,
  parseWith,
  type AccountCreated,
  type ApiKeyCreated,
  type ApiKeyView,
  type CompanyView,
} from "../domain/schemas.js";
import type { ApiKeyRecord, AuthContext, Company } from "../domain/types.js";

const KEY_PATTERN = /^einv_([0-9a-f]{32})_([A-Za-z0-9_-]{43})$/;
const TOUCH_INTERVAL_MS = 60_000;

function hashSecret(secret: string): string {
  return sha256Hex(secret);
}

/** Makes a new random API key (256 bits of secret). Returns the record to store and the key to show once. */
function mintApiKey(companyId: string, id: string, createdAt: string): { record: ApiKeyRecord; apiKey: string } {
  const secret = randomBytes(32).toString("base64url");
  const compactId = id.replace(/-/g, "");
  const apiKey = `einv_${compactId}_${secret}`;
  return {
    apiKey,
    record: {
      id,
      companyId,
      prefix: `einv_${compactId.slice(0, 8)}`,
      hash: hashSecret(secret),
      createdAt,
      lastUsedAt: null,
      revokedAt: null,
      name: null,
    },
  };
}

function uuidFromCompact(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const DUMMY_HASH = Buffer.from(hashSecret("not-a-key"), "hex");

/**
 * Creates an account, its company (not yet eligible: no enterprise, free subscription, no legal
 * entity, sending off) and its first API key. The key is returned once and stored only as a hash.
 *
 * @example const { apiKey } = await createAccount(store, { email: "ap@acme.nl", companyName: "Acme", country: "NL" })
 */
export async function createAccount(store: Store, body: unknown, options?: CoreOptions): Promise<AccountCreated> {
  const input = parseWith(AccountRequestSchema, body);
  const o = resolveOptions(options);
  const s = guardStore(store);
  const now = o.now();
  const accountId = o.newId();
  const companyId = o.newId();
  const company: Company = {
    id: companyId,
    name: input.companyName,
    country: input.country,
    enterprise: false,
    subscription: "free",
    legalEntityId: null,
    peppolSendingEnabled: false,
    ksef: null,
    createdAt: now,
    updatedAt: now,
  };
  const { record, apiKey } = mintApiKey(companyId, o.newId(), now);
  const result = await s.createAccount({
    account: { id: accountId, email: input.email.toLowerCase(), companyId, createdAt: now },
    company,
    apiKey: record,
  });
  if (!result.created) {
    throw new ApiError("email_taken", "An account with this email already exists; use its API key or sign up with another email.");
  }
  return { accountId, companyId, apiKey };
}

/**
 * Resolves an API key to its company. Missing, malformed, unknown and revoked keys all give
 * `invalid_api_key`; the secret is compared in constant time.
 *
 * @example const auth = await authenticate(store, "einv_…")
 */
export async function authenticate(store: Store, apiKey: string | null | undefined, options?: CoreOptions): Promise<AuthContext> {
  return check(store, apiKey, options, false);
}

async function check(store: Store, apiKey: string | null | undefined, options: CoreOptions | undefined, andCompany: boolean): Promise<AuthContext> {
  if (!apiKey) {
    throw new ApiError("invalid_api_key", "Missing API key: send the header Authorization: Bearer <API key>.");
  }
  const m = KEY_PATTERN.exec(apiKey);
  const id = m ? uuidFromCompact(m[1]!) : null;
  const s = guardStore(store);
  // A store that reads the key and its company together saves the request's submission its own company read (see companyOf).
  const withCompany = id !== null && andCompany && s.getApiKeyWithCompany ? await s.getApiKeyWithCompany(id) : undefined;
  const record = withCompany !== undefined ? (withCompany?.apiKey ?? null) : id !== null ? await s.getApiKey(id) : null;
  const presented = Buffer.from(hashSecret(m?.[2] ?? apiKey), "hex");
  const expected = record && !record.revokedAt ? Buffer.from(record.hash, "hex") : DUMMY_HASH;
  const match = timingSafeEqual(presented, expected);
  if (!record || record.revokedAt || !match) {
    throw new ApiError("invalid_api_key", "The API key is not valid: it is unknown or has been revoked.");
  }
  const o = resolveOptions(options);
  const now = o.now();
  if (!record.lastUsedAt || Date.parse(now) - Date.parse(record.lastUsedAt) >= TOUCH_INTERVAL_MS) {
    await s.touchApiKey(record.id, now);
  }
  const auth: AuthContext = { companyId: record.companyId, apiKeyId: record.id };
  if (withCompany) auth.company = withCompany.company;
  return auth;
}

/**
 * `authenticate` for one request being served: the same check and answers, and the key's company
 * read with the key (in one statement, where the store has `getApiKeyWithCompany`), kept in the
 * context as `company`. A submission given this context takes the company from there instead of
 * reading it again: one database round trip fewer per request. The company is as it was when the key
 * was checked, so use the context for that request only (as `@einvoice/express` does); a context kept
 * for longer, such as for a batch of submissions, comes from `authenticate`, which reads the company
 * at each submission.
 *
 * @example const auth = await authenticateRequest(store, bearerToken(req)); await submitInvoice(store, auth, req.body)
 */
export async function authenticateRequest(store: Store, apiKey: string | null | undefined, options?: CoreOptions): Promise<AuthContext> {
  return check(store, apiKey, options, true);
}

/**
 * The caller's company: the one `authenticateRequest` read with the key when the context has it
 * (for this context's company), else read now.
 */
export async function companyOf(s: Store, auth: AuthContext): Promise<Company | null> {
  const c = auth.company;
  if (c === null || (c !== undefined && c.id === auth.companyId)) return c;
  return s.getCompany(auth.companyId);
}

function keyView(k: ApiKeyRecord): ApiKeyView {
  return { id: k.id, name: k.name ?? null, prefix: k.prefix, createdAt: k.createdAt, lastUsedAt: k.lastUsedAt };
}

/** Lists the company's active keys (never the keys themselves). `lastUsedAt` is updated at most once a minute. */
export async function listApiKeys(store: Store, auth: AuthContext): Promise<ApiKeyView[]> {
  return (await guardStore(store).listApiKeys(auth.companyId)).map(keyView);
}

/**
 * Active API keys a company may have at once. Keys are free to make, and each used to carry its own
 * rate limit; the limit is now per company, and the cap keeps `GET /v1/api-keys` short.
 */
export const MAX_ACTIVE_API_KEYS = 20;

/**
 * Makes another API key for the caller's company; the key is in the answer and nowhere else. A
 * company with `MAX_ACTIVE_API_KEYS` active keys gets `too_many_api_keys` (409): revoke one first.
 * The cap is checked by the store in the same step as the insert, so concurrent calls cannot pass it.
 * `body` may give the key a `name` (shown in the list).
 *
 * @example const { apiKey } = await createApiKey(store, auth, {}, { name: "ERP production" })
 */
export async function createApiKey(store: Store, auth: AuthContext, options?: CoreOptions, body: unknown = {}): Promise<ApiKeyCreated> {
  const { name } = parseWith(ApiKeyRequestSchema, body ?? {});
  const o = resolveOptions(options);
  const minted = mintApiKey(auth.companyId, o.newId(), o.now());
  const record: ApiKeyRecord = { ...minted.record, name: name ?? null };
  const apiKey = minted.apiKey;
  if (!(await guardStore(store).insertApiKey(record, { maxActive: MAX_ACTIVE_API_KEYS }))) {
    throw new ApiError(
      "too_many_api_keys",
      `This company already has ${MAX_ACTIVE_API_KEYS} active API keys, the most it may have; revoke one with DELETE /v1/api-keys/{id} first.`,
    );
  }
  return { id: record.id, name: record.name ?? null, apiKey, prefix: record.prefix, createdAt: record.createdAt };
}

/**
 * Revokes one of the caller's keys; it gets 401 from the next request on. Unknown or another
 * company's: `api_key_not_found`. The company's last active key cannot be revoked
 * (`last_api_key`): make another first, so the company is never locked out.
 */
export async function revokeApiKey(store: Store, auth: AuthContext, id: string, options?: CoreOptions): Promise<void> {
  const notFound = () => new ApiError("api_key_not_found", `No active API key ${quoteId(id)} in this company.`);
  if (!isUuid(id)) throw notFound();
  // One step in the store: "not the last active key" is checked where the key is revoked, so two
  // revocations racing cannot both succeed (the company would be locked out for good).
  const result = await guardStore(store).revokeApiKey(auth.companyId, id.toLowerCase(), resolveOptions(options).now());
  if (result === "not_found") throw notFound();
  if (result === "last_key") {
    throw new ApiError("last_api_key", "This is the company's last active API key; create another with POST /v1/api-keys before revoking it.");
  }
}

export function companyView(c: Company): CompanyView {
  return {
    id: c.id,
    name: c.name,
    country: c.country,
    enterprise: c.enterprise,
    subscription: c.subscription,
    legalEntityId: c.legalEntityId,
    peppolSendingEnabled: c.peppolSendingEnabled,
    // Sorted, whatever order a store keeps them in: the same answer from every adapter.
    participantIds: [...(c.participantIds ?? [])].sort(),
    ksef: c.ksef ? { nip: c.ksef.nip, tokenSet: true, updatedAt: c.ksef.updatedAt } : null,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

function companyNotFound(companyId: string): ApiError {
  return new ApiError("company_not_found", `No company with id ${quoteId(companyId)}.`);
}

/** The company, for operators (`GET /admin/companies/{id}`) and for its own users (`GET /v1/company`). */
export async function getCompany(store: Store, companyId: string): Promise<CompanyView> {
  const c = isUuid(companyId) ? await guardStore(store).getCompany(companyId.toLowerCase()) : null;
  if (!c) throw companyNotFound(companyId);
  return companyView(c);
}

/**
 * A participant identifier as a company receives on it: `scheme:value` with the value lower-cased (recipients are
 * compared so: the scheme exactly, the value without case).
 *
 * @example participantKey("0106:ABC") // "0106:abc"
 */
export function participantKey(participantId: string): string {
  const colon = participantId.indexOf(":");
  return colon < 0 ? participantId.toLowerCase() : `${participantId.slice(0, colon)}:${participantId.slice(colon + 1).toLowerCase()}`;
}

/**
 * Operator update of a company: any subset of enterprise, subscription, country, legalEntityId,
 * peppolSendingEnabled, ksef and participantIds (strict: other keys are a 400). `ksef: { nip, token }` sets the
 * company's KSeF credential: the token is encrypted with `options.tokenCipher` before it reaches the
 * store (without a cipher: 422 `ksef_token_key_not_configured`, nothing is changed) and is never
 * returned; `ksef: null` removes it. Setting a credential on a store that keeps an inbox makes sure the company has a
 * KSeF sync row (`ensureInboundSync`), due at once: the inbound poller then receives its invoices.
 *
 * `participantIds` replaces the Peppol participant identifiers the company receives on in the sandbox: each kept as
 * `scheme:lower-cased value`, repeats dropped, sorted (`[]` removes them all). One another company already receives on is a
 * 409 `participant_id_taken` naming the identifier, and nothing is changed. The store must keep an inbox
 * (`InboxStore`); one that does not is an `internal_error` saying so.
 *
 * @example await updateCompany(store, companyId, { enterprise: true, subscription: "pro" })
 * @example await updateCompany(store, companyId, { ksef: { nip: "5260250995", token } }, { tokenCipher: tokenCipher(key) })
 * @example await updateCompany(store, companyId, { participantIds: ["0106:12345678"] })
 */
export async function updateCompany(store: Store, companyId: string, body: unknown, options?: CoreOptions): Promise<CompanyView> {
  const { ksef, participantIds, ...patch } = parseWith(CompanyPatchSchema, body);
  if (!isUuid(companyId)) throw companyNotFound(companyId);
  const o = resolveOptions(options);
  const s = guardStore(store);
  const id = companyId.toLowerCase();
  if (ksef && !o.tokenCipher) {
    // An unknown company is still a 404 first.
    if (!(await s.getCompany(id))) throw companyNotFound(companyId);
    throw new ApiError(
      "ksef_token_key_not_configured",
      "This deployment has no key to encrypt KSeF tokens with, and a token is never stored in clear: set KSEF_TOKEN_KEY (32 random bytes, base64 or hex) on the server, then send the ksef object again.",
    );
  }
  const now = o.now();
  let c: Company | null = null;
  if (participantIds !== undefined) {
    // First, and alone: a taken identifier refuses the whole patch before anything else changed.
    const keys = [...new Set(participantIds.map(participantKey))].sort();
    const set = await inboxOf(store).setParticipantIds(id, keys, now);
    if (!set) throw companyNotFound(companyId);
    if (!set.ok) {
      throw new ApiError(
        "participant_id_taken",
        `Another company of this server already receives on the participant identifier ${set.participantId}: an identifier belongs to one company. Remove it from that company first, or leave it out.`,
      );
    }
    c = set.company;
  }
  const clean: Partial<Omit<Company, "id" | "createdAt">> = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
  if (ksef !== undefined) clean.ksef = ksef && { nip: ksef.nip, tokenCiphertext: o.tokenCipher!.encrypt(ksef.token, id), updatedAt: now };
  if (Object.keys(clean).length > 0) c = await s.updateCompany(id, { ...clean, updatedAt: now });
  else if (c === null) c = await s.getCompany(id);
  if (!c) throw companyNotFound(companyId);
  if (ksef && isInboxStore(store)) await inboxOf(store).ensureInboundSync({ source: "ksef", scope: id, now });
  return companyView(c);
}
