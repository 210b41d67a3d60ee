import { randomUUID } from "node:crypto";
import type { SendRequest } from "@einvoice/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ksefNetwork } from "../src/index.js";
import { startFakeKsef, type FakeKsef } from "./support/fake-ksef.js";
import { fa3Values } from "./support/tree.js";
import { ublInvoice } from "./support/ubl.js";

const NIP = "5260250995";
const TOKEN = "20261122-EC-0123456789-ABCDEF0123-45|nip-5260250995|0123456789abcdef";

const COMPANY = "7d0c5d4e-1f7a-4c1e-9a57-0c3f2f1a0001";

function request(id = randomUUID(), over: Partial<Parameters<typeof ublInvoice>[0]> = {}, companyId = COMPANY): SendRequest {
  const { xml } = ublInvoice({ id: `FV/${id.slice(0, 8)}`, lines: [{ name: "Usługa", quantity: "1", price: "100.00", cat: { id: "S", percent: "23" } }], ...over });
  return { submissionId: id, idempotencyKey: id, document: new TextEncoder().encode(xml), routing: { network: "ksef", recipient: { scheme: "9945", value: "PL5213017228" } }, companyId, legalEntityId: "1", attempt: 1, state: null, saveState: async () => undefined };
}

describe("ksefNetwork against a fake KSeF", () => {
  let fake: FakeKsef;
  beforeEach(async () => {
    fake = await startFakeKsef({ nip: NIP, token: TOKEN });
  });
  afterEach(async () => {
    await fake.close();
  });
  const network = (token = TOKEN) => ksefNetwork({ baseUrl: fake.url, credentials: { nip: NIP, token }, pollIntervalMs: 20, statusTimeoutMs: 20_000 });

  it("authenticates with the KSeF token, sends the encrypted FA(3) in an online session and is delivered with the KSeF number; the UPO follows", async () => {
    const n = network();
    const req = request();
    const o = await n.send(req);
    expect(o).toEqual({ outcome: "delivered", detail: expect.stringMatching(/^KSeF number 5260250995-20261122-[0-9A-F]{12}-\d\d$/) });
    expect(fake.accepted).toHaveLength(1);
    expect(fa3Values(fake.accepted[0]!, "P_2")).toEqual([`FV/${req.idempotencyKey.slice(0, 8)}`]);
    expect(fake.calls.slice(0, 8)).toEqual([
      "GET /security/public-key-certificates",
      "POST /auth/challenge",
      "POST /auth/ksef-token",
      "GET /auth/{ref}",
      "POST /auth/token/redeem",
      "POST /sessions/online",
      "POST /sessions/online/{ref}/invoices",
      "POST /sessions/online/{ref}/close",
    ]);
    const upo = await n.upo(req.idempotencyKey);
    expect(upo).toContain(`<NumerKSeFDokumentu>${o.outcome === "delivered" ? o.detail!.replace("KSeF number ", "") : ""}<`);
    // A second invoice reuses the access token: no new authentication.
    const before = fake.calls.filter((c) => c === "POST /auth/challenge").length;
    expect((await n.send(request())).outcome).toBe("delivered");
    expect(fake.calls.filter((c) => c === "POST /auth/challenge").length).toBe(before);
  });

  it("a resend with the same idempotency key polls the invoice already sent and never sends it twice", async () => {
    const n = network();
    const req = request();
    const first = await n.send(req);
    const again = await n.send({ ...req, attempt: 2 });
    expect(again).toEqual(first);
    expect(fake.invoicesSent).toBe(1);
  });

  it("an invoice that does not map to FA(3) fails naming the field, and nothing is sent", async () => {
    const o = await network().send(request(randomUUID(), { lines: [{ name: "x", quantity: "1", price: "10.00", cat: { id: "L", percent: "7" } }] }));
    expect(o).toEqual({ outcome: "failed", reason: expect.stringContaining("VAT category L has no FA(3) rate code") });
    expect(fake.invoicesSent).toBe(0);
  });

  it("a semantic rejection (450) fails with the official description and details", async () => {
    fake.rejectNext("Nieprawidłowy NIP nabywcy");
    const o = await network().send(request());
    expect(o).toEqual({ outcome: "failed", reason: "KSeF 450 Błąd weryfikacji semantyki dokumentu faktury: Nieprawidłowy NIP nabywcy" });
  });

  it("the same invoice sent again under another key is a duplicate (440) that fails naming the earlier KSeF number", async () => {
    const n = network();
    const req = request();
    const first = await n.send(req);
    expect(first.outcome).toBe("delivered");
    const earlier = first.outcome === "delivered" ? first.detail!.replace("KSeF number ", "") : "";
    const dup = await n.send({ ...req, idempotencyKey: randomUUID() });
    expect(dup).toEqual({ outcome: "failed", reason: expect.stringContaining(`as KSeF number ${earlier}`) });
  });

  it("429 asks for a retry after the Retry-After seconds; the next attempt delivers", async () => {
    const n = network();
    const req = request();
    fake.throttle(1, 7);
    expect(await n.send(req)).toEqual({ outcome: "retry", reason: expect.stringContaining("429"), retryAfterMs: 7000 });
    expect((await n.send({ ...req, attempt: 2 })).outcome).toBe("delivered");
  });

  it("a wrong KSeF token fails with KSeF's authentication status, the token never in the reason", async () => {
    const o = await network("wrong-token").send(request());
    expect(o).toEqual({ outcome: "failed", reason: expect.stringContaining("KSeF authentication failed: 450") });
    expect(JSON.stringify(o)).not.toContain("wrong-token");
    expect(fake.invoicesSent).toBe(0);
  });

  it("each company authenticates with its own NIP and token, its access token kept for it; a changed token authenticates again", async () => {
    const OTHER = { nip: "7740001454", token: "20261122-EC-9999999999-FEDCBA9876-54|nip-7740001454|fedcba9876543210" };
    await fake.close();
    fake = await startFakeKsef({ nip: NIP, token: TOKEN, others: [OTHER] });
    const held = new Map<string, { nip: string; token: string }>([[COMPANY, { nip: NIP, token: TOKEN }], ["other", OTHER]]);
    const asked: string[] = [];
    const n = ksefNetwork({
      baseUrl: fake.url,
      credentials: async (id) => {
        asked.push(id);
        return held.get(id) ?? null;
      },
      pollIntervalMs: 20,
    });
    const challenges = () => fake.calls.filter((c) => c === "POST /auth/challenge").length;
    const mine = await n.send(request());
    const theirs = await n.send(request(randomUUID(), {}, "other"));
    expect(mine).toEqual({ outcome: "delivered", detail: expect.stringMatching(/^KSeF number 5260250995-/) });
    expect(theirs).toEqual({ outcome: "delivered", detail: expect.stringMatching(/^KSeF number 7740001454-/) });
    expect(asked).toEqual([COMPANY, "other"]);
    expect(challenges()).toBe(2);
    // Both keep their access tokens.
    await n.send(request());
    await n.send(request(randomUUID(), {}, "other"));
    expect(challenges()).toBe(2);
    // A replaced token is not served by the old access token: the company authenticates again, and a wrong one fails.
    held.set("other", { ...OTHER, token: "replaced-and-wrong" });
    const o = await n.send(request(randomUUID(), {}, "other"));
    expect(challenges()).toBe(3);
    expect(o).toEqual({ outcome: "failed", reason: expect.stringContaining("KSeF authentication failed: 450") });
    expect(JSON.stringify(o)).not.toContain("replaced-and-wrong");
  });

  it("a company without KSeF credentials fails, saying how to set them, and KSeF is not called", async () => {
    const n = ksefNetwork({ baseUrl: fake.url, credentials: async () => null, pollIntervalMs: 20 });
    const o = await n.send(request());
    expect(o).toEqual({ outcome: "failed", reason: expect.stringContaining("PATCH /admin/companies/{id}") });
    expect(o.outcome === "failed" && o.reason).toContain("no KSeF credentials");
    expect(fake.calls).toEqual([]);
  });

  it("credentials that cannot be read are a retry: with the resolver's own message for a KsefCredentialsError, only the error's name otherwise", async () => {
    const unreadable = Object.assign(new Error("The KSeF token of company x cannot be decrypted with KSEF_TOKEN_KEY; set it again."), { name: "KsefCredentialsError" });
    const a = await ksefNetwork({ baseUrl: fake.url, credentials: async () => { throw unreadable; } }).send(request());
    expect(a).toEqual({ outcome: "retry", reason: unreadable.message });
    const b = await ksefNetwork({ baseUrl: fake.url, credentials: async () => { throw new Error("select secret from companies"); } }).send(request());
    expect(b).toEqual({ outcome: "retry", reason: "the company's KSeF credentials could not be read (Error)" });
    expect(fake.calls).toEqual([]);
  });

  it("KSeF unreachable is a retry", async () => {
    await fake.close();
    const o = await network().send(request());
    expect(o).toEqual({ outcome: "retry", reason: expect.stringContaining("unreachable") });
    fake = await startFakeKsef({ nip: NIP, token: TOKEN });
  });
});
