// Request plumbing shared by the routers: JSON bodies, bearer tokens, query strings, errors.
import { randomUUID } from "node:crypto";
import { ApiError, EmptyQuerySchema, parseWith } from "@einvoice/core";
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { describeForLog, toHttp, type Logger } from "./http-errors.js";

/** 10 MiB: the contract's JSON body limit. */
export const DEFAULT_BODY_LIMIT = 10 * 1024 * 1024;

/** Runs an async handler and hands its failure to the error middleware (Express 4 and 5 alike). */
export function wrap(fn: (req: Request, res: Response) => Promise<void>): RequestHandler {
  return (req, res, next) => {
    fn(req, res).catch(next);
  };
}

/** The token of `Authorization: Bearer <token>`, or null when the header is missing or malformed. */
export function bearerToken(req: Request): string | null {
  const header = req.headers.authorization;
  if (typeof header !== "string") return null;
  const m = /^Bearer[ ]+([^\s]+)[ ]*$/i.exec(header);
  return m ? m[1]! : null;
}

/**
 * When an Authorization header is there but does not start with the Bearer scheme (a bare key, or
 * another scheme such as Basic): the message that says so and what to send. Null otherwise. It
 * never repeats the header's value.
 */
export function missingBearerScheme(req: Request, credential: string): string | null {
  const header = req.headers.authorization;
  if (typeof header !== "string" || header.trim() === "" || /^Bearer(?:[ \t]|$)/i.test(header.trim())) return null;
  return `The Authorization header is missing the Bearer scheme: send Authorization: Bearer <${credential}>.`;
}

function tooLarge(limit: number): ApiError {
  return new ApiError("payload_too_large", `Request body is larger than the limit of ${Math.round(limit / (1024 * 1024))} MiB.`);
}

/** Refuses a declared Content-Length over the limit before anything else looks at the request. */
export function declaredSizeLimit(limit: number): RequestHandler {
  return (req, _res, next) => {
    const declared = Number(req.headers["content-length"]);
    next(Number.isFinite(declared) && declared > limit ? tooLarge(limit) : undefined);
  };
}

/**
 * Parses a JSON body (any JSON value: the schemas say what shape is allowed). A request with no
 * body counts as `{}`; a body without a JSON content type is a 400.
 */
export function jsonBody(limit: number): RequestHandler[] {
  const parse = express.json({ limit, strict: false, type: JSON_TYPES });
  return [
    parse,
    (req, _res, next) => {
      if (req.body !== undefined) return next();
      if (hasBody(req)) return next(new ApiError("bad_request", "Content-Type must be application/json."));
      req.body = {};
      next();
    },
  ];
}

/**
 * Reads a JSON body as raw bytes, for routes whose core call parses it (`submitInvoiceJson`: a
 * large body is parsed off the event loop). `req.body` is the chunks as they arrived (a Buffer[],
 * never joined here: a large body is joined on the worker that reads it), or for a compressed body
 * (Content-Encoding) the inflated Buffer. A request with no body gets `req.body` undefined; a body
 * without a JSON content type, or in a charset other than UTF-8, is a 400; more than `limit`
 * bytes is a 413, and a body cut off before its end a 400.
 */
export function rawJsonBody(limit: number): RequestHandler[] {
  const inflate = express.raw({ limit, type: JSON_TYPES });
  return [
    (req, _res, next) => {
      const charset = /;\s*charset=("?)([^";]+)\1/i.exec(req.headers["content-type"] ?? "")?.[2]?.toLowerCase();
      if (charset && charset !== "utf-8" && charset !== "utf8") {
        return next(new ApiError("bad_request", "Request body encoding is not supported: send UTF-8 JSON."));
      }
      next();
    },
    (req, res, next) => {
      const encoding = req.headers["content-encoding"]?.trim().toLowerCase();
      // Compressed bodies (and the cases body-parser leaves alone: no body, another type) go to body-parser.
      if ((encoding !== undefined && encoding !== "identity") || !hasBody(req) || !req.is(JSON_TYPES)) return inflate(req, res, next);
      readChunks(req, limit).then((chunks) => {
        req.body = chunks;
        next();
      }, next);
    },
    (req, _res, next) => {
      if (req.body !== undefined) return next();
      next(hasBody(req) ? new ApiError("bad_request", "Content-Type must be application/json.") : undefined);
    },
  ];
}

/**
 * The body's chunks, kept as they arrived (not joined: see rawJsonBody). Past `limit` bytes the
 * rest is read and dropped, then 413, so that the answer can still be sent on the connection (as
 * body-parser does); a body cut off (the client went away, or the socket failed) is a 400.
 */
function readChunks(req: Request, limit: number): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const settle = (error: ApiError | null): void => {
      if (settled) return;
      settled = true;
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("close", onClose);
      req.off("error", onError);
      if (error) reject(error);
      else resolve(chunks);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limit) chunks.length = 0;
      else chunks.push(chunk);
    };
    const onEnd = (): void => settle(received > limit ? tooLarge(limit) : null);
    const cutOff = (): void => settle(new ApiError("bad_request", "Request body was not received whole."));
    const onClose = (): void => {
      if (!req.complete) cutOff();
    };
    const onError = cutOff;
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("close", onClose);
    req.on("error", onError);
  });
}

/** Whether the request says a body follows: a Content-Length above 0, or a Transfer-Encoding. */
function hasBody(req: Request): boolean {
  return req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
}

const JSON_TYPES = ["application/json", "application/*+json"];

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

interface BodyParserError {
  type?: string;
  status?: number;
  message?: string;
  code?: string;
}

/** Turns what the body parser throws into our errors. */
function fromBodyParser(err: BodyParserError, limit: number): ApiError | null {
  switch (err.type) {
    case "entity.too.large":
      return tooLarge(limit);
    case "entity.parse.failed": {
      // The parser's own message quotes the body: say where, not what.
      const at = /position (\d+)/.exec(err.message ?? "");
      return new ApiError("bad_request", `Request body is not valid JSON${at ? ` (at position ${at[1]})` : ""}.`);
    }
    case "charset.unsupported":
    case "encoding.unsupported":
      return new ApiError("bad_request", `Request body encoding is not supported: send UTF-8 JSON.`);
    case "request.aborted":
    case "request.size.invalid":
    case "stream.encoding.set":
      return new ApiError("bad_request", "Request body was not received whole.");
    default:
      // A body that does not inflate (Content-Encoding gzip, deflate or br over bytes that are not):
      // zlib's error, passed on by body-parser as a 400 without a type.
      // zlib's codes are Z_DATA_ERROR and the like, the Brotli decoder's ERR__ERROR_FORMAT_… .
      if (typeof err.code === "string" && (err.code.startsWith("Z_") || err.code.startsWith("ERR__ERROR_"))) {
        return new ApiError("bad_request", "Request body could not be decompressed: it does not match its Content-Encoding.");
      }
      return null;
  }
}

/** The error middleware of a router: documented errors get their status and body; anything else a logged generic 500. */
export function errorHandler(logger: Logger, limit: number) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    // A URL that does not decode and that `malformedPath` did not answer (an app's own route): 404, not an error.
    if (err instanceof URIError && !res.headersSent) {
      notFound()(req, res, _next);
      return;
    }
    let error: ApiError;
    if (err instanceof ApiError) error = err;
    else {
      const parsed = typeof err === "object" && err !== null ? fromBodyParser(err as BodyParserError, limit) : null;
      error = parsed ?? new ApiError("internal_error", "Unexpected error.", { cause: err });
    }
    if (error.code === "internal_error") {
      logger.error({ ...describeForLog(error), method: req.method, path: req.path, requestId: requestIdOf(req) }, "request failed");
    }
    const { status, body } = toHttp(error);
    if (res.headersSent) return;
    res.status(status).json(body);
  };
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
    const { status, body } = toHttp(new ApiError("route_not_found", `Cannot ${req.method} ${req.originalUrl.split("?")[0]}`));
    res.status(status).json(body);
  };
}

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
