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
    summary: "Operators: change a company's eligibility and access-point settings",
    auth: "admin",
    params: companyId,
    body: { kind: "json", schema: CompanyPatchSchema },
    success: { status: 200, description: "The updated company.", schema: data(CompanySchema) },
    errors: [notFound],
    handle: async ({ deps, params, body }) => ({ data: await updateCompany(deps.store, params.companyId!, body, deps.options) }),
  },
];
