// testNetwork: the network port's conformance suite. Run it against every NetworkPort.
import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NetworkPort, SendOutcome, SendRequest } from "../ports/network.js";
import type { Network, ParticipantId } from "../domain/types.js";
import { documentModel } from "../workers/send-request.js";

/** What a network under test offers: the port and recipients that lead to each outcome. */
export interface NetworkFixture {
  network: NetworkPort;
  /** A recipient the network delivers to. */
  deliverable: ParticipantId;
  /** A recipient the network refuses for good. */
  unreachable: ParticipantId;
  /** A recipient whose first attempts fail transiently, then succeed. */
  flaky: ParticipantId;
  /** How many transient failures `flaky` gives before it delivers. */
  flakyFailures: number;
  close?: () => Promise<void>;
}

export type NetworkFactory = () => NetworkFixture | Promise<NetworkFixture>;

/** For a network that reads the document it sends (KSeF maps it to FA(3)); the defaults suit one that passes it on. */
export interface NetworkSuiteOptions {
  /**
   * The document of each request: a UBL invoice the network can carry, addressed to `recipient`,
   * numbered `number` (fresh for each request). By default an empty UBL `<Invoice/>`.
   */
  document?: (recipient: ParticipantId, number: string) => Uint8Array;
  /**
   * A document the network cannot carry (for KSeF: one that does not map to FA(3)): sent to the
   * deliverable recipient, it must fail for good with a reason. Without it, that check is not made.
   */
  refused?: Uint8Array;
  /** The route of the requests (`routing.network`); "peppol" by default. */
  route?: Network;
}

const DOC = new TextEncoder().encode('<?xml version="1.0" encoding="UTF-8"?><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>');

/** What the networks under test saved with `saveState`, by submission: the dispatcher's store, in short. */
const saved = new Map<string, string>();

function request(recipient: ParticipantId, over: Partial<SendRequest> = {}): SendRequest {
  const id = randomUUID();
  const document = over.document ?? DOC;
  return {
    submissionId: id,
    idempotencyKey: id,
    document,
    model: documentModel(document),
    routing: { network: "peppol", recipient },
    companyId: "00000000-0000-4000-8000-000000000001",
    legalEntityId: "12345",
    attempt: 1,
    state: null,
    saveState: async (state) => {
      expect(typeof state).toBe("string");
      saved.set(id, state);
    },
    ...over,
  };
}

/** The next attempt of `req`, as a dispatcher makes it: with what the earlier attempts saved. */
function again(req: SendRequest, attempt: number): SendRequest {
  return { ...req, attempt, state: saved.get(req.submissionId) ?? null };
}

/** A delivered outcome's evidence, when there is one, keeps the port's shape. */
function expectEvidenceShape(o: SendOutcome): void {
  if (o.outcome !== "delivered" || o.evidence === undefined) return;
  expect(o.evidence).toEqual({
    kind: expect.any(String),
    mediaType: expect.stringMatching(/^[\w.+-]+\/[\w.+-]+/),
    content: expect.any(String),
    reference: o.evidence.reference === null ? null : expect.any(String),
    documentHash: o.evidence.documentHash === null ? null : expect.any(String),
  });
  expect(o.evidence.content.length).toBeGreaterThan(0);
}

function expectReason(o: SendOutcome): void {
  if (o.outcome !== "delivered") {
    expect(typeof o.reason).toBe("string");
    expect(o.reason.length).toBeGreaterThan(5);
  }
}

/**
 * Registers a vitest `describe` block that checks a network adapter against the port's contract:
 * the three outcomes, a reason for every failure, idempotent resends, no throws.
 *
 * @example testNetwork("sandbox", () => ({ network: sandboxNetwork({ delayMs: 0 }), deliverable, unreachable, flaky, flakyFailures: 2 }))
 */
export function testNetwork(name: string, factory: NetworkFactory, options: NetworkSuiteOptions = {}): void {
  /** A request to `recipient` carrying the suite's document (or `document`) on the suite's route. */
  const to = (recipient: ParticipantId, document?: Uint8Array): SendRequest =>
    request(recipient, { document: document ?? options.document?.(recipient, randomUUID().slice(0, 8).toUpperCase()) ?? DOC, routing: { network: options.route ?? "peppol", recipient } });
  describe(`network conformance: ${name}`, () => {
    let f: NetworkFixture;
    beforeEach(async () => {
      f = await factory();
    });
    afterEach(async () => {
      await f.close?.();
    });

    it("delivers to a deliverable recipient, with evidence of the port's shape when it gives any", async () => {
      const o = await f.network.send(to(f.deliverable));
      expect(o.outcome).toBe("delivered");
      expectEvidenceShape(o);
    });

    it("answers a resend with the same idempotency key as delivered again, without failing", async () => {
      const req = to(f.deliverable);
      expect((await f.network.send(req)).outcome).toBe("delivered");
      expect((await f.network.send(again(req, 2))).outcome).toBe("delivered");
    });

    it("fails permanently, with a reason, for an unreachable recipient", async () => {
      const o = await f.network.send(to(f.unreachable));
      expect(o.outcome).toBe("failed");
      expectReason(o);
    });

    it("asks to retry, with a reason, while a flaky recipient fails, then delivers", async () => {
      const req = to(f.flaky);
      for (let attempt = 1; attempt <= f.flakyFailures; attempt++) {
        const o = await f.network.send(again(req, attempt));
        expect(o.outcome).toBe("retry");
        expectReason(o);
      }
      expect((await f.network.send(again(req, f.flakyFailures + 1))).outcome).toBe("delivered");
    });

    if (options.refused) {
      const refused = options.refused;
      it("fails permanently, with a reason, for a document it cannot carry, even to a deliverable recipient", async () => {
        const o = await f.network.send(to(f.deliverable, refused));
        expect(o.outcome).toBe("failed");
        expectReason(o);
      });
    }

    it("names itself for the dispatcher's messages (\"The <name> network call failed\"): one trimmed line of at most 40 characters, the same after sending", async () => {
      const name = f.network.name;
      expect(name).toMatch(/^\S(?:[^\r\n]{0,38}\S)?$/);
      await f.network.send(to(f.deliverable));
      expect(f.network.name).toBe(name);
    });
  });
}
