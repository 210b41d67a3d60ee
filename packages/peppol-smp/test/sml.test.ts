import { execFileSync } from "node:child_process";
import { createServer } from "node:net";
import { DiscoveryError, cachedDiscovery, type ParticipantId } from "@einvoice/core";
import { testDiscovery } from "@einvoice/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applyNaptrRegexp,
  participantDnsName,
  participantHash,
  peppolSmpCAs,
  PRODUCTION_ZONE,
  smlDiscovery,
  smpUrlFromNaptr,
  TEST_ZONE,
  type SmlDiscoveryOptions,
} from "../src/index.js";
import { startFakeDns, type FakeDns } from "./support/dns-server.js";
import { makePki, type TestPki } from "./support/pki.js";
import { AP_URL, startFakeSmp, type FakeSmp } from "./support/smp-server.js";
import { startHostileServer } from "../../core/test/support/hostile-server.js";

const INVOICE =
  "busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1";
const ORDER = "busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:Order-2::Order##urn:fdc:peppol.eu:poacc:trns:order:3::2.1";
const ZONE = "participant.sml.local.test";
const pid = (value: string): ParticipantId => ({ scheme: "9930", value });

// The vectors of phax/peppol-commons (PeppolNaptrURLProviderTest) and of the issue.
const VECTORS: Array<[string, string]> = [
  ["0208:0123456789", "wiqy2amtxx7migvxk5ut2tftl43qlgk7mjiiaxc25xnfmmg6isvq"],
  ["0088:1234567890123", "sjsyvccmqyjxk3weuapffq4x3umcrf4qryherj4vovhmonh7gccq"],
  ["0088:123abc", "y7dzfxaf3d4cjz4kcgrxtec6twvcga4ky7zwa5boif6mswd4tdrq"],
  ["0088:123ABC", "y7dzfxaf3d4cjz4kcgrxtec6twvcga4ky7zwa5boif6mswd4tdrq"],
  ["0010:5798000000001", "xukhfqabqziki3ykvr2fhr4snfa3pf5vpq6k4tonv3lmvsy5arvq"],
  ["9915:test", "eh5boavaktmbgzyh2a63dz4qov33fvp5nsdvqklucfraayoodw6a"],
];
const split = (id: string): ParticipantId => ({ scheme: id.slice(0, 4), value: id.slice(5) });

function python3(): boolean {
  try {
    execFileSync("python3", ["-c", "pass"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("SML participant hash", () => {
  it.each(VECTORS)("%s → %s (peppol-commons' vectors)", (id, hash) => {
    expect(participantHash(split(id))).toBe(hash);
  });

  it("agrees with an independent computation (Python's hashlib and base64.b32encode) on other identifiers", (ctx) => {
    if (!python3()) return ctx.skip();
    const ids = ["0192:987654321", "9930:DE123456789", "0106:Ünïcödé-1", "0007:5567321707"];
    const script = "import sys,hashlib,base64\nfor s in sys.argv[1:]: print(base64.b32encode(hashlib.sha256(s.lower().encode('utf-8')).digest()).decode().rstrip('=').lower())";
    const out = execFileSync("python3", ["-c", script, ...ids], { encoding: "utf8" }).trim().split("\n");
    expect(ids.map((id) => participantHash(split(id)))).toEqual(out);
  });

  it("names the participant under iso6523-actorid-upis of the zone (production by default)", () => {
    expect(participantDnsName(split("0208:0123456789"))).toBe(`wiqy2amtxx7migvxk5ut2tftl43qlgk7mjiiaxc25xnfmmg6isvq.iso6523-actorid-upis.${PRODUCTION_ZONE}`);
    expect(participantDnsName(split("0088:1234567890123"), TEST_ZONE)).toBe(
      "sjsyvccmqyjxk3weuapffq4x3umcrf4qryherj4vovhmonh7gccq.iso6523-actorid-upis.participant.sml.test.tech.peppol.org",
    );
  });
});

describe("U-NAPTR", () => {
  it("reads the URL of the one form the Peppol SML publishes, !^.*$!<url>!, and refuses any other without running it", () => {
    expect(applyNaptrRegexp("!^.*$!https://smp.example.com/!")).toBe("https://smp.example.com/");
    // Back-references, other patterns, delimiters and flags are RFC 3402 but not what the SML publishes.
    expect(applyNaptrRegexp("!^([a-z0-9]+)\\..*$!https://\\1.smp.example!")).toBeNull();
    expect(applyNaptrRegexp("!^nomatch$!x!")).toBeNull();
    expect(applyNaptrRegexp("#^.*$#https://smp.example#")).toBeNull();
    expect(applyNaptrRegexp("!^.*$!https://smp.example!i")).toBeNull();
    expect(applyNaptrRegexp("!^.*$!https://a\\0b!")).toBeNull();
    expect(applyNaptrRegexp("!^.*$!!")).toBeNull();
    expect(applyNaptrRegexp("broken")).toBeNull();
  });

  it("refuses a catastrophic pattern at once: no expression from DNS is compiled (it blocked the event loop 8 to 11 s)", () => {
    const evil = "!^[^.]+\\.[^.]+\\.(a+)+$!https://smp.example!";
    const start = process.cpuUsage();
    for (let i = 0; i < 1000; i++) expect(smpUrlFromNaptr([{ order: 1, preference: 1, flags: "U", service: "Meta:SMP", regexp: evil, replacement: "" }])).toBeNull();
    const used = process.cpuUsage(start);
    expect((used.user + used.system) / 1000).toBeLessThan(200);
  });

  it("takes the U record of service Meta:SMP with the lowest order, then preference", () => {
    const rec = (order: number, preference: number, url: string, services = "Meta:SMP", flags = "U") => ({ order, preference, flags, service: services, regexp: `!^.*$!${url}!`, replacement: "" });
    expect(smpUrlFromNaptr([rec(20, 1, "https://b"), rec(10, 9, "https://a"), rec(10, 1, "https://x", "Other"), rec(1, 1, "https://s", "Meta:SMP", "S")])).toBe("https://a");
    expect(smpUrlFromNaptr([rec(1, 1, "https://x", "Other")])).toBeNull();
  });
});

describe("the bundled trust store", () => {
  it("holds OpenPeppol's SMP CA - G3 and - G2 for production and test, and their roots, all CAs", () => {
    const cas = peppolSmpCAs();
    const names = cas.map((c) => c.subject.split("\n").find((l) => l.startsWith("CN="))).sort();
    expect(names).toEqual([
      "CN=PEPPOL Root CA - G2",
      "CN=PEPPOL Root CA - G3",
      "CN=PEPPOL Root TEST CA - G2",
      "CN=PEPPOL Root TEST CA - G3",
      "CN=PEPPOL SERVICE METADATA PUBLISHER CA - G2",
      "CN=PEPPOL SERVICE METADATA PUBLISHER CA - G3",
      "CN=PEPPOL SERVICE METADATA PUBLISHER TEST CA - G2",
      "CN=PEPPOL SERVICE METADATA PUBLISHER TEST CA - G3",
    ]);
    for (const smpCa of cas.filter((c) => c.subject.includes("PUBLISHER"))) {
      const root = cas.find((c) => c.subject === smpCa.issuer)!;
      expect(smpCa.checkIssued(root) && smpCa.verify(root.publicKey)).toBe(true);
    }
    expect(cas.every((c) => c.ca)).toBe(true);
    const smpCa = cas.find((c) => c.subject.includes("PUBLISHER CA - G3"))!;
    expect(smpCa.fingerprint256).toBe("D9:E1:74:67:C6:9E:51:FC:4F:5C:52:63:54:2F:C6:8D:2A:BB:A5:DF:AA:E6:2E:87:FB:D6:82:9F:1D:E6:21:C4");
    expect(smpCa.checkIssued(cas.find((c) => c.subject.includes("CN=PEPPOL Root CA - G3"))!)).toBe(true);
  });
});

// ---------- end to end: a DNS server and an SMP on 127.0.0.1 ----------

interface World {
  dns: FakeDns;
  smp: FakeSmp;
  pki: TestPki;
  downUrl: string;
  discovery: (over?: SmlDiscoveryOptions) => ReturnType<typeof smlDiscovery>;
}

async function closedPortUrl(): Promise<string> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

let worldPromise: Promise<World> | undefined;
function world(): Promise<World> {
  worldPromise ??= (async () => {
    const pki = makePki();
    const dns = await startFakeDns();
    const smp = await startFakeSmp({ smp: pki.smp, ap: pki.ap });
    const downUrl = await closedPortUrl();
    const on = (p: ParticipantId, url = smp.baseUrl) => dns.records.set(participantDnsName(p, ZONE), [{ regexp: `!^.*$!${url}!` }]);
    const add = (value: string, spec: Parameters<FakeSmp["participants"]["set"]>[1]) => {
      smp.participants.set(`9930:${value}`.toLowerCase(), spec);
      on(pid(value));
    };
    add("registered-1", { documentTypes: [INVOICE, ORDER] });
    add("nodoctype-1", { documentTypes: [ORDER] });
    add("tampered-1", { documentTypes: [INVOICE], signing: "tampered" });
    add("unsigned-1", { documentTypes: [INVOICE], signing: "unsigned" });
    add("stranger-1", { documentTypes: [INVOICE], signer: pki.strangerSmp });
    add("expired-1", { documentTypes: [INVOICE], signer: pki.expiredSmp });
    add("replay-1", { documentTypes: [INVOICE], replayFor: "9930:registered-1" });
    add("slow-1", { documentTypes: [INVOICE], delayMs: 2000 });
    add("slow-2", { documentTypes: [INVOICE], delayMs: 2000 }); // asked by one test only: its requests are its own
    on(pid("smp404-1")); // in the SML, unknown to its SMP
    on(pid("smpdown-1"), downUrl);
    dns.records.set(participantDnsName(pid("servfail-1"), ZONE), "servfail");
    dns.records.set(participantDnsName(pid("silent-1"), ZONE), "silent");
    const discovery = (over: SmlDiscoveryOptions = {}) =>
      smlDiscovery({ zone: ZONE, dnsServers: [dns.server], trustedCAs: pki.ca.certPem, allowHttp: true, timeoutMs: 1500, ...over });
    return { dns, smp, pki, downUrl, discovery };
  })();
  return worldPromise;
}

afterAll(async () => {
  if (!worldPromise) return;
  const w = await worldPromise;
  await Promise.all([w.dns.close(), w.smp.close()]);
});

testDiscovery("sml (local DNS and SMP)", async () => {
  const w = await world();
  return {
    discovery: w.discovery(),
    documentType: INVOICE,
    registered: pid("registered-1"),
    unregistered: pid("unregistered-1"),
    withoutDocumentType: pid("nodoctype-1"),
    failing: pid("smpdown-1"),
    slow: pid("slow-1"),
    slowMs: 2000,
  };
});

async function failure(p: Promise<unknown>): Promise<DiscoveryError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(DiscoveryError);
  return e as DiscoveryError;
}

describe("smlDiscovery end to end (DNS and SMP on 127.0.0.1)", () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });

  it("registered: the NAPTR record's SMP, its ServiceGroup, and the endpoint of the signed metadata", async () => {
    const r = await w.discovery().lookup(pid("registered-1"), INVOICE);
    expect(r).toEqual({
      participantId: "9930:registered-1",
      registered: true,
      documentTypes: [INVOICE, ORDER],
      endpoint: {
        documentType: INVOICE,
        processId: "cenbii-procid-ubl::urn:fdc:peppol.eu:2017:poacc:billing:01:1.0",
        transportProfile: "peppol-transport-as4-v2_0",
        url: AP_URL,
        certificate: { subject: expect.stringContaining("CN=POP000123"), notAfter: "2027-05-01T00:00:00.000Z" },
        serviceActivation: "2025-01-01T00:00:00.000Z",
        serviceExpiration: "2030-01-01T00:00:00.000Z",
      },
    });
    // The SMP 1.x paths, identifiers URL-encoded as the specification says.
    expect(w.smp.requests).toContain("/iso6523-actorid-upis%3A%3A9930%3Aregistered-1");
    expect(w.smp.requests).toContain(`/iso6523-actorid-upis%3A%3A9930%3Aregistered-1/services/${encodeURIComponent(INVOICE)}`);
    expect(w.dns.queries).toContain(participantDnsName(pid("registered-1"), ZONE));
  });

  it("an SMP that streams a 256 MiB chunked ServiceGroup: invalid_answer at the 4 MiB cap, the rest never read (issue 26, finding 5)", async () => {
    const hostile = await startHostileServer(256 * 1024 * 1024, "application/xml");
    try {
      const p = pid("huge-answer-1");
      w.dns.records.set(participantDnsName(p, ZONE), [{ regexp: `!^.*$!${hostile.url}!` }]);
      const before = process.memoryUsage().rss;
      const e = await failure(w.discovery({ timeoutMs: 20_000 }).lookup(p, INVOICE));
      expect(e.kind).toBe("invalid_answer");
      expect(e.message).toMatch(/larger than 4194304 bytes/);
      // Before: the whole answer was read, then compared with the cap (+377 MiB in the attack).
      expect(hostile.sent()).toBeLessThan(32 * 1024 * 1024);
      expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
    } finally {
      await hostile.close();
    }
  });

  it("a NAPTR regexp other than !^.*$!<url>! is a failed lookup (invalid_answer), answered at once even for a catastrophic pattern", async () => {
    // A zone of a's: run against the queried name, the pattern backtracks 2^28 ways (seconds of CPU).
    const zone = "a".repeat(28) + ".test";
    const p = pid("evil-regexp-1");
    w.dns.records.set(participantDnsName(p, zone), [{ regexp: `!^[^.]+\\.[^.]+\\.(a+)+$!${w.smp.baseUrl}!` }]);
    const start = process.cpuUsage();
    const e = await failure(w.discovery({ zone }).lookup(p, INVOICE));
    const used = process.cpuUsage(start);
    expect((used.user + used.system) / 1000).toBeLessThan(1000); // before: 26 s, the event loop blocked
    expect(e.kind).toBe("invalid_answer");
    expect(e.message).toMatch(/!\^\.\*\$!<URL>!/);
  });

  it("unregistered: no NAPTR record (NXDOMAIN) is not registered, and so is an SMP that answers 404", async () => {
    expect(await w.discovery().lookup(pid("nobody-1"), INVOICE)).toEqual({ participantId: "9930:nobody-1", registered: false, documentTypes: [], endpoint: null });
    expect((await w.discovery().lookup(pid("smp404-1"), INVOICE)).registered).toBe(false);
  });

  it("wrong document type: registered, its types listed, no endpoint, no metadata fetched", async () => {
    const before = w.smp.requests.length;
    const r = await w.discovery().lookup(pid("nodoctype-1"), INVOICE);
    expect(r).toEqual({ participantId: "9930:nodoctype-1", registered: true, documentTypes: [ORDER], endpoint: null });
    expect(w.smp.requests.slice(before).some((u) => u.includes("/services/"))).toBe(false);
  });

  it("bad signature: metadata changed after signing is not trusted", async () => {
    const e = await failure(w.discovery().lookup(pid("tampered-1"), INVOICE));
    expect(e.kind).toBe("untrusted");
  });

  it("unsigned metadata is not trusted", async () => {
    const e = await failure(w.discovery().lookup(pid("unsigned-1"), INVOICE));
    expect(e).toMatchObject({ kind: "untrusted", message: expect.stringMatching(/not signed/) });
  });

  it("untrusted CA: a signature by a certificate of another CA is not trusted", async () => {
    const e = await failure(w.discovery().lookup(pid("stranger-1"), INVOICE));
    expect(e).toMatchObject({ kind: "untrusted", message: expect.stringMatching(/not issued by a trusted SMP CA/) });
  });

  it("the bundled Peppol CAs do not trust the test CA", async () => {
    const e = await failure(w.discovery({ trustedCAs: undefined }).lookup(pid("registered-1"), INVOICE));
    expect(e.kind).toBe("untrusted");
  });

  it("expired certificate: a signature by an expired SMP certificate is not trusted", async () => {
    const e = await failure(w.discovery().lookup(pid("expired-1"), INVOICE));
    expect(e).toMatchObject({ kind: "untrusted", message: expect.stringMatching(/expired/) });
  });

  it("signed metadata of another participant (a replay) is not trusted", async () => {
    const e = await failure(w.discovery().lookup(pid("replay-1"), INVOICE));
    expect(e).toMatchObject({ kind: "untrusted", message: expect.stringMatching(/another participant/) });
  });

  it("SMP down: a connection refused is unreachable, never not registered", async () => {
    const e = await failure(w.discovery().lookup(pid("smpdown-1"), INVOICE));
    expect(e.kind).toBe("unreachable");
  });

  it("slow SMP: the request is abandoned after timeoutMs, before the SMP answers", async () => {
    // The SMP waits 2000 ms before it answers; its timer starts when the request arrives, after the
    // client's 300 ms deadline started, and both run on this process's event loop: the deadline fires
    // first however busy the machine. The proof is an event (the SMP's wait had not ended when the
    // lookup failed), not a stopwatch.
    const e = await failure(w.discovery({ timeoutMs: 300 }).lookup(pid("slow-2"), INVOICE));
    expect(e.kind).toBe("timeout");
    expect(e.message).toBe("The SMP did not answer the ServiceGroup request within 300 ms.");
    const mine = (urls: string[]) => urls.filter((u) => u.toLowerCase().includes("slow-2"));
    expect(mine(w.smp.requests), "the SMP was asked").toHaveLength(1);
    expect(mine(w.smp.delayed), "the SMP had not answered when the lookup gave up").toEqual([]);
  });

  it("DNS SERVFAIL is unreachable; a DNS that never answers is a timeout", async () => {
    expect((await failure(w.discovery().lookup(pid("servfail-1"), INVOICE))).kind).toBe("unreachable");
    expect((await failure(w.discovery({ timeoutMs: 300 }).lookup(pid("silent-1"), INVOICE))).kind).toBe("timeout");
  });

  it("without allowHttp an http SMP is refused", async () => {
    const e = await failure(w.discovery({ allowHttp: false }).lookup(pid("registered-1"), INVOICE));
    expect(e).toMatchObject({ kind: "untrusted", message: expect.stringMatching(/not https/) });
  });

  it("under cachedDiscovery, a registered answer is served from the cache: no second DNS query", async () => {
    const d = cachedDiscovery(w.discovery());
    const name = participantDnsName(pid("registered-1"), ZONE);
    const before = w.dns.queries.filter((q) => q === name).length;
    await d.lookup(pid("registered-1"), INVOICE);
    await d.lookup(pid("registered-1"), INVOICE);
    expect(w.dns.queries.filter((q) => q === name).length).toBe(before + 1);
  });
});
