// The collector on demand, for metrics whose two sides must each pay for their own garbage.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

// Exposed at run time (as the memory-store test does): `pnpm bench` runs without --expose-gc.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as (options: { type: "major" | "minor" }) => void;

/** A scavenge: collects the young generation (what survives it is copied out). */
export const collectYoung = (): void => gc({ type: "minor" });

/** A full collection of the whole heap. */
export const collectAll = (): void => gc({ type: "major" });

/**
 * A batch of `n` calls (`batch` gives ms per call), charged with the scavenge that collects what it left in the
 * young generation, so that the next batch (the other side of a ratio) starts from an empty young generation and
 * pays only for its own garbage (bench/metrics/pipeline.ts says why).
 */
export async function charged(n: number, batch: () => number | Promise<number>): Promise<number> {
  const perCallMs = await batch();
  const t = Number(process.hrtime.bigint()) / 1e6;
  collectYoung();
  return perCallMs + (Number(process.hrtime.bigint()) / 1e6 - t) / n;
}
