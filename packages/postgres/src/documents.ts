// How the store keeps a document's bytes: compressed by the database server itself where it can
// (lz4, migration 17), otherwise deflated by Node's zlib when that makes them smaller.
import { promisify } from "node:util";
import { deflateRaw, deflateRawSync, inflateRaw, inflateRawSync } from "node:zlib";
import { DbError, type Queryable } from "./db.js";

/** The `documents.content_encoding` values: the bytes as given, or raw DEFLATE (RFC 1951) of them. */
export type ContentEncoding = "identity" | "deflate";

/** A document as the store writes it: the bytes (a bytea parameter, sent in binary) and how they encode the document. */
export interface StoredDocument {
  bytes: Buffer;
  encoding: ContentEncoding;
}

/**
 * zlib level 3: a 9 KiB UBL invoice becomes 1,974 bytes in about 30 µs (level 6 saves 10% more
 * for twice the time). Small enough to stay in the table's own row, so the write does not go
 * through PostgreSQL's TOAST compression (pglz), which costs several times more, most of all in
 * PGlite's WebAssembly.
 */
const LEVEL = 3;

/**
 * Up to this size (de)compression runs inline (about 0.2 ms at 64 KiB); above it on libuv's
 * thread pool, so that an 8 MiB document (about 11 ms to deflate) does not stall the event loop.
 */
const INLINE_LIMIT = 64 * 1024;

const deflateAsync = promisify(deflateRaw);
const inflateAsync = promisify(inflateRaw);

const view = (b: Uint8Array): Buffer => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/**
 * How documents are written to the `documents` table of a schema:
 * - `server`: the column compresses with lz4 (a PostgreSQL server of version 14 or later built with
 *   it, as Debian's packages are; migration 17). The store sends the bytes as they are and the server
 *   compresses a row past 8 KiB (a 9 KiB invoice to about 3 KiB, in the table's own page). zlib in
 *   the store's process cost 88 to 113 µs a document between the database's round trips (27 in a
 *   loop of its own), a tenth of the write; with the server compressing, the store's CPU a write fell
 *   by 0.08 to 0.09 ms and the server's rose by 0.01 to 0.02 (docs/performance.md).
 * - `store`: no lz4 (PGlite, whose WebAssembly build has none; pglz there costs several times zlib):
 *   the store deflates each document itself (`deflate` rows) and the server keeps them as they come.
 */
export type DocumentCompression = "server" | "store";

/**
 * Which `DocumentCompression` a schema's `documents.content` column calls for, asked of the column at
 * the first write that needs it (not when the store opens: a store opened with `migrate: false` may
 * come up before its tables, and reports `migrations_pending` until then). `known` holds the answer
 * once the table was there to ask; until then each `ask` asks again, and answers `store`.
 */
export interface DocumentCompressionOf {
  known: DocumentCompression | null;
  ask(): Promise<DocumentCompression>;
  /** `document` as the store writes it to this table (`encodeDocument` with the column's answer). */
  encode(document: Uint8Array): Promise<StoredDocument>;
}

/** The `DocumentCompressionOf` the table `documentsTable` (a quoted, qualified name) of `q`. */
export function documentCompressionOf(q: Queryable, documentsTable: string): DocumentCompressionOf {
  const of: DocumentCompressionOf = {
    known: null,
    async ask() {
      if (of.known !== null) return of.known;
      const answer = await askColumn(q, documentsTable);
      if (answer.present) of.known = answer.compression;
      return answer.compression;
    },
    async encode(document) {
      return encodeDocument(document, of.known ?? (await of.ask()));
    },
  };
  return of;
}

/** Whether the table is there, and the `DocumentCompression` its column calls for (`server`: storage EXTENDED with lz4). */
async function askColumn(q: Queryable, documentsTable: string): Promise<{ present: boolean; compression: DocumentCompression }> {
  try {
    const { rows } = await q.query<{ present: boolean; lz4: boolean | null }>(
      `SELECT t.oid IS NOT NULL AS present, (a.attstorage = 'x' AND a.attcompression = 'l') AS lz4
       FROM (SELECT to_regclass($1) AS oid) AS t LEFT JOIN pg_attribute AS a ON a.attrelid = t.oid AND a.attname = 'content'`,
      [documentsTable],
    );
    return { present: rows[0]?.present === true, compression: rows[0]?.lz4 === true ? "server" : "store" };
  } catch (e) {
    // PostgreSQL before 14 has no attcompression (nor lz4): the store compresses.
    if (e instanceof DbError && e.code === "42703") return { present: true, compression: "store" };
    throw e;
  }
}

/**
 * The document as the store writes it: as it is when the server compresses it; otherwise deflated
 * when that makes it smaller (any UBL does; random bytes do not).
 */
export async function encodeDocument(document: Uint8Array, compression: DocumentCompression): Promise<StoredDocument> {
  const bytes = view(document);
  if (compression === "server") return { bytes, encoding: "identity" };
  const packed = bytes.length <= INLINE_LIMIT ? deflateRawSync(bytes, { level: LEVEL }) : await deflateAsync(bytes, { level: LEVEL });
  return packed.length < bytes.length ? { bytes: packed, encoding: "deflate" } : { bytes, encoding: "identity" };
}

/** The document's own bytes from a stored row's content and encoding. */
export async function decodeDocument(content: Buffer, encoding: string): Promise<Uint8Array> {
  if (encoding === "identity") return new Uint8Array(content.buffer, content.byteOffset, content.byteLength);
  if (encoding !== "deflate") throw new DbError(`a stored document has an unknown content encoding ${JSON.stringify(encoding)}`);
  try {
    // A quarter of the inline limit: deflated UBL grows about five times back.
    const bytes = content.length <= INLINE_LIMIT / 4 ? inflateRawSync(content) : await inflateAsync(content);
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch {
    throw new DbError("a stored document is not valid DEFLATE data");
  }
}
