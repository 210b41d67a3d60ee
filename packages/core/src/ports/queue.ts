// The rules of the stores' two queues (the dispatcher's `sending` submissions, the webhook sender's
// `pending` events), decided here once: when an item is due, who may claim it, who holds a lease, the
// claim order and its fairness among companies, the webhook endpoints' circuits. The memory store applies these functions; the PostgreSQL store
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

/** A company's share of one worker's places by default: half of them, rounded up (at least 1). */
export const companyShare = (places: number): number => Math.max(1, Math.ceil(places / 2));

/** `owner` holds the item under a lease still running at `now` (an attempt in flight). */
export const leasedBy = (item: Pick<QueueItem, "leaseOwner" | "leaseUntil">, owner: string, now: string): boolean => holdsLease(item, owner) && !isLeaseFree(item, now);

/** The fairness of a claim: whose places are shared, each company's share of them, and how an item names its company. */
export interface ClaimFairness<T> {
  owner: string;
  /** At most this many of the owner's live leases per company; undefined: no cap (the order is still round-robin). */
  perCompany?: number | undefined;
  /** The owner's places taken by company (its attempts in flight): counted instead of its live leases when given. */
  held?: Readonly<Record<string, number>> | undefined;
  companyOf(item: T): string;
}

/**
 * What a claim takes of `items` (the whole queue, leased items included): the claimable ones at `now`,
 * at most `limit`. Without `fair`, in claim order (oldest due first). With it, shared among companies:
 *
 * - an item's **rank** is its company's places taken (`held`, the owner's attempts in flight, when
 *   given; else the number of the owner's live leases on its company's items) plus the number of its
 *   company's claimable items before it in claim order;
 * - an item of rank `perCompany` or more is not taken: one company never holds more than `perCompany`
 *   of one worker's places, whatever its backlog, so the rest stay free for the other companies;
 * - the items are taken by rank, then in claim order: round-robin by company, the company with the
 *   fewest attempts in flight first, and within a company the oldest due first.
 *
 * So another company's item waits for at most one claim, never behind a company's backlog.
 */
export function pickClaims<T extends Pick<QueueItem, "id" | "nextAttemptAt" | "leaseOwner" | "leaseUntil">>(items: Iterable<T>, now: string, limit: number, fair?: ClaimFairness<T>): T[] {
  const due: T[] = [];
  const held = new Map<string, number>();
  for (const item of items) {
    if (isClaimable(item, now)) due.push(item);
    else if (fair && !fair.held && leasedBy(item, fair.owner, now)) held.set(fair.companyOf(item), (held.get(fair.companyOf(item)) ?? 0) + 1);
  }
  if (fair?.held) for (const [company, n] of Object.entries(fair.held)) held.set(company, n);
  due.sort(claimOrder);
  if (!fair) return due.slice(0, Math.max(0, limit));
  const cap = fair.perCompany ?? Infinity;
  const ranked: { item: T; rank: number; order: number }[] = [];
  const seen = new Map<string, number>();
  due.forEach((item, order) => {
    const company = fair.companyOf(item);
    const before = seen.get(company) ?? 0;
    seen.set(company, before + 1);
    const rank = (held.get(company) ?? 0) + before;
    if (rank < cap) ranked.push({ item, rank, order });
  });
  return ranked
    .sort((a, b) => a.rank - b.rank || a.order - b.order)
    .slice(0, Math.max(0, limit))
    .map((r) => r.item);
}

/**
 * The circuit of one webhook endpoint (a company's URL; the same URL of two companies is two
 * endpoints): its failures in a row and until when it is paused. No record: closed, no failure.
 */
export interface EndpointCircuit {
  failures: number;
  /** Null: closed. After `now`: open (paused). At or before `now`: half-open (the pause is over, no success yet). */
  pausedUntil: string | null;
}

/**
 * The endpoint's circuit at `now`: `closed` (claims take its events), `open` (claims take none of its
 * events: they wait for the pause, their own due times and attempt counts untouched) or `half-open`
 * (claims take one of its events at a time, the oldest due: a probe, whose outcome closes the circuit
 * or pauses it again).
 */
export function circuitAt(circuit: EndpointCircuit | null | undefined, now: string): "closed" | "open" | "half-open" {
  if (!circuit || circuit.pausedUntil === null) return "closed";
  return circuit.pausedUntil > now ? "open" : "half-open";
}

/** What a recorded attempt does to its endpoint's circuit (`WebhookStore.completeWebhookEvent`'s `circuit`). */
export interface CircuitUpdate {
  /** Consecutive failures from which the endpoint is paused. */
  threshold: number;
  /** Until when a failure at or past the threshold pauses it. */
  pauseUntil: string;
}

/**
 * The endpoint's circuit after an attempt: a success (`delivered`) closes it (no failures, no pause);
 * any other outcome adds a failure, and from `threshold` failures on pauses it until `pauseUntil` (or
 * the later pause it already has).
 */
export function circuitAfter(circuit: EndpointCircuit | null | undefined, delivered: boolean, update: CircuitUpdate): EndpointCircuit {
  if (delivered) return { failures: 0, pausedUntil: null };
  const failures = (circuit?.failures ?? 0) + 1;
  const before = circuit?.pausedUntil ?? null;
  if (failures < update.threshold) return { failures, pausedUntil: before };
  return { failures, pausedUntil: before !== null && before > update.pauseUntil ? before : update.pauseUntil };
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
