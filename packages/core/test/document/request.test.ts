import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/domain/errors.js";
import { InvoiceRequestSchema, parseWith } from "../../src/domain/schemas.js";
import { checkSubmitShape, parseJsonBody, parseSubmitBody, readEnvelope } from "../../src/document/request.js";

/** What JSON.parse and the schema make of a body: the path every body took before the shortcut. */
function slow(bytes: Uint8Array): unknown {
  return outcome(() => parseWith(InvoiceRequestSchema, parseJsonBody(bytes)));
}

function outcome(fn: () => unknown): unknown {
  try {
    return { ok: fn() };
  } catch (e) {
    if (e instanceof ApiError) return { code: e.code, message: e.message, details: e.details };
    throw e;
  }
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const base64 = Array.from({ length: 96 * 1024 }, (_, i) => ALPHABET[(i * 7919) % 64]).join("");
const body = (s: string) => new Uint8Array(Buffer.from(s));

describe("the submit body's envelope", () => {
  it("reads the usual large envelope without JSON.parse, to the value JSON.parse gives", () => {
    for (const tail of ["}", ',"targetNetwork":"auto"}', ',"targetNetwork":"peppol"}  \n', ',"targetNetwork":"nope"}', ',"extra":1}']) {
      const bytes = body(`{"xml":"${base64}=="${tail}`);
      expect(readEnvelope(bytes)).not.toBeNull();
      expect(outcome(() => parseSubmitBody(bytes))).toEqual(slow(bytes));
    }
    expect(parseSubmitBody(body(`{"xml":"${base64}","targetNetwork":"peppol"}`))).toEqual({ xml: base64, targetNetwork: "peppol" });
  });

  it("leaves every other body to JSON.parse: escapes, control characters, a BOM, a second xml, a bad tail, small bodies", () => {
    const cases = [
      `{"xml":"${base64.slice(0, 1000)}\\/${base64}"}`, // an escaped slash
      `{"xml":"${base64.slice(0, 1000)}\n${base64}"}`, // a raw newline: invalid JSON
      `{"xml":"${base64.slice(0, 1000)}\t${base64}"}`,
      `{"xml":"${base64.slice(0, 1000)}é${base64}"}`,
      `\uFEFF{"xml":"${base64}"}`,
      ` {"xml":"${base64}"}`,
      `{"xml":"${base64}","xml":"QUJD"}`,
      `{"xml":"${base64}"\uFEFF}`,
      `{"xml":"${base64}"}x`,
      `{"xml":"${base64}",}`,
      `{"xml":"${base64}"`,
      `{"xml":"${base64}","__proto__":{"targetNetwork":"peppol"}}`,
      `{"xml":"${base64}"${" ".repeat(2000)}}`,
      `{"xml":"QUJD"}`,
    ];
    for (const c of cases) {
      const bytes = body(c);
      expect(outcome(() => parseSubmitBody(bytes)), c.slice(0, 40)).toEqual(slow(bytes));
    }
    expect(readEnvelope(body(`{"xml":"${base64}","xml":"QUJD"}`))).toBeNull();
    expect(readEnvelope(body(`{"xml":"${base64.slice(0, 1000)}\n${base64}"}`))).toBeNull();
    expect(readEnvelope(body(`{"xml":"${base64}"\uFEFF}`))).toBeNull();
  });

  it("gives the same value or the same 400 as JSON.parse on generated bodies around the envelope", () => {
    const pieces = ["\\", "\\n", "\n", "\t", '"', "é", "\u0000", "=", "-", "_", " ", "}", ",", ":", "\uFEFF", "\\u0041", "A"];
    const tails = ["}", ',"targetNetwork":"auto"}', ',"targetNetwork":"bogus"}', ',"xml":"QUJD"}', ',"extra":null}', "} ", "}}", "", ",", ']', ',"targetNetwork":"auto"', ',"targetNetwork":1}'];
    fc.assert(
      fc.property(
        fc.constantFrom("", " ", "\uFEFF", "\n"),
        fc.constantFrom('{"xml":"', '{"xml": "', '{ "xml":"', '{"XML":"', '{"xml":"'),
        fc.array(fc.tuple(fc.nat(base64.length), fc.constantFrom(...pieces)), { maxLength: 3 }),
        fc.constantFrom(...tails),
        fc.string({ maxLength: 6 }),
        (lead, prefix, inserts, tail, junk) => {
          let xml = base64;
          for (const [at, piece] of inserts) xml = xml.slice(0, at) + piece + xml.slice(at);
          const bytes = body(`${lead}${prefix}${xml}"${tail}${junk}`);
          expect(outcome(() => parseSubmitBody(bytes))).toEqual(slow(bytes));
        },
      ),
      { numRuns: 400, seed: 20261121 },
    );
  });
});

describe("checkSubmitShape: the shape alone, for a refused company (issue 16, finding 6)", () => {
  /** What the full path says of a body's shape: passes, or the 400 with its messages. */
  const full = (bytes: Uint8Array) => outcome(() => void parseSubmitBody(bytes));
  /** The same body in chunks of `size`, through the shape-only check. */
  const shapeOnly = (bytes: Uint8Array, size: number) =>
    outcome(() => {
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
      checkSubmitShape(chunks.length ? chunks : [bytes]);
    });
  const big = "QUJD".repeat(20_000);

  it("agrees with the full parse on large envelopes and their near misses, whatever the chunking", () => {
    const bodies = [
      `{"xml":"${big}"}`,
      `{"xml":"${big}","targetNetwork":"ksef"}`,
      `{"xml":"${big}","targetNetwork":"fax"}`,
      `{"xml":"${big}","extra":1}`,
      `{"xml":"${big}","xml":""}`,
      `{"xml":"${big}\n"}`,
      `{"xml":"${big}\u0041"}`,
      `{"xml":"${big}"}`,
      `{"xml":"${big}é"}`,
      `{"xml":"${big}"`,
      `{"xml":"${big}"}]`,
      `{"xml":"${big}"}﻿`,
      `{"xml":"${big}",}`,
      `{"xml":"${big}"} ${" ".repeat(2000)}`,
      `{"xml":"","pad":"${big}"}`,
      ` {"xml":"${big}"}`,
    ];
    for (const body of bodies) {
      const bytes = new Uint8Array(Buffer.from(body));
      const expected = full(bytes);
      for (const size of [7, 4096, 65536, bytes.length]) expect(shapeOnly(bytes, size), `${body.slice(-30)} / ${size}`).toEqual(expected);
    }
  });

  it("agrees with the full parse on random small and large bodies", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.jsonValue({ maxDepth: 2 }), fc.integer({ min: 1, max: 70_000 }), fc.boolean(), (tail, extra, size, large) => {
        const doc = large ? big : "PGE+";
        const body = new Uint8Array(Buffer.from(`{"xml":"${doc}"${tail.length % 2 ? `,"k":${JSON.stringify(extra)}` : ""}${tail.length % 3 === 0 ? "}" : tail}`));
        expect(shapeOnly(body, size)).toEqual(full(body));
      }),
      { seed: 16, numRuns: 300 },
    );
  });
});
