// A test PKI made in the test: a CA, SMP signing certificates (valid, expired, from another CA) and an access point certificate.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import forge from "node-forge";

export interface Issued {
  certPem: string;
  keyPem: string;
  cert: forge.pki.Certificate;
}

const DAY = 86_400_000;

function keyPair(): { publicKey: string; privateKey: string } {
  return generateKeyPairSync("rsa", { modulusLength: 2048, publicKeyEncoding: { type: "spki", format: "pem" }, privateKeyEncoding: { type: "pkcs8", format: "pem" } });
}

/** A certificate signed by `issuer` (or self-signed), valid from `from` to `to`. */
export function issue(cn: string, opts: { issuer?: Issued; ca?: boolean; from?: Date; to?: Date } = {}): Issued {
  const keys = keyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicKey);
  cert.serialNumber = "01" + randomBytes(8).toString("hex");
  cert.validity.notBefore = opts.from ?? new Date(Date.now() - DAY);
  cert.validity.notAfter = opts.to ?? new Date(Date.now() + 365 * DAY);
  const subject = [
    { name: "countryName", value: "BE" },
    { name: "organizationName", value: "einvoice test PKI" },
    { name: "commonName", value: cn },
  ];
  cert.setSubject(subject);
  cert.setIssuer(opts.issuer ? opts.issuer.cert.subject.attributes : subject);
  cert.setExtensions([
    { name: "basicConstraints", cA: opts.ca === true, critical: true },
    { name: "keyUsage", keyCertSign: opts.ca === true, cRLSign: opts.ca === true, digitalSignature: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  const signer = opts.issuer ? opts.issuer.keyPem : keys.privateKey;
  cert.sign(forge.pki.privateKeyFromPem(signer) as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.privateKey, cert };
}

/** The base64 DER of a PEM certificate, as SMP answers carry it. */
export const derBase64 = (pem: string) => pem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "");

export interface TestPki {
  ca: Issued;
  smp: Issued;
  expiredSmp: Issued;
  otherCa: Issued;
  strangerSmp: Issued;
  ap: Issued;
}

/** A CA with a valid and an expired SMP certificate, another CA with its own SMP certificate, and an AP certificate. */
export function makePki(): TestPki {
  const ca = issue("SMP TEST CA", { ca: true, from: new Date(Date.now() - 1000 * DAY), to: new Date(Date.now() + 1000 * DAY) });
  const otherCa = issue("UNTRUSTED TEST CA", { ca: true });
  return {
    ca,
    otherCa,
    smp: issue("PSG000001", { issuer: ca }),
    expiredSmp: issue("PSG000002", { issuer: ca, from: new Date(Date.now() - 400 * DAY), to: new Date(Date.now() - 30 * DAY) }),
    strangerSmp: issue("PSG000003", { issuer: otherCa }),
    ap: issue("POP000123", { issuer: ca, from: new Date("2025-01-01T00:00:00Z"), to: new Date("2027-05-01T00:00:00Z") }),
  };
}
