import { createDecipheriv, createHash, constants, privateDecrypt } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { certificateKey, encryptInvoice, encryptKsefToken, invoiceOutcome, newSessionKey } from "../src/index.js";

const dir = resolve(dirname(fileURLToPath(import.meta.url)), "fixtures/fake-ksef");
const privateKey = readFileSync(resolve(dir, "key.pem"), "utf8");
const certPem = readFileSync(resolve(dir, "cert.pem"), "utf8");
// The API gives the certificate as base64 DER.
const certDer = certPem.replace(/-----[^-]+-----|\s/g, "");

const oaepDecrypt = (b64: string): Buffer => privateDecrypt({ key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" }, Buffer.from(b64, "base64"));

describe("KSeF encryption", () => {
  it("encrypts token|timestampMs with RSA-OAEP SHA-256 under the certificate's key (base64 DER or PEM)", () => {
    for (const cert of [certDer, certPem]) {
      const enc = encryptKsefToken("20251010-EC-1234-token", 1760000000123, certificateKey(cert));
      expect(oaepDecrypt(enc).toString("utf8")).toBe("20251010-EC-1234-token|1760000000123");
    }
  });

  it("wraps a fresh 32-byte AES key with RSA-OAEP SHA-256 and sends a 16-byte IV; two sessions get different keys", () => {
    const a = newSessionKey(certificateKey(certDer));
    const b = newSessionKey(certificateKey(certDer));
    expect(oaepDecrypt(a.encryption.encryptedSymmetricKey).equals(a.key)).toBe(true);
    expect(a.key.length).toBe(32);
    expect(Buffer.from(a.encryption.initializationVector, "base64").equals(a.iv)).toBe(true);
    expect(a.iv.length).toBe(16);
    expect(a.key.equals(b.key)).toBe(false);
  });

  it("encrypts an invoice with AES-256-CBC and gives the SHA-256 hashes and sizes of the plain and the encrypted file", () => {
    const session = newSessionKey(certificateKey(certDer));
    const invoice = Buffer.from('<?xml version="1.0" encoding="UTF-8"?><Faktura>zażółć gęślą jaźń</Faktura>', "utf8");
    const body = encryptInvoice(invoice, session);
    const encrypted = Buffer.from(body.encryptedInvoiceContent, "base64");
    const decipher = createDecipheriv("aes-256-cbc", oaepDecrypt(session.encryption.encryptedSymmetricKey), Buffer.from(session.encryption.initializationVector, "base64"));
    expect(Buffer.concat([decipher.update(encrypted), decipher.final()]).equals(invoice)).toBe(true);
    expect(body.invoiceSize).toBe(invoice.byteLength);
    expect(body.invoiceHash).toBe(createHash("sha256").update(invoice).digest("base64"));
    expect(body.encryptedInvoiceSize).toBe(encrypted.byteLength);
    expect(body.encryptedInvoiceSize % 16).toBe(0);
    expect(body.encryptedInvoiceHash).toBe(createHash("sha256").update(encrypted).digest("base64"));
  });
});

describe("KSeF invoice status → outcome", () => {
  it("keeps polling while KSeF processes (100, 150)", () => {
    expect(invoiceOutcome({ code: 100, description: "Faktura przyjęta do dalszego przetwarzania" })).toBe("pending");
    expect(invoiceOutcome({ code: 150, description: "Trwa przetwarzanie" })).toBe("pending");
  });

  it("200 is delivered with the KSeF number in the detail", () => {
    expect(invoiceOutcome({ code: 200, description: "Sukces" }, "5265877635-20250626-010080DD2B5E-26")).toEqual({ outcome: "delivered", detail: "KSeF number 5265877635-20250626-010080DD2B5E-26" });
  });

  it("440 (duplicate) fails naming the earlier KSeF number", () => {
    const o = invoiceOutcome({ code: 440, description: "Duplikat faktury", details: ["Duplikat faktury."], extensions: { originalKsefNumber: "5265877635-20250626-010080DD2B5E-26", originalSessionReferenceNumber: "20250626-SO-2F14610000-242991F8C9-B4" } });
    expect(o).toEqual({ outcome: "failed", reason: expect.stringContaining("5265877635-20250626-010080DD2B5E-26") });
  });

  it("a rejection (450) fails with the official description and details", () => {
    const o = invoiceOutcome({ code: 450, description: "Błąd weryfikacji semantyki dokumentu faktury", details: ["Nieprawidłowy NIP nabywcy"] });
    expect(o).toEqual({ outcome: "failed", reason: "KSeF 450 Błąd weryfikacji semantyki dokumentu faktury: Nieprawidłowy NIP nabywcy" });
  });

  it("session and system errors (405, 435, 500, 550) ask for a retry", () => {
    for (const code of [405, 435, 500, 550]) expect(invoiceOutcome({ code, description: "x" })).toMatchObject({ outcome: "retry" });
  });
});
