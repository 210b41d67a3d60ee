// Who compresses a stored document (documents.ts): the column's answer, and the bytes each way gives the write.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { inflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { corpusPath } from "../../../testdata/index.js";
import { DbError, type Queryable } from "../src/index.js";
import { documentCompressionOf, encodeDocument } from "../src/documents.js";

/** A connection that answers the column question with the next of `answers` (a row, or an error to throw), and records what it was asked. */
function column(...answers: ({ present: boolean; lz4: boolean | null } | DbError)[]): Queryable & { asked: unknown[][] } {
  const asked: unknown[][] = [];
  return {
    asked,
    async query<R>(sql: string, params: readonly unknown[] = []) {
      asked.push([sql, ...params]);
      const answer = answers[Math.min(asked.length, answers.length) - 1]!;
      if (answer instanceof DbError) throw answer;
      return { rows: [answer] as R[] };
    },
  };
}

describe("documentCompressionOf (who compresses: the column says, asked at the first write)", () => {
  it("is the server's only where the column compresses with lz4, asked once of the table it is given", async () => {
    const q = column({ present: true, lz4: true });
    const of = documentCompressionOf(q, '"s".documents');
    expect(of.known).toBeNull();
    expect(q.asked).toHaveLength(0);
    expect(await of.ask()).toBe("server");
    expect(await of.ask()).toBe("server");
    expect(of.known).toBe("server");
    expect(q.asked).toHaveLength(1);
    expect(q.asked[0]![1]).toBe('"s".documents');
    expect(await documentCompressionOf(column({ present: true, lz4: false }), '"s".documents').ask()).toBe("store");
  });

  it("answers the store's while the table is not there yet (a store opened before its migrations), and asks again until it is", async () => {
    const q = column({ present: false, lz4: null }, { present: true, lz4: true });
    const of = documentCompressionOf(q, '"s".documents');
    expect(await of.ask()).toBe("store");
    expect(of.known).toBeNull();
    expect(await of.ask()).toBe("server");
    expect(of.known).toBe("server");
    expect(q.asked).toHaveLength(2);
  });

  it("is the store's on a server before PostgreSQL 14 (no attcompression column); any other failure goes through and is asked again", async () => {
    const old = documentCompressionOf(column(new DbError('column "attcompression" does not exist', "42703")), '"s".documents');
    expect(await old.ask()).toBe("store");
    expect(old.known).toBe("store");
    const other = new DbError("connection refused", "08006");
    const down = documentCompressionOf(column(other, { present: true, lz4: true }), '"s".documents');
    await expect(down.ask()).rejects.toBe(other);
    expect(down.known).toBeNull();
    expect(await down.ask()).toBe("server");
  });
});

describe("encodeDocument", () => {
  const xml = new Uint8Array(readFileSync(corpusPath("openpeppol-bis3/examples/base-example.xml")));

  it("gives the server the document's own bytes, as they are (identity), without a copy", async () => {
    const within = new Uint8Array([7, 7, ...xml, 7]);
    const view = within.subarray(2, 2 + xml.length);
    const doc = await encodeDocument(view, "server");
    expect(doc.encoding).toBe("identity");
    expect(Buffer.from(doc.bytes).equals(Buffer.from(xml))).toBe(true);
    expect(doc.bytes.buffer).toBe(within.buffer);
    expect(doc.bytes.byteOffset).toBe(2);
  });

  it("deflates a UBL invoice for the store to under a quarter, and keeps bytes that do not shrink as they are", async () => {
    const packed = await encodeDocument(xml, "store");
    expect(packed.encoding).toBe("deflate");
    expect(packed.bytes.length).toBeLessThan(xml.length / 4);
    expect(inflateRawSync(packed.bytes).equals(Buffer.from(xml))).toBe(true);
    const noise = new Uint8Array(randomBytes(2048));
    const kept = await encodeDocument(noise, "store");
    expect(kept.encoding).toBe("identity");
    expect(Buffer.from(kept.bytes).equals(Buffer.from(noise))).toBe(true);
  });
});
