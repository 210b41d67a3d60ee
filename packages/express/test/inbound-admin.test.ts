// The operators' side of receiving over HTTP: documents for no company (list, bytes), the sync rows, a KSeF backfill.
// Every answer is checked against the OpenAPI document.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { memoryStore, tokenCipher, type UnmatchedDocument } from "@einvoice/core";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, answers, eligibleAccount, makeApp } from "./support/app.js";
import { undocumentedAnswers } from "./support/openapi-check.js";

afterAll(() => {
  expect(answers.length).toBeGreaterThan(20);
  expect(undocumentedAnswers(answers)).toEqual([]);
});

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const KSEF_TOKEN = `20261122-EC-${randomBytes(8).toString("hex")}|nip-5260250995|${randomBytes(16).toString("hex")}`;

function unmatched(i: number, content: Uint8Array): UnmatchedDocument {
  return {
    id: randomUUID(),
    network: "peppol",
    networkReference: { storecoveGuid: `guid-${i}` },
    legalEntityId: `LE-nobody-${i}`,
    reason: `No company has the legal entity id LE-nobody-${i}.`,
    receivedAt: new Date(Date.UTC(2026, 10, 1, 12, 0, i)).toISOString(),
    mediaType: "application/xml",
    sha256: createHash("sha256").update(content).digest("hex"),
    size: content.byteLength,
  };
}

describe("GET /admin/inbound/unmatched", () => {
  it("lists the documents for no company newest first, a page at a time, and serves each one's bytes as received", async () => {
    const store = memoryStore();
    const { app } = makeApp({ store });
    const kept: { doc: UnmatchedDocument; content: Buffer }[] = [];
    for (let i = 0; i < 5; i++) {
      const content =
        i === 2 ? Buffer.from('{"event_type":"something_else"}') : i === 3 ? Buffer.from("%PDF-1.7\n%binary\n") : i === 4 ? Buffer.from([0, 1, 2, 255]) : Buffer.from(`<?xml version="1.0"?>\n<Invoice n="${i}"/>`);
      const doc = unmatched(i, content);
      await store.insertUnmatched(doc, content);
      kept.push({ doc, content });
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: request.Response = await request(app)
        .get("/admin/inbound/unmatched")
        .query({ limit: 2, ...(cursor ? { cursor } : {}) })
        .set(admin);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.map((d: { id: string }) => d.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...kept].reverse().map((k) => k.doc.id));
    const first = (await request(app).get("/admin/inbound/unmatched").set(admin)).body.data[0];
    expect(first).toEqual({ ...kept[4]!.doc });

    const types = ["application/xml", "application/xml", "application/json", "application/pdf", "application/octet-stream"];
    for (const [i, k] of kept.entries()) {
      const res = await request(app).get(`/admin/inbound/unmatched/${k.doc.id}/document`).set(admin).buffer(true).parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on("data", (c: Buffer) => chunks.push(c));
        r.on("end", () => cb(null, Buffer.concat(chunks)));
      });
      expect(res.status).toBe(200);
      expect(res.headers["content-type"]).toContain(types[i]!);
      expect(Buffer.compare(res.body as Buffer, k.content)).toBe(0);
      expect([res.headers["content-security-policy"], res.headers["x-content-type-options"]]).toEqual(["default-src 'none'; sandbox", "nosniff"]);
    }
  });

  it("answers 404 unmatched_document_not_found for unknown and malformed ids, 400 for a foreign cursor, 401 without the token", async () => {
    const { app } = makeApp();
    for (const id of [randomUUID(), "nope", "%ff"]) {
      const res = await request(app).get(`/admin/inbound/unmatched/${id}/document`).set(admin);
      expect([res.status, res.body.code], id).toEqual([404, "unmatched_document_not_found"]);
    }
    // An invoice list's cursor is not this list's.
    const foreign = Buffer.from(JSON.stringify(["i", "2026-01-01T00:00:00.000Z", randomUUID()])).toString("base64url");
    const bad = await request(app).get("/admin/inbound/unmatched").query({ cursor: foreign }).set(admin);
    expect([bad.status, bad.body.message]).toEqual([400, ["cursor must be a valid pagination cursor (pass nextCursor from the previous page unchanged)"]]);
    expect((await request(app).get("/admin/inbound/unmatched").query({ limit: 0 }).set(admin)).status).toBe(400);
    expect((await request(app).get("/admin/inbound/unmatched")).status).toBe(401);
    expect((await request(app).get("/admin/inbound/unmatched").set({ Authorization: "Bearer not-the-admin-token-at-all" })).status).toBe(401);
  });
});

describe("POST /admin/companies/{id}/ksef/backfill and GET /admin/inbound/syncs", () => {
  async function plCompany() {
    const store = memoryStore();
    const made = { ...makeApp({ store, ksef: { tokenCipher: tokenCipher(randomBytes(32)) } }), store };
    const { companyId } = await eligibleAccount(made.app, { country: "PL" });
    const set = await request(made.app).patch(`/admin/companies/${companyId}`).set(admin).send({ ksef: { nip: "5260250995", token: KSEF_TOKEN } });
    expect(set.status).toBe(200);
    return { ...made, companyId };
  }

  it("accepts a period (202), keeps it on the company's KSeF sync, due at once, and the syncs list shows it without the mark's secrets", async () => {
    const { app, store, companyId } = await plCompany();
    const before = Date.now();
    const res = await request(app).post(`/admin/companies/${companyId}/ksef/backfill`).set(admin).send({ from: "2026-02-01", to: "2026-03-01T00:00:00+01:00" });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ source: "ksef", companyId, from: "2026-02-01T00:00:00.000Z", to: "2026-02-28T23:00:00.000Z" });
    expect(Date.parse(res.body.data.requestedAt)).toBeGreaterThanOrEqual(before - 1000);
    const [row] = await store.listInboundSyncs("ksef");
    expect(row).toMatchObject({ scope: companyId, requests: [{ id: res.body.data.id, from: "2026-02-01T00:00:00.000Z", to: "2026-02-28T23:00:00.000Z" }] });
    expect(row!.nextRunAt <= res.body.data.requestedAt).toBe(true);

    // A mark with a secret in it: the operator's view shows its size and the harmless fields only.
    await store.ensureInboundSync({ source: "storecove", scope: "*", now: new Date().toISOString() });
    const [claimed] = await store.claimInboundSyncs({ source: "storecove", owner: "test", now: new Date().toISOString(), leaseUntil: new Date(Date.now() + 60_000).toISOString(), limit: 1 });
    // KSeF's shape: lanes, an export in progress with its AES key and IV (secret), the last hour's calls.
    const mark = JSON.stringify({
      v: 1,
      inc: { id: "inc", from: "2026-02-03T10:00:00.000Z", to: null, seen: ["a", "b"] },
      backfills: [],
      export: { lane: "inc", referenceNumber: "20261129-EX-1", key: "c2VjcmV0LWtleQ==", iv: "aXYtc2VjcmV0", from: "2026-02-03T10:00:00.000Z", to: "2026-02-04T00:00:00.000Z" },
      sessionToken: "tok-secret",
      auth: { accessToken: "secret-too" },
      note: "x".repeat(300),
      used: { m: [1, 2, 3], d: [], e: [] },
    });
    expect(await store.saveInboundSync({ source: "storecove", scope: claimed!.scope, owner: "test", state: mark, nextRunAt: new Date(Date.now() + 60_000).toISOString() })).toBe(true);
    const syncs = await request(app).get("/admin/inbound/syncs").set(admin);
    expect(syncs.status).toBe(200);
    expect(syncs.body.data.map((s: { source: string; scope: string }) => [s.source, s.scope])).toEqual([["ksef", companyId], ["storecove", "*"]]);
    expect(syncs.body.data[0].requests).toEqual([{ id: res.body.data.id, from: res.body.data.from, to: res.body.data.to, requestedAt: res.body.data.requestedAt }]);
    expect(syncs.body.data[0].state).toBeNull();
    expect(syncs.body.data[1].state).toEqual({
      bytes: Buffer.byteLength(mark),
      fields: {
        v: 1,
        "inc.id": "inc",
        "inc.from": "2026-02-03T10:00:00.000Z",
        "inc.to": null,
        "inc.seen.count": 2,
        "backfills.count": 0,
        "export.lane": "inc",
        "export.referenceNumber": "20261129-EX-1",
        "export.from": "2026-02-03T10:00:00.000Z",
        "export.to": "2026-02-04T00:00:00.000Z",
        "used.m.count": 3,
        "used.d.count": 0,
        "used.e.count": 0,
      },
    });
    expect(JSON.stringify(syncs.body)).not.toMatch(/secret|c2VjcmV0|aXYt/);
    // Both runs are over (the storecove one ended with nextRunAt): nobody holds a lease. A claim shows its owner.
    expect(syncs.body.data.map((s: { lease: unknown }) => s.lease)).toEqual([null, null]);
    const until = new Date(Date.now() + 60_000).toISOString();
    expect(await store.claimInboundSyncs({ source: "ksef", owner: "instance-a", now: new Date().toISOString(), leaseUntil: until, limit: 1 })).toHaveLength(1);
    const leased = await request(app).get("/admin/inbound/syncs").query({ source: "ksef" }).set(admin);
    expect(leased.body.data[0].lease).toEqual({ owner: "instance-a", until });
    const only = await request(app).get("/admin/inbound/syncs").query({ source: "storecove" }).set(admin);
    expect(only.body.data.map((s: { source: string }) => s.source)).toEqual(["storecove"]);
    const wrong = await request(app).get("/admin/inbound/syncs").query({ source: "ftp" }).set(admin);
    expect([wrong.status, wrong.body.message]).toEqual([400, ["source must be one of the following values: ksef, storecove"]]);
  });

  it("refuses a bad period with 400 naming the problem, and changes nothing", async () => {
    const { app, store, companyId } = await plCompany();
    const cases: [unknown, string][] = [
      [{ from: "2026-03-01", to: "2026-02-01" }, "from must be before to"],
      [{ from: "2026-03-01", to: "2026-03-01" }, "from must be before to"],
      [{ from: "2024-01-01", to: "2026-01-01" }, "the period from .. to must be at most 366 days long (ask for a longer one in several requests)"],
      [{ from: "2026-02-30", to: "2026-03-05" }, "from must be a date (YYYY-MM-DD, its midnight UTC) or an ISO 8601 date-time with a time zone (such as 2026-02-01T00:00:00+01:00), in 2000 or later"],
      [{ from: "2026-02-01T00:00:00", to: "2026-03-05" }, "from must be a date (YYYY-MM-DD, its midnight UTC) or an ISO 8601 date-time with a time zone (such as 2026-02-01T00:00:00+01:00), in 2000 or later"],
      [{ to: "2026-03-05" }, "from should not be empty"],
      [{ from: 20260201, to: "2026-03-05" }, "from must be a string"],
      [{ from: "2026-02-01", to: "2026-03-05", source: "x" }, "property source should not exist"],
      [[], "body must be a JSON object"],
    ];
    for (const [body, message] of cases) {
      const res = await request(app).post(`/admin/companies/${companyId}/ksef/backfill`).set(admin).send(body as object);
      expect([res.status, res.body.message], JSON.stringify(body)).toEqual([400, [message]]);
    }
    // The credential made the company's KSeF sync (due at once); no request was added to it.
    expect((await store.listInboundSyncs("ksef")).map((r) => [r.scope, r.requests])).toEqual([[companyId, []]]);
  });

  it("answers 404 for an unknown company and 422 ksef_not_configured for one outside PL or without a credential", async () => {
    const { app } = makeApp();
    const period = { from: "2026-02-01", to: "2026-03-01" };
    for (const id of [randomUUID(), "nope"]) {
      const res = await request(app).post(`/admin/companies/${id}/ksef/backfill`).set(admin).send(period);
      expect([res.status, res.body.code]).toEqual([404, "company_not_found"]);
    }
    const nl = await eligibleAccount(app);
    const res = await request(app).post(`/admin/companies/${nl.companyId}/ksef/backfill`).set(admin).send(period);
    expect([res.status, res.body.code, res.body.message]).toEqual([422, "ksef_not_configured", `Company ${nl.companyId} is in NL, not PL: it receives no invoices through KSeF.`]);
    const pl = await eligibleAccount(app, { country: "PL" });
    const none = await request(app).post(`/admin/companies/${pl.companyId}/ksef/backfill`).set(admin).send(period);
    expect([none.status, none.body.code]).toEqual([422, "ksef_not_configured"]);
    expect(none.body.message).toContain("has no KSeF credential");
  });
});
