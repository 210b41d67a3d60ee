// Kill the inbound pollers at random moments: receiving from KSeF loses nothing and duplicates nothing, and a company's
// sync runs in one place at a time. The fake KSeF (in this process, on loopback; its rate limits on, set high) holds 40
// invoices for one company's NIP as buyer, over six months (several windows of at most 89 days; some at one
// microsecond). Poller processes (support/inbound-poller-process.ts: createInboundPoller with ksefInbound on one
// PostgreSQL schema, the company's token under a tokenCipher) sync the company, two at once most of the time; the test
// kills the one that runs with SIGKILL, at moments chosen by a seeded random generator (as it authenticates, queries
// metadata, downloads an invoice, or after a random delay), and starts another. Every request of a poller goes
// through a proxy of its own here, so the test knows which process sent what. Three scenarios: each invoice downloaded
// (kills at authentication, a metadata query, a download, random delays); the windows through export packages (a page
// of 10: kills as the export is started, its status polled, a part downloaded); and an instance stopped (SIGSTOP) as
// it downloads, past its lease, taken over by the other, then resumed (it must find its lease lost and stop).
//
// At the end: every KSeF number is stored once, as received and read as FA(3); the sync row's mark covers every
// invoice; and the company's sync never ran in two processes at once (nor did their requests to KSeF interleave).
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { tokenCipher, updateCompany } from "@einvoice/core";
import { sampleCompany, seededRandom as random } from "@einvoice/core/testing";
import { openPostgresStore, type OpenedPostgresStore } from "@einvoice/postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeKsef, type FakeKsef } from "./support/fake-ksef.js";

const DATABASE_URL = process.env.DATABASE_URL;
const SEED = Number(process.env.CRASH_SEED ?? 20261129);
const BUYER = "5213017228";
const TOKEN = "20261129-EC-0123456789-ABCDEF0123-45|nip-5213017228|fedcba9876543210";
const SINCE = "2026-05-01T00:00:00.000Z";
const LEASE_MS = 1_500;
const INVOICES = 40;
const here = dirname(fileURLToPath(import.meta.url));

const fixtures = new URL("./fixtures/fa3-received/", import.meta.url);
const SAMPLES = readdirSync(fixtures)
  .filter((f) => f.endsWith(".xml"))
  .sort()
  .map((f) => readFileSync(new URL(f, fixtures), "utf8"));
/** The i-th received invoice: one of the samples, its number made unique. */
const sample = (i: number): string => SAMPLES[i % SAMPLES.length]!.replace(/<P_2>([^<]+)<\/P_2>/, `<P_2>CRASH-${i}</P_2>`);


async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A permanent-storage date as KSeF writes it (microseconds, +00:00). */
const at = (ms: number, micros = 0): string => `${new Date(ms).toISOString().slice(0, 19)}.${String(micros).padStart(6, "0")}+00:00`;
/** The instant of such a date, for comparing (microseconds since the epoch). */
const microsOf = (s: string): number => {
  const m = /^(.{19})(?:\.(\d{1,6}))?/.exec(s)!;
  return Date.parse(`${m[1]}Z`) * 1000 + Number((m[2] ?? "").padEnd(6, "0"));
};

interface Poller {
  n: number;
  /** Null until its process is started. */
  child: ChildProcess | null;
  output: () => string;
  /** When the test killed it (epoch ms), or null. */
  killedAt: number | null;
}

/** The runs a poller's output says it made: [start, end] (an open one ends when it was killed). */
function runsOf(p: Poller): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  let open: number | null = null;
  for (const line of p.output().split("\n")) {
    const m = /^run (start|end) \S+ (\d+)$/.exec(line);
    if (!m) continue;
    if (m[1] === "start") open = Number(m[2]);
    else if (open !== null) {
      runs.push([open, Number(m[2])]);
      open = null;
    }
  }
  if (open !== null) runs.push([open, p.killedAt ?? Date.now()]);
  return runs;
}

type KillAt = "auth" | "metadata" | "download" | "export" | "exportStatus" | "part";
const ROUTES: Record<KillAt, RegExp> = {
  auth: /^POST \/v2\/auth\/ksef-token$/,
  metadata: /^POST \/v2\/invoices\/query\/metadata/,
  download: /^GET \/v2\/invoices\/ksef\//,
  export: /^POST \/v2\/invoices\/exports$/,
  exportStatus: /^GET \/v2\/invoices\/exports\//,
  part: /^GET \/storage\//,
};

interface Scenario {
  name: string;
  /** The metadata query's page size (10: every window of 13 invoices has more pages, and goes through an export). */
  pageSize?: number;
  /**
   * The kills, in order: where, and after how many of KSeF's buyer-side calls (plus a random 0-3). `pause`: the poller
   * is stopped (SIGSTOP) as it downloads an invoice, past its lease, until the other took over, then resumed.
   */
  kills: Array<[KillAt | "timer" | "pause", number]>;
}

const SCENARIOS: Scenario[] = [
  {
    name: "downloading each invoice",
    kills: [["download", 3], ["metadata", 10], ["auth", 16], ["timer", 22]],
  },
  {
    name: "through export packages (a page of 10, windows of 13)",
    pageSize: 10,
    kills: [["export", 0], ["exportStatus", 2], ["part", 4], ["timer", 7]],
  },
  {
    name: "with an instance stopped past its lease",
    kills: [["download", 3], ["pause", 9], ["timer", 24]],
  },
];

describe.skipIf(!DATABASE_URL).each(SCENARIOS)("kill -9 the inbound pollers syncing a company from KSeF, $name (ksefInbound on PostgreSQL)", (scenario) => {
  const schema = `einvoice_ksin_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const tokenKey = randomBytes(32).toString("hex");
  let opened: OpenedPostgresStore;
  let fake: FakeKsef;
  let db: pg.Pool;
  /** Each poller's own proxy to the fake KSeF (its export parts' addresses name it too): who sent what. */
  const proxies: Server[] = [];
  const pollers: Poller[] = [];
  /** Every request of a poller to KSeF's buyer routes, in order: which poller, when. */
  const requests: Array<{ n: number; at: number; route: string }> = [];
  /**
   * The next kill: once KSeF's buyer side was called `after` times, the sender of the next request of this kind is killed before
   * the request reaches KSeF (`timer`: the sender of the next request, `delayMs` later). Decided here, at the request,
   * so that the test's own pace never lets the pollers run past the moment.
   */
  let plan: { mode: KillAt | "timer" | "pause"; after: number; delayMs: number } | null = null;
  /** The poller stopped with SIGSTOP (`pause`), and how many downloads KSeF had answered then. */
  let paused: { p: Poller; at: number } | null = null;
  const kills: string[] = [];

  function kill(p: Poller, why: string): void {
    if (p.killedAt !== null) return;
    p.killedAt = Date.now();
    p.child?.kill("SIGKILL");
    kills.push(`${why} #${p.n}`);
  }

  beforeAll(async () => {
    opened = await openPostgresStore({ databaseUrl: DATABASE_URL!, schema });
    db = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
    const high = { perSecond: 1_000, perMinute: 10_000, perHour: 100_000 };
    fake = await startFakeKsef({ nip: BUYER, token: TOKEN, buyer: { limits: { invoiceMetadata: high, invoiceDownload: high, invoiceExport: high, invoiceExportStatus: high } } });
  });
  afterAll(async () => {
    const running = pollers.flatMap((p) => (p.child && p.child.exitCode === null && p.child.signalCode === null ? [p.child] : []));
    for (const c of running) c.kill("SIGKILL");
    await Promise.all(running.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once("exit", r)) : undefined)));
    for (const proxy of proxies) {
      proxy.closeAllConnections();
      await new Promise((r) => proxy.close(r));
    }
    await fake?.close();
    await opened?.close();
    await db?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db?.end();
  });

  /**
   * A proxy for poller `p` to the fake KSeF: records its requests to the buyer side, and kills it as `plan` says. The
   * export packages' part addresses (made by the fake from the address it was called on) are given as this proxy's, as
   * KSeF's storage is reachable by any instance: a poller that takes over another's export fetches its parts.
   */
  async function proxyFor(p: () => Poller): Promise<string> {
    const upstream = new URL(fake.url);
    let origin = "";
    const proxy = createServer((req, res) => {
      if (p().killedAt !== null) return void req.socket.destroy();
      const route = `${req.method} ${req.url}`;
      if (/^(POST|GET) (\/v2\/(invoices|auth)\/|\/storage\/)/.test(route)) requests.push({ n: p().n, at: Date.now(), route });
      if (plan && fake.buyer.calls.length >= plan.after) {
        const { mode, delayMs } = plan;
        if (mode === "timer") {
          plan = null;
          setTimeout(() => kill(p(), `${delayMs} ms after a request`), delayMs);
        } else if (mode === "pause") {
          if (ROUTES.download.test(route)) {
            // Stopped as it downloads: the request goes on to KSeF, its answer waits in the socket.
            plan = null;
            paused = { p: p(), at: fake.buyer.counts.invoiceDownload };
            p().child?.kill("SIGSTOP");
          }
        } else if (ROUTES[mode].test(route)) {
          plan = null;
          kill(p(), `at ${mode}`);
          return void req.socket.destroy();
        }
      }
      const up = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
        if (!ROUTES.exportStatus.test(route)) {
          res.writeHead(r.statusCode ?? 502, r.headers);
          return void r.pipe(res);
        }
        const chunks: Buffer[] = [];
        r.on("data", (c: Buffer) => chunks.push(c));
        r.on("error", () => res.destroy());
        r.on("end", () => {
          const body = Buffer.from(Buffer.concat(chunks).toString("utf8").replace(/http:\/\/127\.0\.0\.1:\d+\/storage\//g, `${origin}/storage/`), "utf8");
          const { "transfer-encoding": _chunked, ...headers } = r.headers;
          res.writeHead(r.statusCode ?? 502, { ...headers, "content-length": String(body.length) });
          res.end(body);
        });
      });
      up.on("error", () => res.destroy());
      req.pipe(up);
    });
    proxies.push(proxy);
    proxy.listen(0, "127.0.0.1");
    await new Promise((r) => proxy.once("listening", r));
    origin = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    return origin;
  }

  let count = 0;
  async function startPoller(): Promise<Poller> {
    let out = "";
    // Counted among the pollers at once (before its proxy listens and its process starts).
    const p: Poller = { n: ++count, child: null, output: () => out, killedAt: null };
    pollers.push(p);
    const proxyUrl = await proxyFor(() => p);
    if (p.killedAt !== null) return p;
    const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", join(here, "support/inbound-poller-process.ts")], {
      cwd: join(here, ".."),
      env: { ...process.env, DATABASE_URL, DATABASE_SCHEMA: schema, KSEF_URL: `${proxyUrl}/v2`, KSEF_TOKEN_KEY: tokenKey, KSEF_SINCE: SINCE, POLLER_OWNER: `poller-${p.n}`, LEASE_MS: String(LEASE_MS), KSEF_PAGE_SIZE: scenario.pageSize ? String(scenario.pageSize) : "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    p.child = child;
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    // Started, or killed by the test before it was (then it never will be).
    await until(`poller ${p.n} to start`, () => (out.includes("ready\n") || p.killedAt !== null ? true : child.exitCode !== null ? Promise.reject(new Error(out)) : undefined), 90_000);
    return p;
  }
  const alive = () => pollers.filter((p) => p.killedAt === null);

  it("stores every KSeF number once, moves the mark over all of them, and never runs the company's sync in two places at once, across kill -9", async () => {
    const rnd = random(SEED);
    const { store } = opened;
    const company = sampleCompany({ name: "Nabywca S.A.", country: "PL" });
    const keyId = randomUUID();
    await store.createAccount({
      account: { id: randomUUID(), email: `${keyId}@example.com`, companyId: company.id, createdAt: company.createdAt },
      company,
      apiKey: { id: keyId, companyId: company.id, prefix: `einv_${keyId.slice(0, 8)}`, hash: "ab".repeat(32), createdAt: company.createdAt, lastUsedAt: null, revokedAt: null },
    });
    // The credential as an operator sets it: encrypted under the key the pollers have; the company's sync row made due.
    await updateCompany(store, company.id, { ksef: { nip: BUYER, token: TOKEN } }, { tokenCipher: tokenCipher(tokenKey) });
    expect((await store.listInboundSyncs("ksef")).map((s) => s.scope)).toEqual([company.id]);
    // A webhook for invoice.received: one event per invoice stored, never two.
    const webhook = { id: randomUUID(), companyId: company.id, url: "https://hooks.example.com/einvoice", events: ["invoice.received" as const], secret: "s".repeat(32), createdAt: new Date().toISOString(), deletedAt: null };
    expect(await store.insertWebhook(webhook)).toBe(true);

    // 40 invoices from 2 May to an hour ago, in order of their dates; every fifth shares its microsecond with the one before.
    const start = Date.parse("2026-05-02T00:00:00.000Z");
    const end = Date.now() - 3600_000;
    const numbers = new Map<string, string>();
    let last = "";
    for (let i = 0; i < INVOICES; i++) {
      const date = i % 5 === 4 ? last : at(start + Math.floor(((end - start) * (i + rnd() * 0.5)) / INVOICES), Math.floor(rnd() * 1_000_000));
      last = date;
      const xml = sample(i);
      numbers.set(fake.buyer.receive({ buyerNip: BUYER, content: xml, permanentStorageDate: date }), xml);
    }
    fake.buyer.receive({ buyerNip: "5260250995", content: sample(99), permanentStorageDate: at(start + 86_400_000) });
    const lastDate = microsOf(last);
    const stored = async (): Promise<number> => (await db.query(`SELECT count(*)::int AS n FROM "${schema}".invoices WHERE company_id = $1`, [company.id])).rows[0].n;

    const outputs = () => `seed ${SEED}; kills ${kills.join(", ")}; KSeF's buyer side was called: ${fake.buyer.calls.join(", ")}\n${pollers.map((p) => `--- poller ${p.n}\n${p.output()}`).join("\n")}`;
    // Two instances from the start; each kill takes the one running the sync, and another is started in its place
    // (while the survivor takes the sync over once the lease expires).
    const started: Array<Promise<Poller>> = [];
    const background = () => {
      const p = startPoller();
      p.catch(() => undefined); // said by Promise.all(started) below
      started.push(p);
    };
    background();
    background();
    for (const [k, [mode, calls]] of scenario.kills.entries()) {
      // (A new process authenticates once, at its first run, whenever that is.)
      const after = mode === "auth" ? 0 : calls + Math.floor(rnd() * 4);
      // A new process authenticates at its first run: for `auth`, all are stopped and a fresh one started.
      if (mode === "auth") for (const p of alive()) kill(p, "to make way");
      const before = kills.length;
      plan = { mode, after, delayMs: Math.floor(rnd() * 100) };
      if (mode === "auth") background();
      if (mode === "pause") {
        const stopped = await until("a poller stopped as it downloads", () => paused ?? undefined);
        // The other takes the sync over once the stopped one's lease expired, and goes on.
        await until("the sync taken over", async () => (fake.buyer.counts.invoiceDownload >= stopped.at + 4 || (await stored()) >= INVOICES ? true : undefined));
        stopped.p.child!.kill("SIGCONT");
        // Resumed, it finds its lease lost (at its next checkpoint or renewal, or at its run's end) and stops.
        await until("the resumed poller to see its lease lost", () => (/lost its lease|lease was lost/.test(stopped.p.output()) ? true : undefined), 30_000).catch((e: Error) =>
          Promise.reject(new Error(`${e.message}\n${outputs()}`)),
        );
        continue;
      }
      // (Or all stored first, for a kill at a download: the count of kills below says so.)
      await until(`kill ${k + 1} (${mode} after ${after} calls)`, async () =>
        kills.length > before || ((mode === "download" || mode === "part") && (await stored()) >= INVOICES) ? true : undefined,
      ).catch((e: Error) => Promise.reject(new Error(`${e.message}\n${outputs()}`)));
      while (alive().length < 2) background();
    }
    await Promise.all(started);

    const markOf = async (): Promise<string | null> => {
      const row = (await store.listInboundSyncs("ksef")).find((s) => s.scope === company.id);
      return row?.state ? (JSON.parse(row.state).inc.from as string) : null;
    };
    await until(
      "every invoice stored and the mark past the last",
      async () => ((await stored()) >= INVOICES && (await markOf()) !== null && microsOf((await markOf())!) >= lastDate ? true : undefined),
      120_000,
    ).catch((e: Error) => Promise.reject(new Error(`${e.message}\n${outputs()}`)));

    // Every KSeF number once, with its bytes, read as FA(3).
    const records = await store.listInvoices(company.id, { limit: 200, after: null, status: null, clientId: null, direction: "inbound" });
    const got = records.map((r) => r.ksefNumber!);
    expect(got.length, outputs()).toBe(INVOICES);
    expect(new Set(got).size).toBe(INVOICES);
    expect([...got].sort()).toEqual([...numbers.keys()].sort());
    for (const r of records) {
      expect(r.inbound?.syntax).toBe("fa3");
      expect(r.invoiceNumber).toMatch(/^CRASH-\d+$/);
      expect(Buffer.from((await store.getDocument(company.id, r.id))!).toString("utf8")).toBe(numbers.get(r.ksefNumber!));
    }
    // The sellers as suppliers (three), each invoice counted once.
    const suppliers = await store.listSuppliers(company.id, { limit: 100, after: null });
    expect(suppliers).toHaveLength(3);
    expect(suppliers.reduce((sum, x) => sum + x.invoiceCount, 0), outputs()).toBe(INVOICES);
    // One invoice.received event per invoice.
    const events = await store.listWebhookEvents(company.id, webhook.id, 500);
    expect(events.map((e) => e.type)).toEqual(Array(INVOICES).fill("invoice.received"));
    expect(events.map((e) => JSON.parse(e.data).invoice.id as string).sort(), outputs()).toEqual(records.map((r) => r.id).sort());
    // The pollers went on from each other's marks: far fewer downloads than a restart from the start each time.
    if (scenario.pageSize) {
      expect(fake.buyer.exports, outputs()).toBeGreaterThanOrEqual(2);
      expect(fake.buyer.exports).toBeLessThan(3 + 2 * scenario.kills.length);
    } else expect(fake.buyer.counts.invoiceDownload).toBeLessThan(INVOICES + 3 * scenario.kills.length);
    expect(fake.buyer.limited).toBe(0);

    // One process at a time: their runs do not overlap, and neither do their requests to KSeF.
    if (process.env.CRASH_DEBUG) console.log(outputs());
    for (const p of alive()) kill(p, "at the end");
    const runs = pollers.flatMap((p) => runsOf(p).map(([s, e]) => ({ n: p.n, s, e })));
    expect(new Set(runs.map((r) => r.n)).size, outputs()).toBeGreaterThanOrEqual(3);
    // (Except the run of the one stopped past its lease: it went on, resumed, until it found its lease lost.)
    const pausedRun = (x: { n: number }) => paused !== null && x.n === paused.p.n;
    for (const x of runs) for (const y of runs) if (x.n < y.n && !pausedRun(x) && !pausedRun(y)) expect(x.e <= y.s || y.e <= x.s, `runs of pollers ${x.n} and ${y.n} overlap\n${outputs()}`).toBe(true);
    for (const r of requests) {
      const mine = runs.some((x) => x.n === r.n && x.s <= r.at && r.at <= x.e);
      expect(mine, `a request of poller ${r.n} (${r.route}) outside its runs\n${outputs()}`).toBe(true);
    }
    expect(kills.filter((k) => !k.startsWith("to make way") && !k.startsWith("at the end")), outputs()).toHaveLength(scenario.kills.filter(([m]) => m !== "pause").length);
    if (scenario.kills.some(([m]) => m === "pause")) expect(paused).not.toBeNull();
  }, 240_000);
});
