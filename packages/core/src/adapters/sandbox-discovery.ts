// The deterministic sandbox discovery: an adapter of the discovery port for development and tests.
import type { DiscoveryPort, ParticipantLookup } from "../ports/discovery.js";
import { documentTypeId, processId } from "../document/doctype.js";
import { UBL_INVOICE_NS } from "../document/ubl.js";

const BILLING = "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0";
const CREDIT_NOTE_NS = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2";
const ORDER_NS = "urn:oasis:names:specification:ubl:schema:xsd:Order-2";

/** What the sandbox lists for a registered participant: Peppol BIS Billing 3.0 invoices and credit notes. */
export const SANDBOX_DOCUMENT_TYPES: readonly string[] = [
  documentTypeId(UBL_INVOICE_NS, "Invoice", BILLING),
  documentTypeId(CREDIT_NOTE_NS, "CreditNote", BILLING),
];

/** What the sandbox lists for a `nodoctype` participant: Peppol BIS Ordering 3 orders only. */
export const SANDBOX_OTHER_DOCUMENT_TYPES: readonly string[] = [documentTypeId(ORDER_NS, "Order", "urn:fdc:peppol.eu:poacc:trns:order:3")];

/**
 * The sandbox discovery, deterministic and offline. A participant whose value contains
 * `unregistered` (any case) is not registered; one containing `nodoctype` is registered for Peppol
 * orders only (no invoice, no credit note, not the document type asked); every other is registered
 * for Peppol BIS Billing 3.0 and for any document type asked, with a sandbox AS4 endpoint.
 *
 * @example submitInvoice(store, auth, body, { discovery: sandboxDiscovery() })
 */
export function sandboxDiscovery(options: { name?: string } = {}): DiscoveryPort {
  return {
    name: options.name ?? "sandbox",
    async lookup(participant, documentTypeId): Promise<ParticipantLookup> {
      const participantId = `${participant.scheme}:${participant.value}`;
      const value = participant.value.toLowerCase();
      if (value.includes("unregistered")) return { participantId, registered: false, documentTypes: [], endpoint: null };
      if (value.includes("nodoctype")) {
        return { participantId, registered: true, documentTypes: [...SANDBOX_OTHER_DOCUMENT_TYPES], endpoint: null };
      }
      const documentTypes = [...SANDBOX_DOCUMENT_TYPES];
      if (documentTypeId && !documentTypes.includes(documentTypeId)) documentTypes.push(documentTypeId);
      return {
        participantId,
        registered: true,
        documentTypes,
        endpoint: documentTypeId
          ? {
              documentType: documentTypeId,
              processId: processId("urn:fdc:peppol.eu:2017:poacc:billing:01:1.0"),
              transportProfile: "peppol-transport-as4-v2_0",
              url: "https://ap.sandbox.invalid/as4",
              certificate: { subject: "CN=PSB000000,OU=SANDBOX,O=einvoice sandbox,C=BE", notAfter: "2035-01-01T00:00:00.000Z" },
              serviceActivation: null,
              serviceExpiration: null,
            }
          : null,
      };
    },
  };
}
