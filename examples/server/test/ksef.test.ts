// Direct KSeF delivery end to end: the example server as a process with KSEF_URL pointing at the fake
// KSeF (which follows KSeF 2.0's published API), each company sending with its own NIP and KSeF token.
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeKsef, type FakeKsef } from "../../../packages/ksef/test/support/fake-ksef.js";
import { ublCreditNote, ublInvoice, type GenInvoice } from "../../../packages/ksef/test/support/ubl.js";
import { fa3Values } from "../../../packages/ksef/test/support/tree.js";
import { fa3SchemaErrors } from "../../../packages/ksef/test/support/xsd.js";
import { decodeQrSvg } from "../../../packages/core/test/support/qr.js";
import { eligibleAccount, invoiceB64, waitFor } from "./support/helpers.js";
import { json, startServer, type RunningServer } from "./support/server-process.js";
import { serverSuite, withTempDir } from "./support/server-suite.js";

const ADMIN = "ksef-test-admin-token-0123";
const NIP = "5260250995";
// Distinctive, so that any trace of it in an output or an answer is found.
const TOKEN = `20261122-EC-${randomBytes(5).toString("hex").toUpperCase()}-0123456789-AB|nip-${NIP}|${randomBytes(32).toString("hex")}`;
const KEY = randomBytes(32).toString("base64");

const LINES: GenInvoice["lines"] = [{ name: "Usługa", quantity: "2", price: "150.00", cat: { id: "S", percent: "23" } }];

/** The generator's UBL made fit for the server: a 9945 buyer, with a buyer reference (a company in PL sends it through KSeF on `auto`). */
function forServer(xml: string): string {
  const fixed = xml.replace('<cbc:EndpointID schemeID="9930">PL5213017228<', '<cbc:EndpointID schemeID="9945">PL5213017228<')
    // Peppol BIS asks for a buyer reference (PEPPOL-EN16931-R003).
    .replace("</cbc:DocumentCurrencyCode>", "</cbc:DocumentCurrencyCode><cbc:BuyerReference>PO-1</cbc:BuyerReference>");
  return Buffer.from(fixed).toString("base64");
}

/**
 * A consumer invoice: no buyer VAT id and no buyer EndpointID (the buyer has no Peppol identifier),
 * so plain EN 16931 (Peppol BIS Billing 3.0 requires the endpoint, PEPPOL-EN16931-R010).
 */
function consumerInvoice(id: string): string {
  const xml = ublInvoice({ id, buyerVat: null, lines: LINES }).xml
    .replace(/(<cac:AccountingCustomerParty><cac:Party>)<cbc:EndpointID[^>]*>[^<]*<\/cbc:EndpointID>/, "$1")
    .replace(/<cbc:CustomizationID>[^<]*</, "<cbc:CustomizationID>urn:cen.eu:en16931:2017<");
  return Buffer.from(xml).toString("base64");
}

/** kody-qr.md's link, recomputed from an FA(3) as KSeF received it: {host}/invoice/{Podmiot1 NIP}/{P_1 DD-MM-YYYY}/{SHA-256, base64url}. */
function linkOf(fa3: string, host: string): string {
  const [y, m, d] = fa3Values(fa3, "P_1")[0]!.split("-");
  return `${host}/invoice/${fa3Values(fa3, "NIP")[0]}/${d}-${m}-${y}/${createHash("sha256").update(fa3, "utf8").digest("base64url")}`;
}

/** The Podmiot2 (buyer) identifier elements of an FA(3) and their values. */
function buyerIdOf(fa3: string): Record<string, string[]> {
  const ids = /<Podmiot2>(<DaneIdentyfikacyjne>.*?<\/DaneIdentyfikacyjne>)/s.exec(fa3)?.[1] ?? "";
  const doc = `<Faktura xmlns="http://crd.gov.pl/wzor/2025/06/25/13775/">${ids}</Faktura>`;
  return Object.fromEntries(["NIP", "KodUE", "NrVatUE", "KodKraju", "NrID", "BrakID"].map((n) => [n, fa3Values(doc, n)]).filter(([, v]) => v!.length > 0));
}

const QR_URL = "https://qr.example.test";

/** A Polish invoice (seller PL5260250995, issued 2026-11-20) to a Polish buyer identified with scheme 9945. */
function polishInvoice(id: string): string {
  return forServer(ublInvoice({ id, lines: LINES }).xml);
}

/** A Polish credit note (type 381) of the same content, correcting the invoice `number` of `issueDate` (BT-25, BT-26). */
function polishCreditNote(id: string, number: string, issueDate: string): string {
  return forServer(ublCreditNote({ id, lines: LINES, corrects: [{ number, issueDate }] }).xml);
}

describe("example server: the ksef route directly to KSeF (KSEF_URL, KSEF_TOKEN_KEY)", () => {
  let fake: FakeKsef;
  const suite = serverSuite("ksef", { ADMIN_TOKEN: ADMIN });
  let server: RunningServer;
  /** Every answer's text, to look for the token. */
  const answers: string[] = [];
  const call = async (method: string, path: string, body?: unknown, token?: string) => {
    const r = await json(server.base, method, path, body, token);
    answers.push(JSON.stringify(r.body));
    return r;
  };

  beforeAll(async () => {
    fake = await startFakeKsef({ nip: NIP, token: TOKEN });
    server = await suite.start({ SANDBOX_DELAY_MS: "50", KSEF_URL: fake.url, KSEF_TOKEN_KEY: KEY, KSEF_QR_URL: QR_URL });
  });
  afterAll(async () => {
    await fake?.close();
  });

  it("says at start that the ksef route goes to KSeF directly, and where, and where the verification links point", () => {
    expect(server.output()).toMatch(new RegExp(`^ksef: directly to KSeF at ${fake.url.replace(/[.]/g, "\\.")} \\(KSEF_URL\\)`, "m"));
    expect(server.output()).toMatch(/; verification links \(KOD I\) to https:\/\/qr\.example\.test$/m);
    expect(server.output()).toMatch(/^delivery: sandbox network.*; the ksef route: KSeF directly at 127\.0\.0\.1:\d+/m);
  });

  it("delivers an invoice of a company in PL whose operator set its NIP and KSeF token, with the KSeF number in the events; the token is never shown", async () => {
    const { apiKey, companyId } = await eligibleAccount(server.base, ADMIN, "PL");
    const patched = await call("PATCH", `/admin/companies/${companyId}`, { ksef: { nip: `PL ${NIP.slice(0, 3)}-${NIP.slice(3, 6)}-${NIP.slice(6, 8)}-${NIP.slice(8)}`, token: TOKEN } }, ADMIN);
    expect(patched.status).toBe(200);
    expect(patched.body.data.ksef).toEqual({ nip: NIP, tokenSet: true, updatedAt: expect.any(String) });
    expect((await call("GET", "/v1/company", undefined, apiKey)).body.data.ksef).toEqual(patched.body.data.ksef);

    const sent = await call("POST", "/v1/peppol/invoice", { xml: polishInvoice("FV/KSEF/1") }, apiKey);
    expect(sent.body).toMatchObject({ data: { success: true, status: "sending" } });
    const inv = await waitFor(
      "the KSeF invoice to settle",
      async () => {
        const r = await call("GET", `/v1/invoices/${sent.body.data.submissionId}`, undefined, apiKey);
        return r.body.data.status === "sending" ? undefined : r.body.data;
      },
      60_000,
      200,
    );
    expect(inv).toMatchObject({ status: "delivered", network: "ksef", errorMessage: null });
    expect(inv.events.at(-1).detail).toMatch(/^Delivered on ksef \(attempt 1\)\. KSeF number 5260250995-20261122-[0-9A-F]{12}-\d\d/);
    expect(fake.accepted).toHaveLength(1);
    expect(fake.accepted[0]).toContain("<P_2>FV/KSEF/1</P_2>");
  }, 90_000);

  it("answers 422 ksef_not_configured for a company in PL without a KSeF credential; a company in NL sends to a 9945 buyer through Peppol without one", async () => {
    const { apiKey } = await eligibleAccount(server.base, ADMIN, "PL");
    const r = await call("POST", "/v1/peppol/invoice", { xml: polishInvoice("FV/KSEF/2") }, apiKey);
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ code: "ksef_not_configured", message: expect.stringContaining("PATCH /admin/companies/{id}") });
    const nl = await eligibleAccount(server.base, ADMIN);
    const peppol = await call("POST", "/v1/peppol/invoice", { xml: polishInvoice("FV/KSEF/2") }, nl.apiKey);
    const got = await call("GET", `/v1/invoices/${peppol.body.data.submissionId}`, undefined, nl.apiKey);
    expect(got.body.data).toMatchObject({ network: "peppol", targetNetwork: "auto", recipient: { endpointId: "9945:PL5213017228" } });
    expect(peppol.body.data.status).toBe("sending");
    await waitFor("the Peppol invoice to be delivered", async () => {
      const got = await call("GET", `/v1/invoices/${peppol.body.data.submissionId}`, undefined, nl.apiKey);
      return got.body.data.status === "delivered" ? true : undefined;
    });
  }, 60_000);

  it("sends a credit note as a correction (KOR) of the invoice it names, by that invoice's KSeF number; one naming an invoice this service did not deliver to KSeF fails, saying what is missing", async () => {
    const { apiKey, companyId } = await eligibleAccount(server.base, ADMIN, "PL");
    expect((await call("PATCH", `/admin/companies/${companyId}`, { ksef: { nip: NIP, token: TOKEN } }, ADMIN)).status).toBe(200);
    const settled = (id: string) =>
      waitFor(
        `submission ${id} to settle`,
        async () => {
          const r = await call("GET", `/v1/invoices/${id}`, undefined, apiKey);
          return r.body.data.status === "sending" ? undefined : r.body.data;
        },
        60_000,
        200,
      );

    const sent = await call("POST", "/v1/peppol/invoice", { xml: polishInvoice("FV/KOR/1") }, apiKey);
    expect(sent.body).toMatchObject({ data: { status: "sending" } });
    expect(await settled(sent.body.data.submissionId)).toMatchObject({ status: "delivered", network: "ksef" });
    const evidence = await call("GET", `/v1/invoices/${sent.body.data.submissionId}/evidence`, undefined, apiKey);
    const ksefNumber: string = evidence.body.data.reference;
    expect(ksefNumber).toMatch(/^5260250995-20261122-[0-9A-F]{12}-\d\d$/);
    const listed = await call("GET", `/v1/invoices?invoiceNumber=${encodeURIComponent("FV/KOR/1")}`, undefined, apiKey);
    expect(listed.body.data.map((i: { id: string }) => i.id)).toEqual([sent.body.data.submissionId]);

    const before = fake.accepted.length;
    const note = await call("POST", "/v1/peppol/credit-note", { xml: polishCreditNote("FK/KOR/1", "FV/KOR/1", "2026-11-20") }, apiKey);
    expect(note.body).toMatchObject({ data: { success: true, status: "sending" } });
    const delivered = await settled(note.body.data.submissionId);
    expect(delivered, server.output()).toMatchObject({ status: "delivered", network: "ksef", kind: "creditNote", billingReference: "FV/KOR/1", errorMessage: null });
    expect(fake.accepted).toHaveLength(before + 1);
    const fa3 = fake.accepted.at(-1)!;
    expect(fa3).toContain("<P_2>FK/KOR/1</P_2>");
    expect(fa3).toContain("<RodzajFaktury>KOR</RodzajFaktury>");
    expect(fa3).toMatch(/<DaneFaKorygowanej><DataWystFaKorygowanej>2026-11-20<\/DataWystFaKorygowanej><NrFaKorygowanej>FV\/KOR\/1<\/NrFaKorygowanej><NrKSeF>1<\/NrKSeF><NrKSeFFaKorygowanej>([^<]+)<\/NrKSeFFaKorygowanej><\/DaneFaKorygowanej>/);
    expect(/<NrKSeFFaKorygowanej>([^<]+)</.exec(fa3)?.[1]).toBe(ksefNumber);

    // The same number on another date is another invoice: this service delivered none, so nothing is sent.
    const unknown = await call("POST", "/v1/peppol/credit-note", { xml: polishCreditNote("FK/KOR/2", "FV/KOR/1", "2026-11-19") }, apiKey);
    expect(unknown.body).toMatchObject({ data: { status: "sending" } });
    const failed = await settled(unknown.body.data.submissionId);
    expect(failed).toMatchObject({ status: "failed", network: "ksef" });
    expect(failed.errorMessage).toMatch(/KSeF correction invoices \(KOR\) need the KSeF number of the corrected invoice.*FV\/KOR\/1/);
    expect(fake.accepted).toHaveLength(before + 1);
  }, 120_000);

  it("a company in PL issues through KSeF on auto, to a Polish buyer (NIP), a German one (EU VAT id), a US one (no EU id) and a consumer: each FA(3) valid against the XSD with the buyer mapped, each with its KSeF number, verification link and QR code", async () => {
    const { apiKey, companyId } = await eligibleAccount(server.base, ADMIN, "PL");
    expect((await call("PATCH", `/admin/companies/${companyId}`, { ksef: { nip: NIP, token: TOKEN } }, ADMIN)).status).toBe(200);
    const cases = [
      { number: "FV/PL/1", xml: polishInvoice("FV/PL/1"), buyer: { NIP: ["5213017228"] } },
      { number: "FV/DE/1", xml: forServer(ublInvoice({ id: "FV/DE/1", buyerVat: "DE123456789", buyerCountry: "DE", lines: [{ ...LINES[0]!, cat: { id: "AE", percent: "0", exemptionCode: "VATEX-EU-AE" } }] }).xml), buyer: { KodUE: ["DE"], NrVatUE: ["123456789"] } },
      { number: "FV/US/1", xml: forServer(ublInvoice({ id: "FV/US/1", buyerVat: "US123456789", buyerCountry: "US", lines: [{ ...LINES[0]!, cat: { id: "G", percent: "0", exemptionCode: "VATEX-EU-G" } }] }).xml), buyer: { KodKraju: ["US"], NrID: ["123456789"] } },
      { number: "FV/B2C/1", xml: consumerInvoice("FV/B2C/1"), buyer: { BrakID: ["1"] } },
    ];
    const ids: string[] = [];
    for (const c of cases) {
      const sent = await call("POST", "/v1/peppol/invoice", { xml: c.xml }, apiKey);
      expect(sent.body, c.number).toMatchObject({ data: { success: true, status: "sending" } });
      ids.push(sent.body.data.submissionId);
    }
    for (const [i, c] of cases.entries()) {
      const inv = await waitFor(
        `${c.number} to settle`,
        async () => {
          const r = await call("GET", `/v1/invoices/${ids[i]}`, undefined, apiKey);
          return r.body.data.status === "sending" ? undefined : r.body.data;
        },
        60_000,
        200,
      );
      expect(inv, c.number).toMatchObject({ status: "delivered", network: "ksef", targetNetwork: "auto", errorMessage: null, ksefNumber: expect.stringMatching(/^5260250995-\d{8}-[0-9A-F]{12}-[0-9A-F]{2}$/) });
      const fa3 = fake.accepted.find((f) => fa3Values(f, "P_2")[0] === c.number)!;
      expect(fa3, c.number).toBeDefined();
      expect(await fa3SchemaErrors(fa3), c.number).toEqual([]);
      expect(buyerIdOf(fa3), c.number).toEqual(c.buyer);
      // The link: its parts recomputed from the FA(3) KSeF received, on the QR address KSEF_QR_URL names (the fake is no KSeF environment).
      const link = linkOf(fa3, QR_URL);
      expect(inv.verificationUrl, c.number).toBe(link);
      expect(link).toMatch(/^https:\/\/qr\.example\.test\/invoice\/5260250995\/20-11-2026\/[A-Za-z0-9_-]{43}$/);
      const evidence = await call("GET", `/v1/invoices/${ids[i]}/evidence`, undefined, apiKey);
      expect(evidence.body.data).toMatchObject({ kind: "ksef-upo", reference: inv.ksefNumber, verificationUrl: link });
      const qr = await fetch(`${server.base}/v1/invoices/${ids[i]}/evidence/qr`, { headers: { authorization: `Bearer ${apiKey}` } });
      expect(qr.status).toBe(200);
      expect(qr.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
      const svg = await qr.text();
      expect(decodeQrSvg(svg), c.number).toBe(link);
      expect(svg).toContain(`>${inv.ksefNumber}</text>`);
      const listed = await call("GET", `/v1/invoices?ksefNumber=${encodeURIComponent(inv.ksefNumber)}`, undefined, apiKey);
      expect(listed.body.data.map((x: { id: string }) => x.id)).toEqual([ids[i]]);
    }
    // The consumer has no Peppol identifier: it counts for no client; the others are clients by their endpoint.
    const clients = await call("GET", "/v1/clients", undefined, apiKey);
    expect(clients.body.data.map((c: { endpointId: string }) => c.endpointId).sort()).toEqual(["9930:DE123456789", "9930:US123456789", "9945:PL5213017228"]);
  }, 180_000);

  it("refuses, before anything is sent, an invoice whose seller VAT id is not the company's KSeF NIP (422 naming both); a company in NL sends a 9945 buyer through Peppol on auto, and ksef is 403", async () => {
    const { apiKey, companyId } = await eligibleAccount(server.base, ADMIN, "PL");
    expect((await call("PATCH", `/admin/companies/${companyId}`, { ksef: { nip: NIP, token: TOKEN } }, ADMIN)).status).toBe(200);
    const before = fake.invoicesSent;
    const other = await call("POST", "/v1/peppol/invoice", { xml: forServer(ublInvoice({ id: "FV/OTHER/1", sellerVat: "PL5213017228", lines: LINES }).xml) }, apiKey);
    expect(other.status).toBe(422);
    expect(other.body).toEqual({ code: "ksef_seller_mismatch", message: expect.stringMatching(/"PL5213017228".*KSeF NIP is 5260250995/) });
    expect((await call("GET", `/v1/invoices?invoiceNumber=${encodeURIComponent("FV/OTHER/1")}`, undefined, apiKey)).body.data).toEqual([]);
    const peppol = await call("POST", "/v1/peppol/invoice", { xml: polishInvoice("FV/PL/PEPPOL"), targetNetwork: "peppol" }, apiKey);
    expect([peppol.status, peppol.body.code]).toEqual([403, "peppol_country_not_supported"]);

    const nl = await eligibleAccount(server.base, ADMIN);
    const auto = await call("POST", "/v1/peppol/invoice", { xml: polishInvoice("FV/NL/1") }, nl.apiKey);
    expect((await call("GET", `/v1/invoices/${auto.body.data.submissionId}`, undefined, nl.apiKey)).body.data).toMatchObject({ network: "peppol", recipient: { endpointId: "9945:PL5213017228" } });
    const ksef = await call("POST", "/v1/peppol/invoice", { xml: polishInvoice("FV/NL/2"), targetNetwork: "ksef" }, nl.apiKey);
    expect([ksef.status, ksef.body.code]).toEqual([403, "ksef_country_not_supported"]);
    // A Peppol invoice has no KSeF link to draw.
    const qr = await call("GET", `/v1/invoices/${auto.body.data.submissionId}/evidence/qr`, undefined, nl.apiKey);
    expect([qr.status, qr.body.code]).toEqual([409, "evidence_not_available"]);
    expect(fake.invoicesSent).toBe(before);
  }, 60_000);

  it("never shows the KSeF token: not in the server's stdout or stderr, not in any answer", () => {
    expect(answers.length).toBeGreaterThan(4);
    for (const a of answers) expect(a).not.toContain(TOKEN);
    expect(server.output()).not.toContain(TOKEN);
    expect(server.output()).not.toContain(TOKEN.split("|")[2]!);
    expect(server.output()).not.toContain(KEY);
  });
});

describe("example server: KSeF settings that do not fit", () => {
  const refused = (env: Record<string, string>) =>
    withTempDir("ksef-bad", (dataDir) =>
      startServer({ DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, DATABASE_URL: undefined, ...env }).then(
        async (s) => {
          await s.kill();
          throw new Error("the server started");
        },
        (e: Error) => e.message,
      ),
    );

  it("refuses to start with only one of KSEF_URL and KSEF_TOKEN_KEY, or a malformed key (never quoting it), saying what to set", async () => {
    expect(await refused({ KSEF_URL: "https://api-test.ksef.mf.gov.pl/v2" })).toMatch(/KSEF_URL is set without KSEF_TOKEN_KEY: .*openssl rand -base64 32/);
    expect(await refused({ KSEF_TOKEN_KEY: KEY })).toMatch(/KSEF_TOKEN_KEY is set without KSEF_URL: set KSEF_URL to the KSeF API base/);
    const bad = "not-a-key-but-a-secret-passphrase";
    const message = await refused({ KSEF_URL: "https://api-test.ksef.mf.gov.pl/v2", KSEF_TOKEN_KEY: bad });
    expect(message).toMatch(/KSEF_TOKEN_KEY: the KSeF token key must be 32 random bytes written as 64 hex digits or as base64/);
    expect(message).not.toContain(bad);
  }, 60_000);
});

describe("example server: kill -9 mid-session on the ksef route (KSEF_URL, KSEF_TOKEN_KEY)", () => {
  it("nothing is sent twice, nothing is lost: the server is killed after the fake KSeF received the invoice, before its status is final; restarted, it ends delivered with the UPO, one invoice received", async () => {
    const fake = await startFakeKsef({ nip: NIP, token: TOKEN });
    try {
      await withTempDir("ksef-crash", async (dataDir) => {
        // A short lease: the restarted server takes the killed one's submission over within seconds.
        const env = { DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, DATABASE_URL: undefined, KSEF_URL: fake.url, KSEF_TOKEN_KEY: KEY, DISPATCH_LEASE_MS: "2000" };
        const first = await startServer(env);
        const { apiKey, companyId } = await eligibleAccount(first.base, ADMIN, "PL");
        expect((await json(first.base, "PATCH", `/admin/companies/${companyId}`, { ksef: { nip: NIP, token: TOKEN } }, ADMIN)).status).toBe(200);
        fake.holdStatus();
        const sent = await json(first.base, "POST", "/v1/peppol/invoice", { xml: polishInvoice("FV/KSEF/CRASH") }, apiKey);
        expect(sent.body).toMatchObject({ data: { status: "sending" } });
        const id = sent.body.data.submissionId;
        await waitFor("the fake KSeF to receive the invoice", async () => (fake.invoicesSent === 1 ? true : undefined), 60_000, 20);
        await first.kill();
        fake.releaseStatus();

        const second = await startServer(env);
        try {
          const inv = await waitFor(
            "the KSeF invoice to settle after the restart",
            async () => {
              const r = await json(second.base, "GET", `/v1/invoices/${id}`, undefined, apiKey);
              return r.body.data.status === "sending" ? undefined : r.body.data;
            },
            90_000,
            200,
          );
          expect(inv.status, second.output()).toBe("delivered");
          expect(fake.invoicesSent).toBe(1);
          expect(fake.accepted).toHaveLength(1);
          const number = /KSeF number (\S+)/.exec(inv.events.at(-1).detail)?.[1];
          const evidence = await json(second.base, "GET", `/v1/invoices/${id}/evidence`, undefined, apiKey);
          expect(evidence.status).toBe(200);
          expect(evidence.body.data).toMatchObject({ invoiceId: id, network: "ksef", kind: "ksef-upo", mediaType: "application/xml", reference: number });
          expect(evidence.body.data.content).toContain(`<NumerKSeFDokumentu>${number}</NumerKSeFDokumentu>`);
          expect(evidence.body.data.content).toContain("<NumerFaktury>FV/KSEF/CRASH</NumerFaktury>");
        } finally {
          await second.kill();
        }
      });
    } finally {
      await fake.close();
    }
  }, 240_000);
});
