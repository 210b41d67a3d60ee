// The KSeF invoice verification link (KOD I), as CIRFMF/ksef-docs kody-qr.md defines it since
// December 2025: {qr host}/invoice/{seller NIP}/{issue date DD-MM-YYYY}/{SHA-256 of the FA(3), base64url}.
import { createHash } from "node:crypto";
import { sellerNipOf, vatId } from "./fa3/parties.js";
import { childOf, firstAt, text, type Fa3Node } from "./model.js";

/**
 * The public KSeF environments: the hosts of their API (srodowiska.md; the first edition's hosts
 * too) and the address their QR codes link to (kody-qr.md, "Środowiska").
 */
export const KSEF_ENVIRONMENTS = [
  { name: "test", apiHosts: ["api-test.ksef.mf.gov.pl", "ksef-test.mf.gov.pl"], api: "https://api-test.ksef.mf.gov.pl/v2", qr: "https://qr-test.ksef.mf.gov.pl" },
  { name: "demo", apiHosts: ["api-demo.ksef.mf.gov.pl", "ksef-demo.mf.gov.pl"], api: "https://api-demo.ksef.mf.gov.pl/v2", qr: "https://qr-demo.ksef.mf.gov.pl" },
  { name: "production", apiHosts: ["api.ksef.mf.gov.pl", "ksef.mf.gov.pl"], api: "https://api.ksef.mf.gov.pl/v2", qr: "https://qr.ksef.mf.gov.pl" },
] as const;

/**
 * Where the verification links of invoices sent to `apiBaseUrl` point: the QR address of its KSeF
 * environment (test, demo, production); for any other API (a fake, a proxy) `qrUrl` when given,
 * else the API's origin. No trailing slash.
 *
 * @example ksefQrBase("https://api-test.ksef.mf.gov.pl/v2") // "https://qr-test.ksef.mf.gov.pl"
 */
export function ksefQrBase(apiBaseUrl: string, qrUrl?: string | null): string {
  const url = new URL(apiBaseUrl);
  const env = KSEF_ENVIRONMENTS.find((e) => (e.apiHosts as readonly string[]).includes(url.hostname.toLowerCase()));
  if (env) return env.qr;
  return (qrUrl?.trim() || url.origin).replace(/\/+$/, "");
}

/** What the link is made of. */
export interface VerificationParts {
  /** The seller's NIP (Podmiot1, 10 digits). */
  nip: string;
  /** The issue date (P_1) as written in the invoice, YYYY-MM-DD. */
  issueDate: string;
  /** SHA-256 of the FA(3) file: its bytes, or the digest in base64 (KSeF's `invoiceHash`) or base64url. */
  fa3Sha256: Uint8Array | string;
}

/**
 * The verification link (KOD I) of an invoice in KSeF.
 *
 * @example verificationUrl("https://qr-test.ksef.mf.gov.pl", { nip: "1111111111", issueDate: "2026-02-01", fa3Sha256: "UtQp9Gpc51y+u3xApZjIjgkpZ01js+J8KflSPW8WzIE=" })
 * // "https://qr-test.ksef.mf.gov.pl/invoice/1111111111/01-02-2026/UtQp9Gpc51y-u3xApZjIjgkpZ01js-J8KflSPW8WzIE"
 */
export function verificationUrl(qrBase: string, parts: VerificationParts): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(parts.issueDate);
  if (!m) throw new Error(`the issue date ${JSON.stringify(parts.issueDate)} is not YYYY-MM-DD`);
  if (!/^\d{10}$/.test(parts.nip)) throw new Error(`the seller's NIP ${JSON.stringify(parts.nip)} is not 10 digits`);
  const digest = typeof parts.fa3Sha256 === "string" ? Buffer.from(parts.fa3Sha256, "base64") : Buffer.from(parts.fa3Sha256);
  if (digest.length !== 32) throw new Error("the FA(3) hash is not a SHA-256 digest");
  return `${qrBase.replace(/\/+$/, "")}/invoice/${parts.nip}/${m[3]}-${m[2]}-${m[1]}/${digest.toString("base64url")}`;
}

/** The seller's NIP and the issue date of a UBL invoice or credit note, as its FA(3) carries them (Podmiot1 NIP, P_1); null when either is missing. */
export function verificationFacts(root: Fa3Node): { nip: string; issueDate: string } | null {
  const nip = sellerNipOf(vatId(firstAt(root, "cac:AccountingSupplierParty/cac:Party")));
  const issueDate = text(childOf(root, "cbc:IssueDate"));
  return nip && /^\d{4}-\d{2}-\d{2}$/.test(issueDate) ? { nip, issueDate } : null;
}

/** SHA-256 of an FA(3) file's bytes (the hash the link carries). */
export function fa3Sha256(fa3: string | Uint8Array): Buffer {
  return createHash("sha256").update(fa3).digest();
}
