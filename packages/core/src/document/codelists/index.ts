// The Peppol participant identifier schemes a recipient may use.
import { PARTICIPANT_SCHEMES } from "./participant-schemes.js";

export { PARTICIPANT_SCHEMES, PARTICIPANT_SCHEMES_VERSION, type SchemeState } from "./participant-schemes.js";

const USABLE = new Set(PARTICIPANT_SCHEMES.filter(([, , state]) => state !== "removed").map(([code]) => code));

/**
 * True when `scheme` (an ISO 6523 ICD code such as `0088`) is a Peppol participant identifier
 * scheme in state `active` or `deprecated`. `removed` schemes and non-Peppol schemes (`EM`) are not.
 */
export function isPeppolParticipantScheme(scheme: string): boolean {
  return USABLE.has(scheme);
}
