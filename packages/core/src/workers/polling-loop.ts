// One polling loop for the background workers (the dispatcher, the webhook sender): run a round,
// pause when there was nothing to do, stop on request and wait for the round in progress.

export interface PollingLoop {
  start(): void;
  /** Stops after the round in progress, waiting for it at most `stopTimeoutMs`. */
  stop(): Promise<void>;
}

export interface PollingLoopOptions {
  /** Pause after a round that did nothing. */
  pollIntervalMs: number;
  /** Longest wait for the round in progress on `stop()`. */
  stopTimeoutMs: number;
  /** Called when a round throws; the loop goes on. */
  onError: (e: unknown) => void;
}

/** Runs `round` (which answers how much it did) again and again until stopped. */
export function pollingLoop(round: () => Promise<number>, options: PollingLoopOptions): PollingLoop {
  let running = false;
  let loop: Promise<void> | null = null;
  let wake: (() => void) | null = null;

  async function run(): Promise<void> {
    while (running) {
      let done = 0;
      try {
        done = await round();
      } catch (e) {
        options.onError(e);
      }
      if (running && done === 0) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, options.pollIntervalMs);
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
        wake = null;
      }
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    async stop() {
      running = false;
      wake?.();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([loop ?? Promise.resolve(), new Promise((r) => (timer = setTimeout(r, options.stopTimeoutMs)))]);
      clearTimeout(timer);
    },
  };
}

/** The options every queue worker (the dispatcher, the webhook sender) takes. */
export interface QueueWorkerOptions {
  /** How long a claim holds; a worker killed mid-send loses its claims after this. */
  leaseMs?: number;
  /** Items claimed (and sent in parallel) per round. Default 10. */
  batchSize?: number;
  /** Pause when there was nothing to do. Default 500 ms. */
  pollIntervalMs?: number;
  /** Longest wait for in-flight sends on `stop()`. Default 10 s. */
  stopTimeoutMs?: number;
  /** This worker's name in leases. Default: a random id. */
  owner?: string;
  clock?: () => Date;
  /** Jitter source in [0, 1). Default `Math.random`. */
  random?: () => number;
  logger?: WorkerLogger;
}

/** Where a worker reports what went wrong (pino's logger fits). */
export interface WorkerLogger {
  error(obj: Record<string, unknown>, msg: string): void;
  info?(obj: Record<string, unknown>, msg: string): void;
}
