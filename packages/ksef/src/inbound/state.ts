// The mark of a company's KSeF sync (InboundRun.state), as JSON, and the request budgets it keeps.
//
// A lane is a run of adjacent windows over the permanent-storage date (pobieranie-faktur/
// przyrostowe-pobieranie-faktur.md): `from` is where the next window starts (the stored mark), `seen`
// the KSeF numbers already stored whose permanent-storage date is exactly `from` (the next window
// starts there, inclusive, and lists them again: they are not downloaded twice). The incremental
// lane has no end; a backfill lane (an operator's request) ends at its `to` and is then dropped.
// An export in progress is kept with its reference number and its AES key (a restart polls the
// same export instead of starting another; the key decrypts only that package of the company's own
// invoices, it is no credential). `used` holds the times of the rate-limited calls of the last hour
// (limity/limity-api.md), so a restart does not start the hour's budget afresh.

export interface Lane {
  /** `inc` for the incremental lane, else the backfill request's id. */
  id: string;
  /** Where the next window starts: a permanent-storage date as KSeF wrote it (or an ISO timestamp). */
  from: string;
  /** Where the lane ends (exclusive); null for the incremental lane. */
  to: string | null;
  /** KSeF numbers stored whose permanent-storage date is `from`. */
  seen: string[];
}

export interface PendingExport {
  /** The lane whose window it exports. */
  lane: string;
  referenceNumber: string;
  /** The package's AES-256 key and IV, base64. */
  key: string;
  iv: string;
  from: string;
  to: string;
}

export interface InboundState {
  v: 1;
  inc: Lane;
  backfills: Lane[];
  export: PendingExport | null;
  /** The longest window (ms): at most the API's three months; halved after an unusable export package. */
  span: number;
  /** Times (epoch ms) of the last hour's metadata queries (`m`), downloads (`d`) and exports (`e`). */
  used: { m: number[]; d: number[]; e: number[] };
}

/** 89 days: `dateRange` may span at most three months (open-api.json, InvoiceQueryFilters.dateRange). */
export const MAX_SPAN_MS = 89 * 24 * 3600_000;
/** The shortest window an unusable package narrows to. */
export const MIN_SPAN_MS = 60_000;

export function initialState(from: string): InboundState {
  return { v: 1, inc: { id: "inc", from, to: null, seen: [] }, backfills: [], export: null, span: MAX_SPAN_MS, used: { m: [], d: [], e: [] } };
}

const isLane = (l: any): l is Lane => l && typeof l.id === "string" && timeKey(l.from) !== null && (l.to === null || timeKey(l.to) !== null) && Array.isArray(l.seen) && l.seen.every((s: unknown) => typeof s === "string");
const times = (a: unknown): number[] => (Array.isArray(a) ? a.filter((n): n is number => typeof n === "number" && Number.isFinite(n)) : []);

/** The saved state, or null when there is none or it cannot be read (the caller starts afresh). */
export function readInboundState(text: string | null): InboundState | null {
  if (!text) return null;
  try {
    const s = JSON.parse(text);
    if (s?.v !== 1 || !isLane(s.inc) || !Array.isArray(s.backfills) || !s.backfills.every(isLane)) return null;
    const ex = s.export;
    const okExport = ex == null || (typeof ex.lane === "string" && typeof ex.referenceNumber === "string" && typeof ex.key === "string" && typeof ex.iv === "string" && timeKey(ex.from) !== null && timeKey(ex.to) !== null);
    if (!okExport) return null;
    const span = typeof s.span === "number" && s.span >= MIN_SPAN_MS && s.span <= MAX_SPAN_MS ? s.span : MAX_SPAN_MS;
    return { v: 1, inc: s.inc, backfills: s.backfills, export: ex ?? null, span, used: { m: times(s.used?.m), d: times(s.used?.d), e: times(s.used?.e) } };
  } catch {
    return null;
  }
}

const STAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)?$/;

/**
 * A key that orders KSeF's timestamps exactly (to the nanosecond KSeF may write, whatever its offset), or null for
 * anything else. Without an offset the time is Europe/Warsaw's for KSeF; this code writes only UTC, and reads such a
 * stamp as UTC (KSeF writes offsets in its answers).
 */
export function timeKey(stamp: unknown): string | null {
  if (typeof stamp !== "string") return null;
  const m = STAMP.exec(stamp);
  if (!m) return null;
  const seconds = Date.parse(`${m[1]}${m[3] ?? "Z"}`);
  if (!Number.isFinite(seconds) || seconds < 0) return null;
  return `${String(seconds / 1000).padStart(12, "0")}.${(m[2] ?? "").padEnd(9, "0")}`;
}

/** The earlier of two stamps (both readable). */
export const earlier = (a: string, b: string): string => (timeKey(a)! <= timeKey(b)! ? a : b);

/** `stamp` plus `ms`, as an ISO timestamp in UTC (ms precision: a window's end need not be finer). */
export function plus(stamp: string, ms: number): string {
  const k = timeKey(stamp)!;
  return new Date(Number(k.slice(0, 12)) * 1000 + Number(k.slice(13, 16)) + ms).toISOString();
}

export interface Rate {
  perSecond: number;
  perMinute: number;
  perHour: number;
}

/** Drops the times older than an hour. */
export function prune(list: number[], now: number): number[] {
  return list.filter((t) => t > now - 3600_000 && t <= now + 60_000);
}

/** How long (ms) before one more call is within `rate`, given the calls' times; 0 when it is now. */
export function waitFor(list: number[], rate: Rate, now: number): number {
  const sorted = prune(list, now).sort((a, b) => a - b);
  let wait = 0;
  for (const [window, max] of [
    [1000, rate.perSecond],
    [60_000, rate.perMinute],
    [3600_000, rate.perHour],
  ] as const) {
    const inWindow = sorted.filter((t) => t > now - window);
    if (max <= 0) return 3600_000;
    if (inWindow.length >= max) wait = Math.max(wait, inWindow[inWindow.length - max]! + window - now + 1);
  }
  return wait;
}

/** How many more calls the hour allows. */
export function leftThisHour(list: number[], rate: Rate, now: number): number {
  return Math.max(0, rate.perHour - prune(list, now).length);
}
