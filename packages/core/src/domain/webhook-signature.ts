// Signing and verifying webhook deliveries: `Einvoice-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`.
import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The signature header value for `rawBody` sent at `timestamp` (unix seconds): one `v1=` entry per
 * secret (two during a rotation, the new secret's first, as Stripe does).
 */
export function signWebhook(secret: string | readonly string[], timestamp: number, rawBody: string | Uint8Array): string {
  const secrets = typeof secret === "string" ? [secret] : secret;
  const macs = secrets.map((s) => `v1=${createHmac("sha256", s).update(`${timestamp}.`).update(rawBody).digest("hex")}`);
  return `t=${timestamp},${macs.join(",")}`;
}

export interface VerifyOptions {
  /** How old (or how far in the future) the timestamp may be. Default 300 s. */
  toleranceSeconds?: number;
  /** Now, in unix seconds (tests). Default: the clock. */
  now?: number;
}

/**
 * Checks an `Einvoice-Signature` header against the raw request body, in constant time, and
 * refuses a stale timestamp (replays). Use the raw body bytes exactly as received, not re-serialised JSON.
 *
 * @example
 * app.post("/hooks", express.raw({ type: "application/json" }), (req, res) => {
 *   if (!verifyWebhookSignature(secret, req.get("Einvoice-Signature"), req.body)) return res.status(400).end()
 *   res.status(204).end()
 * })
 */
export function verifyWebhookSignature(
  secret: string,
  header: string | null | undefined,
  rawBody: string | Uint8Array,
  options: VerifyOptions = {},
): boolean {
  if (!header || !secret) return false;
  let timestamp: number | null = null;
  const candidates: string[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === "t" && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === "v1" && /^[0-9a-f]{64}$/.test(value)) candidates.push(value);
  }
  if (timestamp === null || candidates.length === 0) return false;
  const tolerance = options.toleranceSeconds ?? 300;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > tolerance) return false;
  const expected = Buffer.from(signWebhook(secret, timestamp, rawBody).slice(-64), "hex");
  let ok = false;
  for (const c of candidates) ok = timingSafeEqual(Buffer.from(c, "hex"), expected) || ok;
  return ok;
}
