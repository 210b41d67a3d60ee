// Use case: the document of an invoice as it was sent (GET /v1/invoices/{id}/document): the UBL bytes, or the same as InvoiceData.
import { readInvoiceData } from "../document/invoice-data/index.js";
import type { InvoiceData } from "../domain/invoice-data.js";
import { ApiError } from "../domain/errors.js";
import type { AuthContext } from "../domain/types.js";
import type { Store } from "../ports/store.js";
import { guardStore } from "./options.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The UBL document of the company's invoice as it was stored at submission, byte for byte (as sent
 * as `xml`, or as built from `invoice` / `creditNote`). `invoice_not_found` for an unknown, malformed
 * or another company's id; `document_not_available` for a failed submission, which keeps no document.
 *
 * @example const xml = await getInvoiceDocument(store, auth, submissionId)
 */
export async function getInvoiceDocument(store: Store, auth: AuthContext, id: string): Promise<Buffer> {
  const s = guardStore(store);
  const r = UUID.test(id) ? await s.getInvoice(auth.companyId, id.toLowerCase()) : null;
  if (!r) throw new ApiError("invoice_not_found", `No invoice with id ${JSON.stringify(id)} in this company.`);
  const bytes = await s.getDocument(auth.companyId, r.id);
  if (!bytes) {
    throw new ApiError(
      "document_not_available",
      `Invoice ${r.id} keeps no document: it failed at submission (${r.errorMessage ?? "see its events"}), and a failed submission's document is not stored.`,
    );
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * `getInvoiceDocument` read as InvoiceData (`readInvoiceData`): the invoice as JSON, its totals as written.
 *
 * @example const data = await getInvoiceDocumentData(store, auth, submissionId); console.log(data.totals?.payable)
 */
export async function getInvoiceDocumentData(store: Store, auth: AuthContext, id: string): Promise<InvoiceData> {
  const { documentType: _, ...data } = readInvoiceData(await getInvoiceDocument(store, auth, id));
  return data;
}
