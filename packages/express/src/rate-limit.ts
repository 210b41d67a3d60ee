// Rate limiting with rate-limiter-flexible (a well-kept library, in place of the GCRA this file
// used to hand-write): fixed windows of `requests` per `windowMs` per key, kept in memory or in a
// PostgreSQL table (RateLimiterPostgres) so that several server instances on one database share one
// budget. The middleware answers the API's own 429 and writes nothing to the console.
import { isIP } from "node:net";
import type { Request, RequestHandler, Response } from "express";
import { ApiError } from "@einvoice/core";
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { toHttp } from "./http-errors.js";

/** `requests` per `windowMs` for each key. */
export interface RateLimitOptions {
  /** Requests allowed per window. A positive integer. */
  requests: number;
  /** The window in milliseconds (whole seconds). */
  windowMs: number;
}

/** Per company (all its API keys together): 600 requests a minute. */
export const DEFAULT_KEY_RATE_LIMIT: RateLimitOptions = Object.freeze({ requests: 600, windowMs: 60_000 });
/** Sign-ups per client IP: 20 an hour. */
export const DEFAULT_SIGN_UP_RATE_LIMIT: RateLimitOptions = Object.freeze({ requests: 20, windowMs: 60 * 60_000 });
/** Operator requests per client IP: 120 a minute. */
export const DEFAULT_ADMIN_RATE_LIMIT: RateLimitOptions = Object.freeze({ requests: 120, windowMs: 60_000 });

export interface RateDecision {
  allowed: boolean;
  /** Requests still allowed in this window (after this one, when it was allowed). */
  remaining: number;
  /** When refused: milliseconds until the window ends; 0 otherwise. */
  retryAfterMs: number;
  /** Milliseconds until the window ends. */
  resetMs: number;
}

export interface RateLimiter {
  readonly requests: number;
  readonly windowMs: number;
  /** Counts one request for `key` and says whether it is allowed. */
  take(key: string): Promise<RateDecision>;
}

/** Where the counts live: this process's memory (the default), or a table of a PostgreSQL server shared by every instance. */
export type RateLimitStore =
  | { kind: "memory" }
  | {
      kind: "postgres";
      /** A `pg` Pool (or anything with its `query`). */
      pool: unknown;
      /** The schema of the table (it must exist); default the connection's search path. */
      schemaName?: string;
      /** Default `rate_limits` (created when missing). */
      tableName?: string;
    };

/**
 * A limiter of `requests` per `windowMs` per key. With a PostgreSQL store the counts are rows of
 * one table, updated atomically by the database: every server on that database shares them. While
 * the table is being created, or when the database fails, the counts fall back to this process's
 * memory (rate-limiter-flexible's insurance limiter), so a database hiccup neither blocks nor
 * frees everyone. `keyPrefix` keeps limits that share a table apart.
 *
 * @example const limiter = createRateLimiter({ requests: 600, windowMs: 60_000 }); (await limiter.take(companyId)).allowed
 */
export function createRateLimiter(options: RateLimitOptions & { store?: RateLimitStore; keyPrefix?: string }): RateLimiter {
  const { requests, windowMs } = options;
  if (!Number.isInteger(requests) || requests < 1) throw new TypeError("rate limit: requests must be a positive integer");
  if (!Number.isFinite(windowMs) || windowMs < 1000 || windowMs % 1000 !== 0) throw new TypeError("rate limit: windowMs must be whole seconds");
  const base = { points: requests, duration: windowMs / 1000, keyPrefix: options.keyPrefix ?? "einvoice" };
  const memory = new RateLimiterMemory(base);
  let limiter: RateLimiterAbstract = memory;
  const store = options.store;
  if (store?.kind === "postgres") {
    limiter = new RateLimiterPostgres(
      {
        ...base,
        storeClient: store.pool,
        storeType: "pool",
        tableName: store.tableName ?? "rate_limits",
        ...(store.schemaName ? { schemaName: store.schemaName } : {}),
        insuranceLimiter: memory,
        clearExpiredByTimeout: true,
      },
      () => undefined, // a failure to create the table leaves the insurance limiter counting
    );
  }
  return {
    requests,
    windowMs,
    async take(key) {
      try {
        const r = await limiter.consume(key);
        return { allowed: true, remaining: r.remainingPoints, retryAfterMs: 0, resetMs: Math.max(0, r.msBeforeNext) };
      } catch (e) {
        if (e instanceof RateLimiterRes) {
          const wait = Math.max(1, e.msBeforeNext);
          return { allowed: false, remaining: 0, retryAfterMs: wait, resetMs: wait };
        }
        // Neither store could count: let the request through rather than refuse everyone.
        return { allowed: true, remaining: requests, retryAfterMs: 0, resetMs: windowMs };
      }
    },
  };
}

/**
 * Middleware that counts each request under `keyOf(req)` and answers 429
 * `{code:"rate_limited", message}` with `Retry-After` (seconds) when the key is
 * over its limit. Every answer carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`
 * (IETF draft, as seconds). `what` names the limit in the message ("API key", "client IP").
 */
export function rateLimit(limiter: RateLimiter, keyOf: (req: Request) => string, what: string, onLimited?: () => void): RequestHandler {
  return (req, res, next) => {
    limiter.take(keyOf(req)).then((d) => {
      setHeaders(res, limiter, d);
      if (d.allowed) return next();
      onLimited?.();
      const seconds = Math.ceil(d.retryAfterMs / 1000);
      res.setHeader("Retry-After", String(seconds));
      const message = `Too many requests for this ${what}: the limit is ${limiter.requests} per ${describeWindow(limiter.windowMs)}. Retry after ${seconds} second${seconds === 1 ? "" : "s"}.`;
      const { status, body } = toHttp(new ApiError("rate_limited", message));
      res.status(status).json(body);
    }, next);
  };
}

function setHeaders(res: Response, limiter: RateLimiter, d: RateDecision): void {
  res.setHeader("RateLimit-Limit", String(limiter.requests));
  res.setHeader("RateLimit-Remaining", String(d.remaining));
  res.setHeader("RateLimit-Reset", String(Math.ceil(d.resetMs / 1000)));
}

function describeWindow(ms: number): string {
  if (ms % 3_600_000 === 0) return ms === 3_600_000 ? "hour" : `${ms / 3_600_000} hours`;
  if (ms % 60_000 === 0) return ms === 60_000 ? "minute" : `${ms / 60_000} minutes`;
  if (ms % 1000 === 0) return ms === 1000 ? "second" : `${ms / 1000} seconds`;
  return `${ms} ms`;
}

/** The limiter for an option: a limiter as given, a new memory limiter of the options (the default when undefined), none when false. */
export function limiterFor(option: RateLimitOptions | RateLimiter | false | undefined, fallback: RateLimitOptions, keyPrefix: string): RateLimiter | null {
  if (option === false) return null;
  if (option && "take" in option) return option;
  return createRateLimiter({ ...(option ?? fallback), keyPrefix });
}

/**
 * The rate-limit key of the client's address as Express sees it (`req.ip` honours the app's
 * `trust proxy` setting): an IPv4 address as is, an IPv6 address by its /64 network (one host
 * usually holds a whole /64, so single addresses would be free to change).
 */
export function clientIp(req: Request): string {
  const ip = req.ip ?? req.socket.remoteAddress ?? "unknown";
  if (isIP(ip) !== 6) return ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  return ipv6Prefix64(ip);
}

/** The first four groups of an IPv6 address, expanded: "2001:db8::1" → "2001:db8:0:0::/64". */
export function ipv6Prefix64(ip: string): string {
  const bare = ip.split("%")[0]!;
  const [head = "", tail] = bare.split("::") as [string, string | undefined];
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(Math.max(0, 8 - h.length - t.length)).fill("0"), ...t];
  return groups.slice(0, 4).map((g) => (g.includes(".") ? "0" : g.toLowerCase().replace(/^0+(?=.)/, ""))).join(":") + "::/64";
}
