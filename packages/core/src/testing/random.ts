// A small seeded generator for tests and load scripts: the same sequence for one seed on every machine, so that a
// failing run (a crash test's kill moments, a mutation campaign) can be repeated exactly.

/**
 * mulberry32: numbers in [0, 1), the same sequence for one seed. Not for secrets.
 *
 * @example const next = seededRandom(7); const pick = items[Math.floor(next() * items.length)];
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
