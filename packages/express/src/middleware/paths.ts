// What a route takes from the URL: paths that must decode, the raw query string, no query at all, and
// the JSON 404 of a request no route took.
import { ApiError, EmptyQuerySchema, parseWith } from "@einvoice/core";
import type { Request, RequestHandler } from "express";
import { toHttp } from "../http-errors.js";

/**
 * The query string as an object: each parameter given once is a string, a repeated one an array
 * (so the schemas can refuse it). Read from the raw URL, whatever query parser the app has set.
 */
export function rawQuery(req: Request): Record<string, string | string[]> {
  const q = req.originalUrl.indexOf("?");
  const out: Record<string, string | string[]> = {};
  if (q === -1) return out;
  for (const [k, v] of new URLSearchParams(req.originalUrl.slice(q + 1))) {
    const prev = Object.hasOwn(out, k) ? out[k] : undefined;
    // defineProperty, not assignment: `__proto__` (or `constructor`) is a parameter like any other,
    // which the schemas then refuse by name, not a way to reach the object's prototype.
    Object.defineProperty(out, k, {
      value: prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** Whether every segment of a URL path decodes (`%` followed by two hex digits, forming valid UTF-8). */
export function pathDecodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Answers a path that does not decode (`/invoices/%`, `/invoices/%ff`: a stray `%` or bytes that
 * are not UTF-8) with 404 before anything else, as any malformed id is: Express would otherwise
 * fail to decode the route's parameter and hand its URIError on as an unexpected error (500).
 * `notFoundFor` picks the 404's error by the path (`invoice_not_found` under `/invoices/…`); a path
 * it does not know gets the plain 404 of `notFound`. Runs before authentication and rate limits:
 * a path that names nothing needs neither, and costs no more than the plain 404.
 */
export function malformedPath(notFoundFor: (path: string) => ApiError | null): RequestHandler {
  return (req, res, next) => {
    if (pathDecodes(req.path)) return next();
    const error = notFoundFor(req.path);
    if (!error) return notFound()(req, res, next);
    const { status, body } = toHttp(error);
    res.status(status).json(body);
  };
}

/** Refuses any query parameter (for endpoints that take none). */
export function noQuery(): RequestHandler {
  return (req, _res, next) => {
    try {
      parseWith(EmptyQuerySchema, rawQuery(req));
      next();
    } catch (e) {
      next(e);
    }
  };
}

/** Answers any request no route took with a JSON 404 `route_not_found`. */
export function notFound(): RequestHandler {
  return (req, res) => {
    // The path as asked, cut after 200 characters (a path may hold thousands).
    const path = req.originalUrl.split("?")[0]!;
    const shown = path.length <= 200 ? path : `${path.slice(0, 200)}… (${path.length} characters)`;
    const { status, body } = toHttp(new ApiError("route_not_found", `Cannot ${req.method} ${shown}`));
    res.status(status).json(body);
  };
}
