// The mixed load of issue 44 (the reference mix of `pnpm bench mixed` and of `pnpm soak --mixed`):
// 16 keep-alive clients, 25 % submits of UBL XML, 15 % submits of the invoice as data (JSON), 25 %
// lists, 20 % reads, 15 % validations, spread over a few companies of the example server.
import autocannon from "autocannon";
import { ADMIN_TOKEN, call, invoice } from "./soak.js";

export type MixedKind = "xmlSubmit" | "jsonSubmit" | "list" | "read" | "validate";

/** The mix, in percent. */
export const MIXED_MIX: ReadonlyArray<readonly [MixedKind, number]> = [
  ["xmlSubmit", 25],
  ["jsonSubmit", 15],
  ["list", 25],
  ["read", 20],
  ["validate", 15],
];

/** An invoice as data (InvoiceData) of three lines that the Peppol rules accept, numbered `id`. */
export function dataInvoice(id: string, buyer: string): Record<string, unknown> {
  return {
    number: id,
    issueDate: "2026-03-01",
    dueDate: "2026-03-31",
    currency: "EUR",
    buyerReference: "PO-4711",
    seller: {
      name: "Seller BV",
      vatId: "NL123456789B01",
      endpoint: { scheme: "0106", id: "12345678" },
      address: { lines: ["Main Street 1"], city: "Amsterdam", postalCode: "1011 AA", country: "NL" },
      legalId: { id: "12345678", scheme: "0106" },
    },
    buyer: { name: `Buyer ${buyer}`, endpoint: { scheme: "0106", id: buyer }, address: { city: "Brussels", country: "BE" } },
    payment: { meansCode: "58", accounts: [{ iban: "NL91ABNA0417164300" }] },
    lines: [
      { id: "1", name: "Service", quantity: "2", unitCode: "C62", price: "10.50", vat: { category: "S", rate: "21" } },
      { id: "2", name: "Books", quantity: "1", unitCode: "C62", price: "24.00", vat: { category: "S", rate: "9" } },
      { id: "3", name: "Support", quantity: "3", unitCode: "HUR", price: "60.00", vat: { category: "S", rate: "21" } },
    ],
  };
}

export interface MixedCompany {
  apiKey: string;
  companyId: string;
  /** Invoices of the company to read. */
  known: string[];
}

/** Signs up `n` eligible companies on the server at `base`, each with a few invoices to read. */
export async function mixedCompanies(base: string, n: number, tag: string): Promise<MixedCompany[]> {
  const out: MixedCompany[] = [];
  for (let c = 0; c < n; c++) {
    const signUp = await call(base, "POST", "/v1/accounts", { email: `mixed-${tag}-${c}-${Date.now()}@mixed.example`, companyName: `Mixed ${c}`, country: "NL" });
    if (signUp.status !== 201) throw new Error(`sign-up ${c}: ${signUp.status} ${JSON.stringify(signUp.body)}`);
    const { apiKey, companyId } = signUp.body.data;
    const patch = await call(base, "PATCH", `/admin/companies/${companyId}`, { enterprise: true, subscription: "pro", legalEntityId: `LE-${c}`, peppolSendingEnabled: true }, ADMIN_TOKEN);
    if (patch.status !== 200) throw new Error(`admin patch ${c}: ${patch.status}`);
    const company: MixedCompany = { apiKey, companyId, known: [] };
    for (let i = 0; i < 5; i++) {
      const r = await call(base, "POST", "/v1/peppol/invoice", { xml: invoice(`MIXED-SEED-${tag}-${c}-${i}`, `9${c}0000${i}`) }, apiKey);
      if (r.status !== 200 || r.body.data.status !== "sending") throw new Error(`seed submission: ${r.status} ${JSON.stringify(r.body)}`);
      company.known.push(r.body.data.submissionId);
    }
    out.push(company);
  }
  return out;
}

export interface MixedResult {
  requests: number;
  /** Requests answered per second, over the whole run. */
  rps: number;
  latencyMs: { p50: number; p99: number; max: number };
  /** Statuses by kind. */
  byKind: Record<string, Record<string, number>>;
  /** p50 and p99 (ms) by kind, from the request's build to its answer. */
  latencyByKind: Record<string, { p50: number; p99: number; max: number }>;
  /** Answers other than the kind's success (200), connection errors and timeouts. */
  bad: number;
  errors: number;
  timeouts: number;
}

function pct(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/** A small seeded generator, so that two runs send the same mix. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Runs the mix against `base` for `seconds` on `connections` keep-alive connections (each request
 * waits for the answer before the next: pipelining 1). Every submit is a distinct, valid invoice
 * (accepted: 200 `sending`), every read names an invoice of the company, every validation is valid.
 */
export async function runMixed(base: string, companies: MixedCompany[], options: { seconds: number; connections: number; tag: string; seed?: number }): Promise<MixedResult> {
  const random = prng(options.seed ?? 44);
  const total = MIXED_MIX.reduce((s, [, w]) => s + w, 0);
  const pick = (): MixedKind => {
    let r = random() * total;
    for (const [k, w] of MIXED_MIX) if ((r -= w) < 0) return k;
    return "list";
  };
  let serial = 0;
  const byKind: Record<string, Record<string, number>> = {};
  const times: Record<string, number[]> = {};
  let bad = 0;
  interface Ctx {
    kind?: MixedKind;
    company?: number;
    at?: number;
  }
  const result = await autocannon({
    url: base,
    connections: options.connections,
    duration: options.seconds,
    pipelining: 1,
    timeout: 30,
    requests: [
      {
        setupRequest: (req: autocannon.Request, context: Ctx) => {
          const kind = pick();
          const ci = Math.floor(random() * companies.length);
          const company = companies[ci]!;
          context.kind = kind;
          context.company = ci;
          context.at = performance.now();
          const n = ++serial;
          const auth = { authorization: `Bearer ${company.apiKey}`, "content-type": "application/json" };
          const recipient = `${ci}1${String(n % 1000).padStart(4, "0")}`;
          switch (kind) {
            case "xmlSubmit":
              return { ...req, method: "POST" as const, path: "/v1/peppol/invoice", headers: auth, body: JSON.stringify({ xml: invoice(`MIXED-${options.tag}-X${n}`, recipient) }) };
            case "jsonSubmit":
              return { ...req, method: "POST" as const, path: "/v1/peppol/invoice", headers: auth, body: JSON.stringify({ invoice: dataInvoice(`MIXED-${options.tag}-J${n}`, recipient) }) };
            case "validate":
              return { ...req, method: "POST" as const, path: "/v1/validate", headers: auth, body: JSON.stringify({ xml: invoice(`MIXED-${options.tag}-V${n}`, recipient) }) };
            case "list":
              return { ...req, method: "GET" as const, path: "/v1/invoices?limit=20", headers: { authorization: auth.authorization }, body: Buffer.alloc(0) };
            case "read":
              return { ...req, method: "GET" as const, path: `/v1/invoices/${company.known[n % company.known.length]}`, headers: { authorization: auth.authorization }, body: Buffer.alloc(0) };
          }
        },
        onResponse: (status: number, body: string, context: Ctx) => {
          const kind = context.kind!;
          const k = (byKind[kind] ??= {});
          k[status] = (k[status] ?? 0) + 1;
          (times[kind] ??= []).push(performance.now() - context.at!);
          if (status !== 200) {
            bad++;
            return;
          }
          if (kind === "xmlSubmit" || kind === "jsonSubmit") {
            const data = (JSON.parse(body) as { data: { submissionId: string; status: string } }).data;
            if (data.status !== "sending") bad++;
            else {
              const known = companies[context.company!]!.known;
              // Reads go to recent invoices too, not only the seeds.
              if (known.length < 200) known.push(data.submissionId);
              else known[serial % known.length] = data.submissionId;
            }
          }
        },
      },
    ],
  } as autocannon.Options);
  const latencyByKind: MixedResult["latencyByKind"] = {};
  for (const [k, xs] of Object.entries(times)) latencyByKind[k] = { p50: Math.round(pct(xs, 50)), p99: Math.round(pct(xs, 99)), max: Math.round(Math.max(...xs)) };
  return {
    requests: result.requests.total,
    rps: result.requests.total / options.seconds,
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    byKind,
    latencyByKind,
    bad,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}
