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
