// Idempotency-Key on the two submit endpoints (issue 28 part 5), over HTTP on the memory store;
// the store side (atomic take, expiry, per company) is the conformance suite's.
import { randomUUID } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import { IDEMPOTENCY_LOCK_MS, IDEMPOTENCY_TTL_MS, memoryStore, requestFingerprint, type IdempotencyStore, type NewSubmission, type Store } from "@einvoice/core";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { b64, invoiceXml } from "../../core/test/support/ubl.js";
import { fromPGlite, postgresStore } from "../../postgres/src/index.js";
import { answers, eligibleAccount, makeApp } from "./support/app.js";
import { undocumentedAnswers } from "./support/openapi-check.js";

afterAll(() => {
  expect(undocumentedAnswers(answers)).toEqual([]);
});

const SUBMIT = "/v1/peppol/invoice";
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
const body = (id = `INV-${randomUUID()}`) => JSON.stringify({ xml: b64(invoiceXml({ id })) });

async function setUp() {
  const made = makeApp();
  const account = await eligibleAccount(made.app);
  const post = (payload: string, key?: string, path = SUBMIT) => {
    const r = request(made.app).post(path).set(bearer(account.apiKey)).set("content-type", "application/json");
    return (key === undefined ? r : r.set("Idempotency-Key", key)).send(payload);
  };
  const count = async () => (await request(made.app).get("/v1/invoices?limit=100").set(bearer(account.apiKey))).body.data.length as number;
  return { ...made, account, post, count };
}

describe("Idempotency-Key on POST /v1/peppol/invoice and /v1/peppol/credit-note", () => {
  it("the same key and body replay the first answer (status, body, Idempotent-Replayed: true) without a new record", async () => {
    const { post, count } = await setUp();
    const key = randomUUID();
    const payload = body();
    const first = await post(payload, key);
    expect(first.status).toBe(200);
    expect(first.body.data.status).toBe("sending");
    expect(first.headers["idempotent-replayed"]).toBeUndefined();
    const again = await post(payload, key);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(await count()).toBe(1);
  });

  it("the same key with another body is 422 idempotency_key_reused, and stores nothing", async () => {
    const { post, count } = await setUp();
    const key = randomUUID();
    expect((await post(body(), key)).status).toBe(200);
    const other = await post(body(), key);
    expect(other.status).toBe(422);
    expect(other.body).toEqual({ code: "idempotency_key_reused", message: expect.stringContaining("another request") });
    // The other endpoint with the same key and body is another request too.
    const payload = body();
    expect((await post(payload, "key-for-both")).status).toBe(200);
    expect((await post(payload, "key-for-both", "/v1/peppol/credit-note")).body.code).toBe("idempotency_key_reused");
    expect(await count()).toBe(2);
  });

  it("a key whose first request is still in flight is 409 idempotency_in_progress", async () => {
    const { post, store, account, count } = await setUp();
    const payload = body();
    // The first request holds the key (taken as the route takes it, just before it is processed).
    const now = new Date();
    const taken = await (store as ReturnType<typeof memoryStore>).beginIdempotentRequest({
      companyId: account.companyId,
      key: "in-flight",
      fingerprint: requestFingerprint(`POST /peppol/invoice`, Buffer.from(payload)),
      now: now.toISOString(),
      lockedUntil: new Date(now.getTime() + 60_000).toISOString(),
      expiredBefore: new Date(now.getTime() - IDEMPOTENCY_TTL_MS).toISOString(),
      resourceId: randomUUID(),
    });
    expect(taken.state).toBe("started");
    const r = await post(payload, "in-flight");
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ code: "idempotency_in_progress", message: expect.any(String) });
    expect(await count()).toBe(0);
  });

  it("two (and ten) concurrent requests with one key: one is processed, the others are 409 or a replay of it; one record", async () => {
    const { post, count } = await setUp();
    for (const n of [2, 10]) {
      const key = randomUUID();
      const payload = body();
      const results = await Promise.all(Array.from({ length: n }, () => post(payload, key)));
      const processed = results.filter((r) => r.status === 200 && r.headers["idempotent-replayed"] === undefined);
      expect(processed).toHaveLength(1);
      for (const r of results) {
        if (r === processed[0]) continue;
        if (r.status === 409) expect(r.body.code).toBe("idempotency_in_progress");
        else expect([r.status, r.headers["idempotent-replayed"], r.body]).toEqual([200, "true", processed[0]!.body]);
      }
    }
    expect(await count()).toBe(2);
  });

  it("keys are per company: another company's same key and body is its own request", async () => {
    const { app, post } = await setUp();
    const other = await eligibleAccount(app);
    const payload = body();
    const mine = await post(payload, "shared-key");
    const theirs = await request(app).post(SUBMIT).set(bearer(other.apiKey)).set("content-type", "application/json").set("Idempotency-Key", "shared-key").send(payload);
    expect(theirs.status).toBe(200);
    expect(theirs.headers["idempotent-replayed"]).toBeUndefined();
    expect(theirs.body.data.submissionId).not.toBe(mine.body.data.submissionId);
  });

  it("a processed refusal (422) is replayed as it was; a 400 keeps nothing, so the key then serves a good body", async () => {
    const { post } = await setUp();
    const bad = JSON.stringify({ xml: "not base64 at all!" });
    const first = await post(bad, "k-422");
    expect(first.status).toBe(422);
    const again = await post(bad, "k-422");
    expect([again.status, again.headers["idempotent-replayed"], again.body]).toEqual([422, "true", first.body]);
    const shape = await post(JSON.stringify({ xml: "PA==", extra: 1 }), "k-400");
    expect(shape.status).toBe(400);
    expect((await post(body(), "k-400")).status).toBe(200);
  });

  it("a malformed key is 400 invalid_request naming the header", async () => {
    const { post } = await setUp();
    for (const key of ["", "a b", "x".repeat(256)]) {
      const r = await post(body(), key);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: "invalid_request", message: [expect.stringContaining("Idempotency-Key")] });
    }
  });

  it("without a key, a duplicate keeps the seed's answer (200, failed) and its record names the first submission in duplicateOf", async () => {
    const { post, app, account } = await setUp();
    const payload = body();
    const first = await post(payload);
    const dup = await post(payload);
    expect(dup.status).toBe(200);
    expect(dup.body.data).toMatchObject({ success: false, status: "failed", errorMessage: expect.stringContaining(first.body.data.submissionId) });
    const record = await request(app).get(`/v1/invoices/${dup.body.data.submissionId}`).set(bearer(account.apiKey));
    expect(record.body.data.duplicateOf).toBe(first.body.data.submissionId);
    const original = await request(app).get(`/v1/invoices/${first.body.data.submissionId}`).set(bearer(account.apiKey));
    expect(original.body.data.duplicateOf).toBeNull();
  });
});

/**
 * A store whose process "dies" (kill -9) right after the next submission is stored: the insert is
 * kept, the request fails, and nothing that process would still do (keep or abandon the key's
 * answer, read anything) reaches the store. `restart(ms)` brings it back `ms` later by the keys'
 * clock (the key's 60-second lock is then over, as after a real restart once the lock expired).
 */
function crashingStore(inner: Store & IdempotencyStore) {
  let crashAfterInsert = false;
  let dead = false;
  let skewMs = 0;
  const shift = (t: string) => new Date(Date.parse(t) + skewMs).toISOString();
  const store = new Proxy(inner, {
    get(target, prop) {
      if (prop === "insertSubmission") {
        return async (submission: NewSubmission) => {
          const result = await target.insertSubmission(submission);
          if (crashAfterInsert && result.inserted) {
            crashAfterInsert = false;
            dead = true;
            throw new Error("killed (SIGKILL) after the submission was stored");
          }
          return result;
        };
      }
      const value = Reflect.get(target, prop) as unknown;
      if (dead && typeof value === "function") {
        return async () => {
          throw new Error("the process is gone");
        };
      }
      if (prop === "beginIdempotentRequest") {
        return (input: Parameters<IdempotencyStore["beginIdempotentRequest"]>[0]) =>
          target.beginIdempotentRequest({ ...input, now: shift(input.now), lockedUntil: shift(input.lockedUntil), expiredBefore: shift(input.expiredBefore) });
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    store,
    crashAfterNextInsert: () => void (crashAfterInsert = true),
    restart: (laterMs: number) => {
      dead = false;
      skewMs += laterMs;
    },
  };
}

const STORES: Array<[string, () => Promise<{ store: Store & IdempotencyStore; close: () => Promise<void> }>]> = [
  ["memory", async () => ({ store: memoryStore(), close: async () => {} })],
  [
    "PGlite",
    async () => {
      const db = await PGlite.create();
      return { store: await postgresStore({ db: fromPGlite(db), schema: "crash" }), close: () => db.close() };
    },
  ],
];

describe.each(STORES)("Idempotency-Key after a crash between storing the submission and keeping the answer (%s)", (_name, open) => {
  /** Submits `payload` with a key, the process dies right after the submission is stored; then it restarts after the key's lock. */
  async function crashedOnce({ duplicate }: { duplicate: boolean }) {
    const opened = await open();
    const crash = crashingStore(opened.store);
    const { app } = makeApp({ store: crash.store });
    const account = await eligibleAccount(app);
    const send = (payload: string, key?: string) => {
      const r = request(app).post(SUBMIT).set(bearer(account.apiKey)).set("content-type", "application/json");
      return (key === undefined ? r : r.set("Idempotency-Key", key)).send(payload);
    };
    const list = async () =>
      (await request(app).get("/v1/invoices?limit=100").set(bearer(account.apiKey))).body.data as Array<{ id: string; status: string; errorMessage: string | null }>;
    const payload = body();
    // With `duplicate`, the same bytes were accepted before without a key: the keyed request is stored failed.
    const seed = duplicate ? (await send(payload)).body.data.submissionId : null;
    crash.crashAfterNextInsert();
    const cut = await send(payload, "order-42");
    expect(cut.status).toBe(500); // the client got no answer it could keep
    // Restarted once the key's lock is over: the submission is there, the key still in progress.
    crash.restart(IDEMPOTENCY_LOCK_MS + 1_000);
    const stored = (await list()).filter((i) => i.id !== seed);
    expect(stored).toHaveLength(1);
    return { send, list, payload, stored: stored[0]!, seed, close: opened.close };
  }

  it("the retry with the same key and bytes, once the key's lock is over, gets the submission already made: sending, same id, nothing new stored", async () => {
    const { send, list, payload, stored, close } = await crashedOnce({ duplicate: false });
    try {
      expect(stored.status).toBe("sending");
      const retry = await send(payload, "order-42");
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual({ data: { submissionId: stored.id, success: true, status: "sending" } });
      expect((await list()).map((i) => i.id)).toEqual([stored.id]);
      // From then on the key replays that answer.
      const again = await send(payload, "order-42");
      expect([again.status, again.headers["idempotent-replayed"], again.body]).toEqual([200, "true", retry.body]);
      expect(await list()).toHaveLength(1);
    } finally {
      await close();
    }
  });

  it("a request stored failed (a duplicate) before the crash gets that failure again, not a second failed submission", async () => {
    const { send, list, payload, stored, seed, close } = await crashedOnce({ duplicate: true });
    try {
      expect(stored.status).toBe("failed");
      const retry = await send(payload, "order-42");
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual({ data: { submissionId: stored.id, success: false, status: "failed", errorMessage: stored.errorMessage } });
      expect(retry.body.data.errorMessage).toContain(seed);
      expect((await list()).map((i) => i.id).sort()).toEqual([seed, stored.id].sort());
    } finally {
      await close();
    }
  });
});
