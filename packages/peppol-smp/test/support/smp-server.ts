// A local Peppol SMP 1.x over HTTP: ServiceGroup and SignedServiceMetadata in the published format (busdox
// namespaces), the metadata signed (enveloped, exclusive c14n, RSA-SHA256, X509 in KeyInfo) by a test certificate.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { SignedXml } from "xml-crypto";
import { derBase64, type Issued } from "./pki.js";

export interface SmpParticipant {
  documentTypes: string[];
  /** Who signs its metadata; `tampered`: signed by `signer`, then the endpoint URL is changed; `unsigned`: no signature. */
  signing?: "signed" | "tampered" | "unsigned";
  /** Default: the SMP's certificate. */
  signer?: Issued;
  /** Delay before each answer. */
  delayMs?: number;
  /** Answer the metadata for another participant (a replayed answer). */
  replayFor?: string;
}

export interface FakeSmp {
  baseUrl: string;
  /** By lower-case `scheme:value`. */
  participants: Map<string, SmpParticipant>;
  requests: string[];
  /** Requests (their URLs) whose `delayMs` has run out, in order: the SMP answered them or was about to. */
  delayed: string[];
  close(): Promise<void>;
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const split = (full: string) => {
  const i = full.indexOf("::");
  return { scheme: full.slice(0, i), value: full.slice(i + 2) };
};

export function serviceGroupXml(base: string, participantFull: string, documentTypes: string[]): string {
  const p = split(participantFull);
  const refs = documentTypes
    .map((d) => `<smp:ServiceMetadataReference href="${esc(`${base}/${encodeURIComponent(participantFull)}/services/${encodeURIComponent(d)}`)}"/>`)
    .join("\n    ");
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<smp:ServiceGroup xmlns:smp="http://busdox.org/serviceMetadata/publishing/1.0/" xmlns:id="http://busdox.org/transport/identifiers/1.0/" xmlns:wsa="http://www.w3.org/2005/08/addressing">
  <id:ParticipantIdentifier scheme="${esc(p.scheme)}">${esc(p.value)}</id:ParticipantIdentifier>
  <smp:ServiceMetadataReferenceCollection>
    ${refs}
  </smp:ServiceMetadataReferenceCollection>
</smp:ServiceGroup>`;
}

export const AP_URL = "https://ap.example.test/as4";

export function serviceMetadataXml(participantFull: string, documentType: string, ap: Issued): string {
  const p = split(participantFull);
  const d = split(documentType);
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<smp:SignedServiceMetadata xmlns:smp="http://busdox.org/serviceMetadata/publishing/1.0/" xmlns:id="http://busdox.org/transport/identifiers/1.0/" xmlns:wsa="http://www.w3.org/2005/08/addressing"><smp:ServiceMetadata><smp:ServiceInformation>
  <id:ParticipantIdentifier scheme="${esc(p.scheme)}">${esc(p.value)}</id:ParticipantIdentifier>
  <id:DocumentIdentifier scheme="${esc(d.scheme)}">${esc(d.value)}</id:DocumentIdentifier>
  <smp:ProcessList><smp:Process>
    <id:ProcessIdentifier scheme="cenbii-procid-ubl">urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</id:ProcessIdentifier>
    <smp:ServiceEndpointList>
      <smp:Endpoint transportProfile="peppol-transport-as4-v2_0">
        <wsa:EndpointReference><wsa:Address>${AP_URL}</wsa:Address></wsa:EndpointReference>
        <smp:RequireBusinessLevelSignature>false</smp:RequireBusinessLevelSignature>
        <smp:ServiceActivationDate>2025-01-01T00:00:00Z</smp:ServiceActivationDate>
        <smp:ServiceExpirationDate>2030-01-01T00:00:00Z</smp:ServiceExpirationDate>
        <smp:Certificate>${derBase64(ap.certPem)}</smp:Certificate>
        <smp:ServiceDescription>Test access point</smp:ServiceDescription>
        <smp:TechnicalContactUrl>mailto:ops@example.test</smp:TechnicalContactUrl>
      </smp:Endpoint>
    </smp:ServiceEndpointList>
  </smp:Process></smp:ProcessList>
</smp:ServiceInformation></smp:ServiceMetadata></smp:SignedServiceMetadata>`;
}

/** Signs like a Peppol SMP: an enveloped ds:Signature as the root's last child over the whole document. */
export function signMetadata(xml: string, signer: Issued): string {
  const sig = new SignedXml({
    privateKey: signer.keyPem,
    publicCert: signer.certPem,
    signatureAlgorithm: "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
    canonicalizationAlgorithm: "http://www.w3.org/2001/10/xml-exc-c14n#",
  });
  sig.addReference({
    xpath: "/*",
    uri: "",
    isEmptyUri: true,
    transforms: ["http://www.w3.org/2000/09/xmldsig#enveloped-signature", "http://www.w3.org/2001/10/xml-exc-c14n#"],
    digestAlgorithm: "http://www.w3.org/2001/04/xmlenc#sha256",
  });
  sig.computeSignature(xml, { location: { reference: "/*", action: "append" } });
  return sig.getSignedXml();
}

export async function startFakeSmp(opts: { smp: Issued; ap: Issued }): Promise<FakeSmp> {
  const participants = new Map<string, SmpParticipant>();
  const requests: string[] = [];
  const delayed: string[] = [];
  let base = "";
  const server: Server = createServer(async (req, res) => {
    requests.push(req.url ?? "");
    const segments = (req.url ?? "/").split("?")[0]!.split("/").filter(Boolean);
    let ids: string[];
    try {
      ids = segments.map(decodeURIComponent);
    } catch {
      res.writeHead(400).end();
      return;
    }
    const pid = ids[0] ?? "";
    const key = pid.toLowerCase().startsWith("iso6523-actorid-upis::") ? pid.slice("iso6523-actorid-upis::".length).toLowerCase() : "";
    const p = participants.get(key);
    if (p?.delayMs) {
      await new Promise((r) => setTimeout(r, p.delayMs));
      delayed.push(req.url ?? "");
    }
    if (req.method !== "GET" || !p) {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
      return;
    }
    const xml = (body: string) => res.writeHead(200, { "content-type": "text/xml; charset=utf-8" }).end(body);
    if (ids.length === 1) return xml(serviceGroupXml(base, pid, p.documentTypes));
    if (ids.length === 3 && ids[1] === "services" && p.documentTypes.includes(ids[2]!)) {
      const about = p.replayFor ? `iso6523-actorid-upis::${p.replayFor}` : pid;
      const unsigned = serviceMetadataXml(about, ids[2]!, opts.ap);
      if (p.signing === "unsigned") return xml(unsigned);
      const signed = signMetadata(unsigned, p.signer ?? opts.smp);
      return xml(p.signing === "tampered" ? signed.replace(AP_URL, "https://attacker.example.test/as4") : signed);
    }
    res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
  });
  server.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl: base,
    participants,
    requests,
    delayed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
