// The Authorization header: the bearer token, and the message for a header without the Bearer scheme.
import type { Request } from "express";

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
