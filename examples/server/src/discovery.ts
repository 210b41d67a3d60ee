// The example server's participant discovery, from the environment: PEPPOL_DISCOVERY and its settings (docs/discovery.md).
import { cachedDiscovery, sandboxDiscovery, type CachedDiscovery, type DiscoveryPort } from "@einvoice/core";

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

/**
 * Reads PEPPOL_DISCOVERY (`sandbox`, the default; `off`) with DISCOVERY_CACHE_TTL_S (default 600)
 * and DISCOVERY_TIMEOUT_MS (default 5000). Throws an Error naming the variable that is wrong.
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
    default:
      throw new Error(`PEPPOL_DISCOVERY must be sandbox or off, not ${JSON.stringify(env.PEPPOL_DISCOVERY)}.`);
  }
  return { discovery: cachedDiscovery(port, { ttlMs, timeoutMs }), description: `${description}; cache ${ttlMs / 1000} s, timeout ${timeoutMs} ms` };
}
