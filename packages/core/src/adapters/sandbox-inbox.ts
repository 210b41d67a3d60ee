// The sandbox's inbox: an invoice one company of this server sends on Peppol to a participant identifier another
// company receives on (`Company.participantIds`) is delivered into that company's inbox, as a real access point would.
import type { SendRequest } from "../ports/network.js";
import type { InboxStore, StoredOutcome } from "../ports/inbound.js";
import type { Store } from "../ports/store.js";
import { receiveDocument, type ReceiveOptions } from "../use-cases/receive.js";

/** Where the sandbox network delivers what it sends on Peppol (`sandboxNetwork({ inbox })`). */
export interface SandboxInbox {
  /**
   * Stores the sent document for the company receiving on its recipient, if any, durably: resolves once it is stored
   * (or found stored already), or at once when no company receives on it. Rejects when the store fails; the sandbox
   * then answers `retry` (nothing is acknowledged that is not stored).
   */
  deliver(req: SendRequest): Promise<StoredOutcome | null>;
}

/**
 * The sandbox inbox over a store: finds the company receiving on the request's recipient
 * (`findCompanyByParticipant` with `scheme:lower-cased value`, compared as recipients are) and stores the document
 * for it with `receiveDocument` (network `peppol`, reference `{ submissionId }` of the sender's submission: a
 * redelivery adds nothing). A recipient no company receives on is delivered to the sandbox only, as before.
 *
 * @example createDispatcher({ store, networks: { peppol: sandboxNetwork({ inbox: sandboxInbox(store) }) } })
 */
export function sandboxInbox(store: Store & InboxStore, options?: ReceiveOptions): SandboxInbox {
  return {
    async deliver(req) {
      const r = req.routing.recipient;
      if (req.routing.network !== "peppol" || !r) return null;
      const companyId = await store.findCompanyByParticipant(`${r.scheme}:${r.value.toLowerCase()}`);
      if (companyId === null) return null;
      return receiveDocument(store, { reference: { submissionId: req.submissionId }, content: req.document, mediaType: "application/xml", network: "peppol", companyId }, options);
    },
  };
}
