// The example server with PEPPOL_DISCOVERY=sml, pointed at a DNS server and an SMP on 127.0.0.1 (as an operator points it at theirs).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { participantDnsName } from "@einvoice/peppol-smp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeDns, type FakeDns } from "../../../packages/peppol-smp/test/support/dns-server.js";
import { makePki } from "../../../packages/peppol-smp/test/support/pki.js";
import { AP_URL, startFakeSmp, type FakeSmp } from "../../../packages/peppol-smp/test/support/smp-server.js";
import { eligibleAccount, invoiceB64 } from "./support/helpers.js";
import { json, type RunningServer } from "./support/server-process.js";
import { serverSuite, tempDir } from "./support/server-suite.js";

const ADMIN = "discovery-test-admin-token";
const ZONE = "participant.sml.example.test";
const INVOICE =
  "busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1";

describe("example server with PEPPOL_DISCOVERY=sml (local DNS and SMP)", () => {
  /** The SMP's CA certificate (PEPPOL_SMP_CA). */
  const caDir = tempDir("discovery-ca");
  const suite = serverSuite("discovery", { ADMIN_TOKEN: ADMIN });
  let server: RunningServer;
  let dns: FakeDns;
  let smp: FakeSmp;
  let apiKey: string;

  beforeAll(async () => {
    const pki = makePki();
    dns = await startFakeDns();
    smp = await startFakeSmp({ smp: pki.smp, ap: pki.ap });
    smp.participants.set("9930:registered-1", { documentTypes: [INVOICE] });
    dns.records.set(participantDnsName({ scheme: "9930", value: "registered-1" }, ZONE), [{ regexp: `!^.*$!${smp.baseUrl}!` }]);
    dns.records.set(participantDnsName({ scheme: "9930", value: "down-1" }, ZONE), "servfail");
    writeFileSync(join(caDir, "smp-ca.pem"), pki.ca.certPem);
    server = await suite.start({
      PEPPOL_DISCOVERY: "sml",
      SML_ZONE: ZONE,
      DNS_SERVERS: dns.server,
      PEPPOL_SMP_CA: join(caDir, "smp-ca.pem"),
      PEPPOL_SMP_ALLOW_HTTP: "true",
      DISCOVERY_TIMEOUT_MS: "3000",
    }, 90_000);
    ({ apiKey } = await eligibleAccount(server.base, ADMIN));
  }, 120_000);
  afterAll(async () => {
    await Promise.all([dns?.close(), smp?.close()]);
  });

  it("says at start which SML zone, DNS and trust store it uses", () => {
    expect(server.output()).toMatch(new RegExp(`^participant discovery: SML zone ${ZONE.replace(/\./g, "\\.")} \\(DNS ${dns.server}\\), SMP signatures checked against PEPPOL_SMP_CA`, "m"));
  });

  it("GET /v1/participants answers from the SML and the SMP: registered with its signed endpoint, or not registered", async () => {
    const r = await json(server.base, "GET", `/v1/participants/9930:registered-1?documentType=${encodeURIComponent(INVOICE)}`, undefined, apiKey);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ participantId: "9930:registered-1", registered: true, documentTypes: [INVOICE], endpoint: { url: AP_URL, transportProfile: "peppol-transport-as4-v2_0" } });
    const un = await json(server.base, "GET", "/v1/participants/9930:nobody-1", undefined, apiKey);
    expect(un).toMatchObject({ status: 200, body: { data: { registered: false } } });
  });

  it("a lookup that fails is a 502 participant_lookup_failed", async () => {
    const r = await json(server.base, "GET", "/v1/participants/9930:down-1", undefined, apiKey);
    expect(r.status).toBe(502);
    expect(r.body.code).toBe("participant_lookup_failed");
  });

  it("submit: an unregistered recipient is failed at once; an unreachable lookup is accepted as sending", async () => {
    const un = await json(server.base, "POST", "/v1/peppol/invoice", { xml: invoiceB64("D-1", "nobody-2", "9930") }, apiKey);
    expect(un.body.data).toMatchObject({ status: "failed", errorMessage: expect.stringContaining("recipient 9930:nobody-2 is not registered on Peppol") });
    const down = await json(server.base, "POST", "/v1/peppol/invoice", { xml: invoiceB64("D-2", "down-1", "9930") }, apiKey);
    expect(down.body.data.status).toBe("sending");
    const inv = await json(server.base, "GET", `/v1/invoices/${down.body.data.submissionId}`, undefined, apiKey);
    expect(inv.body.data.events[0].detail).toMatch(/participant lookup failed/);
  });
});
