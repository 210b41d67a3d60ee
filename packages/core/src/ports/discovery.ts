// The discovery port: is a participant on Peppol, which document types does it accept, and where.
import type { ParticipantId } from "../domain/types.js";

/** The Peppol document type identifier scheme of UBL documents (`busdox-docid-qns::<root ns>::<root>##<customization>::<version>`). */
export const DOCTYPE_SCHEME = "busdox-docid-qns";
/** The Peppol process identifier scheme. */
export const PROCESS_SCHEME = "cenbii-procid-ubl";
/** The Peppol participant identifier scheme (ISO 6523). */
export const PARTICIPANT_ID_SCHEME = "iso6523-actorid-upis";

/** Where and how a participant receives one document type (from its SMP's service metadata). */
export interface DiscoveryEndpoint {
  /** The Peppol document type identifier this endpoint is for, with its scheme (`busdox-docid-qns::...`); named `documentType` as in the API's answer. */
  documentType: string;
  /** The process identifier with its scheme (`cenbii-procid-ubl::...`), or null when the adapter does not know it. */
  processId: string | null;
  /** Such as `peppol-transport-as4-v2_0`. */
  transportProfile: string;
  /** The access point's URL. */
  url: string;
  /** The access point's certificate: its subject and the end of its validity (ISO 8601), or null when the adapter does not know it. */
  certificate: { subject: string; notAfter: string } | null;
  /** ISO 8601, or null when unbounded or unknown. */
  serviceActivation: string | null;
  /** ISO 8601, or null when unbounded or unknown. */
  serviceExpiration: string | null;
}

/** The answer of a lookup. */
export interface ParticipantLookup {
  /** `scheme:value`, as asked. */
  participantId: string;
  /** Whether the network knows the participant. */
  registered: boolean;
  /** The Peppol document type identifiers it accepts, with their scheme (`busdox-docid-qns::...`); `[]` when not registered. */
  documentTypes: string[];
  /**
   * For the document type asked: its endpoint; null when no document type was asked, when the
   * participant is not registered, or when it does not accept that document type.
   */
  endpoint: DiscoveryEndpoint | null;
}

/** Why a lookup could not be made (it says nothing about the participant). */
export type DiscoveryFailure = "timeout" | "unreachable" | "untrusted" | "invalid_answer";

/**
 * A lookup that could not be made: DNS or SMP unreachable or too slow, an SMP answer that is not
 * signed or not trusted, an answer that cannot be read. It is never "not registered".
 */
export class DiscoveryError extends Error {
  override readonly name = "DiscoveryError";
  readonly kind: DiscoveryFailure;
  constructor(kind: DiscoveryFailure, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
  }
}

/**
 * A participant discovery (SML/SMP, an access point's API, a sandbox).
 *
 * Contract:
 * - `lookup` MUST resolve with `registered: false` (and `documentTypes: []`, `endpoint: null`)
 *   only when the network says the participant does not exist (no SML record, SMP 404).
 * - It MUST reject (preferably with a `DiscoveryError`) when it cannot tell: a timeout, a DNS or
 *   SMP that cannot be reached or answers 5xx, an answer it cannot read, or one whose signature is
 *   missing, wrong or not trusted. Callers treat a rejection as "unknown", never as "unregistered".
 * - With a `documentTypeId` (the full `busdox-docid-qns::...` form), `endpoint` is the endpoint for
 *   it when `documentTypes` contains it, and null otherwise. Without one, `endpoint` is null. An
 *   adapter that cannot know endpoints (an access point's API that routes documents itself)
 *   answers null and says so in its documentation.
 * - It SHOULD stop its work when `signal` aborts. It MUST NOT keep state that changes the answer
 *   (the core caches: see `cachedDiscovery`).
 *
 * Run `testDiscovery(factory)` from `@einvoice/core/testing` against any implementation.
 */
export interface DiscoveryPort {
  readonly name: string;
  lookup(participant: ParticipantId, documentTypeId?: string, options?: { signal?: AbortSignal }): Promise<ParticipantLookup>;
}
