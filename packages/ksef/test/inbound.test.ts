import { readdirSync, readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ksefInbound, readFa3, type KsefInboundOptions } from "../src/index.js";
import { startFakeKsef, type FakeKsef } from "./support/fake-ksef.js";
import type { BuyerSideOptions } from "./support/fake-ksef-buyer.js";
import { harness, plCompany, type Harness } from "./support/inbound-run.js";
import { fa3SchemaErrors } from "./support/xsd.js";

const BUYER = "5213017228";
const OTHER = "5260250995";
const TOKEN = "20261129-EC-0123456789-ABCDEF0123-45|nip-5213017228|fedcba9876543210";
const SINCE = "2026-05-01T00:00:00.000Z";

const fixtures = new URL("./fixtures/fa3-received/", import.meta.url);
const SAMPLES = readdirSync(fixtures)
  .filter((f) => f.endsWith(".xml"))
  .sort()
  .map((f) => readFileSync(new URL(f, fixtures), "utf8"));

/** The i-th received invoice: one of the samples, its number made unique. */
const sample = (i: number): string => SAMPLES[i % SAMPLES.length]!.replace(/<P_2>([^<]+)<\/P_2>/, `<P_2>$1-${i}</P_2>`);
/** A permanent-storage date as KSeF writes it (microseconds, +00:00). */
const at = (iso: string, micros = 0): string => `${iso.slice(0, 19)}.${String(micros).padStart(6, "0")}+00:00`;

let clock = Date.parse("2026-11-29T08:00:00.000Z");
const now = (): number => clock;
const iso = (ms: number): string => new Date(ms).toISOString();

let fake: FakeKsef;
async function start(buyer: BuyerSideOptions = {}): Promise<void> {
  fake = await startFakeKsef({ nip: BUYER, token: TOKEN, others: [{ nip: OTHER, token: "other-token" }], buyer: { clock: now, ...buyer } });
}
const source = (over: Partial<KsefInboundOptions> = {}) => ksefInbound({ baseUrl: fake.url, since: SINCE, now, maxWaitInRunMs: 0, pollIntervalMs: 10, exportWaitMs: 0, ...over });
const stateOf = (h: Harness): any => JSON.parse(h.state!);
const receive = (permanentStorageDate: string, i: number, buyerNip = BUYER): string => fake.buyer.receive({ buyerNip, content: sample(i), permanentStorageDate });

beforeEach(() => {
  clock = Date.parse("2026-11-29T08:00:00.000Z");
});
afterEach(async () => {
  await fake?.close();
});

describe("the received FA(3) samples", () => {
  it("are valid FA(3) to the buyer of the tests, from three sellers", async () => {
    expect(SAMPLES).toHaveLength(3);
    const sellers = new Set<string>();
    for (const xml of SAMPLES) {
      expect(await fa3SchemaErrors(xml)).toEqual([]);
      expect(/<Podmiot2>.*?<NIP>(\d+)<\/NIP>/s.exec(xml)?.[1]).toBe(BUYER);
      sellers.add(/<Podmiot1>.*?<NIP>(\d+)<\/NIP>/s.exec(xml)![1]!);
      expect(readFa3(new TextEncoder().encode(xml))).toBeTruthy();
    }
    expect(sellers.size).toBe(3);
  });
});

describe("ksefInbound against the fake KSeF's buyer side", () => {
  it("applies to a company in PL with a KSeF credential, as per-company source ksef on network ksef", async () => {
    await start();
    const s = source();
    expect([s.name, s.network, s.scope]).toEqual(["ksef", "ksef", "company"]);
    expect(s.appliesTo!(plCompany(BUYER))).toBe(true);
    expect(s.appliesTo!({ ...plCompany(BUYER), ksef: null })).toBe(false);
    expect(s.appliesTo!({ ...plCompany(BUYER), country: "DE" })).toBe(false);
  });

  it("receives every invoice of the buyer once across windows and runs, and picks up new ones after the mark", async () => {
    await start();
    // Over six months (windows of at most 89 days), two at one microsecond, one for another buyer.
    const mine = [
      receive(at("2026-05-03T10:00:00", 1), 0),
      receive(at("2026-06-20T08:30:00", 250_000), 1),
      receive(at("2026-06-20T08:30:00", 250_000), 2),
      receive(at("2026-08-30T23:59:59", 999_999), 3),
      receive(at("2026-10-01T12:00:00"), 4),
      receive(at("2026-11-29T07:10:00"), 5),
    ];
    receive(at("2026-07-01T10:00:00"), 6, OTHER);
    const h = harness(source(), { nip: BUYER, token: TOKEN });
    const r1 = await h.run();
    expect(r1).toMatchObject({ received: 6, nextRunInMs: 900_000 });
    expect(r1.note).toBeUndefined();
    expect([...h.stored.keys()].sort()).toEqual([...mine].sort());
    expect(h.storeCalls.every((c) => c.outcome === "stored")).toBe(true);
    for (const n of mine) expect(new TextDecoder().decode(h.stored.get(n)!.content)).toBe(new TextDecoder().decode(fake.buyer.invoices.find((i) => i.ksefNumber === n)!.content));
    expect(h.stored.get(mine[0]!)!.mediaType).toBe("application/xml");
    // Adjacent windows from the start, each over the permanent-storage date, restricted to the HWM.
    const queries = fake.buyer.calls.filter((c) => c === "POST /invoices/query/metadata").length;
    expect(queries).toBe(3);
    expect(stateOf(h).inc.from).toBe("2026-11-29T08:00:00.000Z");
    // A checkpoint after each invoice stored: the mark follows them in order.
    const marks = h.checkpoints.map((c) => JSON.parse(c.state).inc.from);
    expect(marks.slice(0, 3)).toEqual([at("2026-05-03T10:00:00", 1), at("2026-06-20T08:30:00", 250_000), at("2026-06-20T08:30:00", 250_000)]);

    // Later: two new invoices, one of them beyond KSeF's high-water mark (not complete yet, not taken).
    clock += 900_000;
    fake.buyer.hwm = at("2026-11-29T08:14:00");
    const fresh = receive(at("2026-11-29T08:05:00"), 7);
    const late = receive(at("2026-11-29T08:14:30"), 8);
    const r2 = await h.run();
    expect(r2.received).toBe(1);
    expect(h.stored.has(fresh)).toBe(true);
    expect(h.stored.has(late)).toBe(false);
    expect(stateOf(h).inc.from).toBe(at("2026-11-29T08:14:00"));
    clock += 900_000;
    fake.buyer.hwm = null;
    const r3 = await h.run();
    expect(r3.received).toBe(1);
    expect(h.stored.has(late)).toBe(true);
    expect(h.storeCalls.filter((c) => c.outcome === "duplicate")).toEqual([]);
    expect(fake.buyer.counts.invoiceDownload).toBe(8);
    expect(fake.buyer.limited).toBe(0);
  });

  it("a lane caught up with now makes one metadata query a run, however KSeF's mark and the clocks differ", async () => {
    // KSeF's clock a little ahead of ours, ours moving with every look.
    await start({ clock: () => clock + 40 });
    receive(at("2026-11-28T10:00:00"), 0);
    const h = harness(source({ since: "2026-11-01T00:00:00.000Z", now: () => ++clock }), { nip: BUYER, token: TOKEN });
    await h.run();
    expect(h.stored.size).toBe(1);
    expect(fake.buyer.counts.invoiceMetadata).toBe(1);
    clock += 900_000;
    await h.run();
    expect(fake.buyer.counts.invoiceMetadata).toBe(2);
    // After an export too: the export, no query after it.
    Array.from({ length: 70 }, (_, i) => receive(at(iso(clock + 60_000), i), i + 1));
    clock += 900_000;
    const r = await h.run();
    expect(r.note).toMatch(/preparing/);
    clock += 60_000;
    const r2 = await h.run();
    expect(r2.received).toBe(70);
    expect(fake.buyer.counts.invoiceMetadata).toBe(3 + 1);
  });

  it("does not download again the invoices at the mark's own date when the next window starts there", async () => {
    await start();
    fake.buyer.hwm = at("2026-11-29T07:00:00", 5);
    const edge = receive(at("2026-11-29T07:00:00", 5), 0);
    const h = harness(source(), { nip: BUYER, token: TOKEN });
    await h.run();
    expect(stateOf(h).inc).toMatchObject({ from: at("2026-11-29T07:00:00", 5), seen: [edge] });
    clock += 900_000;
    fake.buyer.hwm = null;
    const after = receive(at("2026-11-29T07:00:00", 6), 1);
    const r = await h.run();
    expect(r.received).toBe(1);
    expect(h.stored.has(after)).toBe(true);
    expect(fake.buyer.counts.invoiceDownload).toBe(2);
    expect(h.storeCalls.map((c) => c.outcome)).toEqual(["stored", "stored"]);
  });

  it("resumes from the stored mark after a restart; a run cut after storing and before its checkpoint loses nothing (the next run stores it again: duplicate)", async () => {
    await start();
    const numbers = Array.from({ length: 6 }, (_, i) => receive(at(`2026-11-0${i + 1}T10:00:00`), i));
    const h = harness(source({ since: "2026-11-01T00:00:00.000Z" }), { nip: BUYER, token: TOKEN });
    // Checkpoint 3 is the third invoice's: it was stored, its mark never saved (the run is cut there).
    h.cutAtCheckpoint(3);
    const r1 = await h.run();
    expect(r1.note).toMatch(/could not be saved/);
    expect(h.stored.size).toBe(3);
    expect(JSON.parse(h.state!).inc.from).toBe(at("2026-11-02T10:00:00"));
    // A new process: a fresh source, the stored mark.
    clock += 900_000;
    const h2 = harness(source({ since: "2026-11-01T00:00:00.000Z" }), { nip: BUYER, token: TOKEN });
    Object.assign(h2, { stored: h.stored, storeCalls: h.storeCalls, state: h.state });
    const r2 = await h2.run();
    expect(r2.received).toBe(4);
    expect([...h2.stored.keys()].sort()).toEqual([...numbers].sort());
    expect(h2.storeCalls.filter((c) => c.outcome === "duplicate").map((c) => c.ksefNumber)).toEqual([numbers[2]]);
    // The first two were not downloaded again: the run went on from the mark.
    expect(fake.buyer.counts.invoiceDownload).toBe(7);
  });

  it("honours a 429's Retry-After (seconds or an HTTP date): the run ends with it as the next delay, the state as checkpointed", async () => {
    await start();
    receive(at("2026-11-01T10:00:00"), 0);
    const h = harness(source(), { nip: BUYER, token: TOKEN });
    await h.run();
    const before = h.state;
    fake.buyer.receive({ buyerNip: BUYER, content: sample(1), permanentStorageDate: at("2026-11-29T08:10:00") });
    clock += 900_000;
    fake.throttle(1, 120);
    const r = await h.run();
    expect(r).toMatchObject({ nextRunInMs: 120_000, received: 0, note: expect.stringContaining("429") });
    expect(JSON.parse(h.state!).inc).toEqual(JSON.parse(before!).inc);
    const { retryAfterMs } = await import("../src/session.js");
    expect(retryAfterMs(new Date(Date.now() + 30_000).toUTCString())).toBeGreaterThan(28_000);
    expect(retryAfterMs("30")).toBe(30_000);
    expect(retryAfterMs("soon")).toBeUndefined();
  });

  it("keeps KSeF's limits: never refused for a limit at the production figures, the rest of the hour's downloads waiting for later runs", async () => {
    await start();
    // 60 invoices: within the hour's 64 downloads, but more than 16 a minute.
    const numbers = Array.from({ length: 60 }, (_, i) => receive(at("2026-11-10T10:00:00", i * 10), i));
    const h = harness(source(), { nip: BUYER, token: TOKEN });
    let runs = 0;
    while (h.stored.size < numbers.length && runs < 10) {
      const r = await h.run();
      runs++;
      clock += r.nextRunInMs;
    }
    expect(h.stored.size).toBe(60);
    // 8 a second, 16 a minute: (this test's source does not wait within a run) a run ends at each and the next goes on.
    expect(runs).toBe(8);
    expect(h.results.slice(0, 7).every((r) => r.received === 8)).toBe(true);
    expect(h.results[0]!.note).toMatch(/limit of invoice downloads/);
    expect(h.results[1]!.nextRunInMs).toBeGreaterThanOrEqual(59_000);
    expect(fake.buyer.limited).toBe(0);
    expect(fake.buyer.exports).toBe(0);
    expect(fake.buyer.counts.invoiceDownload).toBe(60);
  });

  it("waits within a run for a second's limit to pass (production figures, real time), never refused", async () => {
    const t0 = Date.now();
    const live = (): number => clock + (Date.now() - t0);
    await start({ clock: live });
    const numbers = Array.from({ length: 12 }, (_, i) => receive(at("2026-11-10T10:00:00", i), i));
    const h = harness(source({ now: live, maxWaitInRunMs: 2000 }), { nip: BUYER, token: TOKEN });
    const r = await h.run();
    expect(r).toMatchObject({ received: 12, nextRunInMs: 900_000 });
    expect([...h.stored.keys()].sort()).toEqual([...numbers].sort());
    expect(fake.buyer.limited).toBe(0);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
  });

  it("when the source thinks it may go faster than KSeF lets it, KSeF's 429 ends the run and the next one goes on", async () => {
    await start({ limits: { invoiceDownload: { perSecond: 8, perMinute: 16, perHour: 5 } } });
    Array.from({ length: 8 }, (_, i) => receive(at("2026-11-10T10:00:00", i), i));
    const h = harness(source(), { nip: BUYER, token: TOKEN });
    const r1 = await h.run();
    expect(r1).toMatchObject({ received: 5, note: expect.stringContaining("429") });
    expect(r1.nextRunInMs).toBeGreaterThan(3500_000);
    clock += r1.nextRunInMs;
    const r2 = await h.run();
    expect(r2.received).toBe(3);
    expect(h.stored.size).toBe(8);
  });

  it("takes a backlog larger than the hour's downloads through one export: parts decrypted, joined, unzipped, every invoice stored; a restart polls the same export", async () => {
    await start({ partSize: 20_000, exportPendingPolls: 2 });
    const numbers = Array.from({ length: 90 }, (_, i) => receive(at(`2026-11-${String(1 + (i % 20)).padStart(2, "0")}T10:00:00`, i), i));
    const h = harness(source(), { nip: BUYER, token: TOKEN });
    const r1 = await h.run();
    expect(r1).toMatchObject({ received: 0, nextRunInMs: 60_000, note: expect.stringContaining("preparing") });
    const pending = stateOf(h).export;
    expect(pending.referenceNumber).toMatch(/^20261122-EH-/);
    // A restart: a new source instance, the saved state.
    clock += 60_000;
    const h2 = harness(source(), { nip: BUYER, token: TOKEN });
    h2.state = h.state;
    const r2 = await h2.run();
    expect(r2.note).toMatch(/preparing/);
    clock += 60_000;
    const r3 = await h2.run();
    expect(r3.received).toBe(90);
    expect([...h2.stored.keys()].sort()).toEqual([...numbers].sort());
    expect(fake.buyer.exports).toBe(1);
    expect(fake.buyer.calls.filter((c) => c === "GET /storage/{part}").length).toBeGreaterThan(1);
    expect(fake.buyer.counts.invoiceDownload).toBe(0);
    expect(stateOf(h2)).toMatchObject({ export: null, inc: { from: "2026-11-29T08:02:00.000Z" } });
    const sample0 = h2.stored.get(numbers[0]!)!;
    expect(new TextDecoder().decode(sample0.content)).toBe(sample(0));
    expect(fake.buyer.limited).toBe(0);
  });

  it("pages a window as the metadata query says (hasMore: the next page; isTruncated: the window again from the last record's date), each invoice once", async () => {
    await start({ limits: false, truncateAt: 20 });
    const numbers = Array.from({ length: 47 }, (_, i) => receive(at("2026-11-10T10:00:00", i * 1000), i));
    // Downloads enough for all, no exports: the window is paged.
    const h = harness(source({ pageSize: 10, limits: { download: { perSecond: 1000, perMinute: 1000, perHour: 1000 }, export: { perSecond: 0, perMinute: 0, perHour: 0 } } }), { nip: BUYER, token: TOKEN });
    const r = await h.run();
    expect(r.received).toBe(47);
    expect([...h.stored.keys()].sort()).toEqual([...numbers].sort());
    expect(h.storeCalls.every((c) => c.outcome === "stored")).toBe(true);
    expect(fake.buyer.counts.invoiceDownload).toBe(47);
    // Two empty windows from May; then pages of 10 up to the 20 records of a truncated query (2), again from the
    // 20th's date (2, the 20th passed over as seen), again from the 40th's (1: the last 8).
    expect(fake.buyer.counts.invoiceMetadata).toBe(2 + 2 + 2 + 1);
  });

  it("a truncated export package moves the mark to its lastPermanentStorageDate; the window goes on from there", async () => {
    await start({ exportMax: 30, exportPendingPolls: 0 });
    const numbers = Array.from({ length: 70 }, (_, i) => receive(at("2026-11-10T10:00:00", i * 1000), i));
    const h = harness(source(), { nip: BUYER, token: TOKEN });
    let runs = 0;
    while (h.stored.size < 70 && runs < 10) {
      const r = await h.run();
      runs++;
      clock += r.nextRunInMs;
    }
    expect([...h.stored.keys()].sort()).toEqual([...numbers].sort());
    expect(fake.buyer.exports).toBe(1);
    // The 30th was in the package: the rest (40, within the hour's downloads) downloaded one by one, it not again.
    expect(fake.buyer.counts.invoiceDownload).toBe(40);
    expect(h.storeCalls.filter((c) => c.outcome === "duplicate")).toEqual([]);
    expect(fake.buyer.limited).toBe(0);
  });

  it("takes an operator's backfill into its state and receives that period, the incremental mark unmoved", async () => {
    await start();
    const early = [receive(at("2026-03-10T10:00:00"), 0), receive(at("2026-03-20T10:00:00"), 1)];
    receive(at("2026-04-15T10:00:00"), 2); // after the backfill's end
    const later = receive(at("2026-11-20T10:00:00"), 3);
    const h = harness(source(), { nip: BUYER, token: TOKEN });
    await h.run();
    expect([...h.stored.keys()]).toEqual([later]);
    const mark = stateOf(h).inc.from;
    clock += 900_000;
    h.requests = [{ id: "bf-1", from: "2026-03-01T00:00:00.000Z", to: "2026-04-01T00:00:00.000Z", requestedAt: iso(clock) }];
    const r = await h.run();
    expect(h.checkpoints.find((c) => c.taken)?.taken).toEqual(["bf-1"]);
    expect(h.requests).toEqual([]);
    expect(r.received).toBe(2);
    expect([...h.stored.keys()].sort()).toEqual([...early, later].sort());
    expect(stateOf(h).inc.from >= mark).toBe(true);
    expect(stateOf(h).backfills).toEqual([]);
  });

  it("hands a non-XML or oversized download to store as it came (stored with its error there) and moves on", async () => {
    await start();
    const junk = fake.buyer.receive({ buyerNip: BUYER, content: "%PDF-1.7 not an invoice", permanentStorageDate: at("2026-11-02T10:00:00") });
    const big = fake.buyer.receive({ buyerNip: BUYER, content: new Uint8Array(11 * 1024 * 1024).fill(0x20), permanentStorageDate: at("2026-11-03T10:00:00") });
    const h = harness(source(), { nip: BUYER, token: TOKEN });
    const r = await h.run();
    expect(r.received).toBe(2);
    expect(new TextDecoder().decode(h.stored.get(junk)!.content)).toBe("%PDF-1.7 not an invoice");
    expect(h.stored.get(big)!.content.byteLength).toBe(11 * 1024 * 1024);
    // Larger than the read cap: cut at it, never more held.
    const capped = harness(source({ maxDocumentBytes: 1024 }), { nip: BUYER, token: TOKEN });
    await capped.run();
    expect(capped.stored.get(big)!.content.byteLength).toBe(1024);
  });

  const why = {
    badZip: /not a readable ZIP/,
    bomb: /zip bomb/,
    lyingMetadata: /1 invoices its _metadata.json lists are not in it/,
    missingFile: /1 invoices its _metadata.json lists are not in it/,
    badPartHash: /does not match its encryptedPartHash/,
    strangeNames: /1 entries of KSeF's export package are not named after a KSeF number/,
  } as const;
  for (const mode of Object.keys(why) as (keyof typeof why)[]) {
    it(`a hostile export package (${mode}): the run ends with a note, nothing unstored acknowledged, the next export narrower; all received in the end`, async () => {
      await start({ partSize: 50_000, exportPendingPolls: 0 });
      const numbers = Array.from({ length: 70 }, (_, i) => receive(at("2026-11-05T10:00:00", i), i));
      fake.buyer.packageMode(mode);
      const h = harness(source(), { nip: BUYER, token: TOKEN });
      const r1 = await h.run();
      expect(r1.note).toMatch(why[mode]);
      expect(r1.note).toMatch(/export package could not be used/);
      // What came in a package that is wrong elsewhere is stored all the same; the mark stays before it.
      expect(h.stored.size).toBe({ badZip: 0, bomb: 0, badPartHash: 0, lyingMetadata: 70, missingFile: 69, strangeNames: 69 }[mode]);
      {
        // Empty windows before the invoices are done; the one with them is not.
        expect(stateOf(h).inc.from < "2026-11-05T10:00:00").toBe(true);
        expect(stateOf(h).export).toBeNull();
        expect(stateOf(h).span).toBeLessThan(89 * 24 * 3600_000);
      }
      clock += r1.nextRunInMs;
      for (let i = 0; i < 3 && h.stored.size < 70; i++) {
        const r = await h.run();
        clock += r.nextRunInMs;
      }
      expect([...h.stored.keys()].sort()).toEqual([...numbers].sort());
      expect(fake.buyer.limited).toBe(0);
    });
  }

  it("a part's connection dropped or KSeF's 500: the run ends with a note, the export kept and fetched next run without starting another", async () => {
    await start({ partSize: 50_000, exportPendingPolls: 0 });
    Array.from({ length: 70 }, (_, i) => receive(at("2026-11-05T10:00:00", i), i));
    const h = harness(source(), { nip: BUYER, token: TOKEN });
    fake.buyer.failNext("GET /storage/{part}", "drop");
    const r1 = await h.run();
    expect(r1.note).toMatch(/unreachable|broke off/);
    expect(stateOf(h).export).not.toBeNull();
    clock += r1.nextRunInMs;
    fake.buyer.failNext("GET /invoices/exports/{ref}", "500");
    const r2 = await h.run();
    expect(r2.note).toMatch(/KSeF answered 500/);
    clock += r2.nextRunInMs;
    const r3 = await h.run();
    expect(r3.received).toBe(70);
    expect(fake.buyer.exports).toBe(1);
  });

  it("a part whose link is gone (403, as an expired one answers) drops the export: the next run exports the window anew and stores it all", async () => {
    await start({ partSize: 50_000, exportPendingPolls: 0 });
    Array.from({ length: 70 }, (_, i) => receive(at("2026-11-05T10:00:00", i), i));
    const h = harness(source(), { nip: BUYER, token: TOKEN });
    fake.buyer.failNext("GET /storage/{part}", "403");
    const r1 = await h.run();
    expect(r1.note).toMatch(/answered 403/);
    expect(stateOf(h).export).toBeNull();
    clock += r1.nextRunInMs;
    const r2 = await h.run();
    expect(r2.received).toBe(70);
    expect(fake.buyer.exports).toBe(2);
  });

  it("a download whose connection drops ends the run without moving the mark past it", async () => {
    await start();
    const a = receive(at("2026-11-05T10:00:00"), 0);
    const b = receive(at("2026-11-06T10:00:00"), 1);
    const h = harness(source(), { nip: BUYER, token: TOKEN });
    await h.run();
    clock += 900_000;
    const c = receive(at("2026-11-29T08:05:00"), 2);
    const d = receive(at("2026-11-29T08:06:00"), 3);
    fake.buyer.failNext("GET /invoices/ksef/{ksefNumber}", "drop");
    const r = await h.run();
    expect(r.note).toMatch(/unreachable|broke off/);
    expect(h.stored.has(c)).toBe(false);
    expect(stateOf(h).inc.from < at("2026-11-29T08:05:00")).toBe(true);
    clock += 900_000;
    await h.run();
    expect([...h.stored.keys()].sort()).toEqual([a, b, c, d].sort());
  });

  it("ends soon when the server stops, keeping the mark of what was stored", async () => {
    await start();
    const numbers = Array.from({ length: 5 }, (_, i) => receive(at(`2026-11-0${i + 1}T10:00:00`), i));
    const stop = new AbortController();
    const stored: string[] = [];
    let saved: string | null = null;
    const r = await source({ since: "2026-11-01T00:00:00.000Z" }).run({
      scope: "c1",
      company: plCompany(BUYER),
      ksefCredential: { nip: BUYER, token: TOKEN },
      state: null,
      requests: [],
      signal: stop.signal,
      async store(doc) {
        stored.push((doc.reference as { ksefNumber: string }).ksefNumber);
        if (stored.length === 2) stop.abort();
        return { outcome: "stored", invoiceId: "x" };
      },
      async checkpoint(state) {
        saved = state;
      },
    });
    expect(r).toMatchObject({ nextRunInMs: 0, note: expect.stringContaining("stopping") });
    expect(stored).toEqual(numbers.slice(0, 2));
    expect(JSON.parse(r.state!).inc.from).toBe(at("2026-11-02T10:00:00"));
    expect(JSON.parse(saved!).inc.from).toBe(at("2026-11-02T10:00:00"));
  });

  it("KSeF's 500 on the metadata query ends the run with a note, to be tried at the next interval; an unreadable saved state starts afresh (duplicates only)", async () => {
    await start();
    const a = receive(at("2026-11-05T10:00:00"), 0);
    const h = harness(source(), { nip: BUYER, token: TOKEN });
    fake.buyer.failNext("POST /invoices/query/metadata", "500");
    const r1 = await h.run();
    expect(r1).toMatchObject({ received: 0, nextRunInMs: 900_000, note: expect.stringContaining("KSeF answered 500") });
    clock += 900_000;
    await h.run();
    expect([...h.stored.keys()]).toEqual([a]);
    h.state = "{garbage";
    clock += 900_000;
    const r3 = await h.run();
    expect(r3.note).toMatch(/could not be read; syncing again from the start/);
    expect(h.storeCalls.map((c) => c.outcome)).toEqual(["stored", "duplicate"]);
    expect(stateOf(h).inc.from > "2026-11-29").toBe(true);
  });

  it("a backfill with a backlog goes through an export too, and the incremental lane goes on alongside", async () => {
    await start({ exportPendingPolls: 0 });
    const h = harness(source({ since: "2026-11-01T00:00:00.000Z" }), { nip: BUYER, token: TOKEN });
    await h.run();
    const old = Array.from({ length: 80 }, (_, i) => receive(at("2026-09-15T10:00:00", i), i));
    clock += 900_000;
    const fresh = receive(at(iso(clock - 60_000)), 99);
    h.requests = [{ id: "bf-2", from: "2026-09-01T00:00:00.000Z", to: "2026-10-01T00:00:00.000Z", requestedAt: iso(clock) }];
    const r = await h.run();
    expect(r.received).toBe(81);
    expect([...h.stored.keys()].sort()).toEqual([...old, fresh].sort());
    expect(fake.buyer.exports).toBe(1);
    expect(stateOf(h).backfills).toEqual([]);
  });

  it("never returns or saves the token, and says so when there is no credential", async () => {
    await start();
    receive(at("2026-11-05T10:00:00"), 0);
    const h = harness(source(), { nip: BUYER, token: TOKEN });
    fake.throttle(3, 5);
    await h.run();
    clock += 900_000;
    await h.run();
    const all = JSON.stringify([h.results, h.checkpoints, h.state]);
    expect(all).not.toContain(TOKEN);
    expect(all).not.toContain("fedcba9876543210");
    const none = await source().run({ scope: "x", company: plCompany(BUYER), ksefCredential: null, state: null, requests: [], signal: new AbortController().signal, store: async () => ({ outcome: "stored", invoiceId: "x" }), checkpoint: async () => {} });
    expect(none).toMatchObject({ received: 0, nextRunInMs: 900_000, note: expect.stringContaining("credential") });
  });
});
