// The example server's delivery: the sandbox network by default, Storecove when configured; the
// ksef route directly to KSeF with each company's own credential when KSEF_URL and KSEF_TOKEN_KEY are set.
import {
  createDispatcher,
  DEFAULT_RETRY,
  createWebhookSender,
  sandboxNetwork,
  tokenCipher,
  type DeliveryStore,
  type Dispatcher,
  type DiscoveryPort,
  type DispatcherLogger,
  type MetricsPort,
  type NetworkPort,
  type RetryPolicy,
  type SandboxInbox,
  type Store,
  type TargetPolicy,
  type TokenCipher,
  type WebhookSender,
  type WebhookStore,
} from "@einvoice/core";
import { ksefNetwork, ksefQrBase } from "@einvoice/ksef";
import { storecoveNetwork } from "@einvoice/storecove";

export interface DeliveryConfig {
  /** STORECOVE_API_KEY and STORECOVE_URL: deliver through Storecove instead of the sandbox. */
  storecove?: { apiKey: string; baseUrl: string };
  /** DISPATCH_LEASE_MS: how long a claim holds (a killed server's claims are retaken after it). */
  leaseMs?: number;
  /** SANDBOX_DELAY_MS: how long the sandbox takes to deliver. */
  sandboxDelayMs?: number;
  /** The participant discovery, looked up again before each Peppol attempt (the same instance as the routers': one cache). */
  discovery?: DiscoveryPort;
  /** KSEF_URL and KSEF_TOKEN_KEY: the ksef route goes to KSeF directly (`ksefFromEnv`). */
  ksef?: KsefSetup;
  /** SHUTDOWN_TIMEOUT_MS: on stop, how long the sends in flight may take before their leases are given back. */
  stopTimeoutMs?: number;
  /** Where attempts are counted (GET /metrics). */
  metrics?: MetricsPort;
  /**
   * The sandbox's inbox (`sandboxInbox(store)`): an invoice sent on Peppol to a participant id a company of this server
   * receives on is stored in that company's inbox, then delivered. Used with the sandbox network only.
   */
  inbox?: SandboxInbox;
}

/** Direct KSeF delivery: the API base, the cipher of the companies' tokens, where the verification links point. */
export interface KsefSetup {
  baseUrl: string;
  cipher: TokenCipher;
  /** The QR address of the invoices' verification links (KOD I): KSEF_URL's environment's, else KSEF_QR_URL, else KSEF_URL's origin. */
  qrBase: string;
}

/**
 * KSEF_URL (the KSeF API base, ending in /v2) and KSEF_TOKEN_KEY (32 random bytes, base64 or hex):
 * both or neither. Neither: null (the ksef route stays on the sandbox or Storecove). Throws an Error
 * with a message for the operator (never the key) when only one is set, or either is malformed.
 */
export function ksefFromEnv(env: NodeJS.ProcessEnv): KsefSetup | null {
  const url = env.KSEF_URL?.trim() || "";
  const key = env.KSEF_TOKEN_KEY?.trim() || "";
  if (!url && !key) return null;
  if (!key) {
    throw new Error(
      "KSEF_URL is set without KSEF_TOKEN_KEY: the companies' KSeF tokens are stored encrypted under that key. Set KSEF_TOKEN_KEY to 32 random bytes (openssl rand -base64 32), or unset KSEF_URL to keep the ksef route on the sandbox or Storecove.",
    );
  }
  if (!url) {
    throw new Error("KSEF_TOKEN_KEY is set without KSEF_URL: set KSEF_URL to the KSeF API base (such as https://api-test.ksef.mf.gov.pl/v2), or unset KSEF_TOKEN_KEY.");
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`KSEF_URL must be the http(s) URL of the KSeF API base, ending in /v2 (such as https://api-test.ksef.mf.gov.pl/v2), not ${JSON.stringify(url)}.`);
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new Error(`KSEF_URL must be an http(s) URL (such as https://api-test.ksef.mf.gov.pl/v2), not ${JSON.stringify(url)}.`);
  }
  let cipher: TokenCipher;
  try {
    cipher = tokenCipher(key);
  } catch (e) {
    throw new Error(`KSEF_TOKEN_KEY: ${(e as Error).message}.`);
  }
  const qrUrl = env.KSEF_QR_URL?.trim() || "";
  if (qrUrl && !/^https?:\/\/[^/?#]+\/?$/.test(qrUrl)) {
    throw new Error(`KSEF_QR_URL must be the http(s) origin the KSeF verification links point to (such as https://qr-test.ksef.mf.gov.pl), not ${JSON.stringify(qrUrl)}.`);
  }
  return { baseUrl: url, cipher, qrBase: ksefQrBase(url, qrUrl) };
}

/** The sandbox retries within seconds (contract section 4); a real access point gets the default backoff. */
const SANDBOX_RETRY: Partial<RetryPolicy> = { baseDelayMs: 1_000, maxDelayMs: 5_000, maxAttempts: 6 };

export function startDelivery(store: Store & DeliveryStore, config: DeliveryConfig, logger: DispatcherLogger): { dispatcher: Dispatcher; description: string } {
  let network: NetworkPort;
  let description: string;
  let retry: Partial<RetryPolicy> | undefined;
  if (config.storecove) {
    network = storecoveNetwork(config.storecove);
    description = `Storecove at ${new URL(config.storecove.baseUrl).host} (Peppol, and KSeF through the access point)`;
  } else {
    network = sandboxNetwork({ delayMs: config.sandboxDelayMs ?? 300, ...(config.inbox ? { inbox: config.inbox } : {}) });
    description = `sandbox network (delivers within a second; a recipient containing 'unreachable' fails, 'flaky' fails twice, then delivers${config.inbox ? "; to a participant id a company here receives on, into its inbox too" : ""})`;
    retry = SANDBOX_RETRY;
  }
  // The ksef route: KSeF directly, as each company (its NIP and token, which the dispatcher reads from
  // the store with the token cipher and hands over with each attempt), or the same
  // network as Peppol (the sandbox, or Storecove, which routes to KSeF itself).
  const leaseMs = config.leaseMs ?? 30_000;
  let ksef = network;
  if (config.ksef) {
    ksef = ksefNetwork({
      baseUrl: config.ksef.baseUrl,
      qrUrl: config.ksef.qrBase,
      // A credit note becomes a correction (KOR) of the invoice it names, by the KSeF number this
      // service got for it, which the dispatcher looks up and hands over with the credit note; the
      // routers accept credit notes to KSeF (ksefCorrections).
      // One attempt polls KSeF for at most half the lease and waits for the UPO at most a quarter more,
      // so that no other dispatcher takes the submission meanwhile.
      statusTimeoutMs: Math.min(60_000, Math.floor(leaseMs / 2)),
      upoTimeoutMs: Math.min(10_000, Math.floor(leaseMs / 4)),
    });
    description += `; the ksef route: KSeF directly at ${new URL(config.ksef.baseUrl).host}, as each company (its NIP and KSeF token, set with PATCH /admin/companies/{id})`;
  }
  const dispatcher = createDispatcher({
    store,
    networks: { peppol: network, ksef },
    retry,
    // KSeF itself is a real service: its route keeps the default backoff (30 s doubling up to 1 h,
    // 8 attempts) even when Peppol goes to the sandbox, which retries within seconds.
    // The companies' KSeF credentials come with each attempt on ksef; a token this server cannot
    // read is logged for the operator with its detail (which key encrypted it), while the company's
    // event says only that the operator must set the token again.
    ...(config.ksef ? { retryByRoute: { ksef: DEFAULT_RETRY }, tokenCipher: config.ksef.cipher } : {}),
    leaseMs,
    pollIntervalMs: 250,
    // While the database is down, a round is tried again after 0.5, 1, 2, 4, then every 5 s (one log line per step).
    maxBackoffMs: 5_000,
    logger,
    ...(config.stopTimeoutMs !== undefined ? { stopTimeoutMs: config.stopTimeoutMs } : {}),
    ...(config.metrics ? { metrics: config.metrics } : {}),
    ...(config.discovery ? { discovery: config.discovery } : {}),
  });
  dispatcher.start();
  return { dispatcher, description };
}

export interface WebhookConfig {
  /** WEBHOOK_ALLOW_PRIVATE=true: allow http and loopback, private and link-local targets. */
  targets: TargetPolicy;
  /** WEBHOOK_RETRY_BASE_MS: the first retry's delay (default 10 s, doubling up to 1 h, 10 attempts). */
  retryBaseMs?: number;
  /** SHUTDOWN_TIMEOUT_MS: on stop, how long the sends in flight may take. */
  stopTimeoutMs?: number;
  /** Where attempts are counted (GET /metrics). */
  metrics?: MetricsPort;
}

/** Reads the webhook settings from the environment. */
export function webhookConfig(env: NodeJS.ProcessEnv): WebhookConfig {
  const base = env.WEBHOOK_RETRY_BASE_MS ? Number(env.WEBHOOK_RETRY_BASE_MS) : undefined;
  return { targets: { allowPrivate: env.WEBHOOK_ALLOW_PRIVATE === "true" }, ...(base ? { retryBaseMs: base } : {}) };
}

/** Starts the webhook sender on the store's event queue. */
export function startWebhooks(store: Store & WebhookStore, config: WebhookConfig, logger: DispatcherLogger): WebhookSender {
  const sender = createWebhookSender({
    store,
    targets: config.targets,
    pollIntervalMs: 250,
    maxBackoffMs: 5_000,
    logger,
    ...(config.stopTimeoutMs !== undefined ? { stopTimeoutMs: config.stopTimeoutMs } : {}),
    ...(config.metrics ? { metrics: config.metrics } : {}),
    ...(config.retryBaseMs ? { retry: { baseDelayMs: config.retryBaseMs, maxDelayMs: Math.max(config.retryBaseMs * 8, 60_000) } } : {}),
  });
  sender.start();
  return sender;
}
