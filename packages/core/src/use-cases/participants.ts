// lookupParticipant: `GET /v1/participants/{participantId}`, a Peppol participant lookup through the configured discovery.
import { ApiError, badRequest } from "../domain/errors.js";
import { ParticipantQuerySchema, type Participant } from "../domain/participant-schemas.js";
import { parseWith } from "../domain/schemas.js";
import type { ParticipantId } from "../domain/types.js";
import { isPeppolParticipantScheme } from "../document/codelists/index.js";
import { DiscoveryError, DOCTYPE_SCHEME, PARTICIPANT_ID_SCHEME, type DiscoveryPort } from "../ports/discovery.js";
import { asCachedDiscovery } from "../adapters/cached-discovery.js";

/** The longest participant identifier value Peppol allows (Policy for use of identifiers, POLICY 1). */
const MAX_VALUE = 135;

/**
 * Parses `scheme:value` (optionally prefixed with `iso6523-actorid-upis::`). Throws a 400 for a
 * malformed identifier or a scheme that is not in the Peppol participant identifier code list.
 */
export function parseParticipantId(input: string): ParticipantId {
  const raw = input.startsWith(`${PARTICIPANT_ID_SCHEME}::`) ? input.slice(PARTICIPANT_ID_SCHEME.length + 2) : input;
  const m = /^([0-9]{4}):(\S(?:[^\s]*\S)?)$/.exec(raw);
  if (!m || m[2]!.length > MAX_VALUE || /[\u0000-\u001f\u007f]/.test(m[2]!)) {
    throw badRequest([
      `participantId must be a Peppol participant identifier "scheme:value", such as 0208:0123456789 (a four-digit ISO 6523 scheme, a colon, a value of 1 to ${MAX_VALUE} characters without spaces)`,
    ]);
  }
  if (!isPeppolParticipantScheme(m[1]!)) {
    throw badRequest([`participantId has scheme ${m[1]}, which is not a Peppol participant identifier scheme`]);
  }
  return { scheme: m[1]!, value: m[2]! };
}

/** A document type as asked: the full `busdox-docid-qns::...` form, or its value alone (the scheme is then added). */
export function normalizeDocumentType(documentTypeId: string): string {
  return /^[a-z0-9-]+::/i.test(documentTypeId) && !documentTypeId.startsWith("urn:") ? documentTypeId : `${DOCTYPE_SCHEME}::${documentTypeId}`;
}

/**
 * Looks a participant up on Peppol: registered or not, the document types it accepts and, for
 * `query.documentType`, its endpoint. 400 for a malformed identifier, an unknown scheme or a bad
 * query; 502 `participant_lookup_failed` when the lookup cannot be made (timeout, SML or SMP
 * unreachable, an untrusted answer).
 *
 * @example await lookupParticipant(sandboxDiscovery(), "0208:0123456789", { documentType: "busdox-docid-qns::..." })
 */
export async function lookupParticipant(discovery: DiscoveryPort, participantId: string, query: unknown = {}): Promise<Participant> {
  const participant = parseParticipantId(participantId);
  const q = parseWith(ParticipantQuerySchema, query);
  const documentTypeId = q.documentType === undefined ? undefined : normalizeDocumentType(q.documentType);
  try {
    const found = await asCachedDiscovery(discovery).lookup(participant, documentTypeId);
    return {
      participantId: `${participant.scheme}:${participant.value}`,
      registered: found.registered,
      documentTypes: found.documentTypes,
      endpoint: found.endpoint,
    };
  } catch (e) {
    const why = e instanceof DiscoveryError ? e.message : "the lookup failed";
    throw new ApiError("participant_lookup_failed", `The Peppol participant lookup could not be made: ${why} Try again later.`, { cause: e });
  }
}
