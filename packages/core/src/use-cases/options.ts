// Options shared by the core's use-cases, and the one place port failures are wrapped.
import { randomUUID } from "node:crypto";
import { defaultEligibility, type EligibilityPolicy } from "../domain/eligibility.js";
import { ApiError } from "../domain/errors.js";
import { DEFAULT_XML_LIMITS, type XmlLimits } from "../document/xml.js";
import { isStoreUnavailable, type Routing, type Store } from "../ports/store.js";
import { defaultRouting } from "../routing/routing.js";
import type { DiscoveryPort } from "../ports/discovery.js";
import { asCachedDiscovery, type CachedDiscovery } from "../adapters/cached-discovery.js";
import type { TokenCipher } from "../domain/token-cipher.js";
import { noMetrics, safeMetrics, type MetricsPort } from "../ports/metrics.js";

export interface CoreOptions {
  /** The time source (tests pass a fake clock). Default: `new Date()`. */
  clock?: () => Date;
  /** New ids: UUIDs (lower-cased on use). Default: `crypto.randomUUID`. */
  newId?: () => string;
  /** Who may submit. Default: `defaultEligibility`. */
  eligibility?: EligibilityPolicy;
  /** Where submissions go. Default: `defaultRouting()`. */
  routing?: Routing;
  /** XML size limits. Default: `DEFAULT_XML_LIMITS`. */
  limits?: Partial<XmlLimits>;
  /**
   * Peppol participant discovery: submissions routed to Peppol whose recipient is not registered,
   * or does not accept the document type, fail at submit (contract row 11). A bare port is wrapped
   * once with `cachedDiscovery`'s defaults (5 s timeout, 10 min cache). Default: none (no lookup).
   */
  discovery?: DiscoveryPort;
  /**
   * Encrypts the companies' KSeF tokens before they reach the store (`tokenCipher(key)`). Without
   * it, a company patch that sets a KSeF token is refused (`ksef_token_key_not_configured`).
   */
  tokenCipher?: TokenCipher;
  /**
   * KSeF is delivered to directly, with each company's own credential: a submission routed to
   * `ksef` for a company without one is a 422 `ksef_not_configured`. Default false (a sandbox or an
   * access point delivers the `ksef` route; no credential is needed).
   */
  ksefCredentialsRequired?: boolean;
  /**
   * The `ksef` route maps credit notes to FA(3) correction invoices (KOR): a credit note routed to
   * `ksef` is accepted (`sending`) like an invoice, and its network adapter looks up the corrected
   * invoice's KSeF number (`ksefNetwork`'s `correctedInvoice`, such as `ksefCorrectedInvoices(store)`).
   * Default false: a credit note routed to `ksef` is stored `failed` at submit, saying why.
   */
  ksefCorrections?: boolean;
  /** Where submissions and validation times are counted (`MetricsPort`). Default: nowhere. */
  metrics?: MetricsPort;
}

export interface ResolvedOptions {
  now: () => string;
  newId: () => string;
  eligibility: EligibilityPolicy;
  routing: Routing;
  limits: XmlLimits;
  discovery: CachedDiscovery | null;
  tokenCipher: TokenCipher | null;
  ksefCredentialsRequired: boolean;
  ksefCorrections: boolean;
  metrics: MetricsPort;
}

const DEFAULT_ROUTING = defaultRouting();
const DEFAULTS: ResolvedOptions = {
  now: () => new Date().toISOString(),
  newId: randomUUID,
  eligibility: defaultEligibility,
  routing: DEFAULT_ROUTING,
  limits: DEFAULT_XML_LIMITS,
  discovery: null,
  tokenCipher: null,
  ksefCredentialsRequired: false,
  ksefCorrections: false,
  metrics: noMetrics,
};

export function resolveOptions(options: CoreOptions | undefined): ResolvedOptions {
  if (!options) return DEFAULTS;
  const clock = options.clock;
  return {
    now: clock ? () => clock().toISOString() : DEFAULTS.now,
    newId: options.newId ? () => options.newId!().toLowerCase() : randomUUID,
    eligibility: options.eligibility ?? defaultEligibility,
    routing: options.routing ?? DEFAULT_ROUTING,
    limits: options.limits ? { ...DEFAULT_XML_LIMITS, ...options.limits } : DEFAULT_XML_LIMITS,
    discovery: options.discovery ? asCachedDiscovery(options.discovery) : null,
    tokenCipher: options.tokenCipher ?? null,
    ksefCredentialsRequired: options.ksefCredentialsRequired === true,
    ksefCorrections: options.ksefCorrections === true,
    metrics: safeMetrics(options.metrics),
  };
}

const guarded = new WeakMap<object, object>();

/**
 * Wraps a store once so that any failure of the adapter surfaces as one `internal_error` ApiError
 * with the adapter's error as `cause` (the HTTP layer logs it once and answers a generic 500), or,
 * when the adapter says it cannot reach its storage now (`isStoreUnavailable`), as
 * `storage_unavailable` (503, retry later).
 */
export function guardStore<S extends Store>(store: S): S {
  let g = guarded.get(store) as S | undefined;
  if (!g) {
    // One wrapper per method, made at its first call and kept while the method stays the same.
    const wrappers = new Map<string | symbol, { of: Function; wrapper: Function }>();
    g = new Proxy(store, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== "function") return value;
        const kept = wrappers.get(prop);
        if (kept !== undefined && kept.of === value) return kept.wrapper;
        const wrapper = async (...args: unknown[]) => {
          try {
            return await value.apply(target, args);
          } catch (e) {
            if (e instanceof ApiError) throw e;
            if (isStoreUnavailable(e)) {
              throw new ApiError("storage_unavailable", "The storage cannot be reached right now: retry in a few seconds.", { cause: e });
            }
            throw new ApiError("internal_error", `The ${target.name} store failed during ${String(prop)}.`, { cause: e });
          }
        };
        wrappers.set(prop, { of: value, wrapper });
        return wrapper;
      },
    });
    guarded.set(store, g);
  }
  return g;
}
