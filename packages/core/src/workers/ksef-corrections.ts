// What this service knows of the invoices a credit note corrects, for KSeF's corrections (KOR): the
// KSeF number it got for each. The dispatcher looks them up and hands them to the network with the
// send request; the network never asks the store.
import type { Keyset, Store } from "../ports/store.js";

/** How many of a company's invoices with one number are read per store call while looking for the delivered one. */
const CORRECTED_PAGE = 50;

/**
 * The resolver a KSeF network adapter asks, for a credit note (a KOR correction), for the KSeF
 * number of the invoice it corrects: the company's invoice (`kind` `invoice`) with that
 * invoice number (BT-1, exactly) and issue date, delivered on the `ksef` network: its `ksefNumber`,
 * or (a delivery recorded before the record kept it) its stored evidence's, KSeF's UPO (`kind`
 * `ksef-upo`) with the KSeF number as its `reference`; the newest when several are. Null when there
 * is none (not sent by this service, not delivered yet, or delivered without either): it never answers "issued outside KSeF", which only the company knows.
 * When the only such invoice is still `sending` on `ksef`, it throws a `KsefCorrectionPendingError`
 * (the credit note is retried). A store failure throws the store's error. The dispatcher asks it
 * for each credit note on the `ksef` route and hands the answers to the network with the send
 * request (`SendRequest.correctedInvoices`).
 *
 * @example const known = await ksefCorrectedInvoices(store)(companyId, { number: "FV/1", issueDate: "2026-11-20" })
 */
export function ksefCorrectedInvoices(
  store: Pick<Store, "listInvoices" | "getEvidence">,
): (companyId: string, ref: { number: string; issueDate: string }) => Promise<{ ksefNumber: string } | null> {
  return async (companyId, { number, issueDate }) => {
    if (!number) return null;
    let after: Keyset | null = null;
    for (;;) {
      const page = await store.listInvoices(companyId, { limit: CORRECTED_PAGE, after, status: "delivered", clientId: null, kind: "invoice", invoiceNumber: number });
      for (const r of page) {
        if (r.network !== "ksef" || r.issueDate !== issueDate) continue;
        // The record's own KSeF number (kept since the delivery outcomes carry it); before that, its UPO's.
        if (r.ksefNumber) return { ksefNumber: r.ksefNumber };
        const evidence = await store.getEvidence(companyId, r.id);
        if (evidence?.kind === "ksef-upo" && evidence.reference) return { ksefNumber: evidence.reference };
      }
      const last = page[page.length - 1];
      if (page.length < CORRECTED_PAGE || !last) break;
      after = { at: last.createdAt, id: last.id };
    }
    // Not delivered yet: a corrected invoice still on its way to KSeF gets its KSeF number soon, so
    // the credit note waits (the adapter retries it) instead of failing for good.
    const pending = await store.listInvoices(companyId, { limit: CORRECTED_PAGE, after: null, status: "sending", clientId: null, kind: "invoice", invoiceNumber: number });
    const onItsWay = pending.find((r) => r.network === "ksef" && r.issueDate === issueDate);
    if (onItsWay) {
      throw new KsefCorrectionPendingError(
        `the corrected invoice ${number} of ${issueDate} is still being delivered to KSeF (submission ${onItsWay.id}); the credit note is sent once it has its KSeF number`,
      );
    }
    return null;
  };
}

/**
 * Thrown by `ksefCorrectedInvoices` when the corrected invoice is still being delivered to KSeF:
 * a KSeF adapter retries the credit note later, with this message as the reason.
 */
export class KsefCorrectionPendingError extends Error {
  override readonly name = "KsefCorrectionPendingError";
}
