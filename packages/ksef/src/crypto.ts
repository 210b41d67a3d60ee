// The KSeF 2.0 encryption steps (docs: uwierzytelnianie.md, sesja-interaktywna.md), on node:crypto:
// - the KSeF token is sent as "token|timestampMs" encrypted with RSA-OAEP (SHA-256, MGF1 SHA-256)
//   under the Ministry's public key certificate (GET /security/public-key-certificates);
// - an online session gets a random AES-256 key, wrapped the same way, and a 16-byte IV;
// - each invoice is encrypted with AES-256-CBC (PKCS#7 padding) and sent with the SHA-256 hashes
//   (base64) and sizes of the plain and the encrypted file (SendInvoiceRequest).
import { X509Certificate, constants, createCipheriv, createHash, publicEncrypt, randomBytes, type KeyObject } from "node:crypto";

/** The public key of a certificate given as base64 DER (the API's `certificate` field) or PEM. */
export function certificateKey(certificate: string): KeyObject {
  const der = certificate.includes("BEGIN CERTIFICATE") ? certificate : Buffer.from(certificate, "base64");
  return new X509Certificate(der).publicKey;
}

function rsaOaep(key: KeyObject, data: Uint8Array): string {
  return publicEncrypt({ key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" }, data).toString("base64");
}

/** `encryptedToken` of POST /auth/ksef-token: "token|timestampMs" under the KSeF token encryption key. */
export function encryptKsefToken(token: string, timestampMs: number, key: KeyObject): string {
  return rsaOaep(key, Buffer.from(`${token}|${timestampMs}`, "utf8"));
}

export interface SessionKey {
  key: Buffer;
  iv: Buffer;
  /** `encryption` of POST /sessions/online. */
  encryption: { encryptedSymmetricKey: string; initializationVector: string };
}

/** A fresh AES-256 key and IV for an online session, the key wrapped under the symmetric key encryption key. */
export function newSessionKey(wrapKey: KeyObject): SessionKey {
  const key = randomBytes(32);
  const iv = randomBytes(16);
  return { key, iv, encryption: { encryptedSymmetricKey: rsaOaep(wrapKey, key), initializationVector: iv.toString("base64") } };
}

export interface SendInvoiceBody {
  invoiceHash: string;
  invoiceSize: number;
  encryptedInvoiceHash: string;
  encryptedInvoiceSize: number;
  encryptedInvoiceContent: string;
}

const sha256 = (b: Uint8Array): string => createHash("sha256").update(b).digest("base64");

/** The body of POST /sessions/online/{ref}/invoices for one invoice file. */
export function encryptInvoice(invoice: Uint8Array, session: Pick<SessionKey, "key" | "iv">): SendInvoiceBody {
  const cipher = createCipheriv("aes-256-cbc", session.key, session.iv);
  const encrypted = Buffer.concat([cipher.update(invoice), cipher.final()]);
  return {
    invoiceHash: sha256(invoice),
    invoiceSize: invoice.byteLength,
    encryptedInvoiceHash: sha256(encrypted),
    encryptedInvoiceSize: encrypted.byteLength,
    encryptedInvoiceContent: encrypted.toString("base64"),
  };
}
