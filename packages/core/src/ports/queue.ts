// The rules of the stores' two queues (the dispatcher's `sending` submissions, the webhook sender's
// `pending` events), decided here once. The memory store applies these functions; the PostgreSQL store
// takes its statements' parameters from them and states the claim once in SQL (packages/postgres's
// claimable()), and the conformance suites (@einvoice/core/testing) hold both to the same answers.
// The workers decide the rest and hand it to the store: how long a lease lasts (`leaseMs`, as the claim's
// `leaseUntil`), the attempt count and the next due time (`backoffDelay`, domain/backoff.ts).

/** What the rules read of a queue item: when its next attempt is due, who holds it, until when. */
export interface QueueItem {
  id: string;
  /** Null: nothing more to attempt (delivered, failed, given up). */
  nextAttemptAt: string | null;
  leaseOwner: string | null;
  leaseUntil: string | null;
}

/** Due at `now`: its next attempt is at or before `now`. */
export const isDue = (item: Pick<QueueItem, "nextAttemptAt">, now: string): boolean => item.nextAttemptAt !== null && item.nextAttemptAt <= now;

/** Free at `now`: nobody holds it, or the lease ran out at or before `now` (its holder stopped or died). */
export const isLeaseFree = (item: Pick<QueueItem, "leaseUntil">, now: string): boolean => item.leaseUntil === null || item.leaseUntil <= now;

/** A claim at `now` may take the item: due and free. */
export const isClaimable = (item: Pick<QueueItem, "nextAttemptAt" | "leaseUntil">, now: string): boolean => isDue(item, now) && isLeaseFree(item, now);

/**
 * `owner` holds the item's lease: the owner is checked, not the expiry. A lease past its time that no
 * claim took since is still its owner's; the next claim is what takes it away (and fences the old owner).
 */
export const holdsLease = (item: Pick<QueueItem, "leaseOwner">, owner: string): boolean => item.leaseOwner !== null && item.leaseOwner === owner;

/** The order claims take items in: the oldest due first, then by id (lower-case UUIDs, compared as text). */
export function claimOrder(a: Pick<QueueItem, "id" | "nextAttemptAt">, b: Pick<QueueItem, "id" | "nextAttemptAt">): number {
  const at = (a.nextAttemptAt ?? "") < (b.nextAttemptAt ?? "") ? -1 : (a.nextAttemptAt ?? "") > (b.nextAttemptAt ?? "") ? 1 : 0;
  return at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** What a claim takes of `items`: the claimable ones at `now`, in claim order, at most `limit`. */
export function pickClaims<T extends Pick<QueueItem, "id" | "nextAttemptAt" | "leaseUntil">>(items: Iterable<T>, now: string, limit: number): T[] {
  const due: T[] = [];
  for (const item of items) if (isClaimable(item, now)) due.push(item);
  return due.sort(claimOrder).slice(0, Math.max(0, limit));
}

/** When a new submission's first attempt is due: at once (its creation time) when it is `sending`, else never. */
export const firstAttemptAt = (status: string, createdAt: string): string | null => (status === "sending" ? createdAt : null);

/** Whether a recorded attempt keeps the network's saved delivery state: only while the submission stays `sending`. */
export const keepsDeliveryState = (status: string): boolean => status === "sending";

/** How many attempts a webhook event's log keeps (the newest). */
export const WEBHOOK_LOG_LENGTH = 20;

/** A webhook event's log with `attempt` appended, cut to the newest `WEBHOOK_LOG_LENGTH`. */
export const appendToLog = <A>(log: readonly A[], attempt: A): A[] => [...log, attempt].slice(-WEBHOOK_LOG_LENGTH);

/** Whether the secret before the last rotation still signs at `now` (its expiry is after `now`). */
export const previousSecretSigns = (expiresAt: string | null | undefined, now: string): boolean => expiresAt != null && expiresAt > now;
