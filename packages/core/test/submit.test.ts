import { describe, expect, it } from "vitest";
import { ApiError, getInvoice, listClients, submitInvoice, updateCompany, type EligibilityPolicy } from "../src/index.js";
import { setup } from "./support/setup.js";
import { b64, EN16931_ONLY, invoiceXml } from "./support/ubl.js";

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e.code;
    throw e;
  }
  return "no error";
}

describe("submitInvoice", () => {
  it("accepts a routable invoice with sending and stores the record", async () => {
    const { store, auth, options } = await setup();
    const r = await submitInvoice(store, auth, { xml: b64(invoiceXml({ id: "A-1" })) }, options);
    expect(r).toEqual({ submissionId: expect.stringMatching(/^[0-9a-f-]{36}$/), success: true, status: "sending" });
    const inv = await getInvoice(store, auth, r.submissionId);
    expect(inv).toMatchObject({
      id: r.submissionId,
      status: "sending",
      targetNetwork: "auto",
      network: "peppol",
      errorMessage: null,
      invoiceNumber: "A-1",
      totals: { taxExclusive: "100.00", taxInclusive: "121.00", payable: "121.00" },
      recipient: { endpointId: "0208:0123456749", name: "Buyer NV", country: "BE" },
    });
    expect(inv.events).toEqual([{ status: "sending", at: inv.createdAt, detail: expect.stringMatching(/peppol/) }]);
    expect(inv.clientId).not.toBeNull();
  });

  it("runs the body check before eligibility, eligibility before preconditions, preconditions before the document", async () => {
    const { store, auth, companyId, options } = await setup({ eligible: false });
    const broken = { xml: "%%%" };
    expect(await codeOf(submitInvoice(store, auth, { xml: 1 } as never, options))).toBe("bad_request");
    expect(await codeOf(submitInvoice(store, auth, broken, options))).toBe("enterprise_required");
    await updateCompany(store, companyId, { enterprise: true }, options);
    expect(await codeOf(submitInvoice(store, auth, broken, options))).toBe("subscription_upgrade_required");
    await updateCompany(store, companyId, { subscription: "basic" }, options);
    expect(await codeOf(submitInvoice(store, auth, broken, options))).toBe("subscription_upgrade_required");
    await updateCompany(store, companyId, { subscription: "pro", country: "FR" }, options);
    expect(await codeOf(submitInvoice(store, auth, broken, options))).toBe("peppol_country_not_supported");
    await updateCompany(store, companyId, { country: "DE" }, options);
    expect(await codeOf(submitInvoice(store, auth, broken, options))).toBe("no_legal_entity");
    await updateCompany(store, companyId, { legalEntityId: "LE-9" }, options);
    expect(await codeOf(submitInvoice(store, auth, broken, options))).toBe("peppol_sending_not_enabled");
    await updateCompany(store, companyId, { peppolSendingEnabled: true }, options);
    expect(await codeOf(submitInvoice(store, auth, broken, options))).toBe("invalid_base64_xml");
  });

  it("accepts NL, BE and DE companies", async () => {
    for (const country of ["NL", "BE", "DE"]) {
      const { store, auth, options } = await setup({ country });
      expect((await submitInvoice(store, auth, { xml: b64(invoiceXml()) }, options)).status).toBe("sending");
    }
  });

  it("answers a second identical document with failed naming the first, and stores that failure", async () => {
    const { store, auth, options } = await setup();
    const xml = b64(invoiceXml());
    const first = await submitInvoice(store, auth, { xml }, options);
    const second = await submitInvoice(store, auth, { xml, targetNetwork: "peppol" }, options);
    expect(second).toEqual({
      submissionId: expect.any(String),
      success: false,
      status: "failed",
      errorMessage: expect.stringContaining(first.submissionId),
    });
    const stored = await getInvoice(store, auth, second.submissionId);
    expect(stored).toMatchObject({ status: "failed", network: null, clientId: null, errorMessage: second.errorMessage });
    expect(stored.events).toEqual([{ status: "failed", at: stored.createdAt, detail: second.errorMessage }]);
    const clients = await listClients(store, auth);
    expect(clients.data[0]?.invoiceCount).toBe(1);
  });

  it("compares decoded bytes: the same XML in other base64 wrapping is a duplicate, a one-byte change is not", async () => {
    const { store, auth, options } = await setup();
    const xml = invoiceXml();
    await submitInvoice(store, auth, { xml: b64(xml) }, options);
    expect((await submitInvoice(store, auth, { xml: b64(xml).replace(/(.{60})/g, "$1\n") }, options)).status).toBe("failed");
    expect((await submitInvoice(store, auth, { xml: b64(xml + " ") }, options)).status).toBe("sending");
  });

  it("keeps the duplicate rule per company", async () => {
    const a = await setup();
    const b = await setup({ store: a.store });
    const xml = b64(invoiceXml());
    expect((await submitInvoice(a.store, a.auth, { xml }, a.options)).status).toBe("sending");
    expect((await submitInvoice(b.store, b.auth, { xml }, b.options)).status).toBe("sending");
  });

  it("accepts exactly one of 50 parallel identical submissions", async () => {
    const { store, auth, options } = await setup();
    const xml = b64(invoiceXml());
    const results = await Promise.all(Array.from({ length: 50 }, () => submitInvoice(store, auth, { xml }, options)));
    expect(results.filter((r) => r.status === "sending")).toHaveLength(1);
    const winner = results.find((r) => r.status === "sending")!.submissionId;
    for (const r of results.filter((r) => r.status === "failed")) expect(r.errorMessage).toContain(winner);
  });

  describe("routing by the issuer", () => {
    const polishSeller = { sellerVat: "PL5260250995", sellerCountry: "PL" };

    it("sends a company outside PL through Peppol on auto, whatever the recipient's scheme (a 9945 buyer too)", async () => {
      const { store, auth, options } = await setup({ country: "NL" });
      const auto = await submitInvoice(store, auth, { xml: b64(invoiceXml({ scheme: "9945", endpoint: "PL5213017228" })) }, options);
      expect(await getInvoice(store, auth, auto.submissionId)).toMatchObject({ network: "peppol", targetNetwork: "auto", status: "sending" });
      const peppol = await submitInvoice(store, auth, { xml: b64(invoiceXml({ id: "2", scheme: "9945", endpoint: "PL5213017228" })), targetNetwork: "peppol" }, options);
      expect(await getInvoice(store, auth, peppol.submissionId)).toMatchObject({ network: "peppol", targetNetwork: "peppol" });
    });

    it("refuses ksef from a company outside PL with 403 ksef_country_not_supported, before the document is read, storing nothing", async () => {
      const { store, auth, options } = await setup({ country: "NL" });
      const e = await submitInvoice(store, auth, { xml: "%%%", targetNetwork: "ksef" }, options).catch((x: unknown) => x);
      expect(e).toMatchObject({ code: "ksef_country_not_supported", status: 403, message: expect.stringMatching(/companies in PL; this company is in NL/) });
      expect(await codeOf(submitInvoice(store, auth, { xml: b64(invoiceXml({ scheme: "9945", endpoint: "PL5213017228" })), targetNetwork: "ksef" }, options))).toBe("ksef_country_not_supported");
      expect(await store.listInvoices(auth.companyId, { limit: 10, after: null, status: null, clientId: null })).toEqual([]);
    });

    it("issues a company in PL through KSeF on auto and ksef, whatever the recipient's scheme; peppol is 403 peppol_country_not_supported", async () => {
      const { store, auth, options } = await setup({ country: "PL" });
      const auto = await submitInvoice(store, auth, { xml: b64(invoiceXml({ id: "1", ...polishSeller })) }, options);
      expect(await getInvoice(store, auth, auto.submissionId)).toMatchObject({ network: "ksef", targetNetwork: "auto", status: "sending" });
      const ksef = await submitInvoice(store, auth, { xml: b64(invoiceXml({ id: "2", ...polishSeller, scheme: "9945", endpoint: "PL5213017228" })), targetNetwork: "ksef" }, options);
      expect(await getInvoice(store, auth, ksef.submissionId)).toMatchObject({ network: "ksef", targetNetwork: "ksef" });
      const e = await submitInvoice(store, auth, { xml: "%%%", targetNetwork: "peppol" }, options).catch((x: unknown) => x);
      expect(e).toMatchObject({ code: "peppol_country_not_supported", status: 403, message: expect.stringMatching(/in PL.*through KSeF/) });
    });

    it("needs no Peppol recipient on KSeF: a consumer invoice (no buyer EndpointID, plain EN 16931) is accepted and counts for no client; on Peppol it is missing_recipient", async () => {
      const consumer = { ...polishSeller, noBuyerEndpoint: true, customizationId: EN16931_ONLY };
      const pl = await setup({ country: "PL" });
      const r = await submitInvoice(pl.store, pl.auth, { xml: b64(invoiceXml(consumer)) }, pl.options);
      expect(r.status).toBe("sending");
      expect(await getInvoice(pl.store, pl.auth, r.submissionId)).toMatchObject({ network: "ksef", clientId: null, recipient: { endpointId: null } });
      expect((await listClients(pl.store, pl.auth)).data).toEqual([]);
      const nl = await setup({ country: "NL" });
      expect(await codeOf(submitInvoice(nl.store, nl.auth, { xml: b64(invoiceXml(consumer)) }, nl.options))).toBe("missing_recipient");
    });

    it("still applies the rules the CustomizationID names on KSeF: a Peppol BIS invoice without a buyer endpoint breaks a Peppol rule", async () => {
      const { store, auth, options } = await setup({ country: "PL" });
      const e = await submitInvoice(store, auth, { xml: b64(invoiceXml({ ...polishSeller, noBuyerEndpoint: true })) }, options).catch((x: unknown) => x);
      expect(e).toMatchObject({ code: "invalid_ubl_xml", errors: expect.arrayContaining([expect.objectContaining({ rule: expect.stringMatching(/^PEPPOL-/) })]) });
    });

    it("reports a duplicate before a routing failure", async () => {
      const { store, auth, options } = await setup();
      const xml = b64(invoiceXml());
      const first = await submitInvoice(store, auth, { xml }, options);
      const routing = { name: "closed", route: () => ({ ok: false as const, reason: "Closed for the day." }) };
      const r = await submitInvoice(store, auth, { xml }, { ...options, routing });
      expect(r.errorMessage).toContain(first.submissionId);
    });

    it("uses a replacement routing port, given the company and the target network", async () => {
      const { store, auth, companyId } = await setup();
      const calls: unknown[] = [];
      const options = {
        routing: {
          name: "lookup",
          route: (input: unknown) => {
            calls.push(input);
            return { ok: false as const, reason: "Not registered in the SMP." };
          },
        },
      };
      const r = await submitInvoice(store, auth, { xml: b64(invoiceXml()) }, options);
      expect(r.errorMessage).toBe("Not registered in the SMP.");
      expect(calls).toEqual([{ company: expect.objectContaining({ id: companyId, country: "NL" }), targetNetwork: "auto" }]);
    });
  });

  it("uses a replacement eligibility policy", async () => {
    const { store, auth, options } = await setup({ eligible: false });
    const { companyId } = auth;
    await updateCompany(store, companyId, { legalEntityId: "LE-1", peppolSendingEnabled: true }, options);
    const everyone: EligibilityPolicy = () => null;
    expect((await submitInvoice(store, auth, { xml: b64(invoiceXml()) }, { ...options, eligibility: everyone })).status).toBe("sending");
  });

  it("groups recipients into one client per identifier, value compared case-insensitively", async () => {
    const { store, auth, options } = await setup();
    await submitInvoice(store, auth, { xml: b64(invoiceXml({ id: "1", endpoint: "be0123", scheme: "0106", buyerName: "Old name" })) }, options);
    await submitInvoice(store, auth, { xml: b64(invoiceXml({ id: "2", endpoint: "BE0123", scheme: "0106", buyerName: "New name", buyerVat: "BE0123" })) }, options);
    await submitInvoice(store, auth, { xml: b64(invoiceXml({ id: "3", scheme: "9925", endpoint: "be0123" })) }, options);
    const { data } = await listClients(store, auth);
    expect(data).toHaveLength(2);
    const be = data.find((c) => c.endpointId.startsWith("0106:"))!;
    expect(be).toMatchObject({ endpointId: "0106:be0123", name: "New name", vatId: "BE0123", invoiceCount: 2 });
  });

  it("wraps a failing store into internal_error without its message", async () => {
    const { store, auth, options } = await setup();
    const broken = { ...store, name: "broken", getCompany: async () => { throw new Error("connection refused: password=hunter2"); } };
    const e = await submitInvoice(broken, auth, { xml: b64(invoiceXml()) }, options).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).code).toBe("internal_error");
    expect((e as ApiError).message).not.toMatch(/hunter2/);
  });

  it("with submissionId (an Idempotency-Key's id): stored under it; called again, answered as it was stored, nothing checked or stored again", async () => {
    const { store, auth, options } = await setup();
    const id = crypto.randomUUID();
    const xml = b64(invoiceXml({ id: "SID-1" }));
    const first = await submitInvoice(store, auth, { xml }, { ...options, submissionId: id.toUpperCase() });
    expect(first).toEqual({ submissionId: id, success: true, status: "sending" });
    expect(await submitInvoice(store, auth, { xml }, { ...options, submissionId: id })).toEqual(first);
    // Another id with the same bytes is the seed's duplicate; called again with that id, the same failure, not a second one.
    const dupId = crypto.randomUUID();
    const dup = await submitInvoice(store, auth, { xml }, { ...options, submissionId: dupId });
    expect(dup).toMatchObject({ submissionId: dupId, success: false, status: "failed", errorMessage: expect.stringContaining(id) });
    expect(await submitInvoice(store, auth, { xml }, { ...options, submissionId: dupId })).toEqual(dup);
    expect((await store.listInvoices(auth.companyId, { limit: 10, after: null, status: null, clientId: null })).map((i) => i.id).sort()).toEqual([id, dupId].sort());
    await expect(submitInvoice(store, auth, { xml }, { ...options, submissionId: "not-a-uuid" })).rejects.toMatchObject({ code: "internal_error" });
  });

  it("answers storage_unavailable (503) when the store says it cannot be reached now (an error with unavailable: true), with the adapter's error as cause", async () => {
    const { store, auth, options } = await setup();
    const away = Object.assign(new Error("connect ECONNREFUSED 10.0.0.7:5432 password=hunter2"), { code: "ECONNREFUSED", unavailable: true });
    const broken = { ...store, name: "broken", getCompany: async () => { throw away; } };
    const e = await submitInvoice(broken, auth, { xml: b64(invoiceXml()) }, options).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect([(e as ApiError).code, (e as ApiError).status]).toEqual(["storage_unavailable", 503]);
    expect((e as ApiError).message).not.toMatch(/hunter2|10\.0\.0\.7/);
    expect((e as ApiError).cause).toBe(away);
    // A read the same; an error without the mark stays internal_error.
    const reads = { ...store, name: "broken", getInvoice: async () => { throw away; } };
    expect(((await getInvoice(reads, auth, crypto.randomUUID()).catch((x: unknown) => x)) as ApiError).code).toBe("storage_unavailable");
    const other = { ...store, name: "broken", getInvoice: async () => { throw Object.assign(new Error("syntax"), { code: "42601" }); } };
    expect(((await getInvoice(other, auth, crypto.randomUUID()).catch((x: unknown) => x)) as ApiError).code).toBe("internal_error");
  });
});
