// What the dispatcher hands a network with each attempt beside the record (issue 27, item 5): the
// document's model, and on the ksef route the company's KSeF credential read with its tokenCipher, so
// that a network neither parses the document again nor asks the core for a secret.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createDispatcher, getInvoice, memoryStore, sandboxNetwork, submitCreditNote, submitInvoice, tokenCipher, updateCompany, type NetworkPort, type SendOutcome, type SendRequest, type TokenCipher } from "../src/index.js";
import { CORPUS_DIR } from "./support/corpus.js";
import { setup } from "./support/setup.js";
import { b64, invoiceXml } from "./support/ubl.js";

const NIP = "5260250995";
const TOKEN = "20261122-EC-0123456789-ABCDEF0123-45|nip-5260250995|0123456789abcdef";

/** A company in PL with one invoice on the ksef route, a recording network, and a dispatcher with `cipher` (or none). */
async function world(opts: { cipher?: TokenCipher; storedWith?: TokenCipher | null } = {}) {
  const store = memoryStore();
  const s = await setup({ store, country: "PL" });
  const storedWith = opts.storedWith === undefined ? opts.cipher : opts.storedWith;
  if (storedWith) await updateCompany(store, s.companyId, { ksef: { nip: NIP, token: TOKEN } }, { ...s.options, tokenCipher: storedWith });
  const sent: SendRequest[] = [];
  const sandbox = sandboxNetwork({ delayMs: 0 });
  const recording: NetworkPort = { name: "recording", send: async (r) => (sent.push(r), sandbox.send(r)) };
  const logs: { level: string; obj: Record<string, unknown>; msg: string }[] = [];
  const logger = {
    error: (obj: Record<string, unknown>, msg: string) => void logs.push({ level: "error", obj, msg }),
    warn: (obj: Record<string, unknown>, msg: string) => void logs.push({ level: "warn", obj, msg }),
    info: (obj: Record<string, unknown>, msg: string) => void logs.push({ level: "info", obj, msg }),
  };
  const dispatcher = createDispatcher({ store, networks: { peppol: recording, ksef: recording }, clock: () => s.clock.now(), random: () => 1, owner: "d1", logger, ...(opts.cipher ? { tokenCipher: opts.cipher } : {}) });
  const xml = b64(invoiceXml({ id: "FV/1", scheme: "9945", endpoint: "PL5213017228", sellerVat: `PL${NIP}`, sellerCountry: "PL" }));
  const { submissionId } = await submitInvoice(store, s.auth, { xml, targetNetwork: "ksef" }, s.options);
  return { ...s, store, sent, logs, dispatcher, submissionId };
}

describe("the send request: what the dispatcher hands a network", () => {
  it("carries the company's KSeF credential, its token decrypted, on the ksef route when the dispatcher has the tokenCipher", async () => {
    const cipher = tokenCipher(randomBytes(32));
    const w = await world({ cipher });
    expect(await w.dispatcher.runOnce()).toBe(1);
    expect(w.sent).toHaveLength(1);
    expect(w.sent[0]!.routing.network).toBe("ksef");
    expect(w.sent[0]!.ksefCredential).toEqual({ nip: NIP, token: TOKEN });
    expect((await getInvoice(w.store, w.auth, w.submissionId)).status).toBe("delivered");
  });

  it("carries null for a company without a credential, and no credential field without a tokenCipher", async () => {
    const cipher = tokenCipher(randomBytes(32));
    const none = await world({ cipher, storedWith: null });
    await none.dispatcher.runOnce();
    expect(none.sent[0]!.ksefCredential).toBeNull();
    const without = await world({ storedWith: cipher });
    await without.dispatcher.runOnce();
    expect("ksefCredential" in without.sent[0]!).toBe(false);
  });

  it("carries no credential on the peppol route", async () => {
    const cipher = tokenCipher(randomBytes(32));
    const store = memoryStore();
    const s = await setup({ store });
    await updateCompany(store, s.companyId, { ksef: { nip: NIP, token: TOKEN } }, { ...s.options, tokenCipher: cipher });
    const sent: SendRequest[] = [];
    const sandbox = sandboxNetwork({ delayMs: 0 });
    const net: NetworkPort = { name: "recording", send: async (r) => (sent.push(r), sandbox.send(r)) };
    await submitInvoice(store, s.auth, { xml: b64(invoiceXml({ id: "NL-1", endpoint: "0123456789", scheme: "0106" })) }, s.options);
    await createDispatcher({ store, networks: { peppol: net }, clock: () => s.clock.now(), tokenCipher: cipher }).runOnce();
    expect(sent).toHaveLength(1);
    expect("ksefCredential" in sent[0]!).toBe(false);
  });

  it("a token the cipher cannot read retries the attempt without calling the network: the event says what the operator must do, the log says which key, neither holds the token", async () => {
    const w = await world({ cipher: tokenCipher(randomBytes(32)), storedWith: tokenCipher(randomBytes(32)) });
    await w.dispatcher.runOnce();
    expect(w.sent).toHaveLength(0);
    const inv = await getInvoice(w.store, w.auth, w.submissionId);
    expect(inv.status).toBe("sending");
    expect(inv.events.at(-1)!.detail).toMatch(/^Attempt 1 on ksef failed: the company's KSeF token can no longer be read by this server: the operator must set the company's NIP and KSeF token again with PATCH \/admin\/companies\/\{id\}/);
    const warned = w.logs.find((l) => l.msg === "a company's KSeF token cannot be read");
    expect(warned).toMatchObject({ level: "warn", obj: { submissionId: w.submissionId, companyId: w.companyId, detail: expect.stringContaining("another KSEF_TOKEN_KEY (key id") } });
    expect(JSON.stringify(w.logs)).not.toContain(TOKEN);
    expect(JSON.stringify(inv)).not.toContain(TOKEN);
  });

  it("the secret never reaches the logs or the events of a delivered attempt", async () => {
    const w = await world({ cipher: tokenCipher(randomBytes(32)) });
    await w.dispatcher.runOnce();
    expect(w.logs.some((l) => l.msg === "delivery delivered")).toBe(true);
    expect(JSON.stringify(w.logs)).not.toContain(TOKEN);
    expect(JSON.stringify(await getInvoice(w.store, w.auth, w.submissionId))).not.toContain(TOKEN);
  });

  it("carries the document's model, read on the first call and the same tree after", async () => {
    const w = await world();
    await w.dispatcher.runOnce();
    const model = w.sent[0]!.model();
    expect(model.name).toBe("Invoice");
    expect(model.children.find((c) => c.qname === "cbc:ID")?.text).toBe("FV/1");
    expect(w.sent[0]!.model()).toBe(model);
  });

  it("for a credit note on ksef, carries the KSeF number this service got for each corrected invoice (null when none); while one is still being sent, retries without calling the network", async () => {
    const store = memoryStore();
    const s = await setup({ store, country: "PL" });
    const sent: SendRequest[] = [];
    let answer: SendOutcome = { outcome: "retry", reason: "KSeF is still processing" };
    const net: NetworkPort = { name: "recording", send: async (r) => (sent.push(r), r.correctedInvoices ? { outcome: "delivered" } : answer) };
    const dispatcher = createDispatcher({ store, networks: { ksef: net }, clock: () => s.clock.now(), random: () => 1 });
    // The invoice the credit note corrects (BT-25 123 of 2017-10-20), on its way to KSeF.
    const invoice = invoiceXml({ id: "123", scheme: "9945", endpoint: "PL5213017228", sellerVat: `PL${NIP}`, sellerCountry: "PL" }).replace("<cbc:IssueDate>2026-01-15</cbc:IssueDate>", "<cbc:IssueDate>2017-10-20</cbc:IssueDate>");
    const inv = await submitInvoice(store, s.auth, { xml: b64(invoice), targetNetwork: "ksef" }, s.options);
    const cn = readFileSync(`${CORPUS_DIR}/openpeppol-bis3/snippets/Snippet-cn.xml`, "utf8").replace('<cbc:EndpointID schemeID="0002">FR23342</cbc:EndpointID>', '<cbc:EndpointID schemeID="9945">PL5260250995</cbc:EndpointID>');
    const note = await submitCreditNote(store, s.auth, { xml: b64(cn), targetNetwork: "ksef" }, { ...s.options, ksefCorrections: true });
    await dispatcher.runOnce();
    expect(sent.map((r) => r.submissionId)).toEqual([inv.submissionId]);
    expect((await getInvoice(store, s.auth, note.submissionId)).events.at(-1)!.detail).toMatch(/the corrected invoice 123 of 2017-10-20 is still being delivered to KSeF \(submission /);
    answer = { outcome: "delivered", ksefNumber: "5260250995-20171020-0100A0B1C2D3-4E" };
    s.clock.advance(3_600_000);
    await dispatcher.runOnce();
    s.clock.advance(3_600_000);
    await dispatcher.runOnce();
    const forNote = sent.find((r) => r.submissionId === note.submissionId)!;
    expect(forNote.correctedInvoices).toEqual([
      { number: "123", issueDate: "2017-10-20", ksefNumber: "5260250995-20171020-0100A0B1C2D3-4E" },
      { number: "124", issueDate: "", ksefNumber: null },
    ]);
    expect("correctedInvoices" in sent[0]!).toBe(false);
  });
});
