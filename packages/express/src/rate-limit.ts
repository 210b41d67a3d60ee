// In-memory rate limiting: a GCRA (token bucket) per key, and the middleware that answers 429.
//
// Written here rather than taken from a library: the key is known only after authentication (the
// API key id), the answer must be the API's own 429 body, and nothing may be written to the console
// (express-rate-limit, the usual choice, logs validation warnings there). GCRA keeps one number per
// key, so a flood of distinct keys (client IPs on sign-up) costs little, and the map is bounded.
import { isIP } from "node:net";
import type { Request, RequestHandler, Response } from "express";
import { ApiError } from "@einvoice/core";
import { toHttp } from "./http-errors.js";

/** `requests` per `windowMs` for each key, with bursts of up to `requests`. */
export interface RateLimitOptions {
  /** Requests allowed per window (and the largest burst). A positive integer. */
  requests: number;
  /** The window in milliseconds. */
  windowMs: number;
}

/** Per API key: 600 requests a minute (10 a second sustained, bursts of 600). */
export const DEFAULT_KEY_RATE_LIMIT: RateLimitOptions = Object.freeze({ requests: 600, windowMs: 60_000 });
/** Sign-ups per client IP: 20 an hour (bursts of 20, then one every 3 minutes). */
export const DEFAULT_SIGN_UP_RATE_LIMIT: RateLimitOptions = Object.freeze({ requests: 20, windowMs: 60 * 60_000 });
/** Operator requests per client IP: 120 a minute. */
export const DEFAULT_ADMIN_RATE_LIMIT: RateLimitOptions = Object.freeze({ requests: 120, windowMs: 60_000 });

export interface RateDecision {
  allowed: boolean;
  /** Requests still allowed right now (after this one, when it was allowed). */
  remaining: number;
  /** When refused: milliseconds until the next request is allowed; 0 otherwise. */
  retryAfterMs: number;
  /** Milliseconds until the bucket is full again (the whole window is available). */
  resetMs: number;
}

export interface RateLimiter {
  readonly requests: number;
  readonly windowMs: number;
  /** Counts one request for `key` and says whether it is allowed. */
  take(key: string): RateDecision;
  /** How many keys are tracked (for tests and metrics). */
  size(): number;
}

/**
 * A GCRA limiter: each key has a "theoretical arrival time"; a request is allowed while that time
 * is at most one window ahead of now. At most `maxKeys` keys are kept (the least recently seen go
 * first; a dropped key starts again with a full bucket, which only ever errs towards allowing).
 *
 * @example const limiter = createRateLimiter({ requests: 600, windowMs: 60_000 }); limiter.take(keyId).allowed
 */
export function createRateLimiter(options: RateLimitOptions & { maxKeys?: number; now?: () => number }): RateLimiter {
  const { requests, windowMs } = options;
  if (!Number.isInteger(requests) || requests < 1) throw new TypeError("rate limit: requests must be a positive integer");
  if (!Number.isFinite(windowMs) || windowMs <= 0) throw new TypeError("rate limit: windowMs must be a positive number");
  const maxKeys = options.maxKeys ?? 100_000;
  const now = options.now ?? Date.now;
  const interval = windowMs / requests; // one request's share of the window
  const tat = new Map<string, number>();
  let nextSweep = 0;

  function sweep(t: number): void {
    // Keys whose bucket is full again carry no information: forget them.
    for (const [k, v] of tat) if (v <= t) tat.delete(k);
  }

  return {
    requests,
    windowMs,
    take(key) {
      const t = now();
      if (t >= nextSweep) {
        sweep(t); // once a window: O(keys), amortised over the window's requests
        nextSweep = t + windowMs;
      }
      if (tat.size >= maxKeys && !tat.has(key)) tat.delete(tat.keys().next().value!);
      const current = Math.max(tat.get(key) ?? t, t);
      const next = current + interval;
      if (next - t > windowMs + 1e-9) {
        const retryAfterMs = Math.max(1, Math.ceil(next - t - windowMs));
        return { allowed: false, remaining: 0, retryAfterMs, resetMs: Math.ceil(current - t) };
      }
      tat.delete(key); // re-insert: the map's order is then least recently seen first
      tat.set(key, next);
      return { allowed: true, remaining: Math.floor((windowMs - (next - t)) / interval + 1e-9), retryAfterMs: 0, resetMs: Math.ceil(next - t) };
    },
    size: () => tat.size,
  };
}

/**
 * Middleware that counts each request under `keyOf(req)` and answers 429
 * `{code:"rate_limited", message}` with `Retry-After` (seconds) when the key is
 * over its limit. Every answer carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`
 * (IETF draft, as seconds). `what` names the limit in the message ("API key", "client IP").
 */
export function rateLimit(limiter: RateLimiter, keyOf: (req: Request) => string, what: string): RequestHandler {
  return (req, res, next) => {
    const d = limiter.take(keyOf(req));
    setHeaders(res, limiter, d);
    if (d.allowed) return next();
    const seconds = Math.ceil(d.retryAfterMs / 1000);
    res.setHeader("Retry-After", String(seconds));
    const message = `Too many requests for this ${what}: the limit is ${limiter.requests} per ${describeWindow(limiter.windowMs)}. Retry after ${seconds} second${seconds === 1 ? "" : "s"}.`;
    const { status, body } = toHttp(new ApiError("rate_limited", message));
    res.status(status).json(body);
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

/** The limiter for an option: the default when undefined, none when false; on the core's `clock` when one is set. */
export function limiterFor(option: RateLimitOptions | false | undefined, fallback: RateLimitOptions, clock?: () => Date): RateLimiter | null {
  if (option === false) return null;
  return createRateLimiter({ ...(option ?? fallback), now: clock ? () => clock().getTime() : Date.now });
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
