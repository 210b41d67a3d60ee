// Soak: the example server on the embedded store (PGlite in a fresh DATA_DIR), loaded on loopback by
// autocannon with a mix of new (XML and data), duplicate and invalid submissions, validations and reads
// (the valid part in the proportions of the bench's mixed load, soak/mixed.ts). Checks: no 5xx, no
// connection errors or timeouts, only the statuses each request kind may get, every submission
// answered `sending` readable afterwards (and every 200 listed), no secret in the server's log, and
// memory that levels off. `pnpm soak` runs 60 s with 100 connections; `--duration` and
// `--connections` change that (`pnpm soak --duration 10`). Exit code 1 when a check fails.
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { dataInvoice } from "./mixed.js";

const serverDir = join(dirname(fileURLToPath(import.meta.url)), "..", "examples", "server");
export const ADMIN_TOKEN = `soak-admin-${Math.random().toString(36).slice(2)}-0123456789`;
const UBL = `xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"`;

export interface SoakOptions {
  durationSec: number;
  connections: number;
  /** Companies (one API key each) the load is spread over. */
  companies?: number;
  /** Seconds after the load before the final memory reading and the checks. */
  settleSec?: number;
  /** Progress lines; default none. */
  log?: (line: string) => void;
  /** Judge the memory curve (default true; a run of a few seconds is too short to judge it). */
  checkMemory?: boolean;
}

export interface MemorySample {
  atSec: number;
  rssMiB: number;
}

export interface SoakReport {
  durationSec: number;
  connections: number;
  requests: number;
  requestsPerSec: number;
  latencyMs: { p50: number; p99: number; max: number };
  statuses: Record<string, number>;
  byKind: Record<string, Record<string, number>>;
  /** Answers a request kind may not get (a 5xx, a 429, a 200 to an invalid body…), by "kind status". */
  unexpected: Record<string, number>;
  fiveXx: number;
  errors: number;
  timeouts: number;
  sending: number;
  /** `sending` answers whose invoice could not be read back afterwards. */
  lostSending: number;
  /** Invoices answered 200 that the company's list lacks (lost writes). */
  missingFromLists: number;
  /** Invoices listed beyond the 200 answers read: taken while autocannon stopped (at most one per connection). */
  inFlightAtStop: number;
  afterSettle: Record<string, number>;
  rssMiB: { start: number; end: number; afterSettle: number; max: number; quarters: number[] };
  memoryLevelsOff: boolean;
  secretsInLog: number;
  logBytes: number;
  samples: MemorySample[];
  failures: string[];
}

/**
 * A complete Peppol BIS 3 invoice that passes the official rules (submit validates). The buyer's
 * scheme defaults to 0106, which has no check digits, so any generated value keeps it valid.
 */
export function invoice(id: string, recipient: string, scheme = "0106"): string {
  const xml =
    `<?xml version="1.0" encoding="UTF-8"?><Invoice ${UBL}>` +
    `<cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0</cbc:CustomizationID>` +
    `<cbc:ProfileID>urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</cbc:ProfileID>` +
    `<cbc:ID>${id}</cbc:ID><cbc:IssueDate>2026-01-15</cbc:IssueDate><cbc:DueDate>2026-02-15</cbc:DueDate><cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>` +
    `<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode><cbc:BuyerReference>PO-1</cbc:BuyerReference>` +
    `<cac:AccountingSupplierParty><cac:Party><cbc:EndpointID schemeID="0106">12345678</cbc:EndpointID>` +
    `<cac:PostalAddress><cbc:CityName>Berlin</cbc:CityName><cac:Country><cbc:IdentificationCode>DE</cbc:IdentificationCode></cac:Country></cac:PostalAddress>` +
    `<cac:PartyTaxScheme><cbc:CompanyID>DE123456789</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>` +
    `<cac:PartyLegalEntity><cbc:RegistrationName>Seller GmbH</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingSupplierParty>` +
    `<cac:AccountingCustomerParty><cac:Party><cbc:EndpointID schemeID="${scheme}">${recipient}</cbc:EndpointID>` +
    `<cac:PostalAddress><cbc:CityName>Brussels</cbc:CityName><cac:Country><cbc:IdentificationCode>BE</cbc:IdentificationCode></cac:Country></cac:PostalAddress>` +
    `<cac:PartyLegalEntity><cbc:RegistrationName>Buyer ${recipient}</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingCustomerParty>` +
    `<cac:TaxTotal><cbc:TaxAmount currencyID="EUR">2.10</cbc:TaxAmount><cac:TaxSubtotal><cbc:TaxableAmount currencyID="EUR">10.00</cbc:TaxableAmount>` +
    `<cbc:TaxAmount currencyID="EUR">2.10</cbc:TaxAmount><cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>21</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal></cac:TaxTotal>` +
    `<cac:LegalMonetaryTotal><cbc:LineExtensionAmount currencyID="EUR">10.00</cbc:LineExtensionAmount><cbc:TaxExclusiveAmount currencyID="EUR">10.00</cbc:TaxExclusiveAmount>` +
    `<cbc:TaxInclusiveAmount currencyID="EUR">12.10</cbc:TaxInclusiveAmount><cbc:PayableAmount currencyID="EUR">12.10</cbc:PayableAmount></cac:LegalMonetaryTotal>` +
    `<cac:InvoiceLine><cbc:ID>1</cbc:ID><cbc:InvoicedQuantity unitCode="C62">1</cbc:InvoicedQuantity><cbc:LineExtensionAmount currencyID="EUR">10.00</cbc:LineExtensionAmount>` +
    `<cac:Item><cbc:Name>Service</cbc:Name><cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>21</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory></cac:Item>` +
    `<cac:Price><cbc:PriceAmount currencyID="EUR">10.00</cbc:PriceAmount></cac:Price></cac:InvoiceLine></Invoice>`;
  return Buffer.from(xml).toString("base64");
}

interface Company {
  apiKey: string;
  companyId: string;
  known: string[];
  duplicate: string;
  ok200: number;
}

export async function call(base: string, method: string, path: string, body?: unknown, token?: string) {
  const res = await fetch(base + path, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Math.round(Number(m[1]) / 102.4) / 10 : NaN;
}

/** Starts the example server with its output in a file; resolves with its base URL once it listens. */
export async function startServer(dataDir: string, logFile: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; base: string }> {
  const fd = openSync(logFile, "w");
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", "src/main.ts"], {
    cwd: serverDir,
    env: {
      ...process.env,
      PORT: "0",
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      ADMIN_TOKEN,
      LOG_LEVEL: "info",
      // The limiter runs on every request but never refuses: the soak measures the service, not the limit.
      RATE_LIMIT_PER_MINUTE: "100000000",
      SANDBOX_DELAY_MS: "50",
      ...env,
    },
    stdio: ["ignore", fd, fd],
  });
  closeSync(fd);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const m = /^ready: taking requests on (http:\/\/localhost:\d+)/m.exec(readFileSync(logFile, "utf8"));
    if (m) return { child, base: m[1]!.replace("localhost", "127.0.0.1") };
    if (child.exitCode !== null) throw new Error(`the server exited:\n${readFileSync(logFile, "utf8")}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error("the server did not start within 60 s");
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

type Kind =
  | "new"
  | "newData"
  | "validate"
  | "duplicate"
  | "badBase64"
  | "notUbl"
  | "badJson"
  | "noRecipient"
  | "extraKey"
  | "badKey"
  | "list"
  | "get"
  | "clients"
  // The hostile cases of issue 16: an id that does not decode, a body that does not inflate, a
  // cursor dated year 0, `?__proto__=1`, a free company's submission, a webhook on an IPv4-in-IPv6 loopback.
  | "malformedId"
  | "badGzip"
  | "year0Cursor"
  | "protoQuery"
  | "freeCompany"
  | "privateWebhook";
/** What each kind may be answered. Anything else is a failure. */
const ALLOWED: Record<Kind, number[]> = {
  new: [200],
  newData: [200],
  validate: [200],
  duplicate: [200],
  badBase64: [422],
  notUbl: [422],
  badJson: [400],
  noRecipient: [422],
  extraKey: [400],
  badKey: [401],
  list: [200],
  get: [200],
  clients: [200],
  malformedId: [404],
  badGzip: [400],
  year0Cursor: [400],
  protoQuery: [400],
  freeCompany: [403],
  privateWebhook: [400],
};
/**
 * The mix, in percent: the valid traffic in the proportions of the bench's mixed load (soak/mixed.ts,
 * issue 44: 25 XML submits, 15 submits of the invoice as data, 25 lists, 20 reads, 15 validations),
 * then 15 invalid submissions and 6 hostile requests (issue 16) on top.
 */
const MIX: Array<[Kind, number]> = [
  ["new", 20],
  ["duplicate", 5],
  ["newData", 15],
  ["badBase64", 3],
  ["notUbl", 3],
  ["badJson", 3],
  ["noRecipient", 2],
  ["extraKey", 2],
  ["badKey", 2],
  ["list", 20],
  ["malformedId", 1],
  ["badGzip", 1],
  ["year0Cursor", 1],
  ["protoQuery", 1],
  ["freeCompany", 1],
  ["privateWebhook", 1],
  ["get", 20],
  ["clients", 5],
  ["validate", 15],
];

/** A small seeded generator, so that two runs send the same mix. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs the soak and returns its figures; `report.failures` lists what went wrong (empty: passed). */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const log = options.log ?? (() => undefined);
  const companiesN = options.companies ?? 10;
  const settleSec = options.settleSec ?? 5;
  const dataDir = mkdtempSync(join(tmpdir(), "einvoice-soak-"));
  const logFile = join(dataDir, "server.log");
  const { child, base } = await startServer(join(dataDir, "data"), logFile);
  const pid = child.pid!;
  const failures: string[] = [];
  try {
    log(`server ${base} (pid ${pid}), store: PGlite in ${dataDir}`);
    // Companies, each eligible, with a few invoices to read and one to duplicate.
    const companies: Company[] = [];
    for (let c = 0; c < companiesN; c++) {
      const signUp = await call(base, "POST", "/v1/accounts", { email: `soak-${c}-${Date.now()}@soak.example`, companyName: `Soak ${c}`, country: "NL" });
      if (signUp.status !== 201) throw new Error(`sign-up ${c}: ${signUp.status} ${JSON.stringify(signUp.body)}`);
      const { apiKey, companyId } = signUp.body.data;
      const patch = await call(base, "PATCH", `/admin/companies/${companyId}`, { enterprise: true, subscription: "pro", legalEntityId: `LE-${c}`, peppolSendingEnabled: true }, ADMIN_TOKEN);
      if (patch.status !== 200) throw new Error(`admin patch ${c}: ${patch.status}`);
      const company: Company = { apiKey, companyId, known: [], duplicate: invoice(`SOAK-DUP-${c}`, `0${c}00000001`), ok200: 0 };
      for (const xml of [company.duplicate, invoice(`SOAK-SEED-${c}-1`, `0${c}00000002`), invoice(`SOAK-SEED-${c}-2`, `0${c}00000003`)]) {
        const r = await call(base, "POST", "/v1/peppol/invoice", { xml }, apiKey);
        if (r.status !== 200 || r.body.data.status !== "sending") throw new Error(`seed submission: ${r.status} ${JSON.stringify(r.body)}`);
        company.known.push(r.body.data.submissionId);
        company.ok200++;
      }
      companies.push(company);
    }
    // A company that may not submit (free, not an enterprise customer): its submissions must cost a 403 only.
    const free = await call(base, "POST", "/v1/accounts", { email: `soak-free-${Date.now()}@soak.example`, companyName: "Soak Free", country: "NL" });
    if (free.status !== 201) throw new Error(`sign-up of the free company: ${free.status}`);
    const freeKey: string = free.body.data.apiKey;
    const year0 = Buffer.from(JSON.stringify(["i", "0000-01-01T00:00:00.000Z", "00000000-0000-4000-8000-000000000000"])).toString("base64url");
    const notGzip = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), Buffer.from("not deflate data at all, just bytes")]);
    const sendingIds: Array<[number, string]> = companies.flatMap((c, i) => c.known.map((id) => [i, id] as [number, string]));

    const random = prng(20_251_121);
    let serial = 0;
    const totalWeight = MIX.reduce((s, [, w]) => s + w, 0);
    const pick = (): Kind => {
      let r = random() * totalWeight;
      for (const [k, w] of MIX) if ((r -= w) < 0) return k;
      return "list";
    };
    const byKind: Record<string, Record<string, number>> = {};
    const unexpected: Record<string, number> = {};
    interface Ctx {
      kind?: Kind;
      company?: number;
    }

    const samples: MemorySample[] = [];
    const t0 = performance.now();
    const sample = () => samples.push({ atSec: Math.round((performance.now() - t0) / 100) / 10, rssMiB: rssMiB(pid) });
    sample();
    const rssStart = samples[0]!.rssMiB;
    const sampler = setInterval(sample, 1_000);
    log(`load: ${options.connections} connections for ${options.durationSec} s over ${companiesN} companies; RSS at start ${rssStart} MiB`);

    const result = await autocannon({
      url: base,
      connections: options.connections,
      duration: options.durationSec,
      timeout: 10,
      requests: [
        {
          setupRequest: (req: autocannon.Request, context: Ctx) => {
            const kind = pick();
            const ci = Math.floor(random() * companies.length);
            const company = companies[ci]!;
            context.kind = kind;
            context.company = ci;
            const auth = { authorization: `Bearer ${company.apiKey}`, "content-type": "application/json" };
            const submit = (body: string | Buffer, headers: Record<string, string> = auth) => ({ ...req, method: "POST" as const, path: "/v1/peppol/invoice", headers, body });
            const n = ++serial;
            // A recipient per company out of 40, a few flaky or unreachable (the sandbox retries or fails them).
            const recipient = n % 50 === 0 ? `flaky${n % 7}` : n % 97 === 0 ? `unreachable${n % 5}` : `${ci}0000${n % 40}`;
            switch (kind) {
              case "new":
                return submit(JSON.stringify({ xml: invoice(`SOAK-${ci}-${n}`, recipient) }));
              case "newData":
                return submit(JSON.stringify({ invoice: dataInvoice(`SOAK-D-${ci}-${n}`, recipient) }));
              case "validate":
                return { ...req, method: "POST" as const, path: "/v1/validate", headers: auth, body: JSON.stringify({ xml: invoice(`SOAK-V-${n}`, recipient) }) };
              case "duplicate":
                return submit(JSON.stringify({ xml: company.duplicate }));
              case "badBase64":
                return submit(JSON.stringify({ xml: "this is not base64!" }));
              case "notUbl":
                return submit(JSON.stringify({ xml: Buffer.from(`<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"/>`).toString("base64") }));
              case "badJson":
                return submit(`{"xml": "PEludm9pY2UvPg==",`);
              case "noRecipient":
                return submit(JSON.stringify({ xml: invoice(`SOAK-NR-${n}`, recipient, "EM") }));
              case "extraKey":
                return submit(JSON.stringify({ xml: invoice(`SOAK-X-${n}`, recipient), priority: "high" }));
              case "badKey":
                return submit(JSON.stringify({ xml: invoice(`SOAK-K-${n}`, recipient) }), { ...auth, authorization: `Bearer ${company.apiKey.slice(0, -4)}AAAA` });
              case "list":
                return { ...req, method: "GET" as const, path: "/v1/invoices?limit=20", headers: { authorization: auth.authorization }, body: Buffer.alloc(0) };
              case "get":
                return { ...req, method: "GET" as const, path: `/v1/invoices/${company.known[n % company.known.length]}`, headers: { authorization: auth.authorization }, body: Buffer.alloc(0) };
              case "malformedId":
                return { ...req, method: "GET" as const, path: n % 2 ? "/v1/invoices/%ff" : "/v1/webhooks/%c0/deliveries", headers: {}, body: Buffer.alloc(0) };
              case "badGzip":
                return submit(notGzip, { ...auth, "content-encoding": "gzip" });
              case "year0Cursor":
                return { ...req, method: "GET" as const, path: `/v1/invoices?cursor=${year0}`, headers: { authorization: auth.authorization }, body: Buffer.alloc(0) };
              case "protoQuery":
                return { ...req, method: "GET" as const, path: "/v1/invoices?__proto__=1", headers: { authorization: auth.authorization }, body: Buffer.alloc(0) };
              case "freeCompany":
                return submit(JSON.stringify({ xml: invoice(`SOAK-FREE-${n}`, recipient) }), { ...auth, authorization: `Bearer ${freeKey}` });
              case "privateWebhook":
                return { ...req, method: "POST" as const, path: "/v1/webhooks", headers: auth, body: JSON.stringify({ url: "https://[::127.0.0.1]/hook" }) };
              case "clients":
                return { ...req, method: "GET" as const, path: "/v1/clients?limit=20", headers: { authorization: auth.authorization }, body: Buffer.alloc(0) };
            }
          },
          onResponse: (status: number, body: string, context: Ctx) => {
            const kind = context.kind!;
            const k = (byKind[kind] ??= {});
            k[status] = (k[status] ?? 0) + 1;
            if (!ALLOWED[kind].includes(status)) unexpected[`${kind} ${status}`] = (unexpected[`${kind} ${status}`] ?? 0) + 1;
            if ((kind === "new" || kind === "newData" || kind === "duplicate") && status === 200) {
              const data = (JSON.parse(body) as { data: { submissionId: string; status: string } }).data;
              const company = companies[context.company!]!;
              company.ok200++;
              if (data.status === "sending") sendingIds.push([context.company!, data.submissionId]);
              else if (kind !== "duplicate") unexpected[`${kind} 200 ${data.status}`] = (unexpected[`${kind} 200 ${data.status}`] ?? 0) + 1;
              if (kind === "duplicate" && data.status !== "failed") unexpected[`duplicate 200 ${data.status}`] = (unexpected[`duplicate 200 ${data.status}`] ?? 0) + 1;
            }
          },
        },
      ],
    } as autocannon.Options);
    sample();
    const rssEnd = samples[samples.length - 1]!.rssMiB;
    const loadSamples = samples.filter((s) => s.atSec <= options.durationSec + 0.5);
    log(`load done: ${result.requests.total} requests, p99 ${result.latency.p99} ms; RSS ${rssEnd} MiB; settling ${settleSec} s`);
    await new Promise((r) => setTimeout(r, settleSec * 1_000));
    clearInterval(sampler);
    sample();
    const rssAfterSettle = samples[samples.length - 1]!.rssMiB;

    // Every `sending` answer is readable, and each company lists exactly its 200 answers.
    let lost = 0;
    const queue = [...sendingIds];
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let item = queue.pop(); item; item = queue.pop()) {
          const [ci, id] = item;
          const r = await call(base, "GET", `/v1/invoices/${id}`, undefined, companies[ci]!.apiKey);
          if (r.status !== 200 || r.body.data.id !== id) lost++;
        }
      }),
    );
    let missing = 0;
    let inFlightAtStop = 0;
    const afterSettle: Record<string, number> = {};
    for (const c of companies) {
      let cursor: string | null = null;
      let count = 0;
      do {
        const r: { status: number; body: { data: Array<{ status: string }>; nextCursor: string | null } } = await call(
          base,
          "GET",
          `/v1/invoices?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
          undefined,
          c.apiKey,
        );
        if (r.status !== 200) throw new Error(`list: ${r.status}`);
        count += r.body.data.length;
        for (const inv of r.body.data) afterSettle[inv.status] = (afterSettle[inv.status] ?? 0) + 1;
        cursor = r.body.nextCursor;
      } while (cursor);
      // Fewer listed than answered 200 is a lost write; more is a request the server took while
      // autocannon was stopping (its answer was never read): at most one per connection.
      if (count < c.ok200) missing += c.ok200 - count;
      else inFlightAtStop += count - c.ok200;
    }

    // Memory levels off: the last quarter of the load is not well above the second quarter.
    const q = (i: number) => {
      const part = loadSamples.filter((s) => s.atSec >= (i * options.durationSec) / 4 && s.atSec < ((i + 1) * options.durationSec) / 4);
      return part.length ? Math.max(...part.map((s) => s.rssMiB)) : NaN;
    };
    const quarters = [q(0), q(1), q(2), q(3)];
    const memoryLevelsOff = !(quarters[3]! > quarters[1]! * 1.25 + 32);

    const logText = readFileSync(logFile, "utf8");
    const secrets = [ADMIN_TOKEN, ...companies.map((c) => c.apiKey.split("_").slice(2).join("_"))];
    const secretsInLog = secrets.filter((s) => logText.includes(s)).length;

    const statuses: Record<string, number> = {};
    for (const [code, v] of Object.entries((result as unknown as { statusCodeStats: Record<string, { count: number }> }).statusCodeStats ?? {})) statuses[code] = v.count;
    const fiveXx = result["5xx"];
    if (fiveXx > 0) failures.push(`${fiveXx} answers were 5xx`);
    if (result.errors > 0) failures.push(`${result.errors} connection errors`);
    if (result.timeouts > 0) failures.push(`${result.timeouts} requests timed out (10 s)`);
    if (Object.keys(unexpected).length) failures.push(`unexpected answers: ${JSON.stringify(unexpected)}`);
    if (lost > 0) failures.push(`${lost} of ${sendingIds.length} sending submissions could not be read back`);
    if (missing > 0) failures.push(`${missing} invoices answered 200 are missing from the lists`);
    if (inFlightAtStop > options.connections) failures.push(`${inFlightAtStop} invoices listed without an answer: more than the ${options.connections} requests that can be in flight`);
    if (!memoryLevelsOff && options.checkMemory !== false) failures.push(`memory keeps growing: RSS by quarter ${quarters.join(", ")} MiB`);
    if (secretsInLog > 0) failures.push(`${secretsInLog} secrets found in the server's log`);
    if (result.requests.total < options.durationSec * 10) failures.push(`only ${result.requests.total} requests were made`);

    return {
      durationSec: options.durationSec,
      connections: options.connections,
      requests: result.requests.total,
      requestsPerSec: Math.round(result.requests.average),
      latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
      statuses,
      byKind,
      unexpected,
      fiveXx,
      errors: result.errors,
      timeouts: result.timeouts,
      sending: sendingIds.length,
      lostSending: lost,
      missingFromLists: missing,
      inFlightAtStop,
      afterSettle,
      rssMiB: { start: rssStart, end: rssEnd, afterSettle: rssAfterSettle, max: Math.max(...samples.map((s) => s.rssMiB)), quarters },
      memoryLevelsOff,
      secretsInLog,
      logBytes: logText.length,
      samples,
      failures,
    };
  } finally {
    child.kill("SIGKILL");
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i === -1 ? undefined : Number(process.argv[i + 1]);
  if (v === undefined) return fallback;
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} must be a positive number`);
  return v;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const durationSec = arg("duration", 60);
  const connections = arg("connections", 100);
  const report = await runSoak({ durationSec, connections, log: (l) => console.log(l) });
  const { samples, ...summary } = report;
  console.log(JSON.stringify(summary, null, 2));
  console.log(`RSS over time (s: MiB): ${samples.map((s) => `${s.atSec}: ${s.rssMiB}`).join(", ")}`);
  console.log(report.failures.length ? `SOAK FAILED:\n- ${report.failures.join("\n- ")}` : "soak passed");
  process.exit(report.failures.length ? 1 : 0);
}
