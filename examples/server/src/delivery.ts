// The example server's delivery: the sandbox network by default, Storecove when configured.
import {
  createDispatcher,
  createWebhookSender,
  sandboxNetwork,
  type DeliveryStore,
  type Dispatcher,
  type DiscoveryPort,
  type DispatcherLogger,
  type NetworkPort,
  type RetryPolicy,
  type Store,
  type TargetPolicy,
  type WebhookSender,
  type WebhookStore,
} from "@einvoice/core";
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
    network = sandboxNetwork({ delayMs: config.sandboxDelayMs ?? 300 });
    description = "sandbox network (delivers within a second; a recipient containing 'unreachable' fails, 'flaky' fails twice, then delivers)";
    retry = SANDBOX_RETRY;
  }
  // Until a KSeF adapter exists, the ksef route goes through the same access point.
  const dispatcher = createDispatcher({
    store,
    networks: { peppol: network, ksef: network },
    retry,
    leaseMs: config.leaseMs ?? 30_000,
    pollIntervalMs: 250,
    logger,
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
    logger,
    ...(config.retryBaseMs ? { retry: { baseDelayMs: config.retryBaseMs, maxDelayMs: Math.max(config.retryBaseMs * 8, 60_000) } } : {}),
  });
  sender.start();
  return sender;
}
