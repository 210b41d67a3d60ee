// Where a webhook may point: a public https URL, unless the operator allows private targets (SSRF guard).
//
// Addresses are classified with ipaddr.js (a well-kept library of the special-purpose registries)
// rather than hand-written ranges, and only global unicast is allowed: for IPv4 ipaddr.js's
// "unicast" range (not private, loopback, link-local, CGNAT, reserved, documentation, benchmarking,
// multicast, broadcast…), for IPv6 the global unicast block 2000::/3 minus its special ranges
// (6to4, Teredo, documentation, ORCHID, benchmarking…). IPv4 embedded in IPv6 (`::127.0.0.1`,
// `::ffff:0:127.0.0.1`, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48`, `fec0::/10`) is refused as
// such; only the plain IPv4-mapped form `::ffff:a.b.c.d` is judged by its IPv4 address.
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

/** True when `address` is a global unicast IP address: the only kind a webhook may reach. */
export function isGlobalUnicast(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "");
  if (bare.includes("%")) return false; // a zone id: link-local by definition
  if (!ipaddr.isValid(bare) || isIP(bare) === 0) return false;
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === "ipv4") return parsed.range() === "unicast";
  const v6 = parsed as ipaddr.IPv6;
  const p = v6.parts;
  // ::ffff:a.b.c.d (exactly: five zero groups, then ffff) is an IPv4 address in IPv6 clothes.
  if (p[0] === 0 && p[1] === 0 && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0xffff) {
    return v6.toIPv4Address().range() === "unicast";
  }
  return v6.match(GLOBAL_UNICAST_V6) && v6.range() === "unicast";
}

/** True for every address a webhook may not reach (the complement of `isGlobalUnicast`; not an address: true). */
export function isPrivateAddress(address: string): boolean {
  return !isGlobalUnicast(address);
}

/** Resolves a host name to its addresses. */
export type HostResolver = (hostname: string) => Promise<string[]>;

export const systemResolver: HostResolver = async (hostname) => (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export interface TargetPolicy {
  /** Allow http and loopback, private and link-local targets (development, tests). Default false. */
  allowPrivate?: boolean;
  /** DNS resolution (tests inject one); used for the check and again when connecting. Default: the system resolver. */
  resolve?: HostResolver;
}

/** The longest webhook URL, as sent and as stored (normalised and percent-encoded by the URL parser). */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * Checks a webhook URL; returns null when it may be used, or the reason it may not. Without
 * `allowPrivate`: https only, and every address the host resolves to must be global unicast. A
 * name that does not resolve and one that resolves to a private address get the same reason, so
 * the answer does not tell which internal names exist. The check is advice: the sender checks
 * the address it actually connects to, at every attempt (`guardedLookup`).
 */
export async function checkWebhookTarget(raw: string, policy: TargetPolicy = {}): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "url must be an absolute http(s) URL";
  }
  if (url.protocol !== "https:" && !(policy.allowPrivate && url.protocol === "http:")) {
    return policy.allowPrivate ? "url must use http or https" : "url must use https";
  }
  if (url.username || url.password) return "url must not carry credentials";
  // Port 0 names no port a receiver can listen on: every delivery would fail as unreachable.
  if (url.port === "0") return "url must not use port 0";
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) {
    return `url must be shorter than or equal to ${MAX_WEBHOOK_URL_LENGTH} characters as stored, percent-encoded (it is ${url.href.length}: a character such as ü takes 6)`;
  }
  if (policy.allowPrivate) return null;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await (policy.resolve ?? systemResolver)(host);
    } catch {
      addresses = [];
    }
  }
  if (addresses.length === 0 || !addresses.every(isGlobalUnicast)) return notPublic(host);
  return null;
}

/** The one reason for a host that does not resolve, or resolves to an address that is not public. */
export function notPublic(host: string): string {
  return `url must point to a public address; ${host} does not resolve to public (global unicast) addresses only`;
}

/** A refused connection: the address the name resolved to when connecting is not public. */
export class TargetRefusedError extends Error implements NodeJS.ErrnoException {
  override readonly name = "TargetRefusedError";
  readonly code = "EADDRNOTPUBLIC";
  constructor(
    readonly hostname: string,
    readonly address: string | null,
  ) {
    super(`webhook target ${hostname} resolved to ${address ?? "no address"} when connecting, which is not a public address`);
  }
}


/**
 * A `lookup` for `net.connect` (an HTTP agent's `connect` option) that resolves with the policy's
 * resolver and refuses to connect unless every address is global unicast: the address checked is
 * the address connected, at every connection, so a name that changes its answer between the
 * check and the connection (DNS rebinding) cannot reach a private address.
 */
export function guardedLookup(policy: TargetPolicy = {}): LookupFunction {
  const resolve = policy.resolve ?? systemResolver;
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const family = options?.family === 6 || options?.family === "IPv6" ? 6 : options?.family === 4 || options?.family === "IPv4" ? 4 : 0;
        const found = addresses.map((address) => ({ address, family: isIP(address) })).filter((a) => a.family !== 0 && (family === 0 || a.family === family));
        const bad = found.find((a) => !isGlobalUnicast(a.address));
        if (found.length === 0 || bad) return callback(new TargetRefusedError(hostname, bad?.address ?? null), "");
        if (options?.all) callback(null, found);
        else callback(null, found[0]!.address, found[0]!.family);
      },
      (e: unknown) => callback(e as NodeJS.ErrnoException, ""),
    );
  };
}
