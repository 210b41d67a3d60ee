// The route table of /admin: operators read and change companies. Every request is checked for
// the operators' token by the /admin router first.
import { CompanyPatchSchema, CompanySchema, getCompany, updateCompany, type CoreOptions, type Store } from "@einvoice/core";
import type { Route } from "./route.js";
import { data } from "./schemas.js";

export interface AdminDeps {
  store: Store;
  options: CoreOptions;
}

const companyId = { companyId: "The company's id." };
const notFound = { codes: ["company_not_found"], description: "No such company." } as const;

export const ADMIN_ROUTES: readonly Route<AdminDeps>[] = [
  {
    method: "get",
    path: "/companies/{companyId}",
    operationId: "adminGetCompany",
    summary: "Operators: read a company",
    auth: "admin",
    params: companyId,
    success: { status: 200, description: "The company.", schema: data(CompanySchema) },
    errors: [notFound],
    handle: async ({ deps, params }) => ({ data: await getCompany(deps.store, params.companyId!) }),
  },
  {
    method: "patch",
    path: "/companies/{companyId}",
    operationId: "adminUpdateCompany",
    summary: "Operators: change a company's eligibility, access-point settings, KSeF credential and participant identifiers",
    description:
      "Any subset of the fields. `ksef: { nip, token }` sets the company's KSeF credential (used where the deployment delivers to KSeF directly, and to receive the invoices KSeF holds for the company as buyer): the NIP is normalised (a `PL` prefix, spaces and dashes removed) and checked, the token is encrypted with the server's `KSEF_TOKEN_KEY` before it is stored and is never returned (the answer says `tokenSet: true`); `ksef: null` removes it. `participantIds` replaces the Peppol participant identifiers (`scheme:value`, at most 20) on which the company receives in the sandbox: an invoice another company of this server sends on Peppol to one of them lands in this company's inbox. They are compared as recipients are (the scheme exactly, the value without case), kept with the value lower-cased, repeats dropped; `[]` removes them all. An identifier belongs to one company: one that another company has is a 409 `participant_id_taken`, and nothing of the patch is applied.",
    auth: "admin",
    params: companyId,
    body: { kind: "json", schema: CompanyPatchSchema },
    success: { status: 200, description: "The updated company.", schema: data(CompanySchema) },
    errors: [
      notFound,
      { codes: ["ksef_token_key_not_configured"], description: "A KSeF token was sent, and the server has no KSEF_TOKEN_KEY to encrypt it with (a token is never stored in clear); nothing was changed." },
      { codes: ["participant_id_taken"], description: "Another company of this server already receives on one of `participantIds` (the message names it); nothing was changed." },
    ],
    handle: async ({ deps, params, body }) => ({ data: await updateCompany(deps.store, params.companyId!, body, deps.options) }),
  },
];
