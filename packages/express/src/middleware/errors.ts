// Failures of a handler: `wrap` hands an async handler's rejection on, `errorHandler` answers it.
import { ApiError } from "@einvoice/core";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { describeForLog, toHttp, type Logger } from "../http-errors.js";
import { fromBodyParser, type BodyParserError } from "./body.js";
import { notFound } from "./paths.js";
import { requestIdOf } from "./request.js";

/** Runs an async handler and hands its failure to the error middleware (Express 4 and 5 alike). */
export function wrap(fn: (req: Request, res: Response) => Promise<void>): RequestHandler {
  return (req, res, next) => {
    fn(req, res).catch(next);
  };
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
    } else if (error.code === "storage_unavailable") {
      // An outage of the database, not a fault of this request: logged once, with the cause's name and code.
      (logger.warn ?? logger.error).call(logger, { ...describeForLog(error), method: req.method, path: req.path, requestId: requestIdOf(req) }, "storage unavailable");
    }
    const { status, body, headers } = toHttp(error);
    if (res.headersSent) return;
    if (headers) res.set(headers);
    res.status(status).json(body);
  };
}
