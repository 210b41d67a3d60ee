// Medians, percentiles and the alternating A/B measurement every metric uses.

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The p-th percentile (0..100), nearest rank. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

export const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/** Milliseconds per call of `fn`, over `n` calls. */
export async function perCall(n: number, fn: (i: number) => unknown): Promise<number> {
  const t = nowMs();
  for (let i = 0; i < n; i++) await fn(i);
  return (nowMs() - t) / n;
}

export function perCallSync(n: number, fn: (i: number) => unknown): number {
  const t = nowMs();
  for (let i = 0; i < n; i++) fn(i);
  return (nowMs() - t) / n;
}

export interface Alternated {
  a: number[];
  b: number[];
  /** a/b of each round (the two taken next to each other). */
  ratios: number[];
  /** The median of the rounds' ratios: drift of a noisy machine affects both sides of a round alike. */
  ratio: number;
}

/**
 * Runs `a` and `b` in turns (A B, then B A, ...) after `warmup` unrecorded rounds, and returns
 * each side's measurements and the median of the per-round ratios a/b.
 */
export async function alternate(opts: {
  rounds: number;
  warmup?: number;
  a: (round: number) => Promise<number> | number;
  b: (round: number) => Promise<number> | number;
}): Promise<Alternated> {
  const out: Alternated = { a: [], b: [], ratios: [], ratio: NaN };
  const warmup = opts.warmup ?? 1;
  for (let r = 0; r < warmup + opts.rounds; r++) {
    let va: number;
    let vb: number;
    if (r % 2 === 0) {
      va = await opts.a(r);
      vb = await opts.b(r);
    } else {
      vb = await opts.b(r);
      va = await opts.a(r);
    }
    if (r < warmup) continue;
    out.a.push(va);
    out.b.push(vb);
    out.ratios.push(va / vb);
  }
  out.ratio = median(out.ratios);
  return out;
}

export const round = (x: number, digits = 3): number => Number(x.toFixed(digits));
