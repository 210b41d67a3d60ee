// The SMP side of a lookup: Peppol SMP 1.x REST (ServiceGroup, SignedServiceMetadata), the XML signature and the endpoint.
import { X509Certificate } from "node:crypto";
import { DOMParser, type Document, type Element } from "@xmldom/xmldom";
import { SignedXml } from "xml-crypto";
import { DiscoveryError, type DiscoveryEndpoint } from "@einvoice/core";
import { untrustedReason } from "./trust.js";

export const SMP_NS = "http://busdox.org/serviceMetadata/publishing/1.0/";
export const ID_NS = "http://busdox.org/transport/identifiers/1.0/";
export const WSA_NS = "http://www.w3.org/2005/08/addressing";
export const DSIG_NS = "http://www.w3.org/2000/09/xmldsig#";

/** The preferred transport profile when an SMP lists several. */
export const AS4_V2 = "peppol-transport-as4-v2_0";

/** Parses XML with @xmldom/xmldom (no DTD expansion); throws `invalid_answer` on any parse error. */
export function parseSmpXml(xml: string, what: string): Document {
  const errors: string[] = [];
  const doc = new DOMParser({ onError: (level, msg) => void (level !== "warning" && errors.push(msg)) }).parseFromString(xml, "text/xml");
  if (errors.length > 0 || !doc.documentElement) throw new DiscoveryError("invalid_answer", `The SMP's ${what} is not well-formed XML.`);
  if (xml.includes("<!DOCTYPE")) throw new DiscoveryError("invalid_answer", `The SMP's ${what} has a DOCTYPE; it is refused.`);
  return doc;
}

function childElements(el: Element, ns: string, name: string): Element[] {
  const out: Element[] = [];
  for (let n = el.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1 && (n as Element).namespaceURI === ns && (n as Element).localName === name) out.push(n as Element);
  }
  return out;
}
const first = (el: Element | null | undefined, ns: string, name: string): Element | null => (el ? (childElements(el, ns, name)[0] ?? null) : null);
const textOf = (el: Element | null): string | null => {
  const t = el?.textContent?.trim();
  return t ? t : null;
};

/** The document types of a ServiceGroup: the last path segment after `/services/` of each ServiceMetadataReference, URL-decoded. */
export function serviceGroupDocumentTypes(xml: string): string[] {
  const root = parseSmpXml(xml, "ServiceGroup").documentElement!;
  if (root.localName !== "ServiceGroup" || root.namespaceURI !== SMP_NS) {
    throw new DiscoveryError("invalid_answer", `The SMP answered a ${root.localName} where a ServiceGroup was expected.`);
  }
  const refs = childElements(first(root, SMP_NS, "ServiceMetadataReferenceCollection") ?? root, SMP_NS, "ServiceMetadataReference");
  const types = new Set<string>();
  for (const ref of refs) {
    const href = ref.getAttribute("href") ?? "";
    const i = href.lastIndexOf("/services/");
    if (i === -1) continue;
    try {
      types.add(decodeURIComponent(href.slice(i + "/services/".length).replace(/[?#].*$/, "")));
    } catch {
      // a reference that does not decode is skipped
    }
  }
  return [...types];
}

/** What a checked SignedServiceMetadata says. */
export type ServiceMetadata =
  | { kind: "redirect"; href: string }
  | { kind: "information"; participantId: string | null; documentType: string | null; endpoint: Omit<DiscoveryEndpoint, "documentType"> | null };

/**
 * Checks the XML signature of a SignedServiceMetadata and reads what it signs. The signature must be
 * the root's own `ds:Signature`, over the whole document (a Reference to `""`), made with the key of
 * the certificate in its KeyInfo; that certificate must be valid at `now` and issued by one of `cas`.
 * Only the signed content is read (what xml-crypto returns as signed), never the unsigned document.
 * Throws `untrusted` otherwise.
 */
export function checkServiceMetadata(xml: string, cas: readonly X509Certificate[], now: Date): ServiceMetadata {
  const doc = parseSmpXml(xml, "SignedServiceMetadata");
  const root = doc.documentElement!;
  if (root.localName !== "SignedServiceMetadata" || root.namespaceURI !== SMP_NS) {
    throw new DiscoveryError("invalid_answer", `The SMP answered a ${root.localName} where a SignedServiceMetadata was expected.`);
  }
  const signatures = childElements(root, DSIG_NS, "Signature");
  if (signatures.length !== 1) {
    throw new DiscoveryError("untrusted", signatures.length === 0 ? "The SMP's service metadata is not signed." : "The SMP's service metadata has several signatures.");
  }
  const sigEl = signatures[0]!;
  const certText = textOf(first(first(first(sigEl, DSIG_NS, "KeyInfo"), DSIG_NS, "X509Data"), DSIG_NS, "X509Certificate"));
  if (!certText) throw new DiscoveryError("untrusted", "The SMP's signature carries no X509Certificate.");
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(Buffer.from(certText.replace(/\s+/g, ""), "base64"));
  } catch (e) {
    throw new DiscoveryError("untrusted", "The SMP's signing certificate cannot be read.", { cause: e });
  }
  const why = untrustedReason(cert, cas, now);
  if (why) throw new DiscoveryError("untrusted", `The SMP's service metadata is not trusted: ${why}.`);

  const sig = new SignedXml({ publicCert: cert.toString(), getCertFromKeyInfo: () => null });
  let valid = false;
  try {
    sig.loadSignature(sigEl as unknown as Parameters<SignedXml["loadSignature"]>[0]);
    const refs = sig.getReferences();
    if (refs.length !== 1 || (refs[0]!.uri ?? "") !== "") {
      throw new DiscoveryError("untrusted", "The SMP's signature does not cover the whole service metadata (one Reference to \"\" expected).");
    }
    valid = sig.checkSignature(xml);
  } catch (e) {
    if (e instanceof DiscoveryError) throw e;
    throw new DiscoveryError("untrusted", `The SMP's signature does not verify (${e instanceof Error ? e.message.slice(0, 200) : "error"}).`, { cause: e });
  }
  const signed = sig.getSignedReferences();
  if (!valid || signed.length !== 1) throw new DiscoveryError("untrusted", "The SMP's signature does not verify.");

  // Read only what was signed.
  const signedRoot = parseSmpXml(signed[0]!, "signed service metadata").documentElement!;
  if (signedRoot.localName !== "SignedServiceMetadata" || signedRoot.namespaceURI !== SMP_NS) {
    throw new DiscoveryError("untrusted", "The SMP's signature does not cover the SignedServiceMetadata.");
  }
  const metadata = first(signedRoot, SMP_NS, "ServiceMetadata");
  const redirect = first(metadata, SMP_NS, "Redirect");
  if (redirect) {
    const href = redirect.getAttribute("href");
    if (!href) throw new DiscoveryError("invalid_answer", "The SMP's Redirect has no href.");
    return { kind: "redirect", href };
  }
  const info = first(metadata, SMP_NS, "ServiceInformation");
  if (!info) throw new DiscoveryError("invalid_answer", "The SMP's service metadata has neither ServiceInformation nor Redirect.");
  const pid = first(info, ID_NS, "ParticipantIdentifier");
  const did = first(info, ID_NS, "DocumentIdentifier");
  const scheme = (el: Element | null) => el?.getAttribute("scheme") ?? "";
  return {
    kind: "information",
    participantId: pid ? `${scheme(pid)}::${textOf(pid) ?? ""}` : null,
    documentType: did ? `${scheme(did)}::${textOf(did) ?? ""}` : null,
    endpoint: pickEndpoint(info),
  };
}

function pickEndpoint(info: Element): Omit<DiscoveryEndpoint, "documentType"> | null {
  const processes = childElements(first(info, SMP_NS, "ProcessList") ?? info, SMP_NS, "Process");
  let best: { process: Element; endpoint: Element } | null = null;
  for (const process of processes) {
    for (const endpoint of childElements(first(process, SMP_NS, "ServiceEndpointList") ?? process, SMP_NS, "Endpoint")) {
      if (!best) best = { process, endpoint };
      if (endpoint.getAttribute("transportProfile") === AS4_V2) {
        best = { process, endpoint };
        break;
      }
    }
    if (best && best.endpoint.getAttribute("transportProfile") === AS4_V2) break;
  }
  if (!best) return null;
  const { process, endpoint } = best;
  const proc = first(process, ID_NS, "ProcessIdentifier");
  const url = textOf(first(first(endpoint, WSA_NS, "EndpointReference"), WSA_NS, "Address"));
  if (!url) throw new DiscoveryError("invalid_answer", "The SMP's endpoint has no EndpointReference/Address.");
  const certText = textOf(first(endpoint, SMP_NS, "Certificate"));
  let certificate: DiscoveryEndpoint["certificate"] = null;
  if (certText) {
    try {
      const c = new X509Certificate(Buffer.from(certText.replace(/\s+/g, ""), "base64"));
      certificate = { subject: c.subject.split("\n").reverse().join(","), notAfter: new Date(c.validTo).toISOString() };
    } catch {
      throw new DiscoveryError("invalid_answer", "The SMP's endpoint certificate cannot be read.");
    }
  }
  const date = (name: string) => {
    const t = textOf(first(endpoint, SMP_NS, name));
    if (!t) return null;
    const ms = Date.parse(t);
    return Number.isNaN(ms) ? t : new Date(ms).toISOString();
  };
  return {
    processId: proc ? `${proc.getAttribute("scheme") ?? ""}::${textOf(proc) ?? ""}` : null,
    transportProfile: endpoint.getAttribute("transportProfile") ?? "",
    url,
    certificate,
    serviceActivation: date("ServiceActivationDate"),
    serviceExpiration: date("ServiceExpirationDate"),
  };
}
