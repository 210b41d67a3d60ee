// testDiscovery: the discovery port's conformance suite. Run it against every DiscoveryPort.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cachedDiscovery } from "../adapters/cached-discovery.js";
import { DiscoveryError, type DiscoveryPort, type ParticipantLookup } from "../ports/discovery.js";
import type { ParticipantId } from "../domain/types.js";

/** What a discovery under test offers: the port, and participants in each state it can answer. */
export interface DiscoveryFixture {
  discovery: DiscoveryPort;
  /** The document type (`busdox-docid-qns::...`) the suite asks about. */
  documentType: string;
  /** Registered, and accepts `documentType`. */
  registered: ParticipantId;
  /** Not registered. */
  unregistered: ParticipantId;
  /** Registered, but does not accept `documentType`. */
  withoutDocumentType: ParticipantId;
  /** A participant whose lookup cannot be made (its SMP is down, ...), when the adapter can show one. */
  failing?: ParticipantId;
  /** A participant whose lookup takes longer than `slowMs`, when the adapter can show one. */
  slow?: ParticipantId;
  slowMs?: number;
  /** Whether the adapter can tell endpoints (false for an access point's API that routes documents itself). Default true. */
  endpoints?: boolean;
  close?: () => Promise<void>;
}

export type DiscoveryFactory = () => DiscoveryFixture | Promise<DiscoveryFixture>;

const id = (p: ParticipantId) => `${p.scheme}:${p.value}`;

function expectShape(r: ParticipantLookup): void {
  expect(typeof r.participantId).toBe("string");
  expect(typeof r.registered).toBe("boolean");
  expect(Array.isArray(r.documentTypes)).toBe(true);
  for (const t of r.documentTypes) expect(t).toMatch(/^[a-z0-9-]+::/);
}

/**
 * Registers a vitest `describe` block that checks a discovery adapter against the port's contract:
 * registered / not registered / not for this document type, the endpoint only for the type asked,
 * case-insensitive identifiers, a failed lookup that rejects (never "not registered"), concurrency.
 *
 * @example testDiscovery("sandbox", () => ({ discovery: sandboxDiscovery(), documentType, registered, unregistered, withoutDocumentType }))
 * // or, unnamed: testDiscovery(() => ({ ... }))
 */
export function testDiscovery(factory: DiscoveryFactory): void;
export function testDiscovery(name: string, factory: DiscoveryFactory): void;
export function testDiscovery(nameOrFactory: string | DiscoveryFactory, maybeFactory?: DiscoveryFactory): void {
  const name = typeof nameOrFactory === "string" ? nameOrFactory : "adapter";
  const factory = typeof nameOrFactory === "string" ? maybeFactory! : nameOrFactory;
  describe(`discovery conformance: ${name}`, () => {
    let f: DiscoveryFixture;
    beforeAll(async () => {
      f = await factory();
    });
    afterAll(async () => {
      await f?.close?.();
    });

    it("a registered participant: registered, lists the document type, and has its endpoint for it", async () => {
      const r = await f.discovery.lookup(f.registered, f.documentType);
      expectShape(r);
      expect(r.participantId.toLowerCase()).toBe(id(f.registered).toLowerCase());
      expect(r.registered).toBe(true);
      expect(r.documentTypes).toContain(f.documentType);
      if (f.endpoints === false) {
        expect(r.endpoint).toBeNull();
        return;
      }
      expect(r.endpoint).not.toBeNull();
      expect(r.endpoint!.documentType).toBe(f.documentType);
      expect(r.endpoint!.url.length).toBeGreaterThan(0);
      expect(r.endpoint!.transportProfile.length).toBeGreaterThan(0);
    });

    it("without a document type: registered with its document types and no endpoint", async () => {
      const r = await f.discovery.lookup(f.registered);
      expectShape(r);
      expect(r.registered).toBe(true);
      expect(r.documentTypes).toContain(f.documentType);
      expect(r.endpoint).toBeNull();
    });

    it("an unregistered participant: not registered, no document types, no endpoint", async () => {
      const r = await f.discovery.lookup(f.unregistered, f.documentType);
      expectShape(r);
      expect(r).toMatchObject({ registered: false, documentTypes: [], endpoint: null });
    });

    it("a participant without the document type: registered, the type not listed, no endpoint", async () => {
      const r = await f.discovery.lookup(f.withoutDocumentType, f.documentType);
      expectShape(r);
      expect(r.registered).toBe(true);
      expect(r.documentTypes).not.toContain(f.documentType);
      expect(r.endpoint).toBeNull();
    });

    it("identifier values are case-insensitive (iso6523-actorid-upis)", async () => {
      const upper = { scheme: f.registered.scheme, value: f.registered.value.toUpperCase() };
      const r = await f.discovery.lookup(upper, f.documentType);
      expect(r.registered).toBe(true);
      expect(r.documentTypes).toContain(f.documentType);
    });

    it("concurrent lookups each get their own right answer", async () => {
      const asks = [f.registered, f.unregistered, f.withoutDocumentType];
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => f.discovery.lookup(asks[i % 3]!, f.documentType)));
      answers.forEach((r, i) => {
        const k = i % 3;
        expect(r.registered).toBe(k !== 1);
        expect(r.documentTypes.includes(f.documentType)).toBe(k === 0);
        expect(r.endpoint !== null).toBe(k === 0 && f.endpoints !== false);
      });
    });

    it("a lookup that cannot be made rejects: it is never reported as not registered", async (ctx) => {
      if (!f.failing) return ctx.skip();
      await expect(f.discovery.lookup(f.failing, f.documentType)).rejects.toBeInstanceOf(Error);
      await expect(cachedDiscovery(f.discovery).lookup(f.failing, f.documentType)).rejects.toBeInstanceOf(DiscoveryError);
    });

    it("a slow lookup fails with a timeout under cachedDiscovery's deadline", async (ctx) => {
      if (!f.slow) return ctx.skip();
      const timeoutMs = Math.max(100, Math.floor((f.slowMs ?? 1000) / 4));
      const err = await cachedDiscovery(f.discovery, { timeoutMs }).lookup(f.slow, f.documentType).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DiscoveryError);
      expect((err as DiscoveryError).kind).toBe("timeout");
      // cachedDiscovery's own deadline gave up first (not the slow answer, not the adapter's own
      // timeout): its message names the deadline. An event, not a stopwatch, so a busy machine
      // does not fail it.
      expect((err as DiscoveryError).message).toMatch(new RegExp(`lookup took longer than ${timeoutMs} ms\\.$`));
    });
  });
}
