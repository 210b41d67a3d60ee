// The one translation from errors to HTTP answers: status from the core's table, body by kind.
import { ApiError, ERROR_STATUS, hasCodeBody } from "@einvoice/core";

/** Logs what the HTTP layer reports. pino's `logger.error(obj, msg)` fits; so does the default. */
export interface Logger {
  error(obj: Record<string, unknown>, msg: string): void;
  warn?(obj: Record<string, unknown>, msg: string): void;
}

/** Writes one JSON line per error to stderr: the error's code and kind, never a stack, SQL or key. */
export const stderrLogger: Logger = {
  error(obj, msg) {
    process.stderr.write(JSON.stringify({ level: "error", time: new Date().toISOString(), msg, ...obj }) + "\n");
  },
};

export interface HttpAnswer {
  status: number;
  body: Record<string, unknown>;
  /** Headers the answer carries: `Retry-After` of a `storage_unavailable`. */
  headers?: Record<string, string>;
}

/** The `Retry-After` (seconds) of a 503 `storage_unavailable`: a database restart or failover takes a few seconds. */
export const STORAGE_RETRY_AFTER_SECONDS = 5;

const REASONS: Record<number, string> = {
  400: "Bad Request",
  413: "Payload Too Large",
};

/**
 * The `{statusCode, message, error}` body of the statuses whose shape the seed fixes (400, 413). A 400
 * also carries `code: "invalid_request"` and its `message` is always an array (one entry per
 * problem), so that a client reads every error by `code`.
 */
function statusBody(status: number, message: string | string[]): Record<string, unknown> {
  if (status === 400) return { statusCode: 400, message: Array.isArray(message) ? message : [message], error: REASONS[400], code: "invalid_request" };
  return { statusCode: status, message, error: REASONS[status] ?? "Error" };
}

/**
 * The status and body for an `ApiError`, as contract sections 1 to 3 and 7 describe them: the one
 * path of every error answer (unknown routes and rate limits included).
 */
export function toHttp(error: ApiError): HttpAnswer {
  const status = ERROR_STATUS[error.code];
  if (error.code === "internal_error") return { status, body: { statusCode: 500, message: "Internal server error" } };
  if (error.code === "storage_unavailable") {
    return { status, body: { code: error.code, message: error.message }, headers: { "Retry-After": String(STORAGE_RETRY_AFTER_SECONDS) } };
  }
  if (hasCodeBody(error.code)) {
    return { status, body: { code: error.code, message: error.message, ...(error.errors ? { errors: error.errors } : {}) } };
  }
  return { status, body: statusBody(status, error.details ?? error.message) };
}

/** What a log line may say about an unexpected error: names and codes, not messages that may hold data. */
export function describeForLog(e: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (e instanceof ApiError) {
    out.code = e.code;
    out.message = e.message;
    const cause = e.cause;
    if (cause instanceof Error) {
      out.cause = cause.name;
      const causeCode = (cause as { code?: unknown }).code;
      if (typeof causeCode === "string") out.causeCode = causeCode;
    }
  } else if (e instanceof Error) {
    out.error = e.name;
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") out.errorCode = code;
  } else {
    out.error = typeof e;
  }
  return out;
}
