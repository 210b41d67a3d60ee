// The companies' KSeF credentials: the NIP rule, the token cipher, the operator patch and the submit check.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  ApiError,
  getCompany,
  isValidNip,
  ksefCorrectedInvoices,
  ksefCredentials,
  KsefCorrectionPendingError,
  memoryStore,
  type StoredEvidence,
  KsefCredentialsError,
  normaliseNip,
  parseTokenKey,
  submitInvoice,
  tokenCipher,
  updateCompany,
} from "../src/index.js";
import { sampleInvoiceRecord } from "../src/testing/index.js";
import { setup } from "./support/setup.js";
import { b64, invoiceXml } from "./support/ubl.js";

const TOKEN = "20261122-EC-0123456789-ABCDEF0123-45|nip-5260250995|0123456789abcdef";
const KEY = randomBytes(32);

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
}

describe("NIP", () => {
  it("takes 10 digits with the check digit of weights 6,5,7,2,3,4,5,6,7 modulo 11", () => {
    expect(isValidNip("5260250995")).toBe(true);
    expect(isValidNip("7740001454")).toBe(true);
    expect(isValidNip("5260250994")).toBe(false); // wrong check digit
    expect(isValidNip("526025099")).toBe(false);
    expect(isValidNip("0260250995")).toBe(false); // a tax office code starting with 0
    expect(isValidNip("1300000000")).toBe(false); // the weighted sum modulo 11 is 10: no check digit fits
  });

  it("normalises a PL prefix, spaces and dashes away, and refuses anything else", () => {
    expect(normaliseNip("PL5260250995")).toBe("5260250995");
    expect(normaliseNip(" pl 526-025-09-95 ")).toBe("5260250995");
    expect(normaliseNip("526 025 09 95")).toBe("5260250995");
    expect(normaliseNip("DE5260250995")).toBeNull();
    expect(normaliseNip("5260250995x")).toBeNull();
    expect(normaliseNip("")).toBeNull();
  });
});

describe("tokenCipher", () => {
  it("round-trips a token, with a fresh IV each time, in the versioned text form", () => {
    const c = tokenCipher(KEY);
    const a = c.encrypt(TOKEN, "company-a");
    const b = c.encrypt(TOKEN, "company-a");
    expect(a).not.toBe(b);
    expect(a).toMatch(new RegExp(`^v1\\.${c.keyId}\\.[A-Za-z0-9_-]{16}\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{22}$`));
    expect(a).not.toContain(TOKEN);
    expect(c.decrypt(a, "company-a")).toBe(TOKEN);
    expect(c.decrypt(b, "company-a")).toBe(TOKEN);
  });

  it("binds a ciphertext to its company: copied to another company it does not decrypt", () => {
    const c = tokenCipher(KEY);
    expect(() => c.decrypt(c.encrypt(TOKEN, "company-a"), "company-b")).toThrow(KsefCredentialsError);
  });

  it("reports a token under another key by key id, and a damaged one, with what the operator does, never the token", () => {
    const mine = tokenCipher(KEY);
    const theirs = tokenCipher(randomBytes(32));
    const foreign = theirs.encrypt(TOKEN, "c");
    // The message becomes the company's event: what the operator must do, no key ids (issue 26); the ids are for the operator's log.
    let e: KsefCredentialsError | null = null;
    try {
      mine.decrypt(foreign, "c");
    } catch (err) {
      e = err as KsefCredentialsError;
    }
    expect(e).toBeInstanceOf(KsefCredentialsError);
    expect(e!.message).toBe("the company's KSeF token can no longer be read by this server: the operator must set the company's NIP and KSeF token again with PATCH /admin/companies/{id} (the ksef object)");
    expect(e!.message).not.toContain(theirs.keyId);
    expect(e!.message).not.toContain(mine.keyId);
    expect(e!.operatorDetail).toMatch(new RegExp(`another KSEF_TOKEN_KEY \\(key id ${theirs.keyId}, the configured one is ${mine.keyId}\\)`));
    const parts = mine.encrypt(TOKEN, "c").split(".");
    parts[3] = Buffer.from("x".repeat(TOKEN.length)).toString("base64url");
    const damaged = parts.join(".");
    expect(() => mine.decrypt(damaged, "c")).toThrow(/does not decrypt.*PATCH \/admin\/companies/);
    expect(() => mine.decrypt("v2.x.y.z.w", "c")).toThrow(/not in a format/);
    // A truncated tag is refused too (GCM with a 16-byte tag only).
    const short = mine.encrypt(TOKEN, "c").split(".");
    short[4] = short[4]!.slice(0, 6);
    expect(() => mine.decrypt(short.join("."), "c")).toThrow(KsefCredentialsError);
    for (const bad of [foreign, damaged]) {
      try {
        mine.decrypt(bad, "c");
      } catch (e) {
        expect((e as Error).message).not.toContain(TOKEN);
      }
    }
  });

  it("takes the key as 64 hex digits or base64 / base64url, and refuses other text without quoting it", () => {
    expect(parseTokenKey(KEY.toString("hex"))).toEqual(KEY);
    expect(parseTokenKey(KEY.toString("base64"))).toEqual(KEY);
    expect(parseTokenKey(`${KEY.toString("base64url")}\n`)).toEqual(KEY);
    const c1 = tokenCipher(KEY.toString("base64"));
    expect(tokenCipher(KEY.toString("hex")).decrypt(c1.encrypt(TOKEN, "c"), "c")).toBe(TOKEN);
    for (const bad of ["hunter2-not-a-key", KEY.subarray(0, 16).toString("base64"), "g".repeat(64), ""]) {
      expect(() => parseTokenKey(bad)).toThrow(/32 random bytes written as 64 hex digits or as base64/);
      try {
        parseTokenKey(bad);
      } catch (e) {
        if (bad) expect((e as Error).message).not.toContain(bad);
      }
    }
    expect(() => tokenCipher(new Uint8Array(16))).toThrow(/32 bytes, not 16/);
  });
});

describe("PATCH /admin/companies/{id} with ksef", () => {
  it("stores the NIP normalised and the token encrypted; the view says a token is set and never shows it; null removes it", async () => {
    const { store, companyId, options } = await setup();
    const cipher = tokenCipher(KEY);
    const view = await updateCompany(store, companyId, { ksef: { nip: "PL526-025-09-95", token: `  ${TOKEN}\n` } }, { ...options, tokenCipher: cipher });
    expect(view.ksef).toEqual({ nip: "5260250995", tokenSet: true, updatedAt: view.updatedAt });
    expect(JSON.stringify(view)).not.toContain(TOKEN);
    expect(JSON.stringify(await getCompany(store, companyId))).not.toContain(TOKEN);
    // The token is trimmed before it is encrypted.
    expect(await ksefCredentials(store, cipher)(companyId)).toEqual({ nip: "5260250995", token: TOKEN });
    expect((await updateCompany(store, companyId, { ksef: null }, options)).ksef).toBeNull();
    expect(await ksefCredentials(store, cipher)(companyId)).toBeNull();
  });

  it("refuses a token when the deployment has no key (422 ksef_token_key_not_configured), storing nothing", async () => {
    const { store, companyId, options } = await setup();
    const e = await refusal(updateCompany(store, companyId, { enterprise: false, ksef: { nip: "5260250995", token: TOKEN } }, options));
    expect([e.status, e.code]).toEqual([422, "ksef_token_key_not_configured"]);
    expect(e.message).toMatch(/KSEF_TOKEN_KEY/);
    expect(e.message).not.toContain(TOKEN);
    const c = await getCompany(store, companyId);
    expect(c.ksef).toBeNull();
    expect(c.enterprise).toBe(true);
    // Removing needs no key.
    expect((await updateCompany(store, companyId, { ksef: null }, options)).ksef).toBeNull();
  });

  it("answers a bad ksef object with 400 messages that never quote the token", async () => {
    const { store, companyId, options } = await setup();
    const o = { ...options, tokenCipher: tokenCipher(KEY) };
    const cases: [unknown, string][] = [
      [{ nip: "5260250994", token: TOKEN }, "ksef.nip must be a Polish NIP: 10 digits with a valid check digit (a PL prefix, spaces and dashes are allowed)"],
      [{ nip: 5260250995, token: TOKEN }, "ksef.nip must be a string"],
      [{ nip: "5260250995", token: "   " }, "ksef.token should not be empty"],
      [{ nip: "5260250995", token: `${TOKEN}\u0000x` }, "ksef.token must not contain control characters (line breaks, tabs)"],
      [{ nip: "5260250995", token: `a\nb${TOKEN}` }, "ksef.token must not contain control characters (line breaks, tabs)"],
      [{ nip: "5260250995", token: "x".repeat(1001) }, "ksef.token must be shorter than or equal to 1000 characters"],
      [{ nip: "5260250995", token: TOKEN, extra: 1 }, "property ksef.extra should not exist"],
      [{ nip: "5260250995" }, "ksef.token must be a string"],
      ["5260250995", "ksef must be an object with nip and token, or null"],
    ];
    for (const [ksef, message] of cases) {
      const e = await refusal(updateCompany(store, companyId, { ksef }, o));
      expect([e.status, e.details]).toEqual([400, [message]]);
      expect(JSON.stringify(e.details)).not.toContain(TOKEN);
    }
    expect((await getCompany(store, companyId)).ksef).toBeNull();
  });
});

describe("submit with ksefCredentialsRequired", () => {
  const NIP = "5260250995";
  /** An invoice of the Polish company (seller BT-31 = its NIP) to a Polish buyer. */
  const polish = (id: string, sellerVat = `PL${NIP}`) => b64(invoiceXml({ id, scheme: "9945", endpoint: "PL5213017228", sellerVat, sellerCountry: "PL" }));

  it("refuses a submission routed to KSeF (auto or asked) for a company in PL without a credential: 422 ksef_not_configured, nothing stored", async () => {
    const { store, auth, options } = await setup({ country: "PL" });
    const o = { ...options, ksefCredentialsRequired: true };
    for (const targetNetwork of ["auto", "ksef"] as const) {
      const e = await refusal(submitInvoice(store, auth, { xml: polish(`PL-${targetNetwork}`), targetNetwork }, o));
      expect([e.status, e.code]).toEqual([422, "ksef_not_configured"]);
      expect(e.message).toMatch(/routed to KSeF.*PATCH \/admin\/companies\/\{id\}/);
    }
    expect((await store.listInvoices(auth.companyId, { limit: 10, after: null, status: null, clientId: null })).length).toBe(0);
    // Peppol is not concerned: a company in NL sends a 9945 recipient through Peppol without any KSeF credential.
    const nl = await setup({ store, country: "NL" });
    expect((await submitInvoice(store, nl.auth, { xml: polish("NL-1", "DE123456789") }, { ...nl.options, ksefCredentialsRequired: true })).status).toBe("sending");
  });

  it("accepts it once the company has a credential, and without the option the contract's behaviour stays", async () => {
    const { store, auth, companyId, options } = await setup({ country: "PL" });
    expect((await submitInvoice(store, auth, { xml: polish("PL-sandbox") }, options)).status).toBe("sending");
    await updateCompany(store, companyId, { ksef: { nip: NIP, token: TOKEN } }, { ...options, tokenCipher: tokenCipher(KEY) });
    expect((await submitInvoice(store, auth, { xml: polish("PL-direct") }, { ...options, ksefCredentialsRequired: true })).status).toBe("sending");
  });

  it("takes an invoice whose seller VAT id (BT-31) is the company's NIP, and refuses another seller with 422 ksef_seller_mismatch naming both numbers, nothing stored", async () => {
    const { store, auth, companyId, options } = await setup({ country: "PL" });
    await updateCompany(store, companyId, { ksef: { nip: NIP, token: TOKEN } }, { ...options, tokenCipher: tokenCipher(KEY) });
    const o = { ...options, ksefCredentialsRequired: true };
    // EN 16931 (BR-CO-09) already wants the country prefix on a VAT id: the NIP is compared without it.
    expect((await submitInvoice(store, auth, { xml: polish("PL-1") }, o)).status).toBe("sending");
    for (const other of ["PL5213017228", "DE123456789"]) {
      const e = await refusal(submitInvoice(store, auth, { xml: polish(`X-${other}`, other) }, o));
      expect([e.status, e.code]).toEqual([422, "ksef_seller_mismatch"]);
      expect(e.message).toContain(`"${other}"`);
      expect(e.message).toContain(`KSeF NIP is ${NIP}`);
      // The fix it suggests passes the rules: the NIP with its country prefix (BR-CO-09), not the bare NIP.
      expect(e.message).toContain(`with its country prefix, PL${NIP} (EN 16931's BR-CO-09 requires the prefix)`);
      expect(e.message).not.toContain(`or ${NIP}`);
    }
    // Without ksefCredentialsRequired (a sandbox delivers the ksef route) the company's NIP, when set, is still the seller.
    expect((await refusal(submitInvoice(store, auth, { xml: polish("Y-1", "PL5213017228") }, options))).code).toBe("ksef_seller_mismatch");
    expect((await store.listInvoices(auth.companyId, { limit: 10, after: null, status: null, clientId: null })).length).toBe(1);
  });

  it("answers a duplicate as one (row 10) before the missing credential or a seller mismatch", async () => {
    const { store, auth, companyId, options } = await setup({ country: "PL" });
    const xml = polish("PL-dup");
    const first = await submitInvoice(store, auth, { xml }, options);
    expect(first.status).toBe("sending");
    const again = await submitInvoice(store, auth, { xml }, { ...options, ksefCredentialsRequired: true });
    expect(again).toMatchObject({ status: "failed", errorMessage: expect.stringContaining(first.submissionId) });
    await updateCompany(store, companyId, { ksef: { nip: "5213017228", token: TOKEN } }, { ...options, tokenCipher: tokenCipher(KEY) });
    const mismatch = await submitInvoice(store, auth, { xml }, { ...options, ksefCredentialsRequired: true });
    expect(mismatch).toMatchObject({ status: "failed", errorMessage: expect.stringContaining(first.submissionId) });
  });
});

describe("ksefCorrectedInvoices", () => {
  const KSEF_NUMBER = "5260250995-20261120-0123456789AB-CD";
  /** A memory store with the given invoices; the evidence is given by invoice id. */
  async function withInvoices(records: ReturnType<typeof sampleInvoiceRecord>[], evidence: Record<string, Partial<StoredEvidence>>) {
    const store = memoryStore();
    for (const invoice of records) {
      const r = await store.insertSubmission({ invoice, document: null, client: null });
      expect(r.inserted).toBe(true);
    }
    return ksefCorrectedInvoices({
      listInvoices: (c, q) => store.listInvoices(c, q),
      getEvidence: async (c, id) => {
        const e = evidence[id];
        return e && records.some((r) => r.id === id && r.companyId === c)
          ? { invoiceId: id, network: "ksef", deliveredAt: "2026-11-20T10:00:00.000Z", kind: "ksef-upo", mediaType: "application/xml", content: "<UPO/>", reference: null, documentHash: null, ...e }
          : null;
      },
    });
  }
  const delivered = (companyId: string, overrides: Parameters<typeof sampleInvoiceRecord>[1] = {}) =>
    sampleInvoiceRecord(companyId, { status: "delivered", network: "ksef", targetNetwork: "ksef", invoiceNumber: "FV/1", issueDate: "2026-11-20", ...overrides });

  it("answers the KSeF number of the company's invoice with that number and issue date delivered on ksef, from its UPO's reference", async () => {
    const a = delivered("c1");
    const resolve = await withInvoices([a], { [a.id]: { reference: KSEF_NUMBER } });
    expect(await resolve("c1", { number: "FV/1", issueDate: "2026-11-20" })).toEqual({ ksefNumber: KSEF_NUMBER });
  });

  it("answers the record's own KSeF number (kept with the delivery), also for a delivery KSeF gave no UPO for", async () => {
    const a = delivered("c1", { ksefNumber: KSEF_NUMBER });
    const resolve = await withInvoices([a], {});
    expect(await resolve("c1", { number: "FV/1", issueDate: "2026-11-20" })).toEqual({ ksefNumber: KSEF_NUMBER });
    expect(await resolve("c1", { number: "FV/1", issueDate: "2026-11-21" })).toBeNull();
  });

  it("answers null, never outsideKsef, for another number, date or company, a credit note, another network, a status other than delivered, or evidence that is not a UPO with a reference", async () => {
    const cases = [
      delivered("c1", { invoiceNumber: "FV/2" }),
      delivered("c1", { issueDate: "2026-11-21" }),
      delivered("c2"),
      delivered("c1", { kind: "creditNote" }),
      delivered("c1", { network: "peppol" }),
      delivered("c1", { status: "sending", network: "peppol" }),
      delivered("c1", { status: "failed" }),
    ];
    const noUpo = delivered("c1", { createdAt: "2026-11-20T11:00:00.000Z" });
    const noReference = delivered("c1", { createdAt: "2026-11-20T12:00:00.000Z" });
    const evidence: Record<string, Partial<StoredEvidence>> = Object.fromEntries(cases.map((r) => [r.id, { reference: KSEF_NUMBER }]));
    evidence[noUpo.id] = { kind: "sandbox", reference: KSEF_NUMBER };
    evidence[noReference.id] = { reference: null };
    const resolve = await withInvoices([...cases, noUpo, noReference], evidence);
    expect(await resolve("c1", { number: "FV/1", issueDate: "2026-11-20" })).toBeNull();
    expect(await resolve("c1", { number: "fv/1", issueDate: "2026-11-20" })).toBeNull();
    expect(await resolve("c1", { number: "", issueDate: "2026-11-20" })).toBeNull();
  });

  it("throws KsefCorrectionPendingError, naming the submission, while the corrected invoice is still sending on ksef (the credit note is retried, not failed)", async () => {
    const onItsWay = delivered("c1", { status: "sending" });
    const resolve = await withInvoices([onItsWay], {});
    const e = await resolve("c1", { number: "FV/1", issueDate: "2026-11-20" }).then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(KsefCorrectionPendingError);
    expect((e as Error).message).toBe(
      `the corrected invoice FV/1 of 2026-11-20 is still being delivered to KSeF (submission ${onItsWay.id}); the credit note is sent once it has its KSeF number`,
    );
    expect(await resolve("c1", { number: "FV/1", issueDate: "2026-11-21" })).toBeNull();
  });

  it("finds the delivered invoice behind more than a page of others with the same number", async () => {
    const others = Array.from({ length: 60 }, (_, i) => delivered("c1", { issueDate: "2026-01-01", createdAt: new Date(Date.UTC(2026, 10, 20, 12, 0, i)).toISOString() }));
    const target = delivered("c1", { createdAt: "2026-11-20T11:00:00.000Z" });
    const resolve = await withInvoices([target, ...others], { [target.id]: { reference: KSEF_NUMBER } });
    expect(await resolve("c1", { number: "FV/1", issueDate: "2026-11-20" })).toEqual({ ksefNumber: KSEF_NUMBER });
  });
});
