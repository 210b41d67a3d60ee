// Helpers of the example-server process tests: accounts over HTTP, corpus-like invoices, polling.
import { json } from "./server-process.js";

export const UBL_NS = `xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"`;

/** A small UBL invoice to `scheme:endpoint`, base64-encoded. */
export function invoiceB64(id: string, endpoint = "0123456789", scheme = "0208"): string {
  const xml = `<?xml version="1.0" encoding="UTF-8"?><Invoice ${UBL_NS}><cbc:ID>${id}</cbc:ID><cbc:IssueDate>2026-01-15</cbc:IssueDate><cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode><cac:AccountingSupplierParty><cac:Party><cbc:EndpointID schemeID="0106">12345678</cbc:EndpointID></cac:Party></cac:AccountingSupplierParty><cac:AccountingCustomerParty><cac:Party><cbc:EndpointID schemeID="${scheme}">${endpoint}</cbc:EndpointID><cac:PartyLegalEntity><cbc:RegistrationName>Buyer ${endpoint}</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingCustomerParty><cac:LegalMonetaryTotal><cbc:PayableAmount currencyID="EUR">10.00</cbc:PayableAmount></cac:LegalMonetaryTotal></Invoice>`;
  return Buffer.from(xml).toString("base64");
}

/** Signs up over HTTP and has the operator make the company eligible (legal entity 12345). */
export async function eligibleAccount(base: string, adminToken: string): Promise<{ apiKey: string; companyId: string }> {
  const signUp = await json(base, "POST", "/v1/accounts", { email: `${Math.random().toString(36).slice(2)}@example.com`, companyName: "Acme", country: "NL" });
  if (signUp.status !== 201) throw new Error(`sign-up: ${signUp.status} ${JSON.stringify(signUp.body)}`);
  const { apiKey, companyId } = signUp.body.data;
  const patch = await json(base, "PATCH", `/admin/companies/${companyId}`, { enterprise: true, subscription: "pro", legalEntityId: "12345", peppolSendingEnabled: true }, adminToken);
  if (patch.status !== 200) throw new Error(`admin: ${patch.status} ${JSON.stringify(patch.body)}`);
  return { apiKey, companyId };
}

/** Polls `fn` until it returns a value that is not undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 20_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
