// How the store keeps a document's bytes: deflated by Node's zlib when that makes them smaller.
import { promisify } from "node:util";
import { deflateRaw, deflateRawSync, inflateRaw, inflateRawSync } from "node:zlib";
import { DbError } from "./db.js";

/** The `documents.content_encoding` values: the bytes as given, or raw DEFLATE (RFC 1951) of them. */
export type ContentEncoding = "identity" | "deflate";

/** A document as the store writes it: hex text (decoded in SQL) and how its bytes are encoded. */
export interface StoredDocument {
  hex: string;
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

/** Deflates `document` when that makes it smaller (any UBL does; random bytes do not). */
export async function encodeDocument(document: Uint8Array): Promise<StoredDocument> {
  const bytes = view(document);
  const packed = bytes.length <= INLINE_LIMIT ? deflateRawSync(bytes, { level: LEVEL }) : await deflateAsync(bytes, { level: LEVEL });
  return packed.length < bytes.length ? { hex: packed.toString("hex"), encoding: "deflate" } : { hex: bytes.toString("hex"), encoding: "identity" };
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
