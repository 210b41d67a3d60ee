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
