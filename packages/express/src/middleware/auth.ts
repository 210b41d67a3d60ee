// The Authorization header: the bearer token, and the message for a header that gives none.
import type { Request } from "express";

/** The token of `Authorization: Bearer <token>`, or null when the header is missing or malformed. */
export function bearerToken(req: Request): string | null {
  const header = req.headers.authorization;
  if (typeof header !== "string") return null;
  const m = /^Bearer[ ]+([^\s]+)[ ]*$/i.exec(header);
  return m ? m[1]! : null;
}

/**
 * What is wrong with an Authorization header that is there but gives no token: it lacks the Bearer
 * scheme (a bare key, or another scheme such as Basic), or after the scheme comes more than one token
 * or a separator other than spaces. The message says so and what to send; it never repeats the
 * header's value. Null when there is no header, a blank one, the scheme alone, or a token.
 */
export function authorizationProblem(req: Request, credential: string): string | null {
  const header = req.headers.authorization;
  if (typeof header !== "string" || header.trim() === "") return null;
  const trimmed = header.trim();
  if (!/^Bearer(?:[ \t]|$)/i.test(trimmed)) return `The Authorization header is missing the Bearer scheme: send Authorization: Bearer <${credential}>.`;
  if (bearerToken(req) !== null || /^Bearer$/i.test(trimmed)) return null;
  return `The Authorization header is malformed: send Authorization: Bearer <${credential}>, the scheme, one space and the ${credential} alone.`;
}
