// Request bodies: the size limit, JSON bodies parsed or kept raw (as the chunks they arrived in), and
// what the body parser throws turned into our errors.
import { ApiError } from "@einvoice/core";
import express, { type Request, type RequestHandler } from "express";

/** 10 MiB: the contract's JSON body limit. */
export const DEFAULT_BODY_LIMIT = 10 * 1024 * 1024;

/** The 413 of a body over `limit` bytes. */
export function tooLarge(limit: number): ApiError {
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
 * Reads a JSON body as raw bytes, for routes whose core call parses it (`submitInvoiceBody`: a
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

export interface BodyParserError {
  type?: string;
  status?: number;
  message?: string;
  code?: string;
}

/** Turns what the body parser throws into our errors. */
export function fromBodyParser(err: BodyParserError, limit: number): ApiError | null {
  switch (err.type) {
    case "entity.too.large":
      return tooLarge(limit);
    case "entity.parse.failed": {
      // The parser's own message quotes the body: say where, not what.
      const at = /position (\d+)/.exec(err.message ?? "");
      return new ApiError("bad_request", `Request body is not valid JSON${at ? ` (at position ${at[1]})` : ""}.`);
    }
    case "charset.unsupported":
      return new ApiError("bad_request", `Request body encoding is not supported: send UTF-8 JSON.`);
    case "encoding.unsupported":
      // Content-Encoding, not the charset: compress, or two encodings such as "gzip, gzip".
      return new ApiError("bad_request", "Request body's Content-Encoding is not supported: send the body uncompressed, or compressed once with gzip, deflate or br.");
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
