// The package's one way of calling Storecove's API v2: the base URL, the API key as a bearer token (never logged, never
// put in a reason), a timeout per request, and what a failure to get an answer means. Used by the sending port
// (index.ts) and the receiving source (inbound.ts).

export interface StorecoveHttpOptions {
  /** The API root, such as `https://<host>/api/v2` (no trailing slash needed). */
  baseUrl: string;
  /** The Storecove API key (a bearer token). */
  apiKey: string;
  /** The fetch to use. Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Per request, the body's reading included. */
  timeoutMs: number;
}

/** No answer: Storecove could not be reached, did not answer in time, or the run was stopped. */
export interface NoAnswer {
  outcome: "retry";
  /** For the operator; never names the key. */
  reason: string;
  /** The caller's own signal was aborted (a stop), not a timeout or the network. */
  aborted: boolean;
}

export interface StorecoveRequest {
  method: "GET" | "POST" | "DELETE";
  /** From the API root, with its leading slash, already encoded. */
  path: string;
  /** A JSON body. */
  body?: unknown;
  /** Default `application/json`. */
  accept?: string;
  /** The caller's stop signal, besides the timeout. */
  signal?: AbortSignal;
}

/** A response with the signal that bounds its body's reading (the timeout and the caller's stop). */
export interface StorecoveResponse {
  res: Response;
  /** Aborted when the timeout passes or the caller stops: reading the body then fails. */
  signal: AbortSignal;
}

/** What an abort while waiting for an answer or reading its body was: a stop, or the timeout. */
export function noAnswer(e: unknown, timeoutMs: number, caller?: AbortSignal, reading = false): NoAnswer {
  if (caller?.aborted) return { outcome: "retry", reason: "The run was stopped.", aborted: true };
  const timedOut = e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError");
  return {
    outcome: "retry",
    reason: timedOut
      ? `Storecove did not answer within ${timeoutMs} ms.`
      : reading
        ? "The connection to Storecove broke off before its answer was read."
        : "Storecove could not be reached.",
    aborted: false,
  };
}

/** A client for Storecove's API: `request` answers the response (any status) or why there is none. */
export function storecoveHttp(options: StorecoveHttpOptions) {
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs;
  return {
    timeoutMs,
    async request(req: StorecoveRequest): Promise<StorecoveResponse | NoAnswer> {
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = req.signal ? anySignal(req.signal, timeout) : timeout;
      try {
        const res = await doFetch(`${base}${req.path}`, {
          method: req.method,
          headers: {
            ...(req.body === undefined ? {} : { "content-type": "application/json" }),
            accept: req.accept ?? "application/json",
            authorization: `Bearer ${options.apiKey}`,
          },
          ...(req.body === undefined ? {} : { body: JSON.stringify(req.body) }),
          redirect: "error",
          signal,
        });
        return { res, signal };
      } catch (e) {
        return noAnswer(e, timeoutMs, req.signal);
      }
    },
  };
}

export type StorecoveHttp = ReturnType<typeof storecoveHttp>;

/** Aborted when either is (`AbortSignal.any`, which Node has from 20.3). */
function anySignal(a: AbortSignal, b: AbortSignal): AbortSignal {
  if (typeof AbortSignal.any === "function") return AbortSignal.any([a, b]);
  const c = new AbortController();
  const abort = (s: AbortSignal) => () => c.abort(s.reason);
  if (a.aborted) c.abort(a.reason);
  else if (b.aborted) c.abort(b.reason);
  else {
    a.addEventListener("abort", abort(a), { once: true });
    b.addEventListener("abort", abort(b), { once: true });
  }
  return c.signal;
}

/** Seconds or an HTTP date, as `Retry-After` may carry; in milliseconds, or undefined. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Whether Storecove's status says "try again later": 429, 408 and 5xx. */
export function isTransientStatus(status: number): boolean {
  return status === 429 || status === 408 || status >= 500;
}
