// Who compresses a stored document (documents.ts): the column's answer, and the bytes each way gives the write.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { inflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { corpusPath } from "../../../testdata/index.js";
import { DbError, type Queryable } from "../src/index.js";
import { documentCompression, encodeDocument } from "../src/documents.js";

/** A connection that answers the column question with `answer` (a row, or an error to throw), and records what it was asked. */
function column(answer: { lz4: boolean } | null | DbError): Queryable & { asked: unknown[][] } {
  const asked: unknown[][] = [];
  return {
    asked,
    async query<R>(sql: string, params: readonly unknown[] = []) {
      asked.push([sql, ...params]);
      if (answer instanceof DbError) throw answer;
      return { rows: (answer === null ? [] : [answer]) as R[] };
    },
  };
}

describe("documentCompression (who compresses: the column says)", () => {
  it("is the server's only where the column compresses with lz4, asked of the table it is given", async () => {
    const q = column({ lz4: true });
    expect(await documentCompression(q, '"s".documents')).toBe("server");
    expect(q.asked[0]![1]).toBe('"s".documents');
    expect(await documentCompression(column({ lz4: false }), '"s".documents')).toBe("store");
    expect(await documentCompression(column(null), '"s".documents')).toBe("store");
  });

  it("is the store's on a server before PostgreSQL 14 (no attcompression column), and any other failure goes through", async () => {
    expect(await documentCompression(column(new DbError('column "attcompression" does not exist', "42703")), '"s".documents')).toBe("store");
    const other = new DbError("connection refused", "08006");
    await expect(documentCompression(column(other), '"s".documents')).rejects.toBe(other);
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
