import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiError } from "../domain/errors.js";
import { InvoiceRequestSchema, parseWith } from "../domain/schemas.js";
import { parseJsonBody, parseSubmitBody, readEnvelope } from "./request.js";

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
