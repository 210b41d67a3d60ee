// One polling loop for the background workers (the dispatcher, the webhook sender): run a round,
// pause when there was nothing to do, back off while rounds fail, stop on request and wait for the round in progress.

import { randomUUID } from "node:crypto";
import { safeMetrics, type MetricsPort } from "../ports/metrics.js";
import { companyShare } from "../ports/queue.js";

export interface PollingLoop {
  start(): void;
  /** Stops after the round in progress, waiting for it at most `stopTimeoutMs`. */
  stop(): Promise<void>;
  /** Whether the loop runs, and whether its rounds are failing now. */
  status(): WorkerStatus;
}

/** What a worker says about itself (readiness reads it). */
export interface WorkerStatus {
  /** Started and not stopped. */
  running: boolean;
  /** Rounds failing in a row now (0: the last round went through). */
  failures: number;
  /** The cause code of the last failure (`ECONNREFUSED`, a SQLSTATE, an error name), or null. */
  lastError: string | null;
}

export interface PollingLoopOptions {
  /** The worker's name in log lines (`dispatcher`, `webhook sender`). */
  name: string;
  /** Pause after a round that did nothing. */
  pollIntervalMs: number;
  /** Longest wait for the round in progress on `stop()`. */
  stopTimeoutMs: number;
  /** Longest pause between failing rounds; the pause doubles from `pollIntervalMs` up to it. */
  maxBackoffMs?: number;
  logger?: WorkerLogger | undefined;
}

/** Where a worker's round failure comes from, for a log line: the error's name and its code, never its message. */
export function causeOf(e: unknown): { error: string; errorCode?: string } {
  if (!(e instanceof Error)) return { error: typeof e };
  const own = (e as { code?: unknown }).code;
  const inner = (e as { cause?: unknown }).cause as { code?: unknown } | undefined;
  const code = typeof own === "string" ? own : typeof inner?.code === "string" ? inner.code : undefined;
  return code ? { error: e.name, errorCode: code } : { error: e.name };
}

/**
 * Runs `round` (which answers how much it did) again and again until stopped. A round that throws
 * is logged once with its cause code; the rounds after it wait twice as long each time (up to
 * `maxBackoffMs`, default 30 s), with one line per step of that backoff (or a change of cause) and
 * none once the pause is at its longest, and the first round that goes through again says the
 * worker recovered.
 */
export function pollingLoop(round: () => Promise<number>, options: PollingLoopOptions): PollingLoop {
  const { name, logger } = options;
  const maxBackoffMs = Math.max(options.maxBackoffMs ?? 30_000, options.pollIntervalMs);
  let running = false;
  let loop: Promise<void> | null = null;
  let wake: (() => void) | null = null;
  let failures = 0;
  let failingSince = 0;
  let lastError: string | null = null;

  function failed(e: unknown): number {
    const cause = causeOf(e);
    const code = cause.errorCode ?? cause.error;
    failures++;
    const delay = Math.min(maxBackoffMs, options.pollIntervalMs * 2 ** Math.min(failures, 20));
    const previous = Math.min(maxBackoffMs, options.pollIntervalMs * 2 ** Math.min(failures - 1, 20));
    if (failures === 1) {
      failingSince = Date.now();
      logger?.error({ ...cause, retryInMs: delay }, `${name} round failed`);
    } else if (delay > previous || code !== lastError) {
      // One line per step of the backoff (and when the cause changes): none once the pause is at its longest.
      logger?.warn?.({ ...cause, failures, retryInMs: delay }, `${name} round still failing`);
    }
    lastError = code;
    return delay;
  }

  function succeeded(): void {
    if (failures === 0) return;
    logger?.info?.({ failures, downMs: Date.now() - failingSince, lastErrorCode: lastError }, `${name} recovered`);
    failures = 0;
    lastError = null;
  }

  async function run(): Promise<void> {
    while (running) {
      let done = 0;
      let pause = options.pollIntervalMs;
      try {
        done = await round();
        succeeded();
      } catch (e) {
        pause = failed(e);
      }
      if (running && (done === 0 || failures > 0)) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, pause);
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
    status: () => ({ running, failures, lastError }),
  };
}

/** A claim window: who claims, at what time, until when the claim holds, how many items, and a company's share of the places. */
export interface ClaimWindow {
  owner: string;
  now: string;
  leaseUntil: string;
  limit: number;
  /** At most this many of the owner's places per company (the store's fairness rule, ports/queue.ts). */
  perCompany: number;
  /** The worker's places taken, by company: its attempts in flight (when the parts say whose an item is). */
  held?: Record<string, number>;
}

/** What a queue worker does with its store and its items; `queueWorker` does the rest. */
export interface QueueWorkerParts<J> {
  /** The worker's name in log lines (`dispatcher`, `webhook sender`). */
  name: string;
  owner: string;
  leaseMs: number;
  batchSize: number;
  /** A company's share of the `batchSize` places (passed to every claim). Default half of `batchSize`, rounded up. */
  perCompany?: number;
  clock: () => Date;
  /**
   * The company of an item: with it, each claim carries the worker's attempts in flight by company
   * (`held`), which count against the company's share even past their lease.
   */
  companyOf?(job: J): string;
  /** Claims up to `limit` due items for `owner` until `leaseUntil` (the store's claim). */
  claim(window: ClaimWindow): Promise<J[]>;
  /** One attempt on one claimed item, recorded in the store. */
  attempt(job: J): Promise<void>;
  /** The item's fields for a log line (`{ submissionId }`, `{ eventId }`). */
  describe(job: J): Record<string, unknown>;
  /** Gives an item's claim back on `stop()` while its attempt is still in flight (else its lease runs out). */
  release?(job: J): Promise<void>;
}

/** A queue worker: its round, and its polling loop's start, stop and status. */
export interface QueueWorker extends PollingLoop {
  /** One round: claim a batch, attempt each in parallel and wait for them all; answers how many were claimed. */
  runOnce(): Promise<number>;
}

/**
 * The scaffold of the queue workers (the dispatcher, the webhook sender): items are claimed under a
 * lease and attempted in parallel (an attempt that throws is logged with its cause, never its message,
 * and does not stop the others), at most `batchSize` at a time. The polling loop claims again as soon
 * as an attempt ends and frees its place, so one slow item (a receiver that never answers, a network
 * that takes its whole timeout) holds one place, not the whole batch. Every claim passes `perCompany`:
 * the store takes at most that many of one company's items into this worker's places (those in flight
 * count) and shares the rest round-robin among companies (ports/queue.ts), so a company whose items
 * all hang holds at most `perCompany` places and the other companies' items are taken by the next claim.
 * `runOnce()` is one round that waits for its attempts (for tests and callers who drive the worker).
 * `stop()` stops claiming, waits up to `stopTimeoutMs` for the attempts in flight, then gives back
 * (with `release`) the claims of those still running.
 */
export function queueWorker<J>(parts: QueueWorkerParts<J>, options: QueueWorkerOptions & { pollIntervalMs: number; stopTimeoutMs: number }): QueueWorker {
  const { logger } = options;
  const inFlight = new Set<J>();
  // Resolved (and replaced) whenever an attempt ends or the worker stops: what a full loop waits for.
  let changed = signal();
  let stopping = false;

  function signal(): { promise: Promise<void>; fire: () => void } {
    let fire!: () => void;
    const promise = new Promise<void>((r) => (fire = r));
    return { promise, fire };
  }

  /** Wakes whoever waits on `changed`, and gives the next waiters a new one. */
  function notify(): void {
    const fired = changed;
    changed = signal();
    fired.fire();
  }

  async function claim(limit: number): Promise<J[]> {
    const nowMs = parts.clock().getTime();
    const window: ClaimWindow = { owner: parts.owner, now: new Date(nowMs).toISOString(), leaseUntil: new Date(nowMs + parts.leaseMs).toISOString(), limit, perCompany: parts.perCompany ?? companyShare(parts.batchSize) };
    if (parts.companyOf) {
      const held: Record<string, number> = {};
      for (const job of inFlight) {
        const company = parts.companyOf(job);
        held[company] = (held[company] ?? 0) + 1;
      }
      window.held = held;
    }
    return parts.claim(window);
  }

  async function attempt(job: J): Promise<void> {
    inFlight.add(job);
    try {
      await parts.attempt(job);
    } catch (e) {
      logger?.error({ ...parts.describe(job), ...causeOf(e) }, `${parts.name} attempt could not be recorded`);
    } finally {
      inFlight.delete(job);
      notify();
    }
  }

  async function runOnce(): Promise<number> {
    const jobs = await claim(parts.batchSize);
    await Promise.all(jobs.map(attempt));
    return jobs.length;
  }

  // The loop's round: wait for a free place, claim as many items as there are free places, start them.
  async function claimFree(): Promise<number> {
    while (!stopping && inFlight.size >= parts.batchSize) await changed.promise;
    if (stopping) return 0;
    const jobs = await claim(parts.batchSize - inFlight.size);
    for (const job of jobs) void attempt(job);
    return jobs.length;
  }

  const loop = pollingLoop(claimFree, { name: parts.name, pollIntervalMs: options.pollIntervalMs, stopTimeoutMs: options.stopTimeoutMs, maxBackoffMs: options.maxBackoffMs, logger });
  return {
    runOnce,
    start() {
      stopping = false;
      loop.start();
    },
    status: loop.status,
    async stop() {
      stopping = true;
      notify();
      const deadline = Date.now() + options.stopTimeoutMs;
      await loop.stop();
      // The attempts in flight get what is left of stopTimeoutMs to end.
      while (inFlight.size > 0 && Date.now() < deadline) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([changed.promise, new Promise((r) => (timer = setTimeout(r, deadline - Date.now())))]);
        clearTimeout(timer);
      }
      const release = parts.release;
      const held = [...inFlight];
      if (!release || held.length === 0) return;
      const released = await Promise.all(held.map((job) => release(job).then(() => true, () => false)));
      logger?.info?.({ released: released.filter(Boolean).length, held: held.length }, `${parts.name} stopped: leases given back`);
    },
  };
}

/** The options every queue worker (the dispatcher, the webhook sender) takes. */
export interface QueueWorkerOptions {
  /** How long a claim holds; a worker killed mid-send loses its claims after this. */
  leaseMs?: number;
  /** Items attempted at once (claimed as places free up; `runOnce` claims this many). Default 10. */
  batchSize?: number;
  /**
   * A company's share of the `batchSize` places: at most this many of one company's items are in
   * flight at once, whatever its backlog, so that the others' items never wait behind it. Default
   * half of `batchSize`, rounded up; `batchSize` for one company alone (then only the round-robin order stays).
   */
  perCompany?: number;
  /** Pause when there was nothing to do. Default 500 ms. */
  pollIntervalMs?: number;
  /** Longest pause between failing rounds (the pause doubles from `pollIntervalMs`). Default 30 s. */
  maxBackoffMs?: number;
  /** Longest wait for in-flight sends on `stop()`. Default 10 s. */
  stopTimeoutMs?: number;
  /** This worker's name in leases. Default: a random id. */
  owner?: string;
  clock?: () => Date;
  /** Jitter source in [0, 1). Default `Math.random`. */
  random?: () => number;
  logger?: WorkerLogger;
  /** Where each attempt's outcome is counted. Default: nowhere. */
  metrics?: MetricsPort;
}

/**
 * A queue worker's options with their defaults, but `leaseMs` (each worker has its own): the
 * `owner` is `<ownerPrefix>-<a random id>`, the metrics never throw.
 */
export function queueWorkerSettings(options: QueueWorkerOptions, ownerPrefix: string) {
  const batchSize = options.batchSize ?? 10;
  return {
    batchSize,
    perCompany: Math.max(1, Math.min(batchSize, options.perCompany ?? companyShare(batchSize))),
    pollIntervalMs: options.pollIntervalMs ?? 500,
    stopTimeoutMs: options.stopTimeoutMs ?? 10_000,
    owner: options.owner ?? `${ownerPrefix}-${randomUUID()}`,
    clock: options.clock ?? (() => new Date()),
    random: options.random ?? Math.random,
    logger: options.logger,
    metrics: safeMetrics(options.metrics),
  };
}

/**
 * Where a worker reports (pino's logger fits): `error` for what went wrong, `info` for each delivery
 * outcome and a recovery, `warn` for a round still failing. Without `info`/`warn` those lines are not written.
 */
export interface WorkerLogger {
  error(obj: Record<string, unknown>, msg: string): void;
  warn?(obj: Record<string, unknown>, msg: string): void;
  info?(obj: Record<string, unknown>, msg: string): void;
}
