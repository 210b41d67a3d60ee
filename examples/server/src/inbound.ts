// The example server's receiving side: which sources the inbound poller runs and how often, from the environment.
// KSeF (`ksefInbound`) when the server delivers to KSeF directly (KSEF_URL and KSEF_TOKEN_KEY); Storecove's pull queue
// (`storecoveInbound`) when it delivers through Storecove (STORECOVE_API_KEY and STORECOVE_URL); the sandbox network
// delivers into the recipient company's inbox itself (`sandboxInbox`, in delivery.ts).

/** How the poller runs, from the environment (`inboundFromEnv`). */
export interface InboundConfig {
  /** INBOUND=off (or DISPATCHER=off): no poller in this process (run one elsewhere on the same database). */
  enabled: boolean;
  /** KSEF_INBOUND_INTERVAL_S (default 900): one sync per company this often, as KSeF asks. */
  ksefIntervalMs: number;
  /** STORECOVE_RECEIVE_INTERVAL_S (default 60): Storecove's pull queue is read this often (at once again while it is full). */
  storecoveIntervalMs: number;
}

export const DEFAULT_KSEF_INBOUND_INTERVAL_S = 900;
export const DEFAULT_STORECOVE_RECEIVE_INTERVAL_S = 60;
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
 * Reads INBOUND, KSEF_INBOUND_INTERVAL_S and STORECOVE_RECEIVE_INTERVAL_S. Throws an Error with a message for the
 * operator when one is malformed (the server then stops before it opens the store).
 *
 * @example inboundFromEnv({ KSEF_INBOUND_INTERVAL_S: "1800" }) // { enabled: true, ksefIntervalMs: 1_800_000, storecoveIntervalMs: 60_000 }
 */
export function inboundFromEnv(env: NodeJS.ProcessEnv): InboundConfig {
  const flag = env.INBOUND?.trim() ?? "";
  if (flag !== "" && flag !== "on" && flag !== "off") throw new Error(`INBOUND must be on or off, not ${JSON.stringify(env.INBOUND)}.`);
  const ksefIntervalMs = seconds(env, "KSEF_INBOUND_INTERVAL_S", DEFAULT_KSEF_INBOUND_INTERVAL_S) * 1000;
  const storecoveIntervalMs = seconds(env, "STORECOVE_RECEIVE_INTERVAL_S", DEFAULT_STORECOVE_RECEIVE_INTERVAL_S) * 1000;
  return { enabled: flag !== "off" && env.DISPATCHER !== "off", ksefIntervalMs, storecoveIntervalMs };
}
