// The default routing: Polish taxpayers (scheme 9945) to KSeF on `auto`, everyone else to Peppol.
import type { Routing, RoutingDecision } from "../ports/store.js";
import type { ParticipantId, TargetNetwork } from "./types.js";
import { DiscoveryError, type DiscoveryPort } from "../ports/discovery.js";
import type { DocumentType } from "../document/doctype.js";

/** ISO 6523 / EAS code of the Polish VAT number: the identifier KSeF delivers to. */
export const POLISH_VAT_SCHEME = "9945";

/**
 * `auto`: scheme 9945 goes to `ksef`, any other to `peppol`. `peppol`: Peppol, as asked.
 * `ksef`: only for a 9945 recipient; otherwise the submission fails with the reason.
 */
export function defaultRouting(): Routing {
  return {
    name: "default",
    route({ recipient, targetNetwork }: { recipient: ParticipantId; targetNetwork: TargetNetwork }): RoutingDecision {
      const polish = recipient.scheme === POLISH_VAT_SCHEME;
      if (targetNetwork === "peppol") return { ok: true, network: "peppol" };
      if (targetNetwork === "ksef") {
        return polish
          ? { ok: true, network: "ksef" }
          : {
              ok: false,
              reason: `KSeF delivers only to Polish taxpayers (recipient scheme ${POLISH_VAT_SCHEME}); the recipient is ${recipient.scheme}:${recipient.value}. Send it with targetNetwork "auto" or "peppol".`,
            };
      }
      return { ok: true, network: polish ? "ksef" : "peppol" };
    },
  };
}

/** What a participant lookup says about a submission routed to Peppol. */
export type RecipientCheck =
  | { kind: "accepted" }
  /** The submission fails with `reason`: the recipient cannot receive it. */
  | { kind: "refused"; reason: string }
  /** The lookup could not be made: the submission is accepted, `note` goes into its event. */
  | { kind: "unknown"; note: string; why: string };

/**
 * Contract row 11 with participant discovery: a recipient that is not registered on Peppol, or
 * that does not accept the document type, refuses the submission; a lookup that fails (timeout,
 * SML or SMP unreachable, an untrusted answer) does not: the dispatcher looks again before each attempt.
 * Without a document type (no CustomizationID) only the registration is checked.
 */
export async function checkRecipient(discovery: DiscoveryPort, recipient: ParticipantId, documentType: DocumentType | null): Promise<RecipientCheck> {
  const id = `${recipient.scheme}:${recipient.value}`;
  let found;
  try {
    found = await discovery.lookup(recipient, documentType?.id);
  } catch (e) {
    const why = e instanceof DiscoveryError ? e.message : "the lookup failed";
    return { kind: "unknown", why, note: `The Peppol participant lookup failed (${why}); the dispatcher looks again before each attempt.` };
  }
  if (!found.registered) return { kind: "refused", reason: `recipient ${id} is not registered on Peppol; check cbc:EndpointID and its schemeID.` };
  if (documentType && !found.documentTypes.includes(documentType.id)) {
    const process = documentType.processId ? ` (process ${documentType.processId})` : "";
    return {
      kind: "refused",
      reason: `recipient ${id} is registered on Peppol but does not accept the document type ${documentType.id}${process}; it accepts ${describeTypes(found.documentTypes)}.`,
    };
  }
  return { kind: "accepted" };
}

function describeTypes(types: string[]): string {
  if (types.length === 0) return "no document type";
  const shown = types.slice(0, 5).join(", ");
  return types.length > 5 ? `${shown} and ${types.length - 5} more` : shown;
}
