import { describe, expect, it } from "vitest";
import {
  authenticate,
  authenticateRequest,
  createAccount,
  createApiKey,
  getCompany,
  listApiKeys,
  memoryStore,
  revokeApiKey,
  submitInvoice,
  updateCompany,
  type Store,
} from "../src/index.js";
import { failure } from "./support/errors.js";
import { ELIGIBLE, setup } from "./support/setup.js";
import { b64, invoiceXml } from "./support/ubl.js";

/** `store` with a count of its getCompany calls. */
function countingCompanyReads(store: Store): { store: Store; reads: () => number } {
  let reads = 0;
  const counted = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop !== "getCompany" || typeof value !== "function") return value;
      return (...args: unknown[]) => {
        reads++;
        return value.apply(target, args);
      };
    },
  });
  return { store: counted, reads: () => reads };
}


describe("accounts", () => {
  it("creates a company that is not yet eligible, and a key", async () => {
    const store = memoryStore();
    const r = await createAccount(store, { email: "AP@Acme.example", companyName: "  Acme  ", country: "BE" });
    expect(r.apiKey).toMatch(/^einv_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$/);
    expect(await getCompany(store, r.companyId)).toMatchObject({
      id: r.companyId,
      name: "Acme",
      country: "BE",
      enterprise: false,
      subscription: "free",
      legalEntityId: null,
      peppolSendingEnabled: false,
    });
  });

  it("refuses a taken email, case-insensitively, with email_taken", async () => {
    const store = memoryStore();
    await createAccount(store, { email: "ap@acme.example", companyName: "A", country: "NL" });
    const e = await failure(createAccount(store, { email: "AP@ACME.example", companyName: "B", country: "NL" }));
    expect([e.code, e.status]).toEqual(["email_taken", 409]);
  });

  it("validates the sign-up body with class-validator wording", async () => {
    const e = await failure(createAccount(memoryStore(), { email: "nope", companyName: "", country: "nl", plan: "x" }));
    expect(e.code).toBe("bad_request");
    expect(e.details).toEqual(
      expect.arrayContaining([
        "email must be an email",
        "companyName should not be empty",
        expect.stringMatching(/^country must be a valid ISO31661 Alpha2 code/),
        "property plan should not exist",
      ]),
    );
  });

  it("stores only a hash of the key, never the key", async () => {
    const store = memoryStore();
    const { apiKey, companyId } = await createAccount(store, { email: "x@y.example", companyName: "X", country: "NL" });
    const [k] = await store.listApiKeys(companyId);
    const secret = apiKey.slice("einv_".length + 32 + 1);
    expect(secret).toHaveLength(43);
    expect(JSON.stringify(k)).not.toContain(secret);
    expect(k!.hash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("authenticate", () => {
  it("resolves a key to its company", async () => {
    const { store, apiKey, companyId } = await setup();
    expect((await authenticate(store, apiKey)).companyId).toBe(companyId);
  });

  it("refuses missing, malformed, unknown and tampered keys with invalid_api_key", async () => {
    const { store, apiKey } = await setup();
    const tampered = apiKey.slice(0, -1) + (apiKey.endsWith("A") ? "B" : "A");
    const unknownId = apiKey.replace(/^einv_[0-9a-f]{8}/, "einv_00000000");
    for (const key of [undefined, "", "nope", tampered, unknownId, apiKey + "x"]) {
      const e = await failure(authenticate(store, key));
      expect([e.code, e.status]).toEqual(["invalid_api_key", 401]);
    }
  });

  it("records when a key was last used, at most once a minute", async () => {
    const { store, apiKey, auth, clock, options } = await setup();
    const first = (await listApiKeys(store, auth))[0]!.lastUsedAt;
    expect(first).not.toBeNull();
    clock.advance(10_000);
    await authenticate(store, apiKey, options);
    expect((await listApiKeys(store, auth))[0]!.lastUsedAt).toBe(first);
    clock.advance(60_000);
    await authenticate(store, apiKey, options);
    expect((await listApiKeys(store, auth))[0]!.lastUsedAt).not.toBe(first);
  });
});

describe("authenticateRequest", () => {
  it("reads the company with the key, and the request's submission does not read it again", async () => {
    const { store: inner, apiKey, companyId, options } = await setup();
    const { store, reads } = countingCompanyReads(inner);
    const auth = await authenticateRequest(store, apiKey, options);
    expect(auth).toMatchObject({ companyId, company: { id: companyId, ...ELIGIBLE } });
    const submitted = await submitInvoice(store, auth, { xml: b64(invoiceXml()) }, options);
    expect(submitted.status).toBe("sending");
    expect(reads()).toBe(0);
    // authenticate's context carries no company: each submission reads it.
    const plain = await authenticate(store, apiKey, options);
    expect(plain).not.toHaveProperty("company");
    await submitInvoice(store, plain, { xml: b64(invoiceXml({ id: "INV-2" })) }, options);
    expect(reads()).toBe(1);
  });

  it("refuses missing, malformed, unknown, tampered and revoked keys with invalid_api_key, as authenticate does", async () => {
    const { store, apiKey, auth, options } = await setup();
    const tampered = apiKey.slice(0, -1) + (apiKey.endsWith("A") ? "B" : "A");
    const unknownId = apiKey.replace(/^einv_[0-9a-f]{8}/, "einv_00000000");
    const second = await createApiKey(store, auth, options);
    await revokeApiKey(store, auth, second.id, options);
    for (const key of [undefined, "", "nope", tampered, unknownId, apiKey + "x", second.apiKey]) {
      const e = await failure(authenticateRequest(store, key, options));
      expect([e.code, e.status]).toEqual(["invalid_api_key", 401]);
    }
  });

  it("a context kept from authenticate sees a change of the company at the next submission; authenticateRequest's is the company as it was", async () => {
    const { store, apiKey, companyId, options } = await setup();
    const kept = await authenticate(store, apiKey, options);
    const forRequest = await authenticateRequest(store, apiKey, options);
    await updateCompany(store, companyId, { peppolSendingEnabled: false }, options);
    const e = await failure(submitInvoice(store, kept, { xml: b64(invoiceXml()) }, options));
    expect([e.code, e.status]).toEqual(["peppol_sending_not_enabled", 422]);
    // The snapshot of the request authenticated before the change (documented: a context for one request).
    expect(forRequest.company?.peppolSendingEnabled).toBe(true);
    expect((await authenticateRequest(store, apiKey, options)).company?.peppolSendingEnabled).toBe(false);
  });

  it("a context whose company is not its companyId's is not used: the company is read", async () => {
    const { store: inner, apiKey, options } = await setup();
    const other = await setup({ store: inner, eligible: false });
    const { store, reads } = countingCompanyReads(inner);
    const auth = await authenticateRequest(store, apiKey, options);
    // Given the other company's record, the submission reads its own (and it is eligible).
    const mixed = { ...auth, company: (await authenticateRequest(store, other.apiKey, options)).company };
    expect((await submitInvoice(store, mixed, { xml: b64(invoiceXml()) }, options)).status).toBe("sending");
    expect(reads()).toBe(1);
  });

  it("on a store without getApiKeyWithCompany it is authenticate: no company in the context, read at the submission", async () => {
    const { store: inner, apiKey, options } = await setup();
    const { getApiKeyWithCompany: _dropped, ...rest } = inner as Store & Record<string, unknown>;
    const bare = Object.assign(Object.create(Object.getPrototypeOf(inner)), rest) as Store;
    expect(bare.getApiKeyWithCompany).toBeUndefined();
    const { store, reads } = countingCompanyReads(bare);
    const auth = await authenticateRequest(store, apiKey, options);
    expect(auth).not.toHaveProperty("company");
    expect((await submitInvoice(store, auth, { xml: b64(invoiceXml()) }, options)).status).toBe("sending");
    expect(reads()).toBe(1);
  });
});

describe("API keys", () => {
  it("makes more keys, lists them without secrets, and revokes one at once", async () => {
    const { store, apiKey, auth } = await setup();
    const second = await createApiKey(store, auth);
    expect(second.apiKey).toMatch(/^einv_/);
    expect(second.apiKey.startsWith(second.prefix)).toBe(true);
    const listed = await listApiKeys(store, auth);
    expect(listed.map((k) => k.id)).toContain(second.id);
    expect(JSON.stringify(listed)).not.toContain(second.apiKey);
    expect(Object.keys(listed[0]!).sort()).toEqual(["createdAt", "id", "lastUsedAt", "name", "prefix"]);

    await revokeApiKey(store, auth, second.id);
    expect((await failure(authenticate(store, second.apiKey))).code).toBe("invalid_api_key");
    expect((await authenticate(store, apiKey)).companyId).toBe(auth.companyId);
    expect((await listApiKeys(store, auth)).map((k) => k.id)).not.toContain(second.id);
  });

  it("answers api_key_not_found for another company's key, an unknown id and a malformed id", async () => {
    const a = await setup();
    const b = await setup({ store: a.store });
    const bKey = await createApiKey(b.store, b.auth);
    for (const id of [bKey.id, "00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
      const e = await failure(revokeApiKey(a.store, a.auth, id));
      expect([e.code, e.status]).toEqual(["api_key_not_found", 404]);
    }
    expect((await authenticate(b.store, bKey.apiKey)).companyId).toBe(b.companyId);
  });
});

describe("operator updates", () => {
  it("applies a strict subset and refuses unknown fields and companies", async () => {
    const { store, companyId } = await setup({ eligible: false });
    const c = await updateCompany(store, companyId, { subscription: "basic", legalEntityId: null });
    expect(c).toMatchObject({ subscription: "basic", legalEntityId: null, enterprise: false });
    const bad = await failure(updateCompany(store, companyId, { subscription: "gold", enterprise: "yes", name: "x" }));
    expect(bad.details).toEqual(
      expect.arrayContaining([
        "subscription must be one of the following values: free, basic, pro",
        "enterprise must be a boolean value",
        "property name should not exist",
      ]),
    );
    expect((await failure(updateCompany(store, "00000000-0000-4000-8000-000000000000", {}))).code).toBe("company_not_found");
    expect((await failure(getCompany(store, "nope"))).code).toBe("company_not_found");
  });
});
