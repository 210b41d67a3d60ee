// An export package's invoices go to the store in chunks through `storeMany` (one commit each), and the mark moves only
// once all of them are stored: a chunk that fails stops the run with the export kept, polled again next run.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { InboundSource, ReceivedDocument, StoredOutcome } from "@einvoice/core";
import { readdirSync, readFileSync } from "node:fs";
import { ksefInbound } from "../src/index.js";
import { startFakeKsef, type FakeKsef } from "./support/fake-ksef.js";
import { harness } from "./support/inbound-run.js";

const BUYER = "5213017228";
const TOKEN = "20261129-EC-0123456789-ABCDEF0123-45|nip-5213017228|fedcba9876543210";
const fixtures = new URL("./fixtures/fa3-received/", import.meta.url);
const SAMPLES = readdirSync(fixtures)
  .filter((f) => f.endsWith(".xml"))
  .sort()
  .map((f) => readFileSync(new URL(f, fixtures), "utf8"));
const sample = (i: number): string => SAMPLES[i % SAMPLES.length]!.replace(/<P_2>([^<]+)<\/P_2>/, `<P_2>$1-${i}</P_2>`);
const at = (iso: string, micros = 0): string => `${iso.slice(0, 19)}.${String(micros).padStart(6, "0")}+00:00`;

let clock = Date.parse("2026-11-29T08:00:00.000Z");
const now = (): number => clock;
let fake: FakeKsef;

beforeEach(() => {
  clock = Date.parse("2026-11-29T08:00:00.000Z");
});
afterEach(async () => {
  await fake?.close();
});

/** The source, its runs given a `storeMany` over the harness's `store` that records each chunk (and can fail one). */
function withStoreMany(source: InboundSource, chunks: number[], failChunk: { at: number | null }): InboundSource {
  return {
    ...source,
    run: (ctx) =>
      source.run({
        ...ctx,
        async storeMany(docs: ReceivedDocument[]): Promise<StoredOutcome[]> {
          chunks.push(docs.length);
          if (failChunk.at !== null && chunks.length === failChunk.at) throw new Error("disk full");
          const out: StoredOutcome[] = [];
          for (const d of docs) out.push(await ctx.store(d));
          return out;
        },
      }),
  };
}

describe("ksefInbound stores an export package through storeMany", () => {
  it("in chunks of 100, the mark moved once all are stored; a failed chunk keeps the export and the mark, all stored next run", async () => {
    fake = await startFakeKsef({ nip: BUYER, token: TOKEN, buyer: { clock: now, exportPendingPolls: 0 } });
    const numbers = Array.from({ length: 250 }, (_, i) => fake.buyer.receive({ buyerNip: BUYER, content: sample(i), permanentStorageDate: at(`2026-11-${String(1 + (i % 20)).padStart(2, "0")}T10:00:00`, i) }));
    const chunks: number[] = [];
    const fail = { at: 2 as number | null };
    const source = ksefInbound({ baseUrl: fake.url, since: "2026-11-01T00:00:00.000Z", now, maxWaitInRunMs: 0, pollIntervalMs: 10, exportWaitMs: 0 });
    const h = harness(withStoreMany(source, chunks, fail), { nip: BUYER, token: TOKEN });
    const r1 = await h.run();
    // The second chunk failed: the first is stored, nothing acknowledged, the export kept for the next run.
    expect(chunks).toEqual([100, 100]);
    expect(r1.received).toBe(100);
    expect(r1.note).toMatch(/could not be stored/);
    expect(h.stored.size).toBe(100);
    const kept = JSON.parse(h.state!);
    expect(kept.export).not.toBeNull();
    expect(kept.inc.from).toBe("2026-11-01T00:00:00.000Z");
    fail.at = null;
    chunks.length = 0;
    clock += r1.nextRunInMs;
    const r2 = await h.run();
    expect(chunks).toEqual([100, 100, 50]);
    expect(r2.received).toBe(250);
    expect(fake.buyer.exports).toBe(1);
    expect([...h.stored.keys()].sort()).toEqual([...numbers].sort());
    // The first chunk again: duplicates; every other invoice stored once.
    expect(h.storeCalls.filter((c) => c.outcome === "duplicate")).toHaveLength(100);
    expect(h.storeCalls.filter((c) => c.outcome === "stored")).toHaveLength(250);
    expect(fake.buyer.counts.invoiceDownload).toBe(0);
    const done = JSON.parse(h.state!);
    expect(done.export).toBeNull();
    expect(done.inc.from > "2026-11-20").toBe(true);
  });
});
