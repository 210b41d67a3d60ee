// Direct KSeF delivery end to end: the example server as a process with KSEF_URL pointing at the fake
// KSeF (which follows KSeF 2.0's published API), each company sending with its own NIP and KSeF token.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeKsef, type FakeKsef } from "../../../packages/ksef/test/support/fake-ksef.js";
import { ublCreditNote, ublInvoice, type GenInvoice } from "../../../packages/ksef/test/support/ubl.js";
import { eligibleAccount, invoiceB64, waitFor } from "./helpers.js";
import { json, startServer, type RunningServer } from "./server-process.js";

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
  let server: RunningServer;
  let dataDir: string;
  /** Every answer's text, to look for the token. */
  const answers: string[] = [];
  const call = async (method: string, path: string, body?: unknown, token?: string) => {
    const r = await json(server.base, method, path, body, token);
    answers.push(JSON.stringify(r.body));
    return r;
  };

  beforeAll(async () => {
    fake = await startFakeKsef({ nip: NIP, token: TOKEN });
    dataDir = mkdtempSync(join(tmpdir(), "einvoice-ksef-"));
    server = await startServer({ DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, DATABASE_URL: undefined, SANDBOX_DELAY_MS: "50", KSEF_URL: fake.url, KSEF_TOKEN_KEY: KEY });
  });
  afterAll(async () => {
    await server?.kill();
    await fake?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("says at start that the ksef route goes to KSeF directly, and where", () => {
    expect(server.output()).toMatch(new RegExp(`^ksef: directly to KSeF at ${fake.url.replace(/[.]/g, "\\.")} \\(KSEF_URL\\)`, "m"));
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
    expect(delivered, server.output()).toMatchObject({ status: "delivered", network: "ksef", documentType: "creditNote", billingReference: "FV/KOR/1", errorMessage: null });
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

  it("never shows the KSeF token: not in the server's stdout or stderr, not in any answer", () => {
    expect(answers.length).toBeGreaterThan(4);
    for (const a of answers) expect(a).not.toContain(TOKEN);
    expect(server.output()).not.toContain(TOKEN);
    expect(server.output()).not.toContain(TOKEN.split("|")[2]!);
    expect(server.output()).not.toContain(KEY);
  });
});

describe("example server: KSeF settings that do not fit", () => {
  const refused = async (env: Record<string, string>) => {
    const dataDir = mkdtempSync(join(tmpdir(), "einvoice-ksef-bad-"));
    try {
      return await startServer({ DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, DATABASE_URL: undefined, ...env }).then(
        async (s) => {
          await s.kill();
          throw new Error("the server started");
        },
        (e: Error) => e.message,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  };

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
    const dataDir = mkdtempSync(join(tmpdir(), "einvoice-ksef-crash-"));
    // A short lease: the restarted server takes the killed one's submission over within seconds.
    const env = { DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, DATABASE_URL: undefined, KSEF_URL: fake.url, KSEF_TOKEN_KEY: KEY, DISPATCH_LEASE_MS: "2000" };
    try {
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
    } finally {
      await fake.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 240_000);
});
