// The example server's receiving side: which sources the inbound poller runs and how often, from the environment.
// KSeF (`ksefInbound`) when the server delivers to KSeF directly (KSEF_URL and KSEF_TOKEN_KEY); Storecove's pull queue
// (`storecoveInbound`) when it delivers through Storecove (STORECOVE_API_KEY and STORECOVE_URL); the sandbox network
// delivers into the recipient company's inbox itself (`sandboxInbox`, in delivery.ts).
import { createInboundPoller, type InboundPoller, type InboundSourceEntry, type InboxStore, type MetricsPort, type Store } from "@einvoice/core";
import { fa3Syntax, ksefInbound } from "@einvoice/ksef";
import { storecoveInbound } from "@einvoice/storecove";
import type { KsefSetup } from "./delivery.js";

/** The logger the poller writes to (the server's pino logger fits). */
type WorkerLogger = { error(obj: Record<string, unknown>, msg: string): void; warn?(obj: Record<string, unknown>, msg: string): void; info?(obj: Record<string, unknown>, msg: string): void };

/** How the poller runs, from the environment (`inboundFromEnv`). */
export interface InboundConfig {
  /** INBOUND=off (or DISPATCHER=off): no poller in this process (run one elsewhere on the same database). */
  enabled: boolean;
  /** Which variable turned it off, for the banner. */
  offBy: "INBOUND=off" | "DISPATCHER=off" | null;
  /** KSEF_INBOUND_INTERVAL_S (default 900): one sync per company this often, as KSeF asks. */
  ksefIntervalMs: number;
  /** STORECOVE_RECEIVE_INTERVAL_S (default 60): Storecove's pull queue is read this often (at once again while it is full). */
  storecoveIntervalMs: number;
  /**
   * INBOUND_LEASE_MS (default 300000): how long a sync's claim holds without renewal (renewed every third of it while a
   * run lasts); a killed instance's syncs are taken over after it.
   */
  leaseMs: number;
}

export const DEFAULT_KSEF_INBOUND_INTERVAL_S = 900;
export const DEFAULT_STORECOVE_RECEIVE_INTERVAL_S = 60;
export const DEFAULT_INBOUND_LEASE_MS = 300_000;
/** The longest interval either takes: a day. */
const MAX_INTERVAL_S = 86_400;

/** Seconds from the environment: a whole number from 1 to a day, or the default. Throws an Error for the operator. */
function seconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!/^[0-9]+$/.test(raw) || !Number.isSafeInteger(n) || n < 1 || n > MAX_INTERVAL_S) {
    throw new Error(`${name} must be a whole number of seconds from 1 to ${MAX_INTERVAL_S}, not ${JSON.stringify(env[name])} (default ${fallback}).`);
  }
  return n;
}

/**
 * Reads INBOUND, KSEF_INBOUND_INTERVAL_S, STORECOVE_RECEIVE_INTERVAL_S and INBOUND_LEASE_MS. Throws an Error with a message for the
 * operator when one is malformed (the server then stops before it opens the store).
 *
 * @example inboundFromEnv({ KSEF_INBOUND_INTERVAL_S: "1800" }) // { enabled: true, offBy: null, ksefIntervalMs: 1_800_000, storecoveIntervalMs: 60_000, leaseMs: 300_000 }
 */
export function inboundFromEnv(env: NodeJS.ProcessEnv): InboundConfig {
  const flag = env.INBOUND?.trim() ?? "";
  if (flag !== "" && flag !== "on" && flag !== "off") throw new Error(`INBOUND must be on or off, not ${JSON.stringify(env.INBOUND)}.`);
  const ksefIntervalMs = seconds(env, "KSEF_INBOUND_INTERVAL_S", DEFAULT_KSEF_INBOUND_INTERVAL_S) * 1000;
  const storecoveIntervalMs = seconds(env, "STORECOVE_RECEIVE_INTERVAL_S", DEFAULT_STORECOVE_RECEIVE_INTERVAL_S) * 1000;
  const rawLease = env.INBOUND_LEASE_MS?.trim();
  let leaseMs = DEFAULT_INBOUND_LEASE_MS;
  if (rawLease) {
    leaseMs = Number(rawLease);
    if (!/^[0-9]+$/.test(rawLease) || !Number.isSafeInteger(leaseMs) || leaseMs < 3_000 || leaseMs > 3_600_000) {
      throw new Error(`INBOUND_LEASE_MS must be a whole number of milliseconds from 3000 to 3600000, not ${JSON.stringify(env.INBOUND_LEASE_MS)} (default ${DEFAULT_INBOUND_LEASE_MS}).`);
    }
  }
  const offBy = flag === "off" ? "INBOUND=off" : env.DISPATCHER === "off" ? "DISPATCHER=off" : null;
  return { enabled: offBy === null, offBy, ksefIntervalMs, storecoveIntervalMs, leaseMs };
}

/** What `startInbound` needs besides the config. */
export interface InboundSetup {
  store: Store & InboxStore;
  config: InboundConfig;
  /** STORECOVE_API_KEY and STORECOVE_URL: Storecove's pull queue is read (Peppol documents received by the access point). */
  storecove?: { apiKey: string; baseUrl: string };
  /** KSEF_URL and KSEF_TOKEN_KEY: each company in PL with a KSeF credential gets the invoices KSeF holds for it as buyer. */
  ksef?: KsefSetup;
  /** SHUTDOWN_TIMEOUT_MS: on stop, how long the runs in flight may take. */
  stopTimeoutMs?: number;
  metrics?: MetricsPort;
  logger: WorkerLogger;
}

/** The syntaxes a received document may be in besides UBL and CII (read, judged, served as data): KSeF's FA(3). */
export const RECEIVE_SYNTAXES = [fa3Syntax] as const;

/**
 * Starts the inbound poller with the sources this server has: KSeF (per company, every `ksefIntervalMs`) when KSeF is
 * delivered to directly, Storecove's pull queue (every `storecoveIntervalMs`) when Storecove is the access point.
 * Null when there is none (the sandbox delivers into the inbox itself) or the poller is off; `description` says which
 * for the start-up banner.
 */
export function startInbound(setup: InboundSetup): { poller: InboundPoller | null; description: string } {
  const { config } = setup;
  const sources: InboundSourceEntry[] = [];
  const parts: string[] = [];
  if (setup.ksef) {
    sources.push({ source: ksefInbound({ baseUrl: setup.ksef.baseUrl, intervalMs: config.ksefIntervalMs }), intervalMs: config.ksefIntervalMs });
    parts.push(`KSeF at ${new URL(setup.ksef.baseUrl).host} every ${config.ksefIntervalMs / 1000} s per company in PL with a KSeF credential (KSEF_INBOUND_INTERVAL_S)`);
  }
  if (setup.storecove) {
    sources.push({ source: storecoveInbound({ ...setup.storecove, intervalMs: config.storecoveIntervalMs }), intervalMs: config.storecoveIntervalMs });
    parts.push(`Storecove's pull queue at ${new URL(setup.storecove.baseUrl).host} every ${config.storecoveIntervalMs / 1000} s (STORECOVE_RECEIVE_INTERVAL_S)`);
  } else {
    parts.push("the sandbox network delivers Peppol invoices to the company receiving on the recipient's participant id (PATCH /admin/companies/{id}, participantIds)");
  }
  if (!config.enabled) {
    return { poller: null, description: `poller off (${config.offBy}): run one elsewhere on this database${setup.storecove ? "" : "; the sandbox still delivers into inboxes"}` };
  }
  if (sources.length === 0) return { poller: null, description: parts.join("; ") };
  const poller = createInboundPoller({
    store: setup.store,
    sources,
    leaseMs: config.leaseMs,
    logger: setup.logger,
    receive: { syntaxes: RECEIVE_SYNTAXES },
    ...(setup.ksef ? { tokenCipher: setup.ksef.cipher } : {}),
    ...(setup.metrics ? { metrics: setup.metrics } : {}),
    ...(setup.stopTimeoutMs !== undefined ? { stopTimeoutMs: setup.stopTimeoutMs } : {}),
  });
  poller.start();
  return { poller, description: parts.join("; ") };
}
