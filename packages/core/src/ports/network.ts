// The network port's sending side: where accepted invoices are delivered. Its receiving side is `InboundSource`
// (ports/inbound.ts): a network that does both (KSeF, Storecove) has one adapter of each, sharing their HTTP client.
import type { KsefCredential } from "../domain/token-cipher.js";
import type { Network, ParticipantId } from "../domain/types.js";
import type { ModelNode } from "../domain/xml-node.js";

export type { ModelNode } from "../domain/xml-node.js";

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
  /**
   * The document read into the core's model (`parseXml`, the tree the validation rules read), on
   * the first call, once per attempt: a network that maps the invoice into another format (KSeF:
   * FA(3)) reads this instead of parsing `document`, and one that sends the bytes as they are never
   * pays for it. Throws an Error when the stored bytes are not UTF-8 XML (they were checked at
   * submission: only a damaged store).
   */
  model(): ModelNode;
  /**
   * On the `ksef` route, when the dispatcher has a `tokenCipher`: the sending company's KSeF
   * credential, its NIP and its token decrypted (`readKsefCredential`); null when the company has
   * none. Absent on other routes and without a cipher. A token the cipher cannot read never gets
   * here: the dispatcher retries the attempt instead, with the reason the operator acts on. Secret:
   * a network MUST NOT log it nor put it into an outcome.
   */
  ksefCredential?: KsefCredential | null;
  /**
   * On the `ksef` route, for a credit note: each invoice it corrects (BG-3: BT-25 number, BT-26
   * issue date, as the document holds them) with the KSeF number this service got for it when it
   * delivered it to KSeF, else null. A credit note whose corrected invoice is still being delivered
   * never gets here: the dispatcher retries it. Absent for an invoice and on other routes.
   */
  correctedInvoices?: { number: string; issueDate: string; ksefNumber: string | null }[];
  /**
   * The routing decision: the chosen network and the recipient's participant identifier. The
   * recipient is null only on the `ksef` route, for an invoice that names no Peppol recipient (a
   * consumer, or a buyer without a Peppol identifier: the buyer receives it in KSeF).
   */
  routing: { network: Network; recipient: ParticipantId | null };
  /** The sending company's id. */
  companyId: string;
  /** The sender's legal entity at the access point (the company's `legalEntityId`). */
  legalEntityId: string;
  /** 1 for the first attempt, 2 for the first retry, ... */
  attempt: number;
  /**
   * What earlier attempts of this submission saved with `saveState`, or null when none did. It
   * survives restarts and reaches whichever dispatcher makes the next attempt.
   */
  state: string | null;
  /**
   * Saves `state` durably for the later attempts of this submission; resolves once it is stored.
   * At most `DELIVERY_STATE_MAX_BYTES` of UTF-8 text, without U+0000. Rejects when it is larger,
   * when the store fails, or when the dispatcher's lease on the submission was lost (another
   * dispatcher owns it now): stop then without the irreversible step.
   *
   * A network whose send is not idempotent by itself saves its reference right after (or just
   * before) the irreversible step, such as the session and invoice reference of an upload, so that
   * a later attempt (after a crash or a timeout) asks for the status instead of sending again.
   * The state is cleared once the submission is delivered or failed.
   */
  saveState(state: string): Promise<void>;
}

/** The most a network may save with `SendRequest.saveState`: 64 KiB of UTF-8 text. */
export const DELIVERY_STATE_MAX_BYTES = 64 * 1024;

/** The largest `DeliveryEvidence.content` kept: 1 MiB of UTF-8 text. Larger evidence is not kept (the delivery stands). */
export const EVIDENCE_MAX_BYTES = 1024 * 1024;

/**
 * The proof of a delivery that a network gives, kept with the invoice and served at
 * `GET /v1/invoices/{id}/evidence`.
 */
export interface DeliveryEvidence {
  /** What it is, free text: `ksef-upo` (KSeF's official receipt), `storecove`, `sandbox`, ... */
  kind: string;
  /** The media type of `content`, such as `application/xml` or `application/json`. */
  mediaType: string;
  /**
   * The evidence document as the network gave it (text: XML or JSON; binary evidence is not
   * carried), at most `EVIDENCE_MAX_BYTES` of UTF-8; larger evidence is dropped, not cut.
   */
  content: string;
  /** The network's reference of the delivered document, such as the KSeF number, or null. */
  reference: string | null;
  /** The hash the network gives of the delivered document (as the network writes it), or null. */
  documentHash: string | null;
}

/** The largest `TransmittedDocument.content` kept: 8 MiB of UTF-8 text. A larger one is not kept (the delivery stands). */
export const TRANSMITTED_MAX_BYTES = 8 * 1024 * 1024;

/**
 * The document a network transmitted when it is not the submitted UBL, exactly as sent (KSeF: the
 * FA(3) file), kept with the delivered invoice and served at
 * `GET /v1/invoices/{id}/document?format=<format>`.
 */
export interface TransmittedDocument {
  /** Which form it is, as the `format` query parameter names it: `fa3` (the only one served). 1 to 20 of a-z and 0-9. */
  format: string;
  /** Its media type, such as `application/xml`. */
  mediaType: string;
  /** The document's text, exactly as transmitted (its UTF-8 bytes are what the network got), at most `TRANSMITTED_MAX_BYTES`. */
  content: string;
}

/** The answer of a network to one attempt. */
export type SendOutcome =
  | {
      outcome: "delivered";
      detail?: string;
      evidence?: DeliveryEvidence;
      /** KSeF: the number KSeF gave the invoice, kept on the record (`ksefNumber`). At most 100 characters. */
      ksefNumber?: string;
      /** KSeF: the invoice's verification link (KOD I), kept on the record (`verificationUrl`). At most 1000 characters. */
      verificationUrl?: string;
      /** The document as transmitted, when the network sent another form than the UBL (KSeF: the FA(3) KSeF accepted). */
      transmitted?: TransmittedDocument;
    }
  /** A transient failure: try again later (`retryAfterMs` is the network's hint, if any). */
  | { outcome: "retry"; reason: string; retryAfterMs?: number }
  /** A permanent failure: the invoice will never be delivered as it is. */
  | { outcome: "failed"; reason: string };

/**
 * A network port's sending side (the receiving side is `InboundSource`, ports/inbound.ts). `send` MUST NOT throw for answers of the network (map them to an outcome);
 * a throw is treated as a transient failure. It MUST be safe to call again with the same
 * `idempotencyKey` (a lease expired while the first call was in flight).
 *
 * Run `testNetwork(factory)` from `@einvoice/core/testing` against any implementation.
 */
export interface NetworkPort {
  readonly name: string;
  send(request: SendRequest): Promise<SendOutcome>;
}
