// The example server's participant discovery, from the environment: PEPPOL_DISCOVERY and its settings (docs/discovery.md).
import { readFileSync } from "node:fs";
import { cachedDiscovery, sandboxDiscovery, type CachedDiscovery, type DiscoveryPort } from "@einvoice/core";
import { parsePemCertificates, PRODUCTION_ZONE, smlDiscovery } from "@einvoice/peppol-smp";
import { storecoveDiscovery } from "@einvoice/storecove";

export interface DiscoverySetup {
  discovery: CachedDiscovery | null;
  description: string;
}

/** A whole number ≥ min from the environment, or the default; anything else is an error with the variable's name. */
function whole(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be a whole number ≥ ${min}, not ${JSON.stringify(raw)}.`);
  return n;
}

/** DNS_SERVERS: comma-separated IP addresses, each with an optional `:port` (`[v6]:port`); host names are refused. */
export function dnsServers(raw: string | undefined): string[] | undefined {
  if (!raw || raw.trim() === "") return undefined;
  const list = raw.split(",").map((s) => s.trim()).filter(Boolean);
  for (const s of list) {
    if (!/^(\[[0-9a-f:.]+\]|[0-9.]+|[0-9a-f:]+)(:\d{1,5})?$/i.test(s)) throw new Error(`DNS_SERVERS must be comma-separated IP addresses with an optional :port, not ${JSON.stringify(s)}.`);
  }
  return list;
}

/**
 * Reads PEPPOL_DISCOVERY (`sandbox`, the default; `sml`; `storecove`; `off`) with its settings:
 * SML_ZONE, DNS_SERVERS, PEPPOL_SMP_CA, PEPPOL_SMP_ALLOW_HTTP (sml), DISCOVERY_CACHE_TTL_S (default
 * 600) and DISCOVERY_TIMEOUT_MS (default 5000). Throws an Error naming the variable that is wrong.
 */
export async function discoveryFromEnv(env: NodeJS.ProcessEnv): Promise<DiscoverySetup> {
  const mode = (env.PEPPOL_DISCOVERY || "sandbox").trim().toLowerCase();
  const ttlMs = whole(env, "DISCOVERY_CACHE_TTL_S", 600) * 1000;
  const timeoutMs = whole(env, "DISCOVERY_TIMEOUT_MS", 5000, 1);
  let port: DiscoveryPort;
  let description: string;
  switch (mode) {
    case "off":
      return { discovery: null, description: "off (PEPPOL_DISCOVERY=off): recipients are not looked up" };
    case "sandbox":
      port = sandboxDiscovery();
      description = "sandbox (a recipient containing 'unregistered' is not on Peppol, 'nodoctype' does not accept invoices)";
      break;
    case "sml": {
      const zone = env.SML_ZONE?.trim() || PRODUCTION_ZONE;
      if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+\.?$/i.test(zone)) throw new Error(`SML_ZONE must be a DNS zone such as ${PRODUCTION_ZONE}, not ${JSON.stringify(env.SML_ZONE)}.`);
      const servers = dnsServers(env.DNS_SERVERS);
      let trustedCAs: string | undefined;
      if (env.PEPPOL_SMP_CA) {
        try {
          trustedCAs = readFileSync(env.PEPPOL_SMP_CA, "utf8");
          parsePemCertificates(trustedCAs);
        } catch (e) {
          throw new Error(`PEPPOL_SMP_CA must be a readable PEM file of CA certificates (${e instanceof Error ? e.message : String(e)}).`);
        }
      }
      const allowHttp = env.PEPPOL_SMP_ALLOW_HTTP === "true";
      port = smlDiscovery({ zone, timeoutMs, allowHttp, ...(servers ? { dnsServers: servers } : {}), ...(trustedCAs ? { trustedCAs } : {}) });
      description =
        `SML zone ${zone} (DNS ${servers ? servers.join(", ") : "of the system"}), SMP signatures checked against ` +
        `${trustedCAs ? `PEPPOL_SMP_CA (${env.PEPPOL_SMP_CA})` : "the bundled OpenPeppol SMP CAs (production and test)"}` +
        (allowHttp ? "; http and private SMP addresses allowed (PEPPOL_SMP_ALLOW_HTTP=true, tests only)" : "");
      break;
    }
    case "storecove": {
      if (!env.STORECOVE_API_KEY || !env.STORECOVE_URL) throw new Error("PEPPOL_DISCOVERY=storecove needs STORECOVE_API_KEY and STORECOVE_URL.");
      port = storecoveDiscovery({ baseUrl: env.STORECOVE_URL, apiKey: env.STORECOVE_API_KEY, timeoutMs });
      description = `Storecove's discovery at ${new URL(env.STORECOVE_URL).host}`;
      break;
    }
    default:
      throw new Error(`PEPPOL_DISCOVERY must be sandbox, sml, storecove or off, not ${JSON.stringify(env.PEPPOL_DISCOVERY)}.`);
  }
  return { discovery: cachedDiscovery(port, { ttlMs, timeoutMs }), description: `${description}; cache ${ttlMs / 1000} s, timeout ${timeoutMs} ms` };
}
