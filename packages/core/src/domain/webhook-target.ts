// Where a webhook may point: a public https URL, unless the operator allows private targets (SSRF guard).
import { lookup as dnsLookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

const blocked = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8], // "this" network
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, cloud metadata (169.254.169.254)
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(net, bits, "ipv4");
}
for (const [net, bits] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7], // unique local (includes fd00:ec2::254, a metadata address)
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
  ["2001:db8::", 32], // documentation
  ["64:ff9b::", 96], // NAT64 of any IPv4
] as const) {
  blocked.addSubnet(net, bits, "ipv6");
}

/** True for loopback, private, link-local, metadata, multicast and reserved addresses (IPv4, IPv6, IPv4-mapped IPv6). */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const kind = isIP(bare);
  if (kind === 4) return blocked.check(bare, "ipv4");
  if (kind === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
    if (mapped) return blocked.check(mapped[1]!, "ipv4");
    return blocked.check(bare, "ipv6");
  }
  return true; // not an address: refuse
}

/** Resolves a host name to its addresses. */
export type HostResolver = (hostname: string) => Promise<string[]>;

export const systemResolver: HostResolver = async (hostname) => (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export interface TargetPolicy {
  /** Allow http and loopback, private and link-local targets (development, tests). Default false. */
  allowPrivate?: boolean;
  /** DNS resolution (tests inject one). Default: the system resolver. */
  resolve?: HostResolver;
}

/**
 * Checks a webhook URL; returns null when it may be used, or the reason it may not. Without
 * `allowPrivate`: https only, and every address the host resolves to must be public.
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
  if (policy.allowPrivate) return null;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await (policy.resolve ?? systemResolver)(host);
    } catch {
      return `url host ${host} does not resolve`;
    }
  }
  if (addresses.length === 0) return `url host ${host} does not resolve`;
  if (addresses.some(isPrivateAddress)) {
    return `url must point to a public address; ${host} is loopback, private, link-local or reserved`;
  }
  return null;
}
