// An eligible company (NL, enterprise, pro, legal entity, sending enabled) on a store, through the core API.
import { randomUUID } from "node:crypto";
import { authenticate, createAccount, updateCompany, type AuthContext, type Store } from "../../src/index.js";

export async function eligibleCompany(store: Store, name = "Corpus Test BV"): Promise<AuthContext> {
  const { apiKey, companyId } = await createAccount(store, {
    email: `corpus-${randomUUID()}@example.test`,
    companyName: name,
    country: "NL",
  });
  await updateCompany(store, companyId, {
    enterprise: true,
    subscription: "pro",
    legalEntityId: "LE-1",
    peppolSendingEnabled: true,
  });
  const auth = await authenticate(store, apiKey);
  if (auth.companyId !== companyId) throw new Error("authenticate returned another company");
  return auth;
}
