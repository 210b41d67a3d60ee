// The network port: where accepted invoices are delivered.
import type { Network, ParticipantId } from "../domain/types.js";

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
  /** The sending company's id (a network that authenticates per company looks its credential up by it). */
  companyId: string;
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
