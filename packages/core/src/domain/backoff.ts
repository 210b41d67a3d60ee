// Retries of the background workers: the policy, and the delay before the next attempt.

export interface RetryPolicy {
  /** Attempts in all, the first included; after the last transient failure the invoice fails. Default 8. */
  maxAttempts: number;
  /** Delay before the first retry. Default 30 s. */
  baseDelayMs: number;
  /** Largest delay between attempts. Default 1 h. */
  maxDelayMs: number;
  /** Growth of the delay per attempt. Default 2. */
  factor: number;
}

/** The delay before attempt `attempts + 1`, after `attempts` failures: exponential, capped, with jitter in [50%, 100%]. */
export function backoffDelay(policy: RetryPolicy, attempts: number, random: () => number): number {
  const raw = Math.min(policy.maxDelayMs, policy.baseDelayMs * Math.pow(policy.factor, Math.max(0, attempts - 1)));
  return Math.round(raw * (0.5 + random() * 0.5));
}
