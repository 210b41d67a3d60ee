// What every answer carries: the API's headers and the request id.
import { randomUUID } from "node:crypto";
import type { Request, RequestHandler } from "express";

/** Headers every answer of the API carries. */
export function apiHeaders(): RequestHandler {
  return (_req, res, next) => {
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("X-Content-Type-Options", "nosniff");
    next();
  };
}

/** A request id we take from a client or a proxy: short, and nothing that could break a log line. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The id of the request (`req.id`, as pino-http and the `requestId` middleware set it), if any. */
export function requestIdOf(req: Request): string | undefined {
  const id = (req as Request & { id?: unknown }).id;
  return typeof id === "string" || typeof id === "number" ? String(id) : undefined;
}

/**
 * Gives every request an id and every answer an `X-Request-Id` header: the id set earlier on
 * `req.id` (by the app, or pino-http), else a well-formed `X-Request-Id` sent by the client or a
 * proxy (up to 64 of `A-Z a-z 0-9 . _ : -`), else a new UUID. Error logs carry it as `requestId`.
 */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    let id = requestIdOf(req);
    if (id === undefined) {
      const sent = req.headers["x-request-id"];
      id = typeof sent === "string" && REQUEST_ID.test(sent) ? sent : randomUUID();
      (req as Request & { id?: unknown }).id = id;
    }
    res.setHeader("X-Request-Id", id);
    next();
  };
}
