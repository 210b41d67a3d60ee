// Step 6 of the document pipeline: the recipient's Peppol participant identifier.
import { isPeppolParticipantScheme } from "./codelists/index.js";
import { ApiError } from "../domain/errors.js";
import type { ParticipantId } from "../domain/types.js";
import { first, type DocumentNode } from "./model.js";
import { text } from "./ubl.js";
import { xmlTrim } from "./xml.js";

/**
 * Reads `/Invoice/cac:AccountingCustomerParty/cac:Party/cbc:EndpointID` and its `@schemeID`
 * (both trimmed of XML whitespace only). Throws `missing_recipient` when it is absent, blank, or
 * its scheme is not a Peppol participant identifier scheme (active or deprecated) of the shipped
 * code list.
 */
export function extractRecipient(invoice: DocumentNode): ParticipantId {
  const endpoint = first(invoice, "cac:AccountingCustomerParty/cac:Party/cbc:EndpointID");
  const value = text(endpoint);
  const noun = invoice.name === "CreditNote" ? "credit note" : "invoice";
  if (!endpoint || value === null) {
    throw new ApiError(
      "missing_recipient",
      `The ${noun} has no recipient Peppol identifier: cac:AccountingCustomerParty/cac:Party/cbc:EndpointID is missing or empty.`,
    );
  }
  const scheme = xmlTrim(endpoint.attrs["schemeID"] ?? "");
  if (scheme === "") {
    throw new ApiError("missing_recipient", "The recipient cbc:EndpointID has no schemeID; Peppol needs one, such as 0088 or 0208.");
  }
  if (!isPeppolParticipantScheme(scheme)) {
    throw new ApiError(
      "missing_recipient",
      `The recipient cbc:EndpointID has schemeID ${JSON.stringify(scheme)}, which is not a Peppol participant identifier scheme; the ${noun} cannot be routed on Peppol.`,
    );
  }
  return { scheme, value };
}
