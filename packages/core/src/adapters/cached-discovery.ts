// The core's wrapper around any discovery: a deadline on every lookup, a cache of its answers (positive and negative), one lookup in flight per key.
import { DiscoveryError, type DiscoveryPort, type ParticipantLookup } from "../ports/discovery.js";
import type { ParticipantId } from "../domain/types.js";

export interface DiscoveryCacheOptions {
  /** How long an answer that the participant is registered is kept. Default 600 s (`DISCOVERY_CACHE_TTL_S`); 0 turns the cache off. */
  ttlMs?: number;
  /** How long an answer that it is not registered is kept. Default: `ttlMs`. */
  negativeTtlMs?: number;
  /** The longest a lookup may take, whatever the adapter does; then it fails with `timeout`. Default 5000 (`DISCOVERY_TIMEOUT_MS`). */
  timeoutMs?: number;
  /** Most answers kept (the oldest go first). Default 10 000. */
  maxEntries?: number;
  /** The time source. Default `Date.now`. */
  now?: () => number;
}

export const DEFAULT_DISCOVERY_TTL_MS = 600_000;
export const DEFAULT_DISCOVERY_TIMEOUT_MS = 5_000;

/** A discovery wrapped by `cachedDiscovery`: the same port, with `clear()`. */
export interface CachedDiscovery extends DiscoveryPort {
  /** Forgets every kept answer. */
  clear(): void;
  /** The wrapped port. */
  readonly inner: DiscoveryPort;
  readonly timeoutMs: number;
}

const wrapped = new WeakSet<object>();

/** Whether `port` is already a `cachedDiscovery`. */
export function isCachedDiscovery(port: DiscoveryPort): port is CachedDiscovery {
  return wrapped.has(port);
}

/**
 * Wraps a discovery so that no lookup takes longer than `timeoutMs` (the adapter's signal is aborted
 * and the caller gets a `DiscoveryError` of kind `timeout`, even if the adapter ignores the signal),
 * answers are kept for `ttlMs` (registered) or `negativeTtlMs` (not registered), failures are never
 * kept, and concurrent lookups of the same participant and document type share one call.
 *
 * The core wraps a bare port with the defaults itself; wrap it yourself to choose the figures.
 *
 * @example const discovery = cachedDiscovery(sandboxDiscovery(), { ttlMs: 60_000, timeoutMs: 2_000 })
 */
export function cachedDiscovery(port: DiscoveryPort, options: DiscoveryCacheOptions = {}): CachedDiscovery {
  if (isCachedDiscovery(port)) port = port.inner;
  const ttlMs = options.ttlMs ?? DEFAULT_DISCOVERY_TTL_MS;
  const negativeTtlMs = options.negativeTtlMs ?? ttlMs;
  const timeoutMs = options.timeoutMs ?? DEFAULT_DISCOVERY_TIMEOUT_MS;
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { until: number; value: ParticipantLookup }>();
  const inFlight = new Map<string, Promise<ParticipantLookup>>();
  const inner = port;

  function withDeadline(participant: ParticipantId, documentTypeId: string | undefined): Promise<ParticipantLookup> {
    const controller = new AbortController();
    return new Promise<ParticipantLookup>((resolve, reject) => {
      const timer = setTimeout(() => {
        controller.abort(new DiscoveryError("timeout", `The ${inner.name} lookup took longer than ${timeoutMs} ms.`));
        reject(new DiscoveryError("timeout", `The ${inner.name} lookup took longer than ${timeoutMs} ms.`));
      }, timeoutMs);
      let call: Promise<ParticipantLookup>;
      try {
        call = inner.lookup(participant, documentTypeId, { signal: controller.signal });
      } catch (e) {
        call = Promise.reject(e);
      }
      call.then(
        (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        (e: unknown) => {
          clearTimeout(timer);
          reject(
            e instanceof DiscoveryError
              ? e
              : new DiscoveryError("unreachable", `The ${inner.name} lookup failed (${e instanceof Error ? e.name : "error"}).`, { cause: e }),
          );
        },
      );
    });
  }

  const self: CachedDiscovery = {
    name: inner.name,
    inner,
    timeoutMs,
    clear: () => cache.clear(),
    lookup(participant, documentTypeId) {
      const key = `${participant.scheme}:${participant.value.toLowerCase()}\n${documentTypeId ?? ""}`;
      const hit = cache.get(key);
      if (hit) {
        if (hit.until > now()) return Promise.resolve(hit.value);
        cache.delete(key);
      }
      const pending = inFlight.get(key);
      if (pending) return pending;
      const call = withDeadline(participant, documentTypeId).then(
        (value) => {
          inFlight.delete(key);
          const ttl = value.registered ? ttlMs : negativeTtlMs;
          if (ttl > 0) {
            if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
            cache.set(key, { until: now() + ttl, value });
          }
          return value;
        },
        (e: unknown) => {
          inFlight.delete(key);
          throw e;
        },
      );
      inFlight.set(key, call);
      return call;
    },
  };
  wrapped.add(self);
  return self;
}

const defaulted = new WeakMap<DiscoveryPort, CachedDiscovery>();

/** The port as the core uses it: a `cachedDiscovery` as given, a bare port wrapped once (per port) in a cache and a timeout with the defaults. */
export function asCachedDiscovery(port: DiscoveryPort): CachedDiscovery {
  if (isCachedDiscovery(port)) return port;
  let c = defaulted.get(port);
  if (!c) defaulted.set(port, (c = cachedDiscovery(port)));
  return c;
}
