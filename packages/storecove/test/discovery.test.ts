import { DiscoveryError } from "@einvoice/core";
import { testDiscovery } from "@einvoice/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storecoveDiscovery, storecoveDocumentType, STORECOVE_DOCUMENT_TYPES } from "../src/index.js";
import { startFakeStorecove, type FakeStorecove } from "./support/fake-storecove.js";

const INVOICE = STORECOVE_DOCUMENT_TYPES.invoice![0]!;

testDiscovery("storecove (against a local fake of its API)", async () => {
  const fake = await startFakeStorecove();
  return {
    discovery: storecoveDiscovery({ baseUrl: fake.baseUrl, apiKey: fake.apiKey }),
    documentType: INVOICE,
    registered: { scheme: "0208", value: "0123456789" },
    unregistered: { scheme: "0208", value: "unregistered-1" },
    withoutDocumentType: { scheme: "0106", value: "nodoctype-1" },
    failing: { scheme: "0106", value: "discoverydown-1" },
    slow: { scheme: "0106", value: "slowdiscovery-1" },
    slowMs: 3000,
    endpoints: false,
    close: fake.close,
  };
});

describe("storecoveDiscovery", () => {
  let fake: FakeStorecove;
  beforeAll(async () => {
    fake = await startFakeStorecove();
  });
  afterAll(() => fake.close());

  it("sends a DiscoverableParticipant: network peppol, iso6523-actorid-upis, Storecove's scheme name, the identifier, the document type", async () => {
    await storecoveDiscovery({ baseUrl: fake.baseUrl, apiKey: fake.apiKey }).lookup({ scheme: "0208", value: "0123456789" }, INVOICE);
    expect(fake.discoveryRequests).toContainEqual({ network: "peppol", metaScheme: "iso6523-actorid-upis", scheme: "BE:EN", identifier: "0123456789" });
    expect(fake.discoveryRequests).toContainEqual({ network: "peppol", metaScheme: "iso6523-actorid-upis", scheme: "BE:EN", identifier: "0123456789", documentTypes: ["invoice"] });
  });

  it("maps BIS Billing invoices and credit notes to Storecove's invoice, orders to order, and nothing else", () => {
    expect(STORECOVE_DOCUMENT_TYPES.invoice!.map(storecoveDocumentType)).toEqual(["invoice", "invoice"]);
    expect(storecoveDocumentType("busdox-docid-qns::urn:other::X##y::2.1")).toBeNull();
  });

  it("a document type Storecove has no kind for, or a wrong API key, is a lookup failure", async () => {
    const d = storecoveDiscovery({ baseUrl: fake.baseUrl, apiKey: fake.apiKey });
    await expect(d.lookup({ scheme: "0208", value: "0123456789" }, "busdox-docid-qns::urn:other::X##y::2.1")).rejects.toBeInstanceOf(DiscoveryError);
    const bad = storecoveDiscovery({ baseUrl: fake.baseUrl, apiKey: "wrong" });
    await expect(bad.lookup({ scheme: "0208", value: "0123456789" })).rejects.toMatchObject({ kind: "unreachable", message: expect.stringContaining("401") });
  });
});
