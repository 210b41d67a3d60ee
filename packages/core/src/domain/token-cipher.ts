// Encryption at rest of the companies' KSeF tokens: AES-256-GCM under a key from the deployment's
// environment, with the company id as additional authenticated data (a ciphertext copied to another
// company does not decrypt). The text form is versioned:
//   v1.<key id>.<iv>.<ciphertext>.<tag>     (base64url; key id: the first 8 bytes of SHA-256 of the key)
// The key id says which key encrypted a token, so a token under another key is reported as such.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import type { Company } from "./types.js";

/** Encrypts and decrypts a company's KSeF token (never logs or echoes it). */
export interface TokenCipher {
  /** The key's id (16 hex digits, not secret): the second field of every ciphertext it makes. */
  readonly keyId: string;
  encrypt(token: string, companyId: string): string;
  /** Throws `KsefCredentialsError` when the text was made under another key, for another company, or is damaged. */
  decrypt(ciphertext: string, companyId: string): string;
}

/**
 * A stored KSeF credential that cannot be used. Its message is for the company (it becomes the reason
 * of its delivery's event): what the operator must do, no key ids and never the token. `operatorDetail`
 * says more, for the operator's log only (which key encrypted it).
 */
export class KsefCredentialsError extends Error {
  override readonly name = "KsefCredentialsError";
  constructor(
    message: string,
    readonly operatorDetail?: string,
  ) {
    super(message);
  }
}

const HEX_KEY = /^[0-9a-fA-F]{64}$/;
const BASE64_KEY = /^[A-Za-z0-9+/_-]{43}={0,1}$/;

/**
 * The 32-byte key in `text`: 64 hex digits, or base64 / base64url (`openssl rand -base64 32`).
 * Throws an Error saying what is expected (never quoting the text) for anything else.
 */
export function parseTokenKey(text: string): Buffer {
  const t = text.trim();
  if (HEX_KEY.test(t)) return Buffer.from(t, "hex");
  if (BASE64_KEY.test(t)) {
    const key = Buffer.from(t.replace(/-/g, "+").replace(/_/g, "/"), "base64");
    if (key.length === 32) return key;
  }
  throw new Error(`the KSeF token key must be 32 random bytes written as 64 hex digits or as base64 (make one with: openssl rand -base64 32); the value given is ${t.length} characters long and is neither`);
}

/**
 * The cipher of the companies' KSeF tokens under `key` (32 bytes, or their hex / base64 text as
 * `parseTokenKey` takes it).
 *
 * @example const cipher = tokenCipher(process.env.KSEF_TOKEN_KEY!) // throws on a malformed key
 */
export function tokenCipher(key: string | Uint8Array): TokenCipher {
  const k = typeof key === "string" ? parseTokenKey(key) : Buffer.from(key);
  if (k.length !== 32) throw new Error(`the KSeF token key must be 32 bytes, not ${k.length}`);
  const keyId = createHash("sha256").update(k).digest("hex").slice(0, 16);
  const b64 = (b: Buffer) => b.toString("base64url");
  const aad = (companyId: string) => Buffer.from(`einvoice ksef token v1 ${companyId}`, "utf8");
  return {
    keyId,
    encrypt(token, companyId) {
      const iv = randomBytes(12);
      const c = createCipheriv("aes-256-gcm", k, iv);
      c.setAAD(aad(companyId));
      const body = Buffer.concat([c.update(token, "utf8"), c.final()]);
      return ["v1", keyId, b64(iv), b64(body), b64(c.getAuthTag())].join(".");
    },
    decrypt(ciphertext, companyId) {
      const parts = ciphertext.split(".");
      const reset = "set the company's NIP and KSeF token again with PATCH /admin/companies/{id} (the ksef object)";
      if (parts.length !== 5 || parts[0] !== "v1") throw new KsefCredentialsError(`the company's stored KSeF token is not in a format this version reads; ${reset}`);
      if (parts[1] !== keyId) {
        throw new KsefCredentialsError(
          `the company's KSeF token can no longer be read by this server: the operator must ${reset}`,
          `the company's KSeF token was encrypted under another KSEF_TOKEN_KEY (key id ${parts[1]}, the configured one is ${keyId}): configure that key again, or set the company's token again`,
        );
      }
      try {
        const d = createDecipheriv("aes-256-gcm", k, Buffer.from(parts[2]!, "base64url"), { authTagLength: 16 });
        d.setAAD(aad(companyId));
        d.setAuthTag(Buffer.from(parts[4]!, "base64url"));
        return Buffer.concat([d.update(Buffer.from(parts[3]!, "base64url")), d.final()]).toString("utf8");
      } catch {
        throw new KsefCredentialsError(`the company's stored KSeF token does not decrypt (damaged, or stored for another company); ${reset}`);
      }
    },
  };
}

/** What a KSeF adapter authenticates with: the company's NIP and its KSeF token, decrypted. Secret: never logged. */
export interface KsefCredential {
  nip: string;
  token: string;
}

/**
 * The company's KSeF credential with its token decrypted by `cipher`; null when it has none. Throws
 * the cipher's `KsefCredentialsError` when the stored token does not decrypt under `cipher`.
 */
export function readKsefCredential(company: Pick<Company, "id" | "ksef">, cipher: TokenCipher): KsefCredential | null {
  if (!company.ksef) return null;
  return { nip: company.ksef.nip, token: cipher.decrypt(company.ksef.tokenCiphertext, company.id) };
}
