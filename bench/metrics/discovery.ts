// discovery_cached_vs_off: submitInvoice with participant discovery whose answer is cached, against discovery off, side by side.
import { cachedDiscovery, memoryStore, readInvoice, sandboxDiscovery, submitInvoice, type AuthContext, type CoreOptions, type Store } from "../../packages/core/src/index.ts";
import { baseExample } from "../lib/corpus.ts";
import { distinctBase64, eligibleCompany } from "../lib/setup.ts";
import { alternate, median, perCall, round } from "../lib/stats.ts";
import type { Metric } from "../run.ts";

const BATCH = 200;

async function submitBatch(store: Store, auth: AuthContext, bodies: readonly string[], options: CoreOptions): Promise<number> {
  return perCall(bodies.length, async (i) => {
    const r = await submitInvoice(store, auth, { xml: bodies[i]!, targetNetwork: "auto" }, options);
    if (!r.success) throw new Error(`not accepted: ${r.errorMessage}`);
  });
}

export async function discoveryMetrics(): Promise<Record<string, Metric>> {
  const xml = baseExample();
  const store = memoryStore();
  // Each side gets its own distinct bodies (no duplicates), and each round its own company.
  const withBodies = Array.from({ length: BATCH }, distinctBase64(xml, "DC"));
  const offBodies = Array.from({ length: BATCH }, distinctBase64(xml, "DO"));
  const discovery = cachedDiscovery(sandboxDiscovery(), { ttlMs: 3_600_000 });
  const doc = readInvoice(withBodies[0]!);
  // The lookup the submissions make, answered once: every submission below is a cache hit.
  const warm = await discovery.lookup(doc.recipient!, doc.peppolDocumentType?.id);
  if (!warm.registered) throw new Error("the bench recipient must be registered in the sandbox discovery");
  const on: CoreOptions = { discovery };
  const off: CoreOptions = {};
  const r = await alternate({
    rounds: 15,
    warmup: 3,
    a: async () => submitBatch(store, (await eligibleCompany(store)).auth, withBodies, on),
    b: async () => submitBatch(store, (await eligibleCompany(store)).auth, offBodies, off),
  });
  const ms = (x: number) => `${round(x, 3)} ms`;
  return {
    discovery_cached_vs_off: {
      value: round(r.ratio),
      goal: "<= 1.1",
      ok: r.ratio <= 1.1,
      note: `submitInvoice with a cached participant lookup ${ms(median(r.a))}/invoice vs discovery off ${ms(median(r.b))} (base-example.xml, memory store, median of 15 paired rounds of ${BATCH})`,
    },
  };
}
