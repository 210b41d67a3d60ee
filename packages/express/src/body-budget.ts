// A bound on the bytes of large request bodies held at once (issue 16, finding 7).
//
// Without it, 150 concurrent 9 MiB submissions took the server from 1.15 to 2.0 GiB and /health to
// 7.7 s: every body was read into memory at once, then waited for the document workers. Here a
// large body is read only once its size fits in the budget; until then its socket is not read (the
// client's bytes wait in TCP buffers, the server's memory stays flat), for up to `queueTimeoutMs`,
// after which the body is read and dropped and the answer is 503 `server_busy` with `Retry-After`.
// Small bodies never wait.
import { ApiError } from "@einvoice/core";
import type { Request, RequestHandler, Response } from "express";

export interface BodyBudgetOptions {
  /** Bytes of large bodies that may be in flight at once (declared Content-Length; a chunked body counts as the body limit). Default 64 MiB. */
  maxBytes?: number;
  /** Bodies below this many bytes are never held back. Default 256 KiB. */
  smallBytes?: number;
  /** How long a large body may wait for room before the 503. Default 20 s. */
  queueTimeoutMs?: number;
  /** How many large bodies may wait at once; past it the 503 comes at once. Default 1000. */
  maxQueue?: number;
  /** The `Retry-After` of the 503, in seconds. Default 5. */
  retryAfterSeconds?: number;
}

export const DEFAULT_BODY_BUDGET: Required<BodyBudgetOptions> = Object.freeze({
  maxBytes: 64 * 1024 * 1024,
  smallBytes: 256 * 1024,
  queueTimeoutMs: 20_000,
  maxQueue: 1000,
  retryAfterSeconds: 5,
});

interface Waiter {
  bytes: number;
  grant: () => void;
}

/** The shared count of bytes in flight and the queue of bodies waiting for room. */
export interface BodyBudget {
  readonly options: Required<BodyBudgetOptions>;
  /** Bytes of the bodies being read or processed now. */
  inFlight(): number;
  /** Bodies waiting for room. */
  waiting(): number;
  /** Middleware for a body route: holds a large body back until it fits (see the module comment). `bodyLimit` is what a chunked body counts as. */
  gate(bodyLimit: number): RequestHandler;
}

/**
 * Makes a body budget. One budget may serve several routers (the /v1 and /admin routers of one
 * process): pass the same object to both.
 *
 * @example const budget = createBodyBudget({ maxBytes: 64 * 1024 * 1024 }); createV1Router({ store, bodyBudget: budget })
 */
export function createBodyBudget(options: BodyBudgetOptions = {}): BodyBudget {
  const o: Required<BodyBudgetOptions> = { ...DEFAULT_BODY_BUDGET, ...options };
  if (!(o.maxBytes > 0)) throw new TypeError("body budget: maxBytes must be a positive number");
  let used = 0;
  const queue: Waiter[] = [];

  /** Grants whoever fits, in order; a body larger than the whole budget goes alone. */
  function pump(): void {
    while (queue.length > 0) {
      const head = queue[0]!;
      if (used > 0 && used + head.bytes > o.maxBytes) return;
      queue.shift();
      used += head.bytes;
      head.grant();
    }
  }

  /**
   * Answers 503 once the body has been read and dropped (kept nowhere): a client still sending its
   * body would otherwise see the connection fail instead of the answer. A chunked body past the
   * body limit is cut off.
   */
  function refuse(req: Request, res: Response, next: (err?: unknown) => void, bodyLimit: number): void {
    res.setHeader("Retry-After", String(o.retryAfterSeconds));
    const error = new ApiError("server_busy", `The server is busy with other large requests; retry after ${o.retryAfterSeconds} seconds.`);
    if (req.complete || req.readableEnded) return next(error);
    let received = 0;
    let answered = false;
    const answer = (): void => {
      if (answered) return;
      answered = true;
      next(error);
    };
    req.on("data", (chunk: Buffer) => {
      received += chunk.length;
      if (received > bodyLimit) req.destroy();
    });
    req.once("end", answer);
    req.once("close", answer);
    req.resume();
  }

  return {
    options: o,
    inFlight: () => used,
    waiting: () => queue.length,
    gate(bodyLimit) {
      return (req: Request, res: Response, next) => {
        const chunked = req.headers["transfer-encoding"] !== undefined;
        const declared = Number(req.headers["content-length"] ?? 0);
        const bytes = chunked ? bodyLimit : Number.isFinite(declared) ? declared : 0;
        if (bytes < o.smallBytes) return next();
        let released = false;
        const release = (): void => {
          if (released) return;
          released = true;
          used -= bytes;
          pump();
        };
        // Held until the answer is sent or the connection closes: the body's bytes live that long.
        const hold = (): void => {
          res.once("close", release);
          next();
        };
        if (queue.length === 0 && (used === 0 || used + bytes <= o.maxBytes)) {
          used += bytes;
          return hold();
        }
        if (queue.length >= o.maxQueue) return refuse(req, res, next, bodyLimit);
        let done = false;
        const waiter: Waiter = {
          bytes,
          grant: () => {
            done = true;
            clearTimeout(timer);
            req.off("close", gone);
            hold();
          },
        };
        const leave = (): boolean => {
          if (done) return false;
          done = true;
          clearTimeout(timer);
          const i = queue.indexOf(waiter);
          if (i !== -1) queue.splice(i, 1);
          pump();
          return true;
        };
        const timer = setTimeout(() => {
          if (leave()) {
            req.off("close", gone);
            refuse(req, res, next, bodyLimit);
          }
        }, o.queueTimeoutMs);
        // A client that goes away while waiting leaves the queue.
        const gone = (): void => {
          leave();
        };
        req.once("close", gone);
        queue.push(waiter);
      };
    },
  };
}

/** The gate of a router's `bodyBudget` option: the shared budget's, a new budget's, or none (`false`). */
export function bodyGateFor(option: BodyBudget | BodyBudgetOptions | false | undefined, bodyLimit: number): RequestHandler {
  if (option === false) return (_req, _res, next) => next();
  const budget = option && "gate" in option ? option : createBodyBudget(option ?? {});
  return budget.gate(bodyLimit);
}
