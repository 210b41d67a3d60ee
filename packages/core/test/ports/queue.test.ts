import { describe, expect, it } from "vitest";
import { appendToLog, claimOrder, holdsLease, isClaimable, pickClaims, previousSecretSigns, WEBHOOK_LOG_LENGTH, type QueueItem } from "../../src/ports/queue.js";

const T = (s: number): string => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString();
const item = (id: string, due: number | null, leaseUntil: number | null = null, leaseOwner: string | null = null): QueueItem => ({
  id,
  nextAttemptAt: due === null ? null : T(due),
  leaseOwner,
  leaseUntil: leaseUntil === null ? null : T(leaseUntil),
});

describe("the queue rules", () => {
  it("claims an item due at or before now whose lease is absent or ran out at or before now", () => {
    expect(isClaimable(item("a", 10), T(10))).toBe(true);
    expect(isClaimable(item("a", 10), T(9))).toBe(false);
    expect(isClaimable(item("a", null), T(99))).toBe(false);
    expect(isClaimable(item("a", 10, 20, "x"), T(19))).toBe(false);
    expect(isClaimable(item("a", 10, 20, "x"), T(20))).toBe(true);
  });

  it("takes the oldest due first, ties by id, at most the limit", () => {
    const items = [item("c", 5), item("b", 5), item("a", 9), item("d", 1, 50, "x"), item("e", 100)];
    expect(pickClaims(items, T(10), 10).map((i) => i.id)).toEqual(["b", "c", "a"]);
    expect(pickClaims(items, T(10), 2).map((i) => i.id)).toEqual(["b", "c"]);
    expect(claimOrder(item("a", 1), item("b", 1))).toBeLessThan(0);
  });

  it("lets the lease's owner record, whatever the time, and nobody else", () => {
    expect(holdsLease(item("a", 1, 2, "x"), "x")).toBe(true);
    expect(holdsLease(item("a", 1, 2, "x"), "y")).toBe(false);
    expect(holdsLease(item("a", 1), "x")).toBe(false);
  });

  it("keeps the newest attempts of a webhook event's log, and a previous secret only before its expiry", () => {
    let log: number[] = [];
    for (let n = 1; n <= WEBHOOK_LOG_LENGTH + 2; n++) log = appendToLog(log, n);
    expect(log).toEqual(Array.from({ length: WEBHOOK_LOG_LENGTH }, (_, i) => i + 3));
    expect(previousSecretSigns(T(10), T(9))).toBe(true);
    expect(previousSecretSigns(T(10), T(10))).toBe(false);
    expect(previousSecretSigns(null, T(0))).toBe(false);
  });
});
