// The example server's delivery: the sandbox network by default, Storecove when configured.
import { createDispatcher, sandboxNetwork, type DeliveryStore, type Dispatcher, type DispatcherLogger, type NetworkPort, type RetryPolicy, type Store } from "@einvoice/core";
import { storecoveNetwork } from "@einvoice/storecove";

export interface DeliveryConfig {
  /** STORECOVE_API_KEY and STORECOVE_URL: deliver through Storecove instead of the sandbox. */
  storecove?: { apiKey: string; baseUrl: string };
  /** DISPATCH_LEASE_MS: how long a claim holds (a killed server's claims are retaken after it). */
  leaseMs?: number;
  /** SANDBOX_DELAY_MS: how long the sandbox takes to deliver. */
  sandboxDelayMs?: number;
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
  });
  dispatcher.start();
  return { dispatcher, description };
}
