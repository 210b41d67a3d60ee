// The document step of a submit for an invoice given as data: build it, check it with our rules (a
// broken fatal rule is a 422 naming the JSON field), then the same facts the reader gives for XML.
import { ApiError } from "../../domain/errors.js";
import type { ParticipantId } from "../../domain/types.js";
import { extractDocumentType } from "../doctype.js";
import { extractFields } from "../fields.js";
import type { ReadInvoice } from "../read.js";
import { extractRecipient } from "../recipient.js";
import type { UblRoot } from "../ubl.js";
import type { XmlLimits } from "../xml.js";
import { buildParsedInvoice, dataRulesError } from "./index.js";
import type { InvoiceData } from "../../domain/invoice-data.js";

/**
 * Builds the UBL document of `data` (parsed with `InvoiceDataSchema`) as a `root` (the endpoint's
 * document type), runs the rules on its model (no second parse: the builder made the model), and
 * returns what `readDocument` returns for XML: the bytes, their hash, the recipient, the record fields,
 * the document type and the warnings (each with its JSON `path`), marked `fromData`. Throws a 422 `invalid_ubl_xml`
 * whose `errors` carry `path` when a fatal rule is broken, and the size limit's error for a document
 * over it. With `recipientOptional` (the KSeF route) a missing recipient is no error.
 */
export function readDataDocument(data: InvoiceData, limits: XmlLimits, root: UblRoot, recipientOptional = false): ReadInvoice {
  const built = buildParsedInvoice(data, root);
  if (built.bytes.length > limits.maxBytes) {
    const mib = (n: number) => (n / (1024 * 1024)).toFixed(1);
    throw new ApiError("invalid_ubl_xml", `The document built from the data is too large to accept: ${mib(built.bytes.length)} MiB; the limit is ${mib(limits.maxBytes)} MiB.`);
  }
  let recipient: ParticipantId | null;
  try {
    recipient = extractRecipient(built.root);
  } catch (e) {
    if (!(recipientOptional && e instanceof ApiError && e.code === "missing_recipient")) throw e;
    recipient = null;
  }
  if (!built.report.valid) throw dataRulesError(built);
  return {
    bytes: built.bytes,
    sha256: built.sha256,
    recipient,
    fields: extractFields(built.root),
    peppolDocumentType: extractDocumentType(built.root),
    warnings: built.report.warnings,
    ruleSets: built.report.ruleSets,
    fromData: true,
  };
}
