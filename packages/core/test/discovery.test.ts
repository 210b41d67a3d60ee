import { describe, expect, it, vi } from "vitest";
import {
  cachedDiscovery,
  closeInvoiceWorkers,
  configureInvoiceWorkers,
  DEFAULT_WORKER_THRESHOLD,
  readInvoiceAsync,
  createDispatcher,
  DiscoveryError,
  documentTypeOf,
  getInvoice,
  lookupParticipant,
  memoryStore,
  sandboxDiscovery,
  sandboxNetwork,
  submitInvoice,
  SANDBOX_DOCUMENT_TYPES,
  type DiscoveryPort,
  type ParticipantLookup,
} from "../src/index.js";
import { testDiscovery } from "../src/testing/index.js";
import { setup } from "./support/setup.js";
import { b64, invoiceXml, type InvoiceOptions } from "./support/ubl.js";

const BILLING = "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0";
const INVOICE_DOCTYPE = `busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##${BILLING}::2.1`;

/** invoiceXml with a Peppol BIS Billing 3.0 CustomizationID and ProfileID. */
function bisInvoice(o: InvoiceOptions = {}, customization = BILLING): string {
  const xml = invoiceXml(o);
  if (xml.includes("CustomizationID")) return xml;
  return xml.replace(
    /(<Invoice [^>]*>)/,
    `$1\n  <cbc:CustomizationID>${customization}</cbc:CustomizationID>\n  <cbc:ProfileID>urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</cbc:ProfileID>`,
  );
}

testDiscovery("sandbox", () => ({
  discovery: sandboxDiscovery(),
  documentType: INVOICE_DOCTYPE,
  registered: { scheme: "0106", value: "12345678" },
  unregistered: { scheme: "0106", value: "unregistered-1" },
  withoutDocumentType: { scheme: "0106", value: "nodoctype-1" },
}));

/** A discovery that counts calls and answers from a function (which may throw or wait). */
function scripted(answer: (value: string, calls: number) => Promise<ParticipantLookup> | ParticipantLookup): DiscoveryPort & { calls: number } {
  const port = {
    name: "scripted",
    calls: 0,
    async lookup(p: { scheme: string; value: string }) {
      port.calls++;
      return answer(p.value, port.calls);
    },
  };
  return port;
}
const yes = (value: string): ParticipantLookup => ({ participantId: `0106:${value}`, registered: true, documentTypes: [INVOICE_DOCTYPE], endpoint: null });
const no = (value: string): ParticipantLookup => ({ participantId: `0106:${value}`, registered: false, documentTypes: [], endpoint: null });

describe("document type of a submission", () => {
  it("is the busdox-docid-qns identifier from the root, CustomizationID and UBL 2.1, with the ProfileID as process", () => {
    expect(documentTypeOf(Buffer.from(bisInvoice()))).toEqual({
      id: INVOICE_DOCTYPE,
      processId: "cenbii-procid-ubl::urn:fdc:peppol.eu:2017:poacc:billing:01:1.0",
    });
    expect(SANDBOX_DOCUMENT_TYPES).toContain(INVOICE_DOCTYPE);
  });

  it("is read the same on a worker thread (a large document's path)", async () => {
    configureInvoiceWorkers({ threshold: 0 });
    try {
      const doc = await readInvoiceAsync(b64(bisInvoice()));
      expect(doc.peppolDocumentType?.id).toBe(INVOICE_DOCTYPE);
    } finally {
      configureInvoiceWorkers({ threshold: DEFAULT_WORKER_THRESHOLD });
      await closeInvoiceWorkers();
    }
  });

  it("is null without a CustomizationID, and for bytes that are not XML", () => {
    expect(documentTypeOf(Buffer.from(invoiceXml().replace(/<cbc:CustomizationID>.*?<\/cbc:CustomizationID>/, "")))).toBeNull();
    expect(documentTypeOf(Buffer.from([0xff, 0xfe, 0x00]))).toBeNull();
  });
});

describe("cachedDiscovery", () => {
  it("keeps a registered answer for its TTL, then asks again", async () => {
    let t = 0;
    const port = scripted((v) => yes(v));
    const d = cachedDiscovery(port, { ttlMs: 1000, now: () => t });
    await d.lookup({ scheme: "0106", value: "a" });
    await d.lookup({ scheme: "0106", value: "A" });
    expect(port.calls).toBe(1);
    t = 1001;
    await d.lookup({ scheme: "0106", value: "a" });
    expect(port.calls).toBe(2);
  });

  it("keeps a not-registered answer for the negative TTL", async () => {
    let t = 0;
    const port = scripted((v) => no(v));
    const d = cachedDiscovery(port, { ttlMs: 10_000, negativeTtlMs: 100, now: () => t });
    expect((await d.lookup({ scheme: "0106", value: "x" })).registered).toBe(false);
    await d.lookup({ scheme: "0106", value: "x" });
    expect(port.calls).toBe(1);
    t = 101;
    await d.lookup({ scheme: "0106", value: "x" });
    expect(port.calls).toBe(2);
  });

  it("never keeps a failure, and turns an adapter's error into a DiscoveryError", async () => {
    const port = scripted((v, n) => {
      if (n === 1) throw new TypeError("boom");
      return yes(v);
    });
    const d = cachedDiscovery(port);
    const err = await d.lookup({ scheme: "0106", value: "x" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DiscoveryError);
    expect((err as DiscoveryError).kind).toBe("unreachable");
    expect((await d.lookup({ scheme: "0106", value: "x" })).registered).toBe(true);
    expect(port.calls).toBe(2);
  });

  it("times out a lookup whose adapter never answers, and aborts the adapter's signal", async () => {
    let aborted = false;
    const port: DiscoveryPort = {
      name: "stuck",
      lookup: (_p, _t, o) =>
        new Promise(() => {
          o?.signal?.addEventListener("abort", () => (aborted = true));
        }),
    };
    // On fake timers: the deadline is checked on the timer's own clock, not on a busy machine's.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      let settled = false;
      const lookup = cachedDiscovery(port, { timeoutMs: 50 })
        .lookup({ scheme: "0106", value: "x" })
        .catch((e: unknown) => e)
        .finally(() => (settled = true));
      await vi.advanceTimersByTimeAsync(49);
      expect(settled, "still waiting 1 ms before the timeout").toBe(false);
      expect(aborted).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      const err = await lookup;
      expect(err).toBeInstanceOf(DiscoveryError);
      expect((err as DiscoveryError).kind).toBe("timeout");
      expect((err as DiscoveryError).message).toBe("The stuck lookup took longer than 50 ms.");
      expect(aborted).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it("shares one call between concurrent lookups of the same participant and document type", async () => {
    const port = scripted(async (v) => {
      await new Promise((r) => setTimeout(r, 20));
      return yes(v);
    });
    const d = cachedDiscovery(port);
    await Promise.all(Array.from({ length: 10 }, () => d.lookup({ scheme: "0106", value: "x" }, INVOICE_DOCTYPE)));
    expect(port.calls).toBe(1);
  });
});

async function world(discovery: DiscoveryPort | undefined, country = "NL") {
  const store = memoryStore();
  const s = await setup({ store, country });
  const options = { ...s.options, ...(discovery ? { discovery } : {}) };
  const network = sandboxNetwork({ delayMs: 0 });
  const dispatcher = createDispatcher({
    store,
    networks: { peppol: network, ksef: network },
    clock: () => s.clock.now(),
    random: () => 1,
    ...(discovery ? { discovery } : {}),
  });
  const submit = (o: InvoiceOptions & { targetNetwork?: "auto" | "peppol" | "ksef" }, customization?: string) =>
    submitInvoice(store, s.auth, { xml: b64(bisInvoice(o, customization)), ...(o.targetNetwork ? { targetNetwork: o.targetNetwork } : {}) }, options);
  return { ...s, store, network, dispatcher, submit, get: (id: string) => getInvoice(store, s.auth, id) };
}

describe("submit with participant discovery (contract row 11)", () => {
  it("fails a recipient that is not registered on Peppol, on auto and on peppol", async () => {
    const w = await world(sandboxDiscovery());
    for (const targetNetwork of ["auto", "peppol"] as const) {
      const r = await w.submit({ id: `U-${targetNetwork}`, scheme: "0106", endpoint: "unregistered-7", targetNetwork });
      expect(r).toMatchObject({ success: false, status: "failed", errorMessage: expect.stringContaining("recipient 0106:unregistered-7 is not registered on Peppol") });
      expect((await w.get(r.submissionId)).network).toBeNull();
    }
  });

  it("fails a registered recipient that does not accept the document type, naming the type", async () => {
    const w = await world(sandboxDiscovery());
    const r = await w.submit({ scheme: "0106", endpoint: "nodoctype-7" });
    expect(r.status).toBe("failed");
    expect(r.errorMessage).toContain("recipient 0106:nodoctype-7 is registered on Peppol but does not accept the document type");
    expect(r.errorMessage).toContain(INVOICE_DOCTYPE);
  });

  it("accepts a registered recipient, and the dispatcher delivers it", async () => {
    const w = await world(sandboxDiscovery());
    const r = await w.submit({ scheme: "0106", endpoint: "12345678" });
    expect(r.status).toBe("sending");
    await w.dispatcher.runOnce();
    expect((await w.get(r.submissionId)).status).toBe("delivered");
  });

  it("sends a company in PL to KSeF on auto without a Peppol lookup", async () => {
    const port = scripted((v) => no(v));
    const w = await world(port, "PL");
    const r = await w.submit({ scheme: "9945", endpoint: "5260250274", sellerVat: "PL5260250995", sellerCountry: "PL" });
    expect(r.status).toBe("sending");
    expect((await w.get(r.submissionId)).network).toBe("ksef");
    expect(port.calls).toBe(0);
  });

  it("without discovery, an unregistered-looking recipient is accepted as before", async () => {
    const w = await world(undefined);
    expect((await w.submit({ scheme: "0106", endpoint: "unregistered-7" })).status).toBe("sending");
  });

  it("a lookup that fails accepts the submission as sending and says so in the event; the dispatcher looks again and delivers", async () => {
    let down = true;
    const port = scripted((v) => {
      if (down) throw new DiscoveryError("unreachable", "The SMP could not be reached.");
      return yes(v);
    });
    const w = await world(port);
    const r = await w.submit({ scheme: "0106", endpoint: "12345678" });
    expect(r.status).toBe("sending");
    let inv = await w.get(r.submissionId);
    expect(inv.events[0]!.detail).toMatch(/participant lookup failed \(The SMP could not be reached\.\); the dispatcher looks again before each attempt/);

    await w.dispatcher.runOnce();
    inv = await w.get(r.submissionId);
    expect(inv.status).toBe("sending");
    expect(inv.events.at(-1)!.detail).toMatch(/Attempt 1 on peppol failed: The Peppol participant lookup failed/);
    expect(w.network.calls.get(r.submissionId)).toBeUndefined();

    down = false;
    w.clock.advance(3_600_000);
    await w.dispatcher.runOnce();
    inv = await w.get(r.submissionId);
    expect(inv.status).toBe("delivered");
    expect(w.network.calls.get(r.submissionId)).toBe(1);
  });

  it("a slow lookup does not hold the submission longer than the timeout", async () => {
    // The lookup answers only when the test says so: the submission coming back while it is still
    // pending shows it did not wait for the lookup (an event, not a stopwatch).
    let answer: (() => void) | undefined;
    let answered = false;
    const port: DiscoveryPort = {
      name: "slow",
      lookup: () =>
        new Promise((r) => {
          answer = () => {
            answered = true;
            r(yes("x"));
          };
        }),
    };
    const w = await world(cachedDiscovery(port, { timeoutMs: 100 }));
    const r = await w.submit({ scheme: "0106", endpoint: "12345678" });
    expect(answer, "the lookup was asked").toBeTypeOf("function");
    expect(answered, "the submission came back before the lookup answered").toBe(false);
    expect(r.status).toBe("sending");
    expect((await w.get(r.submissionId)).events[0]!.detail).toMatch(/longer than 100 ms/);
    answer!();
  });

  it("the dispatcher fails a submission whose recipient left Peppol after it was accepted", async () => {
    let registered = true;
    const port = scripted((v) => (registered ? yes(v) : no(v)));
    const w = await world(cachedDiscovery(port, { ttlMs: 0 }));
    const r = await w.submit({ scheme: "0106", endpoint: "12345678" });
    expect(r.status).toBe("sending");
    registered = false;
    await w.dispatcher.runOnce();
    const inv = await w.get(r.submissionId);
    expect(inv).toMatchObject({ status: "failed", errorMessage: expect.stringContaining("is not registered on Peppol") });
    expect(w.network.calls.get(r.submissionId)).toBeUndefined();
  });
});

describe("the dispatcher reads the document type from the record, not from the document", () => {
  /** A discovery that answers registered and remembers the document type of each lookup. */
  function recording() {
    const asked: Array<string | undefined> = [];
    const port: DiscoveryPort = {
      name: "recording",
      async lookup(p, documentType) {
        asked.push(documentType);
        return { ...yes(p.value), documentTypes: documentType ? [documentType] : [] };
      },
    };
    return { port, asked };
  }
  /** The world's store, with claimDeliveries handing the dispatcher jobs changed by `edit`. */
  async function worldWith(port: DiscoveryPort, edit: (job: Awaited<ReturnType<ReturnType<typeof memoryStore>["claimDeliveries"]>>[number]) => void) {
    const w = await world(undefined);
    const store = w.store;
    const claim = store.claimDeliveries.bind(store);
    store.claimDeliveries = async (input) => (await claim(input)).map((job) => (edit(job), job));
    const dispatcher = createDispatcher({ store, networks: { peppol: w.network, ksef: w.network }, clock: () => w.clock.now(), random: () => 1, discovery: port });
    return { ...w, dispatcher };
  }

  it("stores the Peppol document type, its process and the rule sets applied with the submission", async () => {
    const w = await world(sandboxDiscovery());
    const r = await w.submit({ scheme: "0106", endpoint: "12345678" });
    const record = await w.store.getInvoice(w.companyId, r.submissionId);
    expect(record!.facts).toEqual({
      peppolDocumentType: { id: INVOICE_DOCTYPE, processId: "cenbii-procid-ubl::urn:fdc:peppol.eu:2017:poacc:billing:01:1.0" },
      ruleSets: ["CEN-EN16931-UBL-2026.5", "PEPPOL-EN16931-UBL-2026.5"],
    });
    // Internal: the public view does not carry it.
    expect(await w.get(r.submissionId)).not.toHaveProperty("facts");
  });

  it("asks discovery for the stored document type before an attempt (the document is not read again)", async () => {
    const { port, asked } = recording();
    const stored = "busdox-docid-qns::stored-at-submit::2.1";
    const w = await worldWith(port, (job) => {
      job.invoice.facts = { peppolDocumentType: { id: stored, processId: null }, ruleSets: [] };
    });
    const r = await w.submit({ scheme: "0106", endpoint: "12345678" });
    await w.dispatcher.runOnce();
    expect(asked).toEqual([stored]);
    expect((await w.get(r.submissionId)).status).toBe("delivered");
  });

  it("reads the document for a record stored before the facts were kept", async () => {
    const { port, asked } = recording();
    const w = await worldWith(port, (job) => {
      delete job.invoice.facts;
    });
    await w.submit({ scheme: "0106", endpoint: "12345678" });
    await w.dispatcher.runOnce();
    expect(asked).toEqual([INVOICE_DOCTYPE]);
  });
});

describe("lookupParticipant", () => {
  it("answers registered, document types and the endpoint for the type asked (full form or value alone)", async () => {
    const full = await lookupParticipant(sandboxDiscovery(), "0208:0123456789", { documentType: INVOICE_DOCTYPE });
    expect(full).toMatchObject({ participantId: "0208:0123456789", registered: true, endpoint: { documentType: INVOICE_DOCTYPE } });
    const bare = await lookupParticipant(sandboxDiscovery(), "0208:0123456789", { documentType: INVOICE_DOCTYPE.slice("busdox-docid-qns::".length) });
    expect(bare.endpoint?.documentType).toBe(INVOICE_DOCTYPE);
  });

  it("400 for a malformed identifier or an unknown scheme; 502 participant_lookup_failed when the lookup fails", async () => {
    for (const bad of ["0208", "0208:", "abcd:123", "0208:a b", ":123"]) {
      await expect(lookupParticipant(sandboxDiscovery(), bad)).rejects.toMatchObject({ code: "bad_request", status: 400 });
    }
    await expect(lookupParticipant(sandboxDiscovery(), "1234:5678")).rejects.toMatchObject({ code: "bad_request", message: expect.stringMatching(/scheme 1234/) });
    await expect(lookupParticipant(sandboxDiscovery(), "0208:0123456789", { other: "x" })).rejects.toMatchObject({ code: "bad_request" });
    const failing = scripted(() => {
      throw new DiscoveryError("timeout", "The SMP took too long.");
    });
    await expect(lookupParticipant(failing, "0208:0123456789")).rejects.toMatchObject({ code: "participant_lookup_failed", status: 502 });
  });
});
