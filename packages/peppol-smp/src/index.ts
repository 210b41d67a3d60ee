// @einvoice/peppol-smp: Peppol participant discovery through the SML (U-NAPTR) and the participant's SMP (Peppol SMP 1.x REST).
import type { X509Certificate } from "node:crypto";
import { promises as dns } from "node:dns";
import { isIP } from "node:net";
import { Agent, fetch as undiciFetch } from "undici";
import {
  readBoundedText,
  DEFAULT_DISCOVERY_TIMEOUT_MS,
  DiscoveryError,
  guardedLookup,
  isPrivateAddress,
  PARTICIPANT_ID_SCHEME,
  type DiscoveryPort,
  type ParticipantId,
  type ParticipantLookup,
} from "@einvoice/core";
import { participantDnsName, PRODUCTION_ZONE, resolveSmpUrl } from "./sml.js";
import { checkServiceMetadata, serviceGroupDocumentTypes } from "./smp.js";
import { parsePemCertificates, peppolSmpCAs } from "./trust.js";

export { participantHash, participantDnsName, applyNaptrRegexp, smpUrlFromNaptr, resolveSmpUrl, PRODUCTION_ZONE, TEST_ZONE, SMP_NAPTR_SERVICE, type NaptrRecord } from "./sml.js";
export { checkServiceMetadata, serviceGroupDocumentTypes, SMP_NS, ID_NS, WSA_NS, DSIG_NS, AS4_V2, type ServiceMetadata } from "./smp.js";
export { parsePemCertificates, peppolSmpCAs, untrustedReason } from "./trust.js";

export interface SmlDiscoveryOptions {
  /** The SML zone. Default: production, `participant.sml.prod.tech.peppol.org` (`TEST_ZONE` for the test network). */
  zone?: string;
  /** DNS servers for the NAPTR queries, `host` or `host:port`. Default: the system's. */
  dnsServers?: readonly string[];
  /** Trusted SMP CA certificates: PEM text or parsed certificates. Default: the bundled OpenPeppol SMP CA - G3 (production and test) and their roots. */
  trustedCAs?: string | readonly X509Certificate[];
  /** Tests only: allow `http` SMP URLs and SMPs on loopback, private and link-local addresses. Default false. */
  allowHttp?: boolean;
  /** Each DNS query and each SMP request. Default 5000 ms. */
  timeoutMs?: number;
  /** Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** The time for certificate validity. Default `new Date()`. */
  now?: () => Date;
  /** Default `sml`. */
  name?: string;
}

/** The largest SMP answer read (a ServiceGroup of a large participant stays far below). */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/**
 * Participant discovery directly on the Peppol network: the participant's NAPTR record in the SML
 * zone gives its SMP; the SMP's ServiceGroup lists its document types; for the document type asked,
 * the SignedServiceMetadata gives the endpoint, after its XML signature is checked and its signing
 * certificate is found to chain to a trusted SMP CA.
 *
 * No NAPTR record (NXDOMAIN, NODATA) or an SMP 404: not registered. A DNS or SMP error or timeout,
 * an unsigned, wrongly signed, untrusted or expired answer: a `DiscoveryError` (never "not registered").
 *
 * @example smlDiscovery({ zone: TEST_ZONE }) // then cachedDiscovery(...) or CoreOptions.discovery
 */
export function smlDiscovery(options: SmlDiscoveryOptions = {}): DiscoveryPort {
  const zone = options.zone ?? PRODUCTION_ZONE;
  const timeoutMs = options.timeoutMs ?? DEFAULT_DISCOVERY_TIMEOUT_MS;
  const cas = typeof options.trustedCAs === "string" ? parsePemCertificates(options.trustedCAs) : (options.trustedCAs ?? peppolSmpCAs());
  // Without allowHttp the address checked is the address connected, at every connection (no DNS rebinding to a private SMP).
  const agent = options.fetch || options.allowHttp ? null : new Agent({ connect: { lookup: guardedLookup({}) } });
  const doFetch: typeof fetch =
    options.fetch ?? (agent ? ((url, init) => undiciFetch(url as string, { ...(init as object), dispatcher: agent }) as unknown as Promise<Response>) : globalThis.fetch);
  const now = options.now ?? (() => new Date());
  const allowHttp = options.allowHttp === true;
  const name = options.name ?? "sml";

  async function checkUrl(url: URL): Promise<void> {
    if (url.protocol !== "https:" && !(allowHttp && url.protocol === "http:")) {
      throw new DiscoveryError("untrusted", `The SMP URL ${url.origin} is not https.`);
    }
    if (allowHttp) return;
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const addresses = isIP(host) ? [host] : (await dns.lookup(host, { all: true }).catch(() => [])).map((a) => a.address);
    if (addresses.length === 0) throw new DiscoveryError("unreachable", `The SMP host ${url.hostname} does not resolve.`);
    if (addresses.some(isPrivateAddress)) throw new DiscoveryError("untrusted", `The SMP host ${url.hostname} resolves to a private address.`);
  }

  async function get(url: URL, what: string, signal?: AbortSignal): Promise<{ status: number; text: string }> {
    await checkUrl(url);
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let res: Response;
    try {
      res = await doFetch(url.href, { headers: { accept: "application/xml, text/xml" }, redirect: "error", signal: combined });
    } catch (e) {
      if (timeout.aborted || (e instanceof Error && e.name === "TimeoutError")) {
        throw new DiscoveryError("timeout", `The SMP did not answer the ${what} request within ${timeoutMs} ms.`, { cause: e });
      }
      throw new DiscoveryError("unreachable", `The SMP at ${url.origin} could not be reached (${what}).`, { cause: e });
    }
    try {
      // Read up to the cap and no further: a larger answer is cancelled, not read whole.
      const text = res.status === 404 ? "" : await readBoundedText(res, MAX_ANSWER_BYTES);
      if (text === null) throw new DiscoveryError("invalid_answer", `The SMP's ${what} is larger than ${MAX_ANSWER_BYTES} bytes.`);
      return { status: res.status, text };
    } catch (e) {
      if (e instanceof DiscoveryError) throw e;
      if (timeout.aborted) throw new DiscoveryError("timeout", `The SMP did not finish the ${what} answer within ${timeoutMs} ms.`, { cause: e });
      throw new DiscoveryError("unreachable", `The SMP's ${what} answer broke off.`, { cause: e });
    } finally {
      if (res.bodyUsed === false && res.status === 404) await res.body?.cancel().catch(() => undefined);
    }
  }

  function ok(status: number, what: string): void {
    if (status < 200 || status > 299) throw new DiscoveryError("unreachable", `The SMP answered ${status} to the ${what} request.`);
  }

  return {
    name,
    async lookup(participant: ParticipantId, documentTypeId?: string, opts?: { signal?: AbortSignal }): Promise<ParticipantLookup> {
      const participantId = `${participant.scheme}:${participant.value}`;
      const none: ParticipantLookup = { participantId, registered: false, documentTypes: [], endpoint: null };
      const signal = opts?.signal;
      const smp = await resolveSmpUrl(participantDnsName(participant, zone), { servers: options.dnsServers, timeoutMs }, signal);
      if (!smp) return none;
      const base = smp.replace(/\/+$/, "");
      const fullId = `${PARTICIPANT_ID_SCHEME}::${participantId}`;
      const groupUrl = new URL(`${base}/${encodeURIComponent(fullId)}`);
      const group = await get(groupUrl, "ServiceGroup", signal);
      if (group.status === 404) return none;
      ok(group.status, "ServiceGroup");
      const documentTypes = serviceGroupDocumentTypes(group.text);
      if (!documentTypeId || !documentTypes.includes(documentTypeId)) return { participantId, registered: true, documentTypes, endpoint: null };

      let metadataUrl = new URL(`${groupUrl.href}/services/${encodeURIComponent(documentTypeId)}`);
      for (let hop = 0; ; hop++) {
        const answer = await get(metadataUrl, "SignedServiceMetadata", signal);
        ok(answer.status, "SignedServiceMetadata");
        const metadata = checkServiceMetadata(answer.text, cas, now());
        if (metadata.kind === "redirect") {
          if (hop >= 1) throw new DiscoveryError("invalid_answer", "The SMP redirected more than once.");
          metadataUrl = new URL(metadata.href);
          continue;
        }
        if (metadata.participantId?.toLowerCase() !== fullId.toLowerCase() || metadata.documentType !== documentTypeId) {
          throw new DiscoveryError("untrusted", "The SMP's signed service metadata is for another participant or document type.");
        }
        return { participantId, registered: true, documentTypes, endpoint: metadata.endpoint ? { documentType: documentTypeId, ...metadata.endpoint } : null };
      }
    },
  };
}
