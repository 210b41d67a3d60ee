// Use case: receiving. `receiveDocument` stores one document a network delivered (workers/receive.ts does the work,
// here through the guarded store: a store failure is an ApiError); `sandboxInbox` delivers what one company of this
// server sends on Peppol into the inbox of the company receiving on its recipient.
import type { SandboxInbox } from "../adapters/sandbox-network.js";
import type { InboxStore, StoredOutcome } from "../ports/inbound.js";
import type { Store } from "../ports/store.js";
import { storeReceivedDocument, type ReceiveInput } from "../workers/receive.js";
import type { ReceiveSyntax } from "../document/received.js";
import { guardStore, type CoreOptions } from "./options.js";

export { supplierUpsert, type ReceiveInput, type ReceiveSettings } from "../workers/receive.js";
export type { ReceiveSyntax } from "../document/received.js";
export type { SandboxInbox } from "../adapters/sandbox-network.js";

/** The options of `receiveDocument`: the core's (clock, ids, XML limits, metrics), and the extra syntaxes to read. */
export interface ReceiveOptions extends CoreOptions {
  /** Syntaxes besides UBL and CII a received document may be in, tried by their `recognises`: KSeF's `fa3Syntax`. */
  syntaxes?: readonly ReceiveSyntax[];
}

/**
 * Stores one received document durably and says what became of it: `stored` (a new inbound record), `duplicate` (the
 * company already has one with this network reference: nothing added), or `unmatched` (no company: kept for the
 * operator, once per reference).
 *
 * The company is `companyId`, or for a source of the whole server the company whose `legalEntityId` is the document's
 * (`findCompanyByLegalEntity`). The document is read and judged once (`judgeReceived`): its syntax (UBL, CII, a
 * Factur-X PDF, or one of `options.syntaxes` such as FA(3)), the record's fields as an outbound record has them, and
 * the rules' verdict (`valid`, at most 100 errors, warnings). A document that is too large (kept without its bytes),
 * not XML, not an invoice, broken or hostile is stored all the same, invalid, with one finding saying why: this never
 * rejects for the document's content. It rejects only when the store fails (an `ApiError` `internal_error` or
 * `storage_unavailable`): then nothing may be acknowledged to the network.
 *
 * The record and the seller as a supplier (`supplierUpsert`) are stored with the company's `invoice.received` webhook
 * events, in one atomic step (`InboxStore.insertInbound`).
 *
 * @example const outcome = await receiveDocument(store, { reference: { ksefNumber }, content, network: "ksef", companyId }, { syntaxes: [fa3Syntax] })
 */
export async function receiveDocument(store: Store & InboxStore, input: ReceiveInput, options?: ReceiveOptions): Promise<StoredOutcome> {
  return storeReceivedDocument(guardStore(store), input, options);
}

/**
 * The sandbox inbox over a store, for `sandboxNetwork({ inbox })`: finds the company receiving on the request's
 * recipient (`findCompanyByParticipant` with `scheme:lower-cased value`, compared as recipients are) and stores the
 * document for it with `receiveDocument` (network `peppol`, reference `{ submissionId }` of the sender's submission:
 * a redelivery adds nothing). A recipient no company receives on is delivered to the sandbox only, as before; a
 * store failure rejects (the sandbox then answers `retry`).
 *
 * @example createDispatcher({ store, networks: { peppol: sandboxNetwork({ inbox: sandboxInbox(store) }) } })
 */
export function sandboxInbox(store: Store & InboxStore, options?: ReceiveOptions): SandboxInbox {
  return {
    async deliver(req) {
      const r = req.routing.recipient;
      if (req.routing.network !== "peppol" || !r) return null;
      const companyId = await guardStore(store).findCompanyByParticipant(`${r.scheme}:${r.value.toLowerCase()}`);
      if (companyId === null) return null;
      return receiveDocument(store, { reference: { submissionId: req.submissionId }, content: req.document, mediaType: "application/xml", network: "peppol", companyId }, options);
    },
  };
}
