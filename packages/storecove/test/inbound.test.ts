import { networkReferenceKey, type InboundRun, type ReceivedDocument, type StoredOutcome } from "@einvoice/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readItemBody, storecoveInbound, type StorecoveInboundOptions, type StorecoveReceived } from "../src/index.js";
import { originalPrefix } from "../src/inbound.js";
import { startFakeStorecove, type FakeStorecove } from "./support/fake-storecove.js";

const UBL = (n: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><cbc:ID xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">${n}</cbc:ID></Invoice>`;

/** Legal entities of this server's companies. */
const COMPANIES = new Map([
  ["12345", "company-a"],
  ["777", "company-b"],
]);

interface Kept {
  companyId: string | null;
  content: Buffer;
  legalEntityId: string | null;
  mediaType?: string;
  problem?: string;
  truncated?: boolean;
}

/**
 * An InboundRun over an in-memory store: dedupe by network reference, a document for a legal entity no company has
 * (or none) kept as `unmatched`. Its calls go into the fake's log, so that their order against Storecove's requests shows.
 */
function memoryRun(fake: FakeStorecove) {
  const records = new Map<string, Kept>();
  const checkpoints: string[] = [];
  const run = {
    failStore: null as null | ((doc: ReceivedDocument) => boolean),
    afterStore: null as null | (() => void),
    failCheckpoint: false,
    controller: new AbortController(),
    records,
    checkpoints,
    ctx(): InboundRun {
      return {
        scope: "*",
        company: null,
        ksefCredential: null,
        state: null,
        requests: [],
        signal: run.controller.signal,
        async store(doc: ReceivedDocument): Promise<StoredOutcome> {
          const key = networkReferenceKey(doc.reference);
          fake.inbound.log.push(`store ${key}`);
          if (run.failStore?.(doc)) throw new Error("the database is down");
          const existing = records.get(key);
          let outcome: StoredOutcome;
          if (existing) outcome = existing.companyId ? { outcome: "duplicate", invoiceId: key } : { outcome: "unmatched", id: key };
          else {
            const companyId = doc.legalEntityId ? (COMPANIES.get(doc.legalEntityId) ?? null) : null;
            const d = doc as StorecoveReceived;
            records.set(key, {
              companyId,
              content: Buffer.from(doc.content),
              legalEntityId: doc.legalEntityId ?? null,
              ...(doc.mediaType ? { mediaType: doc.mediaType } : {}),
              ...(d.problem ? { problem: d.problem } : {}),
              ...(d.truncated ? { truncated: true } : {}),
            });
            outcome = companyId ? { outcome: "stored", invoiceId: key } : { outcome: "unmatched", id: key };
          }
          run.afterStore?.();
          return outcome;
        },
        async checkpoint(state: string): Promise<void> {
          if (run.failCheckpoint) throw new Error("lease lost");
          checkpoints.push(state);
        },
      };
    },
  };
  return run;
}

describe("storecoveInbound", () => {
  let fake: FakeStorecove;
  let run: ReturnType<typeof memoryRun>;
  const source = (over: Partial<StorecoveInboundOptions> = {}) =>
    storecoveInbound({ baseUrl: fake.baseUrl, apiKey: fake.apiKey, intervalMs: 60_000, ...over });

  beforeEach(async () => {
    fake = await startFakeStorecove();
    run = memoryRun(fake);
  });
  afterEach(async () => {
    await fake.close();
  });

  it("is the server-wide peppol source named storecove", () => {
    const s = source();
    expect([s.name, s.network, s.scope]).toEqual(["storecove", "peppol", "server"]);
  });

  it("stores every queued document once, exactly as received, and acknowledges each only after its store resolved", async () => {
    const a = fake.inbound.receive(12345, UBL("A-1"));
    const b = fake.inbound.receive(777, UBL("B-1"));
    const c = fake.inbound.receive(12345, UBL("A-2"));
    const r = await source().run(run.ctx());
    expect(r).toEqual({ state: null, nextRunInMs: 60_000, received: 3 });
    expect(fake.inbound.queue).toEqual([]);
    for (const [x, company, n] of [[a, "company-a", "A-1"], [b, "company-b", "B-1"], [c, "company-a", "A-2"]] as const) {
      const kept = run.records.get(`storecove:${x.documentGuid}`)!;
      expect(kept.companyId).toBe(company);
      expect(kept.content.toString("utf8")).toBe(UBL(n));
      expect(kept.problem).toBeUndefined();
    }
    expect(fake.inbound.log).toEqual([
      ...[a, b, c].flatMap((x) => ["GET queue", `GET doc ${x.documentGuid}`, `store storecove:${x.documentGuid}`, `DELETE ${x.instanceGuid}`]),
      "GET queue",
    ]);
  });

  it("does not acknowledge an item whose store rejected; the next run gets it again and stores it once", async () => {
    const a = fake.inbound.receive(12345, UBL("A-1"));
    fake.inbound.receive(12345, UBL("A-2"));
    run.failStore = () => true;
    const first = await source().run(run.ctx());
    expect(first).toMatchObject({ nextRunInMs: 60_000, received: 0, note: expect.stringContaining("not acknowledged") });
    expect(fake.inbound.log).toEqual(["GET queue", `GET doc ${a.documentGuid}`, `store storecove:${a.documentGuid}`]);
    expect(fake.inbound.queue).toHaveLength(2);

    run.failStore = null;
    const second = await source().run(run.ctx());
    expect(second).toMatchObject({ received: 2, nextRunInMs: 60_000 });
    expect(fake.inbound.queue).toEqual([]);
    expect(run.records.size).toBe(2);
    expect(fake.inbound.log.filter((l) => l === `store storecove:${a.documentGuid}`)).toHaveLength(2);
    expect(fake.inbound.log.filter((l) => l === `DELETE ${a.instanceGuid}`)).toHaveLength(1);
  });

  it("a run cut between store and acknowledgement: the next run finds it stored (duplicate), acknowledges it, one record", async () => {
    const a = fake.inbound.receive(12345, UBL("A-1"));
    // Stored durably, then the process stops before the DELETE.
    run.afterStore = () => run.controller.abort();
    const first = await source().run(run.ctx());
    expect(first.note).toMatch(/stopped/);
    expect(fake.inbound.log).not.toContain(`DELETE ${a.instanceGuid}`);
    expect(fake.inbound.queue).toHaveLength(1);

    run.afterStore = null;
    run.controller = new AbortController();
    const outcomes: string[] = [];
    const ctx = run.ctx();
    const store = ctx.store;
    ctx.store = async (doc) => {
      const o = await store(doc);
      outcomes.push(o.outcome);
      return o;
    };
    const second = await source().run(ctx);
    expect(second).toMatchObject({ received: 1, nextRunInMs: 60_000 });
    expect(outcomes).toEqual(["duplicate"]);
    expect(fake.inbound.log.at(-2)).toBe(`DELETE ${a.instanceGuid}`);
    expect(fake.inbound.queue).toEqual([]);
    expect(run.records.size).toBe(1);
  });

  it("acknowledges a document for a legal entity no company has (kept for the operator), and takes the ones behind it", async () => {
    const stranger = fake.inbound.receive(999, UBL("X-1"));
    const mine = fake.inbound.receive(12345, UBL("A-1"));
    const r = await source().run(run.ctx());
    expect(r.received).toBe(2);
    expect(run.records.get(`storecove:${stranger.documentGuid}`)).toMatchObject({ companyId: null, legalEntityId: "999" });
    expect(run.records.get(`storecove:${mine.documentGuid}`)).toMatchObject({ companyId: "company-a" });
    expect(fake.inbound.log).toContain(`DELETE ${stranger.instanceGuid}`);
    expect(fake.inbound.queue).toEqual([]);
  });

  it("keeps poison items for the operator with why, acknowledges them, and takes the documents behind them", async () => {
    const notJson = fake.inbound.enqueueRaw("<html>oops</html>")!;
    const otherEvent = fake.inbound.enqueueRaw(JSON.stringify({ event_type: "document_submission", event: "succeeded", guid: "c0ffee00-0000-4000-8000-000000000001" }))!;
    const noGuid = fake.inbound.enqueueRaw(JSON.stringify({ event_type: "received_document", legal_entity_id: 12345 }))!;
    const gone404 = fake.inbound.receive(12345, UBL("G-1"), "gone404");
    const gone410 = fake.inbound.receive(12345, UBL("G-2"), "gone410");
    const good = fake.inbound.receive(12345, UBL("A-1"));
    const s = source();
    const r = await s.run(run.ctx());
    expect(r).toMatchObject({ received: 6, nextRunInMs: 60_000 });
    expect(fake.inbound.queue).toEqual([]);
    expect(run.records.get(`storecove:${good.documentGuid}`)).toMatchObject({ companyId: "company-a" });

    // Each poison item: its body as received, for no company, under the document guid it named (else its own guid).
    expect(run.records.get(`storecove:${notJson}`)).toMatchObject({ companyId: null, problem: expect.stringContaining("not JSON") });
    expect(run.records.get(`storecove:${notJson}`)!.content.toString()).toBe("<html>oops</html>");
    expect(run.records.get(`storecove:${otherEvent}`)).toMatchObject({ companyId: null, mediaType: "application/json", problem: expect.stringContaining('"document_submission"') });
    expect(run.records.get(`storecove:${noGuid}`)).toMatchObject({ companyId: null, problem: expect.stringContaining("no valid document_guid") });
    expect(run.records.get(`storecove:${gone404.documentGuid}`)).toMatchObject({ companyId: null, problem: expect.stringContaining("404") });
    expect(run.records.get(`storecove:${gone410.documentGuid}`)).toMatchObject({ companyId: null, problem: expect.stringContaining("410") });
    expect(
      s.poisoned().map((p) => [p.instanceGuid, p.outcome]),
    ).toEqual([notJson, otherEvent, noGuid, gone404.instanceGuid, gone410.instanceGuid].map((g) => [g, "kept"]));
    // Each was stored before it was deleted.
    for (const g of [notJson, otherEvent, noGuid]) {
      expect(fake.inbound.log.indexOf(`store storecove:${g}`)).toBeLessThan(fake.inbound.log.indexOf(`DELETE ${g}`));
    }
  });

  it("hands hostile bytes (not XML) to store as they are, for the company", async () => {
    const bytes = Buffer.from([0x00, 0xff, 0x3c, 0x21, 0x2d, 0x2d, 0x00]);
    const h = fake.inbound.receive(12345, bytes);
    await source().run(run.ctx());
    const kept = run.records.get(`storecove:${h.documentGuid}`)!;
    expect(kept.companyId).toBe("company-a");
    expect(Buffer.compare(kept.content, bytes)).toBe(0);
  });

  it("takes an answer that is the document itself (not JSON) as its bytes, with its media type", async () => {
    const x = fake.inbound.receive(12345, UBL("R-1"), "raw");
    await source().run(run.ctx());
    expect(run.records.get(`storecove:${x.documentGuid}`)).toMatchObject({ mediaType: "application/xml" });
    expect(run.records.get(`storecove:${x.documentGuid}`)!.content.toString()).toBe(UBL("R-1"));
  });

  it("keeps Storecove's answer as it is, with why, when it carries no original", async () => {
    const x = fake.inbound.receive(12345, UBL("N-1"), "noOriginal");
    await source().run(run.ctx());
    expect(run.records.get(`storecove:${x.documentGuid}`)).toMatchObject({ companyId: "company-a", mediaType: "application/json", problem: expect.stringContaining('no base64 "original"') });
  });

  it("an answer of the queue without a guid cannot be acknowledged: remembered as blocked, the run ends with a note", async () => {
    fake.inbound.enqueueRaw(JSON.stringify({ event_type: "received_document" }), null);
    const s = source();
    const r = await s.run(run.ctx());
    expect(r).toMatchObject({ received: 0, nextRunInMs: 60_000, note: expect.stringContaining("names no webhook instance guid") });
    expect(s.poisoned()).toEqual([expect.objectContaining({ instanceGuid: null, outcome: "blocked" })]);
    expect(fake.inbound.log).toEqual(["GET queue"]);
  });

  it("429 on a document: no acknowledgement, due again after its Retry-After; then stored once", async () => {
    const x = fake.inbound.receive(12345, UBL("L-1"), "ratelimit");
    const first = await source().run(run.ctx());
    expect(first).toMatchObject({ nextRunInMs: 7000, received: 0, note: expect.stringContaining("429") });
    expect(fake.inbound.log.some((l) => l.startsWith("DELETE"))).toBe(false);
    expect(run.records.size).toBe(0);
    await source().run(run.ctx());
    expect(run.records.has(`storecove:${x.documentGuid}`)).toBe(true);
    expect(fake.inbound.queue).toEqual([]);
  });

  it("5xx: no acknowledgement; Retry-After of the queue honoured (seconds and a date), else the interval", async () => {
    fake.inbound.receive(12345, UBL("E-1"), "error500");
    const e = await source().run(run.ctx());
    expect(e).toMatchObject({ nextRunInMs: 60_000, received: 0, note: expect.stringContaining("500") });
    expect(fake.inbound.log.some((l) => l.startsWith("DELETE"))).toBe(false);

    fake.inbound.queueFaults.push({ status: 503, retryAfter: "2" });
    expect(await source().run(run.ctx())).toMatchObject({ nextRunInMs: 2000, note: expect.stringContaining("503") });
    const at = new Date(Date.now() + 120_000).toUTCString();
    fake.inbound.queueFaults.push({ status: 429, retryAfter: at });
    const dated = await source().run(run.ctx());
    expect(dated.nextRunInMs).toBeGreaterThan(110_000);
    expect(dated.nextRunInMs).toBeLessThanOrEqual(120_000);
    expect(fake.inbound.queue).toHaveLength(1);
  });

  it("a DELETE that fails ends the run; the next run finds the document stored and acknowledges it", async () => {
    const x = fake.inbound.receive(12345, UBL("D-1"));
    fake.inbound.deleteFaults.push({ status: 502 });
    const first = await source().run(run.ctx());
    expect(first).toMatchObject({ received: 1, nextRunInMs: 60_000, note: expect.stringContaining("502") });
    expect(fake.inbound.queue).toHaveLength(1);
    await source().run(run.ctx());
    expect(fake.inbound.queue).toEqual([]);
    expect(run.records.size).toBe(1);
    expect(fake.inbound.log.filter((l) => l === `store storecove:${x.documentGuid}`)).toHaveLength(2);
  });

  it("a slow answer past the timeout and a connection dropped mid-body: no acknowledgement, then received on the next runs", async () => {
    const slow = fake.inbound.receive(12345, UBL("S-1"), "slow");
    const r1 = await source({ timeoutMs: 300 }).run(run.ctx());
    expect(r1).toMatchObject({ received: 0, note: expect.stringContaining("did not answer within 300 ms") });
    expect(fake.inbound.queue).toHaveLength(1);
    await source({ timeoutMs: 5000 }).run(run.ctx());
    expect(run.records.has(`storecove:${slow.documentGuid}`)).toBe(true);

    const dropped = fake.inbound.receive(12345, UBL("X".repeat(5000)), "drop");
    const r2 = await source().run(run.ctx());
    expect(r2).toMatchObject({ received: 0, nextRunInMs: 60_000, note: expect.stringContaining("broke off") });
    expect(fake.inbound.log.filter((l) => l === `DELETE ${dropped.instanceGuid}`)).toHaveLength(0);
    await source().run(run.ctx());
    expect(run.records.get(`storecove:${dropped.documentGuid}`)!.content.toString()).toBe(UBL("X".repeat(5000)));
  });

  it("a document over the cap is handed over truncated to cap + 1 bytes, without reading it all", async () => {
    const big = fake.inbound.receive(12345, UBL("H-1"), "huge");
    const after = fake.inbound.receive(12345, UBL("A-1"));
    const r = await source({ maxDocumentBytes: 256 * 1024 }).run(run.ctx());
    expect(r.received).toBe(2);
    const kept = run.records.get(`storecove:${big.documentGuid}`)!;
    expect(kept).toMatchObject({ companyId: "company-a", truncated: true, problem: expect.stringContaining("larger than 262144 bytes") });
    // The fake's original is base64 "AAAA…": zero bytes, the first cap + 1 of them.
    expect(kept.content.length).toBe(256 * 1024 + 1);
    expect(kept.content.every((b) => b === 0)).toBe(true);
    // 64 MiB on offer; the client stopped after its cap (plus what sockets buffer).
    expect(fake.inbound.hugeBytesSent).toBeLessThan(16 * 1024 * 1024);
    expect(run.records.has(`storecove:${after.documentGuid}`)).toBe(true);
    expect(fake.inbound.queue).toEqual([]);
  });

  it("a raw answer over the cap: its first cap + 1 bytes, with its media type", async () => {
    const x = fake.inbound.receive(12345, Buffer.alloc(100_000, "<"), "raw");
    await source({ maxDocumentBytes: 4096 }).run(run.ctx());
    const kept = run.records.get(`storecove:${x.documentGuid}`)!;
    expect(kept).toMatchObject({ truncated: true, mediaType: "application/xml" });
    expect(kept.content.length).toBe(4097);
  });

  it("a document just over the cap, within the answer's room, is handed over whole (the store keeps it without its bytes)", async () => {
    const bytes = Buffer.alloc(4097, "x");
    const x = fake.inbound.receive(12345, bytes);
    await source({ maxDocumentBytes: 4096 }).run(run.ctx());
    expect(run.records.get(`storecove:${x.documentGuid}`)!.content.length).toBe(4097);
  });

  it("two runs at once (two instances before a lease settles it): each document stored once, the queue drained", async () => {
    const docs = Array.from({ length: 6 }, (_, i) => fake.inbound.receive(i % 2 ? 777 : 12345, UBL(`P-${i}`)));
    const [r1, r2] = await Promise.all([source().run(run.ctx()), source().run(run.ctx())]);
    expect(r1.note).toBeUndefined();
    expect(r2.note).toBeUndefined();
    expect(fake.inbound.queue).toEqual([]);
    expect(run.records.size).toBe(6);
    for (const d of docs) expect(run.records.has(`storecove:${d.documentGuid}`)).toBe(true);
  });

  it("takes at most maxItemsPerRun items, then asks to run again at once", async () => {
    for (let i = 0; i < 5; i++) fake.inbound.receive(12345, UBL(`M-${i}`));
    const r = await source({ maxItemsPerRun: 2 }).run(run.ctx());
    expect(r).toEqual({ state: null, nextRunInMs: 0, received: 2 });
    expect(fake.inbound.queue).toHaveLength(3);
  });

  it("extends its lease as it goes, and stops without taking more when the lease is lost", async () => {
    fake.inbound.receive(12345, UBL("C-1"));
    await source({ checkpointEveryMs: 0 }).run(run.ctx());
    expect(run.checkpoints.length).toBeGreaterThan(0);
    fake.inbound.receive(12345, UBL("C-2"));
    run.failCheckpoint = true;
    const log = fake.inbound.log.length;
    const r = await source({ checkpointEveryMs: 0 }).run(run.ctx());
    expect(r.note).toMatch(/lease was lost/);
    expect(fake.inbound.log.length).toBe(log);
  });

  it("a refused API key: a note about the key, never the key itself; 404 on the queue: a note about pull mode", async () => {
    fake.inbound.receive(12345, UBL("K-1"));
    const r = await storecoveInbound({ baseUrl: fake.baseUrl, apiKey: "wrong-key-secret", intervalMs: 1000 }).run(run.ctx());
    expect(r).toMatchObject({ nextRunInMs: 1000, received: 0, note: expect.stringContaining("API key") });
    expect(JSON.stringify(r)).not.toContain("wrong-key-secret");
    fake.inbound.queueFaults.push({ status: 404 });
    expect((await source().run(run.ctx())).note).toMatch(/pull-mode webhook/);
  });

  it("an unreachable Storecove is a run that ends with a note, not a throw", async () => {
    const r = await storecoveInbound({ baseUrl: "http://127.0.0.1:9/api/v2", apiKey: "k", intervalMs: 5000, timeoutMs: 2000 }).run(run.ctx());
    expect(r).toMatchObject({ nextRunInMs: 5000, received: 0, note: expect.stringMatching(/could not be reached|did not answer/) });
  });
});

describe("originalPrefix", () => {
  it("decodes the base64 text after original in a cut-off answer, skipping escaped and bare line breaks", () => {
    const doc = Buffer.from("<Invoice>hello world, a document cut off somewhere</Invoice>");
    const b64 = doc.toString("base64");
    const wrapped = b64.slice(0, 20) + "\\n" + b64.slice(20, 40) + "\n" + b64.slice(40);
    const cut = Buffer.from(`{"guid":"g","original":"${wrapped}`.slice(0, 10 + 14 + 60));
    const prefix = originalPrefix(cut);
    expect(prefix.length).toBeGreaterThan(20);
    expect(doc.subarray(0, prefix.length).equals(prefix)).toBe(true);
    expect(originalPrefix(Buffer.from('{"guid":"g","direction":"inc'))).toHaveLength(0);
  });
});

describe("readItemBody", () => {
  it("reads a received_document event's document guid and legal entity (number or digits)", () => {
    expect(readItemBody(JSON.stringify({ event_type: "received_document", document_guid: "a-1", legal_entity_id: 42 }))).toEqual({ ok: true, documentGuid: "a-1", legalEntityId: "42" });
    expect(readItemBody({ event_type: "received_document", document_guid: "a-1", legal_entity_id: "42" })).toEqual({ ok: true, documentGuid: "a-1", legalEntityId: "42" });
    expect(readItemBody({ event_type: "received_document", document_guid: "a-1" })).toEqual({ ok: true, documentGuid: "a-1", legalEntityId: null });
  });
  it("refuses what is not one, saying why", () => {
    expect(readItemBody("{")).toMatchObject({ ok: false, reason: expect.stringContaining("not JSON") });
    expect(readItemBody("[]")).toMatchObject({ ok: false, reason: expect.stringContaining("not a JSON object") });
    expect(readItemBody({ event_type: "received_document", document_guid: "../../legal_entities/1" })).toMatchObject({ ok: false, documentGuid: null });
    expect(readItemBody({ document_guid: "a-1" })).toMatchObject({ ok: false, documentGuid: "a-1", reason: expect.stringContaining("missing") });
  });
});
