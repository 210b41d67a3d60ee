// The network port (where accepted invoices are delivered) and the deterministic sandbox network.
import type { Network, ParticipantId } from "./types.js";

/** What the dispatcher hands a network for one delivery attempt. */
export interface SendRequest {
  /** The submission id. */
  submissionId: string;
  /**
   * Stable for every attempt of one submission: a network MUST use it so that a resend after a
   * crash (the same key) never delivers the invoice twice.
   */
  idempotencyKey: string;
  /** The decoded UBL document, byte for byte as submitted. */
  document: Uint8Array;
  /** The routing decision: the chosen network and the recipient's participant identifier. */
  routing: { network: Network; recipient: ParticipantId };
  /** The sender's legal entity at the access point (the company's `legalEntityId`). */
  legalEntityId: string;
  /** 1 for the first attempt, 2 for the first retry, ... */
  attempt: number;
}

/** The answer of a network to one attempt. */
export type SendOutcome =
  | { outcome: "delivered"; detail?: string }
  /** A transient failure: try again later (`retryAfterMs` is the network's hint, if any). */
  | { outcome: "retry"; reason: string; retryAfterMs?: number }
  /** A permanent failure: the invoice will never be delivered as it is. */
  | { outcome: "failed"; reason: string };

/**
 * A network port. `send` MUST NOT throw for answers of the network (map them to an outcome);
 * a throw is treated as a transient failure. It MUST be safe to call again with the same
 * `idempotencyKey` (a lease expired while the first call was in flight).
 *
 * Run `testNetwork(factory)` from `@einvoice/core/testing` against any implementation.
 */
export interface NetworkPort {
  readonly name: string;
  send(request: SendRequest): Promise<SendOutcome>;
}

/**
 * The sandbox network: deterministic, for development and tests. It delivers after `delayMs`
 * (default 200 ms, "within a second"); a recipient value containing `unreachable` (any case)
 * fails permanently; one containing `flaky` fails transiently on attempts 1 and 2, then delivers.
 * Like a real access point it honours the idempotency key: a resend of a delivered key is answered
 * `delivered` again without a second delivery. `calls` counts every call per key; `delivered` holds
 * the keys delivered once.
 *
 * @example createDispatcher({ store, networks: { peppol: sandboxNetwork(), ksef: sandboxNetwork() } })
 */
export function sandboxNetwork(options: { delayMs?: number; name?: string } = {}): NetworkPort & {
  readonly calls: ReadonlyMap<string, number>;
  readonly delivered: ReadonlySet<string>;
} {
  const delayMs = options.delayMs ?? 200;
  const calls = new Map<string, number>();
  const delivered = new Set<string>();
  return {
    name: options.name ?? "sandbox",
    calls,
    delivered,
    async send(req) {
      calls.set(req.idempotencyKey, (calls.get(req.idempotencyKey) ?? 0) + 1);
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      if (delivered.has(req.idempotencyKey)) return { outcome: "delivered", detail: "Already delivered (idempotent replay)." };
      const value = req.routing.recipient.value.toLowerCase();
      if (value.includes("unreachable")) {
        return { outcome: "failed", reason: `The sandbox cannot reach ${req.routing.recipient.scheme}:${req.routing.recipient.value} (the recipient is unreachable).` };
      }
      if (value.includes("flaky") && req.attempt <= 2) {
        return { outcome: "retry", reason: `The sandbox access point is temporarily unavailable (attempt ${req.attempt} of a flaky recipient).` };
      }
      delivered.add(req.idempotencyKey);
      return { outcome: "delivered", detail: `Delivered by the sandbox to ${req.routing.recipient.scheme}:${req.routing.recipient.value}.` };
    },
  };
}
