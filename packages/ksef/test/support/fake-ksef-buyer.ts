// Test support: the buyer side of the fake KSeF 2.0 (fake-ksef.ts), after CIRFMF/ksef-docs open-api.json and
// pobieranie-faktur/*.md, limity/limity-api.md:
// - invoices received by a buyer NIP, each with its permanent-storage date (microseconds, +00:00) and KSeF number,
//   a high-water mark (PermanentStorageHwmDate: the clock's now unless set);
// - POST /invoices/query/metadata (Subject2, dateType PermanentStorage, from/to inclusive, at most 3 months,
//   restrictToPermanentStorageHwmDate, 21183 when from is after the HWM, sortOrder, pageOffset/pageSize 10-250,
//   hasMore, isTruncated at `truncateAt` records, permanentStorageHwmDate);
// - GET /invoices/ksef/{ksefNumber} (the invoice as stored, x-ms-meta-hash);
// - POST /invoices/exports (the AES key decrypted with the fake's private key), GET /invoices/exports/{ref} (100 for
//   `exportPendingPolls` polls, then 200 with the package: a ZIP of {ksefNumber}.xml and _metadata.json made with
//   fflate, cut into parts of `partSize` bytes, each encrypted with AES-256-CBC under the client's key and IV),
//   the parts under /storage/... without a token; 420 when from is after the HWM;
// - the rate limits of limity-api.md ON by default, per context NIP, in sliding windows on the clock: a call over
//   a limit is answered 429 with Retry-After (seconds) and counted in `limited`;
// - failure modes: 500s and dropped connections on any route, hostile packages.
import { constants, createCipheriv, createHash, privateDecrypt, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { zipSync } from "fflate";

const privateKey = readFileSync(resolve(dirname(fileURLToPath(import.meta.url)), "../fixtures/fake-ksef/key.pem"), "utf8");

export interface FakeRate {
  perSecond: number;
  perMinute: number;
  perHour: number;
}
export type LimitGroup = "invoiceMetadata" | "invoiceDownload" | "invoiceExport" | "invoiceExportStatus";

/** limity-api.md, "Pobieranie faktur - limity" (production). */
export const PRODUCTION_LIMITS: Record<LimitGroup, FakeRate> = {
  invoiceMetadata: { perSecond: 8, perMinute: 16, perHour: 20 },
  invoiceDownload: { perSecond: 8, perMinute: 16, perHour: 64 },
  invoiceExport: { perSecond: 8, perMinute: 16, perHour: 20 },
  invoiceExportStatus: { perSecond: 10, perMinute: 60, perHour: 600 },
};

export interface BuyerSideOptions {
  /** The clock (epoch ms) of the rate limits, the HWM and `to` by default. */
  clock?: () => number;
  /** Overrides of the limits (false: none). */
  limits?: Partial<Record<LimitGroup, FakeRate>> | false;
  /** The technical limit of records of one metadata query (10,000 in KSeF). */
  truncateAt?: number;
  /** The most invoices of one export package (10,000 in KSeF). */
  exportMax?: number;
  /** The size of an export package's parts before encryption (50 MB in KSeF). */
  partSize?: number;
  /** Status polls of an export answered 100 before it is ready. */
  exportPendingPolls?: number;
}

export type PackageMode = "badZip" | "bomb" | "lyingMetadata" | "missingFile" | "badPartHash" | "strangeNames";

export interface ReceivedInvoice {
  ksefNumber: string;
  sellerNip: string;
  buyerNip: string;
  permanentStorageDate: string;
  content: Uint8Array;
}

export interface BuyerSide {
  /** Adds an invoice received by `buyerNip`; answers its KSeF number. */
  receive(inv: { buyerNip: string; sellerNip?: string; content: string | Uint8Array; permanentStorageDate: string; ksefNumber?: string }): string;
  invoices: ReceivedInvoice[];
  /** The high-water mark; null: the clock's now. */
  hwm: string | null;
  /** Calls answered 429 for a limit. */
  limited: number;
  /** Calls answered (not refused for a limit), by group. */
  counts: Record<LimitGroup, number>;
  /** Exports started. */
  exports: number;
  /** The next `n` calls of `route` ("GET /invoices/ksef/{ksefNumber}", "GET /storage/{part}", ...) fail so. */
  failNext(route: string, mode: "500" | "drop" | "403", n?: number): void;
  /** The next export's package is built so. */
  packageMode(mode: PackageMode | null): void;
  /** The routes called, in order. */
  calls: string[];
}

interface Export {
  nip: string;
  key: Buffer;
  iv: Buffer;
  polls: number;
  status: { code: number; description: string };
  package?: Record<string, unknown>;
  parts: Buffer[];
}

const hex = (n: number): string => createHash("sha256").update(`${n}-${randomUUID()}`).digest("hex").toUpperCase();
const sha = (b: Uint8Array): string => createHash("sha256").update(b).digest("base64");
/** Microseconds since the epoch of an ISO stamp (any offset; none: UTC here). */
function micros(s: unknown): number | null {
  if (typeof s !== "string") return null;
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)?$/.exec(s);
  if (!m) return null;
  const sec = Date.parse(`${m[1]}${m[3] ?? "Z"}`);
  return Number.isFinite(sec) ? sec * 1000 + Number((m[2] ?? "").padEnd(6, "0").slice(0, 6)) : null;
}
const isoOf = (us: number): string => `${new Date(Math.floor(us / 1000)).toISOString().slice(0, 19)}.${String(us % 1_000_000).padStart(6, "0")}+00:00`;

export function buyerSideOf(options: BuyerSideOptions) {
  const clock = options.clock ?? Date.now;
  const limits = options.limits === false ? null : { ...PRODUCTION_LIMITS, ...options.limits };
  const truncateAt = options.truncateAt ?? 10_000;
  const exportMax = options.exportMax ?? 10_000;
  const partSize = options.partSize ?? 50_000_000;
  const used = new Map<string, number[]>();
  const exports = new Map<string, Export>();
  const failures = new Map<string, { mode: "500" | "drop" | "403"; n: number }>();
  let mode: PackageMode | null = null;
  let counter = 0;
  const side: BuyerSide = {
    invoices: [],
    hwm: null,
    limited: 0,
    counts: { invoiceMetadata: 0, invoiceDownload: 0, invoiceExport: 0, invoiceExportStatus: 0 },
    exports: 0,
    calls: [],
    receive(inv) {
      const seller = inv.sellerNip ?? "5260250995";
      const day = inv.permanentStorageDate.slice(0, 10).replace(/-/g, "");
      const h = hex(++counter);
      const ksefNumber = inv.ksefNumber ?? `${seller}-${day}-${h.slice(0, 12)}-${h.slice(12, 14)}`;
      const content = typeof inv.content === "string" ? new TextEncoder().encode(inv.content) : inv.content;
      side.invoices.push({ ksefNumber, sellerNip: seller, buyerNip: inv.buyerNip, permanentStorageDate: inv.permanentStorageDate, content });
      return ksefNumber;
    },
    failNext(route, m, n = 1) {
      failures.set(route, { mode: m, n });
    },
    packageMode(m) {
      mode = m;
    },
  };

  const send = (res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): true => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(body === undefined ? "" : JSON.stringify(body));
    return true;
  };
  const exception = (res: ServerResponse, status: number, code: number, description: string, details: string[] = []): true =>
    send(res, status, { exception: { exceptionDetailList: [{ exceptionCode: code, exceptionDescription: description, details }], serviceCode: randomUUID(), timestamp: new Date().toISOString() } });

  /** Counts a call of `group` for `nip`; false (and a 429 sent) when it is over a limit. */
  function allow(group: LimitGroup, nip: string, res: ServerResponse): boolean {
    if (!limits) {
      side.counts[group]++;
      return true;
    }
    const now = clock();
    const list = (used.get(`${nip}|${group}`) ?? []).filter((t) => t > now - 3600_000);
    const rate = limits[group];
    let wait = 0;
    for (const [window, max] of [
      [1000, rate.perSecond],
      [60_000, rate.perMinute],
      [3600_000, rate.perHour],
    ] as const) {
      const inWindow = list.filter((t) => t > now - window);
      if (inWindow.length >= max) wait = Math.max(wait, inWindow[inWindow.length - max]! + window - now);
    }
    if (wait > 0) {
      side.limited++;
      const seconds = Math.max(1, Math.ceil(wait / 1000));
      send(res, 429, { status: { code: 429, description: "Too Many Requests", details: [`Przekroczono limit żądań. Spróbuj ponownie po ${seconds} sekundach.`] } }, { "retry-after": String(seconds) });
      return false;
    }
    list.push(now);
    used.set(`${nip}|${group}`, list);
    side.counts[group]++;
    return true;
  }

  /** The buyer's invoices in a query's date range, sorted ascending; or the exception to answer. */
  function select(nip: string, body: any, res: ServerResponse): { all: ReceivedInvoice[]; hwm: number; to: number } | null {
    if (body?.subjectType !== "Subject2") {
      exception(res, 400, 21405, "Błąd walidacji danych wejściowych.", ["The fake serves subjectType Subject2 only."]);
      return null;
    }
    const dr = body.dateRange;
    const from = micros(dr?.from);
    const to = dr?.to == null ? clock() * 1000 : micros(dr.to);
    if (dr?.dateType !== "PermanentStorage" || from === null || to === null || to < from) {
      exception(res, 400, 21405, "Błąd walidacji danych wejściowych.", ["dateRange: dateType PermanentStorage, from and to ISO 8601."]);
      return null;
    }
    if (to - from > 92 * 24 * 3600 * 1e6) {
      exception(res, 400, 21405, "Błąd walidacji danych wejściowych.", ["Maksymalny dozwolony okres wynosi 3 miesiące."]);
      return null;
    }
    const hwm = side.hwm ? micros(side.hwm)! : clock() * 1000;
    const restrict = dr.restrictToPermanentStorageHwmDate === true;
    const end = restrict ? Math.min(to, hwm) : to;
    const all = side.invoices
      .filter((i) => i.buyerNip === nip)
      .map((i) => ({ i, at: micros(i.permanentStorageDate)! }))
      .filter(({ at }) => at >= from && at <= end)
      .sort((a, b) => a.at - b.at || (a.i.ksefNumber < b.i.ksefNumber ? -1 : 1))
      .map(({ i }) => i);
    // permanentStorageHwmDate: the query's `to` for an older period, KSeF's mark for a recent one.
    return { all, hwm: Math.min(to, hwm), to: from > hwm && restrict ? -1 : end };
  }

  const metadataOf = (i: ReceivedInvoice) => ({
    ksefNumber: i.ksefNumber,
    invoiceNumber: /<P_2>([^<]+)</.exec(new TextDecoder().decode(i.content.subarray(0, 200_000)))?.[1] ?? "?",
    issueDate: i.permanentStorageDate.slice(0, 10),
    invoicingDate: i.permanentStorageDate,
    acquisitionDate: i.permanentStorageDate,
    permanentStorageDate: i.permanentStorageDate,
    seller: { nip: i.sellerNip, name: "Sprzedawca" },
    buyer: { identifier: { type: "Nip", value: i.buyerNip }, name: "Nabywca" },
    netAmount: 100,
    grossAmount: 123,
    vatAmount: 23,
    currency: "PLN",
    invoicingMode: "Online",
    invoiceType: "Vat",
    formCode: { systemCode: "FA (3)", schemaVersion: "1-0E", value: "FA" },
    isSelfInvoicing: false,
    hasAttachment: false,
    invoiceHash: sha(i.content),
  });

  function buildPackage(ex: Export, chosen: ReceivedInvoice[], truncated: boolean, hwm: number, origin: string, ref: string): void {
    const files: Record<string, Uint8Array> = {};
    const m = mode;
    mode = null;
    let listed = chosen.map(metadataOf);
    for (const [n, i] of chosen.entries()) {
      if (m === "missingFile" && n === 0) continue;
      files[m === "strangeNames" && n === 0 ? `../../etc/${i.ksefNumber}.txt` : `${i.ksefNumber}.xml`] = i.content;
    }
    if (m === "lyingMetadata") listed = [...listed, { ...listed[0]!, ksefNumber: "5260250995-20260301-ABCDEF012345-FF" }];
    files["_metadata.json"] = new TextEncoder().encode(JSON.stringify({ invoices: listed }));
    let zip: Uint8Array = zipSync(files);
    if (m === "badZip") zip = new TextEncoder().encode("PK\u0003\u0004 this is no zip at all");
    if (m === "bomb") {
      // A real bomb: 20 MiB of zeros deflated to some 20 KiB (1000 to 1), under an invoice's name.
      zip = zipSync({ ...files, [`${chosen[0]!.ksefNumber}.xml`]: new Uint8Array(20 * 1024 * 1024) }, { level: 9 });
    }
    const parts: Buffer[] = [];
    const described = [];
    for (let off = 0, n = 1; off < zip.byteLength || n === 1; off += partSize, n++) {
      const plain = Buffer.from(zip.subarray(off, off + partSize));
      const c = createCipheriv("aes-256-cbc", ex.key, ex.iv);
      const enc = Buffer.concat([c.update(plain), c.final()]);
      parts.push(enc);
      described.push({
        ordinalNumber: n,
        partName: `${ref}-${String(n).padStart(3, "0")}.zip.aes`,
        method: "GET",
        url: `${origin}/storage/${ref.toLowerCase()}/${n}?sig=${randomUUID()}`,
        partSize: plain.byteLength,
        partHash: sha(plain),
        encryptedPartSize: enc.byteLength,
        encryptedPartHash: m === "badPartHash" ? sha(Buffer.from("not it")) : sha(enc),
        expirationDate: new Date(clock() + 3600_000).toISOString(),
      });
      if (off + partSize >= zip.byteLength) break;
    }
    ex.parts = parts;
    ex.package = {
      invoiceCount: m === "missingFile" ? chosen.length - 1 : chosen.length,
      size: zip.byteLength,
      parts: described,
      isTruncated: truncated,
      ...(truncated ? { lastPermanentStorageDate: chosen.at(-1)!.permanentStorageDate } : {}),
      permanentStorageHwmDate: isoOf(hwm),
    };
  }

  /** Answers the buyer side's routes; false for any other. */
  async function handle(route: string, url: URL, body: any, nip: string | null, req: IncomingMessage, res: ServerResponse, origin: string): Promise<boolean> {
    const mine = route.startsWith("POST /invoices/") || route.startsWith("GET /invoices/") || route.startsWith("GET /storage/");
    if (!mine) return false;
    side.calls.push(route);
    const f = failures.get(route);
    if (f && f.n > 0) {
      f.n--;
      if (f.mode === "drop") {
        req.socket.destroy();
        return true;
      }
      // 403: what a storage link past its expirationDate answers.
      if (f.mode === "403") return send(res, 403, { title: "Forbidden", status: 403 });
      return send(res, 500, { title: "Internal Server Error", status: 500 });
    }
    if (route === "GET /storage/{part}") {
      const [, , ref, n] = url.pathname.split("/");
      const ex = [...exports.entries()].find(([r]) => r.toLowerCase() === ref)?.[1];
      const part = ex?.parts[Number(n) - 1];
      if (!part) return send(res, 404, { title: "Not Found" });
      res.writeHead(200, { "content-type": "application/octet-stream", "x-ms-meta-hash": sha(part) });
      res.end(part);
      return true;
    }
    if (!nip) return send(res, 401, { title: "Unauthorized", status: 401 });
    switch (route) {
      case "POST /invoices/query/metadata": {
        if (!allow("invoiceMetadata", nip, res)) return true;
        const sel = select(nip, body, res);
        if (!sel) return true;
        if (sel.to === -1) return exception(res, 400, 21183, "Zakres filtrowania wykracza poza dostępny zakres danych.", ["Parametr dateRange.from jest późniejszy niż PermanentStorageHwmDate przy włączonym restrictToPermanentStorageHwmDate."]);
        const size = Number(url.searchParams.get("pageSize") ?? 10);
        const offset = Number(url.searchParams.get("pageOffset") ?? 0);
        if (!Number.isInteger(size) || size < 10 || size > 250 || !Number.isInteger(offset) || offset < 0) return exception(res, 400, 21405, "Błąd walidacji danych wejściowych.", ["pageSize 10-250, pageOffset >= 0"]);
        const sorted = url.searchParams.get("sortOrder") === "Desc" ? [...sel.all].reverse() : sel.all;
        const limited = sorted.slice(0, truncateAt);
        const page = limited.slice(offset * size, offset * size + size);
        const hasMore = (offset + 1) * size < sorted.length;
        const isTruncated = sorted.length > truncateAt && (offset + 1) * size >= truncateAt;
        return send(res, 200, { hasMore, isTruncated, permanentStorageHwmDate: isoOf(sel.hwm), invoices: page.map(metadataOf) });
      }
      case "GET /invoices/ksef/{ksefNumber}": {
        if (!allow("invoiceDownload", nip, res)) return true;
        const number = decodeURIComponent(url.pathname.split("/").pop()!);
        const inv = side.invoices.find((i) => i.ksefNumber === number && (i.buyerNip === nip || i.sellerNip === nip));
        if (!inv) return exception(res, 400, 21164, "Faktura o podanym identyfikatorze nie istnieje.", [`Faktura o numerze KSeF ${number} nie została znaleziona.`]);
        res.writeHead(200, { "content-type": "application/xml", "x-ms-meta-hash": sha(inv.content) });
        res.end(inv.content);
        return true;
      }
      case "POST /invoices/exports": {
        if (!allow("invoiceExport", nip, res)) return true;
        let key: Buffer;
        let iv: Buffer;
        try {
          key = privateDecrypt({ key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" }, Buffer.from(body.encryption.encryptedSymmetricKey, "base64"));
          iv = Buffer.from(body.encryption.initializationVector, "base64");
          if (key.length !== 32 || iv.length !== 16) throw new Error("size");
        } catch {
          return exception(res, 400, 21405, "Błąd walidacji danych wejściowych.", ["encryption"]);
        }
        const sel = select(nip, body.filters, res);
        if (!sel) return true;
        const ref = `20261122-EH-${hex(++counter).slice(0, 10)}-${hex(++counter).slice(0, 10)}-AB`;
        const ex: Export = { nip, key, iv, polls: options.exportPendingPolls ?? 1, status: { code: 100, description: "Eksport faktur w toku" }, parts: [] };
        if (sel.to === -1) ex.status = { code: 420, description: "Zakres filtrowania wykracza poza dostępny zakres danych" };
        else {
          const chosen = sel.all.slice(0, exportMax);
          buildPackage(ex, chosen, sel.all.length > exportMax, sel.hwm, origin, ref);
        }
        exports.set(ref, ex);
        side.exports++;
        return send(res, 201, { referenceNumber: ref });
      }
      case "GET /invoices/exports/{ref}": {
        if (!allow("invoiceExportStatus", nip, res)) return true;
        const ex = exports.get(url.pathname.split("/").pop()!);
        if (!ex || ex.nip !== nip) return exception(res, 400, 21175, "Wynik zapytania o podanym identyfikatorze nie istnieje.");
        if (ex.status.code === 100 && ex.polls-- <= 0) ex.status = { code: 200, description: "Eksport faktur zakończony sukcesem" };
        return send(res, 200, { status: ex.status, ...(ex.status.code === 200 ? { completedDate: new Date(clock()).toISOString(), packageExpirationDate: new Date(clock() + 7 * 86400_000).toISOString(), package: ex.package } : {}) });
      }
      default:
        return false;
    }
  }

  return { side, handle };
}
