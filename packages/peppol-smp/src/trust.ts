// The SMP trust store: the CA certificates whose signing certificates are trusted, and the check of one signing certificate against them.
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Every certificate of a PEM text (comments between blocks are ignored). Throws when there is none or one does not parse. */
export function parsePemCertificates(pem: string): X509Certificate[] {
  const blocks = pem.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0) throw new Error("no PEM certificate (-----BEGIN CERTIFICATE-----) found");
  return blocks.map((b) => new X509Certificate(b));
}

let bundled: X509Certificate[] | undefined;

/**
 * The bundled trust store: OpenPeppol's SMP CA and Root CA, G3 (the current PKI) and G2 (valid
 * until January 2028, still signing SMPs during the migration), for production and for test: the
 * CA certificates OpenPeppol publishes, as phax/peppol-commons ships them in its SMP trust stores
 * (2025 and 2018). Subjects, validity and SHA-256 fingerprints are in `certs/*.pem`.
 */
export function peppolSmpCAs(): X509Certificate[] {
  bundled ??= ["peppol-smp-prod-g3.pem", "peppol-smp-test-g3.pem", "peppol-smp-prod-g2.pem", "peppol-smp-test-g2.pem"].flatMap((f) =>
    parsePemCertificates(readFileSync(fileURLToPath(new URL(`../certs/${f}`, import.meta.url)), "utf8")),
  );
  return bundled;
}

/** Why a signing certificate is not trusted, or null when it is. */
export function untrustedReason(cert: X509Certificate, cas: readonly X509Certificate[], now: Date): string | null {
  const t = now.getTime();
  if (t < Date.parse(cert.validFrom)) return `the SMP's signing certificate (${cert.subject.replace(/\n/g, ", ")}) is not valid before ${cert.validFrom}`;
  if (t > Date.parse(cert.validTo)) return `the SMP's signing certificate (${cert.subject.replace(/\n/g, ", ")}) expired on ${cert.validTo}`;
  for (const ca of cas) {
    if (!ca.ca) continue;
    if (t < Date.parse(ca.validFrom) || t > Date.parse(ca.validTo)) continue;
    if (cert.checkIssued(ca) && cert.verify(ca.publicKey)) return null;
  }
  return `the SMP's signing certificate (issuer ${cert.issuer.replace(/\n/g, ", ")}) was not issued by a trusted SMP CA`;
}
