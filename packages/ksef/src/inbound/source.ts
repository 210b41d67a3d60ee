// ksefInbound: the receiving port (InboundSource) on KSeF API 2.x for one company in PL with a KSeF
// credential: the invoices in which it is the buyer (subjectType Subject2), as the Ministry's
// documentation describes incremental retrieval (CIRFMF/ksef-docs: pobieranie-faktur/
// przyrostowe-pobieranie-faktur.md, pobieranie-faktur/hwm.md, pobieranie-faktur/pobieranie-faktur.md,
// limity/limity-api.md, open-api.json):
//
// - Adjacent windows over the permanent-storage date (dateType PermanentStorage) with
//   restrictToPermanentStorageHwmDate: each window starts where the stored mark is; a finished window
//   moves the mark to its end (its `to`, or KSeF's permanentStorageHwmDate when that is earlier); within
//   a window the mark follows the invoices as they are stored (sorted Asc), so a cut run loses nothing.
//   hasMore/isTruncated as POST /invoices/query/metadata says: hasMore and not truncated: the next
//   page; truncated: the same window again from the last record's date, pageOffset 0.
// - Each invoice is downloaded (GET /invoices/ksef/{ksefNumber}) and handed to `store`; only then is the
//   mark moved and saved with `checkpoint`. Windows overlap at their edges: the KSeF numbers stored at
//   the mark's date are kept with it, and `store` answers `duplicate` for anything received before.
// - A window with more invoices than the hour's download budget left goes through the export API
//   (POST /invoices/exports with a fresh AES-256 key under the Ministry's public key; its status polled;
//   the package parts downloaded, checked, decrypted, joined, unzipped; `_metadata.json`). The export's
//   reference number and key are saved first: a restart polls the same export. Its invoices are stored 100 at a
//   time through `storeMany` (one commit each) when the run has it; the mark moves once all of them are stored.
// - The rate limits of limity-api.md are kept (the calls of the last hour are counted in the state);
//   a 429 ends the run with its Retry-After as the next run's delay.
// - An operator's backfill (ctx.requests) is taken into the state and synced as a lane of its own;
//   the incremental mark never moves back.
import {
  INBOUND_DOCUMENT_MAX_BYTES,
  INBOUND_STATE_MAX_BYTES,
  type BackfillRequest,
  type Company,
  type InboundRun,
  type InboundRunResult,
  type InboundSource,
} from "@einvoice/core";
import { createHash } from "node:crypto";
import { newSessionKey } from "../crypto.js";
import { authOf, ksefSession, Stop, type Auth, type KsefSession } from "../session.js";
import { DEFAULT_PACKAGE_BOUNDS, KSEF_NUMBER, PackageError, decryptPart, numberOfEntry, readPackageMetadata, unzipPackage } from "./package.js";
import { MAX_SPAN_MS, MIN_SPAN_MS, earlier, initialState, leftThisHour, plus, prune, readInboundState, timeKey, waitFor, type InboundState, type Lane, type Rate } from "./state.js";

export interface KsefInboundLimits {
  /** POST /invoices/query/metadata. */
  metadata: Rate;
  /** GET /invoices/ksef/{ksefNumber}. */
  download: Rate;
  /** POST /invoices/exports. */
  export: Rate;
}

/** The production limits of limity/limity-api.md ("Pobieranie faktur - limity"). */
export const KSEF_INBOUND_LIMITS: KsefInboundLimits = {
  metadata: { perSecond: 8, perMinute: 16, perHour: 20 },
  download: { perSecond: 8, perMinute: 16, perHour: 64 },
  export: { perSecond: 8, perMinute: 16, perHour: 20 },
};

/** 1 February 2026: KSeF 2.0 in production, where a company's first sync starts by default. */
export const KSEF_INBOUND_SINCE = "2026-02-01T00:00:00.000Z";

export interface KsefInboundOptions {
  /** The API base URL including /v2 (test, demo or production environment). */
  baseUrl: string;
  /** The delay of the next run after a run that finished (ms); 900 s by default, the docs' minimum interval. */
  intervalMs?: number;
  /** Where a company's first sync starts (a timestamp; the permanent-storage date): `KSEF_INBOUND_SINCE` by default. */
  since?: string | ((company: Company) => string);
  /** The rate limits kept (the production ones by default; TE's are ten times higher). */
  limits?: Partial<KsefInboundLimits>;
  /** The page size of the metadata query (10-250); 250 by default. */
  pageSize?: number;
  /** How long one run polls an export's status (every 10 s at most) before ending (ms); 30 s by default. */
  exportWaitMs?: number;
  /** The delay of the next run while an export is being prepared (ms); 60 s by default. */
  exportPollMs?: number;
  /** How often to poll the authentication status (ms); 2 s by default. */
  pollIntervalMs?: number;
  /** How long one run waits within itself for a rate limit's minute or second to pass (ms); 61 s by default. */
  maxWaitInRunMs?: number;
  /** How long one run may take before it ends at the next step (ms); 5 min by default. */
  maxRunMs?: number;
  /** Per-request timeout (ms); 30 s by default (a package part: 10 times it). */
  requestTimeoutMs?: number;
  /** How long authentication may be polled (ms); 60 s by default. */
  statusTimeoutMs?: number;
  /**
   * The largest export package fetched (the sum of its encrypted parts); 256 MiB by default (KSeF's packages hold up
   * to ten thousand invoices: of typical invoices of a few KiB, some tens of MB). A larger one is not fetched: the
   * window is narrowed. Its entries may inflate to twice this at most.
   */
  maxPackageBytes?: number;
  /**
   * The most bytes of one document read; 4 × `INBOUND_DOCUMENT_MAX_BYTES` by default. A larger one is handed to
   * `store` cut at this size (and stored without its bytes, being over `INBOUND_DOCUMENT_MAX_BYTES`).
   */
  maxDocumentBytes?: number;
  fetch?: typeof fetch;
  /** The clock (epoch ms); for tests. */
  now?: () => number;
}

/** Ends the run with this result (its state and received count are filled in). */
class End {
  constructor(
    readonly nextRunInMs: number,
    readonly note?: string,
  ) {}
}

/** The store or the checkpoint failed: stop without acknowledging more. */
class StoreStopped {
  constructor(readonly note: string) {}
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((r) => {
    if (signal.aborted) return r();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      r();
    }
    signal.addEventListener("abort", done, { once: true });
  });

const SUBJECT = "Subject2";
/** The most backfills taken into the state at once. */
const MAX_BACKFILLS = 100;
/** How many invoices of an export package are stored in one step (`InboundRun.storeMany`): one commit for each. */
const STORE_CHUNK = 100;

interface Listed {
  ksefNumber: string;
  date: string;
  key: string;
}

export function ksefInbound(options: KsefInboundOptions): InboundSource {
  const interval = options.intervalMs ?? 900_000;
  const limits: KsefInboundLimits = { ...KSEF_INBOUND_LIMITS, ...options.limits };
  const pageSize = Math.min(250, Math.max(10, options.pageSize ?? 250));
  const exportWait = options.exportWaitMs ?? 30_000;
  const exportPoll = options.exportPollMs ?? 60_000;
  const pollMs = options.pollIntervalMs ?? 2000;
  // At most 6 status polls a minute within a run (KSeF allows 60 a minute, 600 an hour: runs every exportPollMs too).
  const exportStatusPoll = Math.max(pollMs, 10_000);
  const maxWaitInRun = options.maxWaitInRunMs ?? 61_000;
  const maxRun = options.maxRunMs ?? 300_000;
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  const maxPackage = options.maxPackageBytes ?? 256 * 1024 * 1024;
  const maxDocument = options.maxDocumentBytes ?? 4 * INBOUND_DOCUMENT_MAX_BYTES;
  const now = options.now ?? Date.now;
  const sessionOptions = { baseUrl: options.baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}), pollIntervalMs: pollMs, statusTimeoutMs: options.statusTimeoutMs ?? 60_000 };
  // Access tokens are kept between runs (per company, for the credential they were issued for).
  const shared = ksefSession({ ...sessionOptions, requestTimeoutMs: requestTimeout });
  const parts = ksefSession({ ...sessionOptions, requestTimeoutMs: requestTimeout * 10 });
  const sinceOf = (company: Company | null): string => {
    const s = typeof options.since === "function" ? (company ? options.since(company) : KSEF_INBOUND_SINCE) : (options.since ?? KSEF_INBOUND_SINCE);
    return timeKey(s) ? s : KSEF_INBOUND_SINCE;
  };

  async function run(ctx: InboundRun): Promise<InboundRunResult> {
    // The run's own time is real time; `now` (a test's clock) dates the windows and the budgets.
    const started = Date.now();
    const credential = ctx.ksefCredential;
    if (!credential) {
      return { state: ctx.state, nextRunInMs: interval, received: 0, note: "the company has no usable KSeF credential here (the poller needs the tokenCipher of the companies' KSeF tokens; an operator sets the NIP and token with PATCH /admin/companies/{id})" };
    }
    const auth: Auth = authOf(ctx.scope, credential);
    const saved = readInboundState(ctx.state);
    const notes: string[] = [];
    if (ctx.state && !saved) notes.push("the saved KSeF sync state could not be read; syncing again from the start (what was received before is answered as duplicate)");
    const state: InboundState = saved ?? initialState(sinceOf(ctx.company));
    let received = 0;
    const taken: string[] = [];
    const session: KsefSession = shared;

    const text = (): string => {
      const t = now();
      state.used = { m: prune(state.used.m, t), d: prune(state.used.d, t), e: prune(state.used.e, t) };
      return JSON.stringify(state);
    };
    const save = async (takenRequests?: string[]): Promise<void> => {
      const s = text();
      if (Buffer.byteLength(s) > INBOUND_STATE_MAX_BYTES) {
        // Only `seen` can grow much: it is an optimisation (store answers duplicate), so it is dropped first.
        for (const l of [state.inc, ...state.backfills]) l.seen = [];
      }
      try {
        await ctx.checkpoint(text(), takenRequests);
      } catch (e) {
        throw new StoreStopped(`the KSeF sync state could not be saved (${(e as Error).name}); the run stopped (its lease was lost or the store failed)`);
      }
    };
    const result = (nextRunInMs: number, note?: string): InboundRunResult => {
      const all = [...notes, ...(note ? [note] : [])];
      return { state: text(), nextRunInMs, received, ...(taken.length ? { takenRequests: taken } : {}), ...(all.length ? { note: all.join("; ") } : {}) };
    };

    /** Waits for `kind`'s budget when it frees within the run; else ends the run until it does. */
    async function budget(kind: "m" | "d" | "e", rate: Rate, what: string): Promise<void> {
      for (;;) {
        if (ctx.signal.aborted) throw new End(0, "the server is stopping");
        const wait = waitFor(state.used[kind], rate, now());
        if (wait === 0) return;
        if (wait > maxWaitInRun || Date.now() - started + wait > maxRun) throw new End(Math.max(wait, 1000), `KSeF's limit of ${what} (${rate.perSecond} a second, ${rate.perMinute} a minute, ${rate.perHour} an hour) is reached for now; the rest next run`);
        await sleep(wait, ctx.signal);
      }
    }
    /** Counts a rate-limited call, at its answer's time (never before KSeF counted it) whatever the answer. */
    async function counted<T>(kind: "m" | "d" | "e", call: () => Promise<T>): Promise<T> {
      try {
        return await call();
      } finally {
        state.used[kind].push(now());
      }
    }
    const token = (): Promise<string> => session.accessToken(auth);

    async function store(ksefNumber: string, content: Uint8Array): Promise<void> {
      try {
        await ctx.store({ reference: { ksefNumber }, content, mediaType: "application/xml" });
      } catch (e) {
        throw new StoreStopped(`the invoice ${ksefNumber} could not be stored (${(e as Error).name}); the run stopped without moving the mark`);
      }
      received++;
    }

    /**
     * Stores invoices of an export package: through `ctx.storeMany` a chunk at a time (one commit for each), else one
     * by one. All of a chunk is stored (or found stored) once it resolves; a failure stops the run, nothing acknowledged.
     */
    async function storeAll(files: { ksefNumber: string; content: Uint8Array }[]): Promise<void> {
      if (!ctx.storeMany) {
        for (const f of files) {
          if (ctx.signal.aborted) throw new End(0, "the server is stopping");
          await store(f.ksefNumber, f.content);
        }
        return;
      }
      try {
        await ctx.storeMany(files.map((f) => ({ reference: { ksefNumber: f.ksefNumber }, content: f.content, mediaType: "application/xml" })));
      } catch (e) {
        throw new StoreStopped(`${files.length} invoices of KSeF's export package could not be stored (${(e as Error).name}); the run stopped without moving the mark`);
      }
      received += files.length;
    }

    /** Stored an invoice of `lane` with permanent-storage date `date`: the mark follows (never backwards). */
    function advance(lane: Lane, n: Listed): void {
      const at = timeKey(lane.from)!;
      if (n.key === at) {
        if (!lane.seen.includes(n.ksefNumber)) lane.seen.push(n.ksefNumber);
      } else if (n.key > at) {
        lane.from = n.date;
        lane.seen = [n.ksefNumber];
      }
    }
    /** A window of `lane` done up to `end`: the next starts there; `stored` are the invoices it stored (for `seen`). */
    function finish(lane: Lane, end: string, stored: Listed[]): boolean {
      const k = timeKey(end)!;
      if (k <= timeKey(lane.from)!) return false;
      lane.from = end;
      lane.seen = stored.filter((s) => s.key === k).map((s) => s.ksefNumber);
      return true;
    }

    async function download(n: Listed): Promise<Uint8Array> {
      await budget("d", limits.download, "invoice downloads");
      const bearer = await token();
      const res = await counted("d", () => session.call("GET", `/invoices/ksef/${encodeURIComponent(n.ksefNumber)}`, bearer, undefined, auth, { accept: "application/xml", bytes: maxDocument, signal: ctx.signal }));
      const body = res.body ?? new Uint8Array(0);
      const said = res.headers.get("x-ms-meta-hash");
      if (res.complete && said && createHash("sha256").update(body).digest("base64") !== said) {
        throw new Stop({ outcome: "retry", reason: `the invoice ${n.ksefNumber} arrived damaged (its SHA-256 is not KSeF's x-ms-meta-hash); downloaded again next run` });
      }
      return body;
    }

    /** The lane's windows from its mark, as far as the budgets and the run's time allow. */
    async function syncLane(lane: Lane): Promise<void> {
      for (;;) {
        if (ctx.signal.aborted) throw new End(0, "the server is stopping");
        if (Date.now() - started > maxRun) throw new End(1000, "the run's time is up; it goes on next run");
        const nowIso = new Date(now()).toISOString();
        const end = lane.to ? earlier(lane.to, nowIso) : nowIso;
        if (timeKey(lane.from)! >= timeKey(end)!) {
          if (lane.to && timeKey(lane.from)! >= timeKey(lane.to)!) await dropBackfill(lane);
          return;
        }
        const to = earlier(end, plus(lane.from, state.span));
        let queryFrom = lane.from;
        let pageOffset = 0;
        let stored: Listed[] = [];
        for (;;) {
          await budget("m", limits.metadata, "metadata queries");
          const bearer = await token();
          const res = await counted("m", () =>
            session.call(
              "POST",
              `/invoices/query/metadata?sortOrder=Asc&pageOffset=${pageOffset}&pageSize=${pageSize}`,
              bearer,
              { subjectType: SUBJECT, dateRange: { dateType: "PermanentStorage", from: queryFrom, to, restrictToPermanentStorageHwmDate: true } },
              auth,
              { tolerate: [21183], signal: ctx.signal },
            ),
          );
          if (res.status === 400) return; // 21183: the window starts after KSeF's high-water mark: nothing new yet.
          const page = res.json;
          if (!page || !Array.isArray(page.invoices) || typeof page.hasMore !== "boolean") throw new End(interval, "KSeF answered the metadata query with something else than a page of invoices");
          const listed: Listed[] = [];
          let unreadable = 0;
          for (const i of page.invoices as any[]) {
            const key = timeKey(i?.permanentStorageDate);
            if (typeof i?.ksefNumber === "string" && KSEF_NUMBER.test(i.ksefNumber) && key) listed.push({ ksefNumber: i.ksefNumber, date: i.permanentStorageDate, key });
            else unreadable++;
          }
          if (unreadable) notes.push(`${unreadable} entries of KSeF's metadata had no readable KSeF number or date and were passed over`);
          listed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.ksefNumber < b.ksefNumber ? -1 : 1));
          const fromKey = timeKey(lane.from)!;
          // Nothing beyond the window or KSeF's high-water mark is taken, even if listed: what lies past the mark may
          // not be complete yet (hwm.md), and the mark follows what is stored.
          const hwmNow = timeKey(page.permanentStorageHwmDate) ? (page.permanentStorageHwmDate as string) : null;
          const limitKey = timeKey(hwmNow ? earlier(to, hwmNow) : to)!;
          const todo = listed.filter((n) => !(n.key === fromKey && lane.seen.includes(n.ksefNumber)) && n.key >= fromKey && n.key <= limitKey);
          const downloadsLeft = leftThisHour(state.used.d, limits.download, now());
          if (pageOffset === 0 && todo.length > 0 && (page.hasMore || todo.length > downloadsLeft) && leftThisHour(state.used.e, limits.export, now()) > 0) {
            // A backlog: the window goes through an export package.
            await startExport(lane, queryFrom, to);
            const truncated = await continueExport();
            if (!truncated && to === end) {
              if (lane.to && timeKey(lane.from)! >= timeKey(lane.to)!) await dropBackfill(lane);
              return;
            }
            break;
          }
          for (const n of todo) {
            const content = await download(n);
            await store(n.ksefNumber, content);
            stored.push(n);
            advance(lane, n);
            await save();
          }
          if (!page.hasMore) {
            const hwm = timeKey(page.permanentStorageHwmDate) ? (page.permanentStorageHwmDate as string) : null;
            const last = listed.at(-1)?.date;
            const reached = hwm ? earlier(to, hwm) : last ? earlier(to, last) : null;
            const moved = reached ? finish(lane, reached, stored) : false;
            if (moved) await save();
            // Caught up with KSeF's high-water mark or with now (or nothing moved): the lane waits for the next run.
            // Only a window cut at the longest span goes on with the next one in this run.
            if (!moved || timeKey(reached!)! < timeKey(to)! || to === end) {
              if (lane.to && timeKey(lane.from)! >= timeKey(lane.to)!) await dropBackfill(lane);
              return;
            }
            break; // the next window
          }
          if (page.isTruncated) {
            // At KSeF's limit of records for one filter: the same window again from the last record's date.
            const last = listed.at(-1);
            if (!last || last.key <= timeKey(queryFrom)!) throw new End(interval, "KSeF truncated a window without moving forward in it; it is tried again next run");
            if (timeKey(lane.from)! < last.key) finish(lane, last.date, stored);
            queryFrom = lane.from;
            pageOffset = 0;
            stored = stored.filter((s) => s.key === timeKey(lane.from));
          } else pageOffset++;
        }
      }
    }

    async function dropBackfill(lane: Lane): Promise<void> {
      state.backfills = state.backfills.filter((b) => b.id !== lane.id);
      await save();
    }

    async function startExport(lane: Lane, from: string, to: string): Promise<void> {
      await budget("e", limits.export, "export requests");
      const keys = await session.publicKeys();
      const key = newSessionKey(keys.symmetric);
      const bearer = await token();
      const res = await counted("e", () =>
        session.call(
          "POST",
          "/invoices/exports",
          bearer,
          { encryption: key.encryption, filters: { subjectType: SUBJECT, dateRange: { dateType: "PermanentStorage", from, to, restrictToPermanentStorageHwmDate: true } } },
          auth,
          { signal: ctx.signal },
        ),
      );
      const ref = res.json?.referenceNumber;
      if (typeof ref !== "string" || !/^[0-9A-Za-z-]{10,64}$/.test(ref)) throw new End(interval, "KSeF started an export without a usable reference number");
      state.export = { lane: lane.id, referenceNumber: ref, key: key.key.toString("base64"), iv: key.iv.toString("base64"), from, to };
      await save();
    }

    /** The export was unusable: dropped, the window narrowed, the run ended with why. */
    async function unusable(why: string): Promise<never> {
      state.export = null;
      state.span = Math.max(MIN_SPAN_MS, Math.floor(state.span / 2));
      await save();
      throw new End(interval, `KSeF's export package could not be used (${why}); the window is exported again, narrower, next run`);
    }

    /** Polls the export in progress and takes its package; true when KSeF truncated it (its window goes on). */
    async function continueExport(): Promise<boolean> {
      const ex = state.export!;
      const lane = ex.lane === "inc" ? state.inc : state.backfills.find((b) => b.id === ex.lane);
      if (!lane) {
        state.export = null;
        await save();
        return false;
      }
      const deadline = Date.now() + exportWait;
      let pkg: any;
      for (;;) {
        const res = await session.call("GET", `/invoices/exports/${encodeURIComponent(ex.referenceNumber)}`, await token(), undefined, auth, { tolerate: [21175], tolerateStatus: [410], signal: ctx.signal });
        const code = res.status === 200 ? res.json?.status?.code : null;
        if (code === 100) {
          if (Date.now() >= deadline || ctx.signal.aborted) throw new End(exportPoll, "KSeF is preparing the export package; it is fetched next run");
          await sleep(exportStatusPoll, ctx.signal);
          continue;
        }
        if (code === 200) {
          pkg = res.json.package;
          break;
        }
        state.export = null;
        await save();
        if (code === 420) return false; // The window starts after KSeF's high-water mark: nothing to export yet.
        const why = res.status !== 200 ? "KSeF no longer knows it" : `${code} ${String(res.json?.status?.description ?? "")}`.trim();
        throw new End(interval, `KSeF's export ended without a package (${why}); the window is tried again next run`);
      }
      if (!pkg || !Array.isArray(pkg.parts) || typeof pkg.isTruncated !== "boolean") return unusable("no package in KSeF's answer");
      await save(); // extends the lease before the parts' downloads
      const partsOf = [...(pkg.parts as any[])].sort((a, b) => Number(a?.ordinalNumber) - Number(b?.ordinalNumber));
      const announced = partsOf.reduce((s, p) => s + (typeof p?.encryptedPartSize === "number" ? p.encryptedPartSize : Infinity), 0);
      if (partsOf.length > 1000 || !(announced <= maxPackage)) return unusable(`its parts are larger than ${maxPackage} bytes, or unannounced`);
      const key = Buffer.from(ex.key, "base64");
      const iv = Buffer.from(ex.iv, "base64");
      const plain: Buffer[] = [];
      for (const p of partsOf) {
        let url: URL;
        try {
          url = new URL(String(p.url));
          if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error("scheme");
        } catch {
          return unusable("a part without a usable address");
        }
        // The part's address needs no access token (open-api.json InvoicePackagePart.url).
        // GET, as `method` says for every part (the only method the API names for them).
        const res = await parts.call("GET", "", null, undefined, null, {
          url: url.href,
          accept: "application/octet-stream",
          bytes: p.encryptedPartSize + 1,
          signal: ctx.signal,
          tolerateStatus: [403, 404, 410],
        });
        if (res.status === 403 || res.status === 404 || res.status === 410) {
          // The part's link is gone (past its expirationDate, or the storage dropped it) while KSeF still knows the
          // export: asking for it again would fail each run, so the export is dropped and the window exported anew.
          state.export = null;
          await save();
          throw new End(interval, `a part of KSeF's export package answered ${res.status} (its link expired or is gone); the window is exported again next run`);
        }
        try {
          plain.push(decryptPart(res.body ?? new Uint8Array(0), p, key, iv));
        } catch (e) {
          if (e instanceof PackageError) return unusable(e.message);
          throw e;
        }
      }
      let entries;
      try {
        entries = unzipPackage(Buffer.concat(plain), { ...DEFAULT_PACKAGE_BOUNDS, maxEntryBytes: maxDocument, maxTotalBytes: 2 * maxPackage });
      } catch (e) {
        if (e instanceof PackageError) return unusable(e.message);
        throw e;
      }
      plain.length = 0;
      const metaEntry = entries.find((e) => (e.name.split("/").pop() ?? "") === "_metadata.json");
      const meta = metaEntry ? readPackageMetadata(metaEntry.content) : null;
      const dateOf = new Map((meta ?? []).map((m) => [m.ksefNumber, m.permanentStorageDate]));
      const files: (Listed & { content: Uint8Array })[] = [];
      let strangers = 0;
      for (const e of entries) {
        if (e === metaEntry) continue;
        const n = numberOfEntry(e.name);
        if (!n) {
          strangers++;
          continue;
        }
        const date = dateOf.get(n) ?? ex.to;
        files.push({ ksefNumber: n, date, key: timeKey(date) ?? timeKey(ex.to)!, content: e.content });
      }
      if (strangers) notes.push(`${strangers} entries of KSeF's export package are not named after a KSeF number and were passed over`);
      files.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.ksefNumber < b.ksefNumber ? -1 : 1));
      // In chunks (one commit each when the run can store many); the mark moves only once the whole package is checked
      // and stored (below), so a cut run polls the same export again and its stored invoices answer duplicate.
      const storedHere: Listed[] = [];
      for (let i = 0; i < files.length; i += STORE_CHUNK) {
        if (ctx.signal.aborted) throw new End(0, "the server is stopping");
        const chunk = files.slice(i, i + STORE_CHUNK);
        await storeAll(chunk);
        storedHere.push(...chunk);
      }
      // Everything the package announces must have come, or the mark stays (what came is stored all the same).
      const have = new Set(files.map((f) => f.ksefNumber));
      if (!meta) return unusable("its _metadata.json is missing or unreadable");
      const missing = meta.filter((m) => !have.has(m.ksefNumber)).length;
      if (missing > 0) return unusable(`${missing} invoices its _metadata.json lists are not in it`);
      if (typeof pkg.invoiceCount === "number" && pkg.invoiceCount !== files.length) return unusable(`it holds ${files.length} invoices, not the ${pkg.invoiceCount} KSeF announced`);
      const truncatedAt = pkg.isTruncated ? (timeKey(pkg.lastPermanentStorageDate) ? (pkg.lastPermanentStorageDate as string) : null) : null;
      const hwm = timeKey(pkg.permanentStorageHwmDate) ? (pkg.permanentStorageHwmDate as string) : null;
      const reached = pkg.isTruncated ? truncatedAt : hwm ? earlier(ex.to, hwm) : null;
      state.export = null;
      if (!reached) return unusable("KSeF's status gives no date to go on from");
      finish(lane, reached, storedHere);
      state.span = Math.min(MAX_SPAN_MS, state.span * 2);
      await save();
      return pkg.isTruncated === true;
    }

    try {
      // At most MAX_BACKFILLS lanes in the state (it must stay under INBOUND_STATE_MAX_BYTES); the others wait as requests.
      const fresh = ctx.requests.filter((r: BackfillRequest) => !state.backfills.some((b) => b.id === r.id)).slice(0, Math.max(0, MAX_BACKFILLS - state.backfills.length));
      const takeNow = ctx.requests.filter((r) => fresh.includes(r) || state.backfills.some((b) => b.id === r.id)).map((r) => r.id);
      for (const r of fresh) {
        if (timeKey(r.from) && timeKey(r.to)) state.backfills.push({ id: r.id, from: r.from, to: r.to, seen: [] });
        else notes.push(`the backfill request ${r.id} has unreadable dates and was dropped`);
      }
      if (takeNow.length) {
        await save(takeNow);
        taken.push(...takeNow);
      }
      if (state.export) await continueExport();
      await syncLane(state.inc);
      for (const lane of [...state.backfills]) await syncLane(lane);
      return result(interval);
    } catch (e) {
      if (e instanceof End) return result(e.nextRunInMs, e.note);
      if (ctx.signal.aborted && !(e instanceof StoreStopped)) return result(0, "the server is stopping");
      if (e instanceof StoreStopped) return result(interval, e.note);
      if (e instanceof Stop) return result(e.result.retryAfterMs ?? interval, e.result.reason);
      return result(interval, `the KSeF sync stopped unexpectedly (${(e as Error)?.name ?? "error"})`);
    }
  }

  return {
    name: "ksef",
    network: "ksef",
    scope: "company",
    appliesTo: (company) => company.country === "PL" && company.ksef !== null && company.ksef !== undefined,
    run,
  };
}
