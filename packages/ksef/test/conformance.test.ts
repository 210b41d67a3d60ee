// The network port's conformance suite on ksefNetwork against the fake KSeF: the suite's documents are
// UBL invoices of a Polish seller to the recipient (a Polish buyer NIP), since KSeF carries FA(3), and
// one that does not map to FA(3) must be refused.
import { testNetwork } from "@einvoice/core/testing";
import { ksefNetwork } from "../src/index.js";
import { startFakeKsef } from "./support/fake-ksef.js";
import { ublInvoice } from "./support/ubl.js";

const NIP = "5260250995";
const TOKEN = "20261122-EC-0123456789-ABCDEF0123-45|nip-5260250995|0123456789abcdef";
const line = { name: "Usługa", quantity: "1", price: "100.00", cat: { id: "S", percent: "23" } };
const bytes = (xml: string): Uint8Array => new TextEncoder().encode(xml);

testNetwork(
  "ksef (against the fake KSeF)",
  async () => {
    const fake = await startFakeKsef({ nip: NIP, token: TOKEN, rejectBuyer: { nip: "7740001454", detail: "Nabywca nie istnieje" }, flakyBuyer: { nip: "9512345678", failures: 2 } });
    return {
      network: ksefNetwork({ baseUrl: fake.url, credentials: { nip: NIP, token: TOKEN }, pollIntervalMs: 20 }),
      deliverable: { scheme: "9945", value: "PL5213017228" },
      unreachable: { scheme: "9945", value: "PL7740001454" },
      flaky: { scheme: "9945", value: "PL9512345678" },
      flakyFailures: 2,
      close: () => fake.close(),
    };
  },
  {
    route: "ksef",
    document: (recipient, number) => bytes(ublInvoice({ id: `FV/${number}`, buyerVat: recipient.value, lines: [line] }).xml),
    // VAT category L (Canary Islands IGIC) has no FA(3) rate code.
    refused: bytes(ublInvoice({ id: "FV/REFUSED", lines: [{ ...line, cat: { id: "L", percent: "7" } }] }).xml),
  },
);
