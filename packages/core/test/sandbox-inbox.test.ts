// The sandbox between two companies: what A sends on Peppol to an identifier B receives on lands in B's inbox, once;
// and the companies' participant identifiers (set by an operator, unique across companies).
import { describe, expect, it } from "vitest";
import {
  createDispatcher,
  getCompany,
  getInvoice,
  listInvoices,
  memoryStore,
  sandboxInbox,
  sandboxNetwork,
  submitInvoice,
  updateCompany,
  type Store,
} from "../src/index.js";
import { failure } from "./support/errors.js";
import { setup } from "./support/setup.js";
import { b64, invoiceXml } from "./support/ubl.js";

async function twoCompanies() {
  const store = memoryStore();
  const a = await setup({ store });
  const b = await setup({ store });
  return { store, a, b };
}

describe("sandbox inbox", () => {
  it("delivers A's invoice to B, who receives on its recipient (compared without case), once however often it is delivered", async () => {
    const { store, a, b } = await twoCompanies();
    const view = await updateCompany(store, b.companyId, { participantIds: ["0106:abc123", "0106:ABC123", "0208:0123456749"] }, b.options);
    expect(view.participantIds).toEqual(["0106:abc123", "0208:0123456749"]);
    // Sorted whatever order they were given in (every store answers the same).
    const reordered = await updateCompany(store, b.companyId, { participantIds: ["0208:0123456749", "0106:ABC123"] }, b.options);
    expect(reordered.participantIds).toEqual(["0106:abc123", "0208:0123456749"]);
    const inbox = sandboxInbox(store, a.options);
    const network = sandboxNetwork({ delayMs: 0, inbox });
    const dispatcher = createDispatcher({ store, networks: { peppol: network, ksef: network }, clock: a.clock.now, owner: "d" });
    const { submissionId } = await submitInvoice(store, a.auth, { xml: b64(invoiceXml({ id: "A-1", scheme: "0106", endpoint: "AbC123" })), targetNetwork: "peppol" }, a.options);
    await dispatcher.runOnce();
    expect((await getInvoice(store, a.auth, submissionId)).status).toBe("delivered");
    const received = (await listInvoices(store, b.auth, { direction: "inbound" })).data;
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ direction: "inbound", status: "received", invoiceNumber: "A-1", networkReference: { submissionId }, valid: true, network: "peppol" });
    // A sees no inbound record, B no outbound one.
    expect((await listInvoices(store, a.auth, { direction: "inbound" })).data).toEqual([]);
    expect((await listInvoices(store, b.auth, { direction: "outbound" })).data).toEqual([]);
    // Delivered again (a restarted sandbox that forgot its keys): nothing added.
    const again = sandboxNetwork({ delayMs: 0, inbox });
    const req = {
      submissionId,
      idempotencyKey: submissionId,
      document: new Uint8Array(Buffer.from(invoiceXml({ id: "A-1", scheme: "0106", endpoint: "AbC123" }))),
      model: () => {
        throw new Error("not read");
      },
      routing: { network: "peppol" as const, recipient: { scheme: "0106", value: "ABC123" } },
      companyId: a.companyId,
      legalEntityId: "LE-1",
      attempt: 2,
      state: null,
      saveState: async () => undefined,
    };
    expect((await again.send(req)).outcome).toBe("delivered");
    expect((await listInvoices(store, b.auth, { direction: "inbound" })).data).toHaveLength(1);
    // An identifier nobody receives on: delivered to the sandbox only.
    expect((await again.send({ ...req, submissionId: "x", idempotencyKey: "x", routing: { network: "peppol", recipient: { scheme: "0106", value: "nobody" } } })).outcome).toBe("delivered");
    expect((await listInvoices(store, b.auth, { direction: "inbound" })).data).toHaveLength(1);
  });

  it("answers retry, not delivered, when the inbox cannot store", async () => {
    const { store, a, b } = await twoCompanies();
    await updateCompany(store, b.companyId, { participantIds: ["0106:abc123"] }, b.options);
    const broken = Object.assign(Object.create(store) as typeof store, {
      insertInbound: async () => {
        throw new Error("database down");
      },
    });
    const network = sandboxNetwork({ delayMs: 0, inbox: sandboxInbox(broken) });
    const outcome = await network.send({
      submissionId: "s-1",
      idempotencyKey: "s-1",
      document: new Uint8Array(Buffer.from(invoiceXml())),
      model: () => {
        throw new Error("not read");
      },
      routing: { network: "peppol", recipient: { scheme: "0106", value: "abc123" } },
      companyId: a.companyId,
      legalEntityId: "LE-1",
      attempt: 1,
      state: null,
      saveState: async () => undefined,
    });
    expect(outcome.outcome).toBe("retry");
    expect(network.delivered.size).toBe(0);
  });
});

describe("participant identifiers", () => {
  it("keeps them with the company, refuses one another company has with 409 participant_id_taken naming it, changing nothing", async () => {
    const { store, a, b } = await twoCompanies();
    await updateCompany(store, a.companyId, { participantIds: ["0208:0123456749"] }, a.options);
    expect((await getCompany(store, a.companyId)).participantIds).toEqual(["0208:0123456749"]);
    const e = await failure(updateCompany(store, b.companyId, { participantIds: ["0106:free", "0208:0123456749"], enterprise: false }, b.options));
    expect([e.status, e.code]).toEqual([409, "participant_id_taken"]);
    expect(e.message).toContain("0208:0123456749");
    expect(e.message).not.toContain(a.companyId);
    const after = await getCompany(store, b.companyId);
    expect(after.participantIds).toEqual([]);
    expect(after.enterprise).toBe(true);
    // Released by A, free for B.
    await updateCompany(store, a.companyId, { participantIds: [] }, a.options);
    expect((await updateCompany(store, b.companyId, { participantIds: ["0208:0123456749"] }, b.options)).participantIds).toEqual(["0208:0123456749"]);
  });

  it("refuses malformed identifiers with a 400, and says so clearly on a store without an inbox", async () => {
    const { store, a } = await twoCompanies();
    expect((await failure(updateCompany(store, a.companyId, { participantIds: ["nocolon"] }, a.options))).status).toBe(400);
    const plain: Store = { ...store, name: "plain" };
    delete (plain as Partial<typeof store>).insertInbound;
    delete (plain as Partial<typeof store>).setParticipantIds;
    const e = await failure(updateCompany(plain, a.companyId, { participantIds: ["0106:x"] }, a.options));
    expect(e.code).toBe("internal_error");
    expect(e.message).toContain("keeps no inbox");
  });
});
