// The default routing: the issuer decides. A company in Poland issues through KSeF on `auto`; every other company sends through Peppol.
import type { Routing, RoutingDecision } from "../ports/store.js";
import type { Company, ParticipantId, TargetNetwork } from "../domain/types.js";
import { DiscoveryError, type DiscoveryPort } from "../ports/discovery.js";
import type { PeppolDocumentType } from "../document/doctype.js";
import { KSEF_COUNTRIES } from "../domain/eligibility.js";

/** ISO 6523 / EAS code of the Polish VAT number. */
export const POLISH_VAT_SCHEME = "9945";

/**
 * `auto`: a company in PL (`KSEF_COUNTRIES`) goes to `ksef`, every other company to `peppol`,
 * whatever the recipient's scheme (KSeF is where Polish taxpayers issue their invoices; who
 * receives the invoice does not decide it). `peppol` and `ksef`: that network, as asked; whether the
 * company may send there is the eligibility policy's to say (403 `peppol_country_not_supported`,
 * `ksef_country_not_supported`).
 */
export function defaultRouting(): Routing {
  return {
    name: "default",
    route({ company, targetNetwork }: { company: Company; targetNetwork: TargetNetwork }): RoutingDecision {
      if (targetNetwork !== "auto") return { ok: true, network: targetNetwork };
      return { ok: true, network: KSEF_COUNTRIES.includes(company.country) ? "ksef" : "peppol" };
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
export async function checkRecipient(discovery: DiscoveryPort, recipient: ParticipantId, peppolDocumentType: PeppolDocumentType | null): Promise<RecipientCheck> {
  const id = `${recipient.scheme}:${recipient.value}`;
  let found;
  try {
    found = await discovery.lookup(recipient, peppolDocumentType?.id);
  } catch (e) {
    const why = e instanceof DiscoveryError ? e.message : "the lookup failed";
    return { kind: "unknown", why, note: `The Peppol participant lookup failed (${why}); the dispatcher looks again before each attempt.` };
  }
  if (!found.registered) return { kind: "refused", reason: `recipient ${id} is not registered on Peppol; check cbc:EndpointID and its schemeID.` };
  if (peppolDocumentType && !found.documentTypes.includes(peppolDocumentType.id)) {
    const process = peppolDocumentType.processId ? ` (process ${peppolDocumentType.processId})` : "";
    return {
      kind: "refused",
      reason: `recipient ${id} is registered on Peppol but does not accept the document type ${peppolDocumentType.id}${process}; it accepts ${describeTypes(found.documentTypes)}.`,
    };
  }
  return { kind: "accepted" };
}

function describeTypes(types: string[]): string {
  if (types.length === 0) return "no document type";
  const shown = types.slice(0, 5).join(", ");
  return types.length > 5 ? `${shown} and ${types.length - 5} more` : shown;
}
