// The inbound poller: runs each inbound source (KSeF per company, Storecove's queue for the whole server) for every
// scope that is due, under the store's lease, so that each scope's sync runs in one place at a time across instances.
// What a run hands to `store` is stored durably before the run may acknowledge it; its mark is saved with `checkpoint`
// and with the run's end. A run that throws is logged with its cause and tried again after the interval.
import { randomUUID } from "node:crypto";
import { readKsefCredential, type KsefCredential, type TokenCipher } from "../domain/token-cipher.js";
import type { Company } from "../domain/types.js";
import { INBOUND_STATE_MAX_BYTES, type InboundRun, type InboundRunResult, type InboundSource, type InboundSync, type InboxStore, type StoredOutcome } from "../ports/inbound.js";
import { safeMetrics, type MetricsPort } from "../ports/metrics.js";
import type { Store } from "../ports/store.js";
import { storeReceivedDocument, type ReceiveSettings } from "./receive.js";
import { causeOf, pollingLoop, type WorkerLogger, type WorkerStatus } from "./polling-loop.js";

/** One source the poller runs, and how often each of its scopes is due after a run. */
export interface InboundSourceEntry {
  source: InboundSource;
  /** The pause between two runs of one scope (KSeF: 900 s; Storecove: 60 s), unless the run asks for another. */
  intervalMs: number;
}

/** What `createInboundPoller` takes: the store, the sources with their intervals, and how it runs them. */
export interface InboundPollerOptions {
  store: Store & InboxStore;
  sources: InboundSourceEntry[];
  /** This poller's name in leases. Default: `inbound-<a random id>`. */
  owner?: string;
  /** How long a claim holds without a checkpoint; the poller renews it every third of it while a run lasts. Default 5 min. */
  leaseMs?: number;
  /** Decrypts the companies' KSeF tokens for `InboundRun.ksefCredential`; without it the credential is null. */
  tokenCipher?: TokenCipher;
  logger?: WorkerLogger;
  /** Where runs and received documents are counted (`inboundRun`, `inboundReceived`). */
  metrics?: MetricsPort;
  /** Options of `receiveDocument` (`ReceiveOptions`: clock, ids, XML limits, extra syntaxes such as FA(3)). */
  receive?: ReceiveSettings;
  /** Pause between two rounds when nothing was due. Default 1 s. */
  pollIntervalMs?: number;
  /** Longest wait for the runs in progress on `stop()`, after their signal is aborted. Default 10 s. */
  stopTimeoutMs?: number;
  /** Scopes of one source claimed (and run at once) in one round. Default 10. */
  batchSize?: number;
  /** The time source of leases and due times. Default `new Date()`. */
  clock?: () => Date;
}

/** The inbound poller: its loop (`start`, `stop`, `status`) and one round on demand (`runDue`). */
export interface InboundPoller {
  /** Runs rounds until `stop()`. */
  start(): void;
  /** Stops taking work, aborts the runs in progress (their signal), waits for them (at most `stopTimeoutMs`), then gives back the leases of those still running. */
  stop(): Promise<void>;
  /** Whether the poller runs and whether its rounds fail (for `readinessCheck`). */
  status(): WorkerStatus;
  /** One round: every due scope of every source, run and ended; answers how many runs were made. */
  runDue(): Promise<number>;
}

/** A run's error when its lease was lost: it must stop without acknowledging anything more. */
export class InboundLeaseLostError extends Error {
  override readonly name = "InboundLeaseLostError";
  constructor(source: string, scope: string) {
    super(`The lease of ${source} for ${scope} was lost: another instance runs it now.`);
  }
}

/** A checkpoint's state larger than INBOUND_STATE_MAX_BYTES. */
export class InboundStateTooLargeError extends Error {
  override readonly name = "InboundStateTooLargeError";
  constructor(bytes: number) {
    super(`A source's state is ${bytes} bytes; at most ${INBOUND_STATE_MAX_BYTES} are kept.`);
  }
}

/**
 * Makes the inbound poller. Each round (`runDue`), for every source: the row of a whole-server source (scope `*`) is
 * made sure of; due rows are claimed under a lease (`leaseMs`) and run at once, up to `batchSize` per source. A run is
 * given the company (`getCompany`; a per-company source's `appliesTo` refusing it pushes the row back one interval),
 * the KSeF credential decrypted with `tokenCipher`, the mark and the backfill requests; its `store` is
 * `receiveDocument` for its company (or for the company of the document's legal entity) and network, its `checkpoint`
 * saves the mark while the lease holds (rejecting when it was lost), and the poller renews the lease every third of
 * `leaseMs` while the run lasts. The run's end saves its mark, deletes the requests it took, and makes the row due
 * again after `nextRunInMs`. A run that throws is logged with its cause (never its message: it may hold a network's
 * answer) and is due again after the interval, from its last checkpoint.
 *
 * Rows of per-company sources are created by `updateCompany` when a KSeF credential is set (`ensureInboundSync`) and
 * by `requestBackfill`.
 *
 * @example const poller = createInboundPoller({ store, sources: [{ source: ksefInbound(o), intervalMs: 900_000 }], tokenCipher }); poller.start()
 */
export function createInboundPoller(options: InboundPollerOptions): InboundPoller {
  const { store, sources, tokenCipher, logger } = options;
  const owner = options.owner ?? `inbound-${randomUUID()}`;
  const leaseMs = options.leaseMs ?? 5 * 60_000;
  const batchSize = Math.max(1, options.batchSize ?? 10);
  const stopTimeoutMs = options.stopTimeoutMs ?? 10_000;
  const clock = options.clock ?? options.receive?.clock ?? (() => new Date());
  const metrics = safeMetrics(options.metrics ?? options.receive?.metrics);
  const receiveOptions: ReceiveSettings = { ...options.receive, metrics, clock: options.receive?.clock ?? clock };
  const stopping = new AbortController();
  /** Runs in progress, by `source scope`: their abort and their end. */
  const active = new Map<string, { source: string; scope: string; done: Promise<void> }>();
  /** The whole-server sources whose `*` row is known to exist. */
  const ensured = new Set<string>();

  const iso = (ms: number) => new Date(ms).toISOString();

  async function runDue(): Promise<number> {
    let runs = 0;
    await Promise.all(
      sources.map(async (entry) => {
        if (stopping.signal.aborted) return;
        const { source } = entry;
        if (source.scope === "server" && !ensured.has(source.name)) {
          await store.ensureInboundSync({ source: source.name, scope: "*", now: iso(clock().getTime()) });
          ensured.add(source.name);
        }
        const nowMs = clock().getTime();
        const rows = await store.claimInboundSyncs({ source: source.name, owner, now: iso(nowMs), leaseUntil: iso(nowMs + leaseMs), limit: batchSize });
        runs += rows.length;
        await Promise.all(rows.map((row) => track(entry, row)));
      }),
    );
    return runs;
  }

  function track(entry: InboundSourceEntry, row: InboundSync): Promise<void> {
    const key = `${row.source} ${row.scope}`;
    // A failure outside the run (the store, reading the company): the lease is given back and the round fails (the
    // polling loop backs off), so the scope is neither held for a whole lease nor retried in a tight loop.
    const done = runOne(entry, row)
      .catch(async (e: unknown) => {
        logger?.error({ source: row.source, scope: row.scope, ...causeOf(e) }, "inbound run could not be made");
        await store.releaseInboundSync({ source: row.source, scope: row.scope, owner }).catch(() => undefined);
        throw e;
      })
      .finally(() => active.delete(key));
    active.set(key, { source: row.source, scope: row.scope, done });
    return done;
  }

  async function runOne(entry: InboundSourceEntry, row: InboundSync): Promise<void> {
    const { source, intervalMs } = entry;
    const scope = row.scope;
    const ids = { source: source.name, scope };
    // Saves are made one after another: a renewal never writes an older mark over a checkpoint.
    let saving: Promise<unknown> = Promise.resolve();
    let mark = row.state;
    let lost = false;
    const save = (input: { state: string | null; takenRequests?: string[]; leaseUntil?: string; nextRunAt?: string }): Promise<boolean> => {
      const next = saving.then(() => store.saveInboundSync({ source: source.name, scope, owner, ...input }));
      saving = next.catch(() => undefined);
      return next;
    };
    const pushBack = async (ms: number) => {
      await save({ state: mark, nextRunAt: iso(clock().getTime() + ms) });
    };

    let company: Company | null = null;
    let ksefCredential: KsefCredential | null = null;
    if (source.scope === "company") {
      company = await store.getCompany(scope);
      let applies = company !== null;
      try {
        if (company && source.appliesTo) applies = source.appliesTo(company);
      } catch (e) {
        logger?.error({ ...ids, ...causeOf(e) }, "inbound source could not tell whether it applies to the company");
        applies = false;
      }
      if (!company || !applies) {
        await pushBack(intervalMs);
        return;
      }
      if (tokenCipher && company.ksef) {
        try {
          ksefCredential = readKsefCredential(company, tokenCipher);
        } catch (e) {
          // A token that does not decrypt (another key): the operator must set it again. The message names no secret.
          logger?.error({ ...ids, ...causeOf(e) }, "inbound run skipped: the company's KSeF credential cannot be decrypted");
          metrics.inboundRun?.({ source: source.name, outcome: "failed" }, 0);
          await pushBack(intervalMs);
          return;
        }
      }
    }

    const run = new AbortController();
    const onStop = () => run.abort();
    stopping.signal.addEventListener("abort", onStop, { once: true });
    if (stopping.signal.aborted) run.abort();
    const renewEvery = Math.max(100, Math.floor(leaseMs / 3));
    const renewal = setInterval(() => {
      void save({ state: mark, leaseUntil: iso(clock().getTime() + leaseMs) }).then(
        (held) => {
          if (!held && !lost) {
            lost = true;
            logger?.warn?.(ids, "inbound run lost its lease: stopping it");
            run.abort();
          }
        },
        (e: unknown) => logger?.warn?.({ ...ids, ...causeOf(e) }, "inbound run could not renew its lease"),
      );
    }, renewEvery);
    renewal.unref?.();

    let received = 0;
    const companyId = source.scope === "company" ? scope : null;
    const ctx: InboundRun = {
      scope,
      company,
      ksefCredential,
      state: row.state,
      requests: row.requests.map((r) => ({ ...r })),
      signal: run.signal,
      async store(doc): Promise<StoredOutcome> {
        if (lost) throw new InboundLeaseLostError(source.name, scope);
        received++;
        return storeReceivedDocument(store, { ...doc, network: source.network, companyId }, receiveOptions);
      },
      async checkpoint(state, takenRequests) {
        const bytes = Buffer.byteLength(state, "utf8");
        if (bytes > INBOUND_STATE_MAX_BYTES) throw new InboundStateTooLargeError(bytes);
        const held = await save({ state, takenRequests, leaseUntil: iso(clock().getTime() + leaseMs) });
        if (!held) {
          lost = true;
          run.abort();
          throw new InboundLeaseLostError(source.name, scope);
        }
        mark = state;
      },
    };

    let result: InboundRunResult | null = null;
    try {
      result = await source.run(ctx);
    } catch (e) {
      logger?.error({ ...ids, received, ...causeOf(e) }, "inbound run failed");
      metrics.inboundRun?.({ source: source.name, outcome: "failed" }, received);
    } finally {
      clearInterval(renewal);
      stopping.signal.removeEventListener("abort", onStop);
    }
    if (lost) return;
    if (result === null) {
      await pushBack(intervalMs);
      return;
    }
    const state = result.state;
    const stateBytes = state === null ? 0 : Buffer.byteLength(state, "utf8");
    const nextRunInMs = Number.isFinite(result.nextRunInMs) && result.nextRunInMs >= 0 ? result.nextRunInMs : intervalMs;
    if (stateBytes > INBOUND_STATE_MAX_BYTES) {
      logger?.error({ ...ids, received, error: "InboundStateTooLargeError", stateBytes }, "inbound run ended with a state too large to keep: its last checkpoint is kept");
      await pushBack(intervalMs);
      return;
    }
    const held = await save({ state, takenRequests: result.takenRequests, nextRunAt: iso(clock().getTime() + nextRunInMs) });
    if (!held) {
      logger?.warn?.({ ...ids, received }, "inbound run ended after its lease was lost: its end was not saved");
      return;
    }
    metrics.inboundRun?.({ source: source.name, outcome: "ok" }, received);
    if (received > 0 || result.note) logger?.info?.({ ...ids, received: result.received, nextRunInMs, ...(result.note ? { note: result.note } : {}) }, "inbound run ended");
  }

  const loop = pollingLoop(runDue, { name: "inbound poller", pollIntervalMs: options.pollIntervalMs ?? 1_000, stopTimeoutMs, logger });

  return {
    runDue,
    status: loop.status,
    start() {
      if (stopping.signal.aborted) throw new Error("An inbound poller cannot be started again once stopped: make a new one.");
      loop.start();
    },
    async stop() {
      stopping.abort();
      const deadline = Date.now() + stopTimeoutMs;
      await loop.stop();
      const still = [...active.values()];
      if (still.length > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.allSettled(still.map((a) => a.done)), new Promise((r) => (timer = setTimeout(r, Math.max(0, deadline - Date.now()))))]);
        clearTimeout(timer);
      }
      const left = [...active.values()];
      await Promise.all(left.map((a) => store.releaseInboundSync({ source: a.source, scope: a.scope, owner }).catch(() => undefined)));
      if (left.length > 0) logger?.info?.({ released: left.length }, "inbound poller stopped: leases given back");
    },
  };
}
