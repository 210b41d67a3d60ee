// The SML side of a lookup: the participant's DNS name (Peppol SML 2.0, U-NAPTR) and the SMP URL of its NAPTR records.
import { promises as dns } from "node:dns";
import { createHash } from "node:crypto";
import { base32 } from "@scure/base";
import { DiscoveryError, PARTICIPANT_ID_SCHEME, type ParticipantId } from "@einvoice/core";

/** The production SML's participant zone. */
export const PRODUCTION_ZONE = "participant.sml.prod.tech.peppol.org";
/** The test SML's participant zone. */
export const TEST_ZONE = "participant.sml.test.tech.peppol.org";

/** The U-NAPTR service of an SMP (Peppol SML specification 2.0). */
export const SMP_NAPTR_SERVICE = "Meta:SMP";

/**
 * The DNS label of a participant: lower-case base32 (RFC 4648, no padding) of the SHA-256 of the
 * lower-cased `scheme:value`.
 *
 * @example participantHash({ scheme: "0208", value: "0123456789" }) // "wiqy2amtxx7migvxk5ut2tftl43qlgk7mjiiaxc25xnfmmg6isvq"
 */
export function participantHash(participant: ParticipantId): string {
  const digest = createHash("sha256").update(`${participant.scheme}:${participant.value}`.toLowerCase(), "utf8").digest();
  return base32.encode(digest).replace(/=+$/, "").toLowerCase();
}

/** The DNS name whose NAPTR records give the participant's SMP: `<hash>.iso6523-actorid-upis.<zone>`. */
export function participantDnsName(participant: ParticipantId, zone: string = PRODUCTION_ZONE): string {
  return `${participantHash(participant)}.${PARTICIPANT_ID_SCHEME}.${zone.replace(/^\.+|\.+$/g, "")}`;
}

export interface NaptrRecord {
  flags: string;
  service: string;
  regexp: string;
  replacement: string;
  order: number;
  preference: number;
}

/**
 * The SMP URL of a U-NAPTR substitution expression, in the one form the Peppol SML publishes:
 * `!^.*$!<url>!` (Peppol SML specification: the whole queried name is replaced by the SMP's URL). The
 * expression comes from DNS, which whoever answers or spoofs the SML's DNS controls, so no pattern of
 * it is ever compiled or run: any other form (another pattern, delimiter or flags, back-references,
 * a `!` or `\` in the URL) is null, a failed lookup, and costs a few string comparisons.
 */
export function applyNaptrRegexp(regexp: string): string | null {
  const prefix = "!^.*$!";
  if (!regexp.startsWith(prefix) || !regexp.endsWith("!")) return null;
  const url = regexp.slice(prefix.length, -1);
  if (url === "" || url.includes("!") || url.includes("\\")) return null;
  return url;
}

/** The SMP URL of a participant's NAPTR records: the `U` records of service `Meta:SMP`, by order then preference. Null when none gives a URL. */
export function smpUrlFromNaptr(records: readonly NaptrRecord[]): string | null {
  const candidates = records
    .filter((r) => r.flags.toUpperCase() === "U" && r.service.toLowerCase() === SMP_NAPTR_SERVICE.toLowerCase())
    .sort((a, b) => a.order - b.order || a.preference - b.preference);
  for (const r of candidates) {
    const url = applyNaptrRegexp(r.regexp);
    if (url && /^https?:\/\//i.test(url)) return url;
  }
  return null;
}

export interface SmlResolverOptions {
  /** DNS servers, `host` or `host:port` (`[v6]:port`). Default: the system's. */
  servers?: readonly string[];
  /** Per query. */
  timeoutMs: number;
}

/**
 * Resolves the participant's SMP URL through the SML: null when the name does not exist or has no
 * NAPTR records (not registered); a `DiscoveryError` when DNS cannot answer.
 */
export async function resolveSmpUrl(name: string, options: SmlResolverOptions, signal?: AbortSignal): Promise<string | null> {
  const resolver = new dns.Resolver({ timeout: options.timeoutMs, tries: 1 });
  if (options.servers && options.servers.length > 0) resolver.setServers([...options.servers]);
  const cancel = () => resolver.cancel();
  signal?.addEventListener("abort", cancel, { once: true });
  let records: NaptrRecord[];
  try {
    records = await resolver.resolveNaptr(name);
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === dns.NOTFOUND || code === dns.NODATA) return null;
    if (code === dns.TIMEOUT || code === dns.CANCELLED) throw new DiscoveryError("timeout", `The SML's DNS did not answer for ${name} in time.`, { cause: e });
    throw new DiscoveryError("unreachable", `The SML's DNS could not answer for ${name} (${code ?? "error"}).`, { cause: e });
  } finally {
    signal?.removeEventListener("abort", cancel);
  }
  if (records.length === 0) return null;
  const url = smpUrlFromNaptr(records);
  if (!url) throw new DiscoveryError("invalid_answer", `The SML's NAPTR records for ${name} name no SMP (no U record of service ${SMP_NAPTR_SERVICE} of the form !^.*$!<URL>! with an http(s) URL).`);
  return url;
}
