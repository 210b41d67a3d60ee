// Idempotent retries (`Idempotency-Key`, as Stripe defines it): the same key and request within 24 h
// replay the first answer; another request with the key is refused; a key in flight is a 409.
import { createHash } from "node:crypto";
import { ApiError, badRequest } from "../domain/errors.js";
import type { AuthContext } from "../domain/types.js";
import type { IdempotencyStore, Store } from "../ports/store.js";
import { guardStore, resolveOptions, type CoreOptions } from "./options.js";

/** How long a key replays its first answer. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/** How long a key stays `in_progress` before another request may take it (its instance died). */
export const IDEMPOTENCY_LOCK_MS = 60_000;
/** A key: 1 to 255 visible ASCII characters (a UUID v4 is what clients usually send). */
const KEY = /^[\x21-\x7e]{1,255}$/;

/** An answer as it is kept and replayed. */
export interface IdempotentAnswer {
  status: number;
  /** The JSON body. */
  body: unknown;
}

/** Whether the store keeps idempotency keys. */
export function keepsIdempotencyKeys(store: Store): store is Store & IdempotencyStore {
  return typeof (store as Partial<IdempotencyStore>).beginIdempotentRequest === "function";
}

/**
 * The fingerprint of a request: the SHA-256 of its endpoint and its body's bytes, so that the same
 * key sent with another body, or to the other endpoint, is recognised as reused.
 */
export function requestFingerprint(endpoint: string, body: ReadonlyArray<Uint8Array> | Uint8Array | string): string {
  const h = createHash("sha256").update(endpoint).update("\n");
  if (typeof body === "string" || body instanceof Uint8Array) h.update(body);
  else for (const chunk of body) h.update(chunk);
  return h.digest("hex");
}

/**
 * Runs `run` once per company and `Idempotency-Key`: the first request with a key runs and its
 * answer is kept (a success, and the errors of a request that was processed: 403, 409, 422); a
 * later request with the same key and fingerprint within 24 h gets that answer back
 * (`replayed: true`) without running. The same key with another fingerprint is a 422
 * `idempotency_key_reused`; a key whose request is still running is a 409
 * `idempotency_in_progress`. As at Stripe, a request refused before it was processed (a 400: its
 * body's shape) or that failed (a throw, a 5xx) keeps nothing: the key is free again and a retry
 * runs afresh. A malformed key is a 400.
 *
 * `run` gets the key's `resourceId`: the id under which it MUST create what it creates (a submission:
 * `submitInvoice`'s `submissionId` option), and finding it already created, answer with it instead
 * of creating it again. A request whose instance died after it created its resource and before its
 * answer was kept (kill -9) leaves its key in progress; the retry that takes the key over gets the
 * same `resourceId`, finds the resource, and gets the answer the first request would have given.
 *
 * @example const { answer, replayed } = await idempotent(store, auth, { key, fingerprint }, ({ resourceId }) => handle(resourceId))
 */
export async function idempotent(
  store: Store & IdempotencyStore,
  auth: AuthContext,
  request: { key: string; fingerprint: string },
  run: (key: { resourceId: string }) => Promise<IdempotentAnswer>,
  options?: CoreOptions,
): Promise<{ answer: IdempotentAnswer; replayed: boolean }> {
  if (!KEY.test(request.key)) {
    throw badRequest(["Idempotency-Key must be 1 to 255 visible ASCII characters (such as a UUID)"]);
  }
  const o = resolveOptions(options);
  const s = guardStore(store);
  const now = o.now();
  const nowMs = Date.parse(now);
  const ids = { companyId: auth.companyId, key: request.key, fingerprint: request.fingerprint };
  const begun = await s.beginIdempotentRequest({
    ...ids,
    now,
    lockedUntil: new Date(nowMs + IDEMPOTENCY_LOCK_MS).toISOString(),
    expiredBefore: new Date(nowMs - IDEMPOTENCY_TTL_MS).toISOString(),
    resourceId: o.newId(),
  });
  if (begun.state !== "started") {
    if (begun.fingerprint !== request.fingerprint) {
      throw new ApiError(
        "idempotency_key_reused",
        "This Idempotency-Key was used with another request (another body or endpoint) in the last 24 hours: send a new key for a new request.",
      );
    }
    if (begun.state === "in_progress") {
      throw new ApiError("idempotency_in_progress", "A request with this Idempotency-Key is still being processed: retry once it has been answered.");
    }
    return { answer: { status: begun.status, body: JSON.parse(begun.body) as unknown }, replayed: true };
  }
  let answer: IdempotentAnswer;
  try {
    answer = await run({ resourceId: begun.resourceId });
  } catch (e) {
    await s.abandonIdempotentRequest(ids).catch(() => undefined);
    throw e;
  }
  if (answer.status >= 500 || answer.status === 400) await s.abandonIdempotentRequest(ids);
  else await s.completeIdempotentRequest({ ...ids, status: answer.status, body: JSON.stringify(answer.body) });
  return { answer, replayed: false };
}
