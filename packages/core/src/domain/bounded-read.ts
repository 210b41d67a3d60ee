// Reading an answer from outside (an SMP, KSeF, Storecove, a webhook target) without trusting its size:
// the body is read chunk by chunk and the reading stops at the cap, so a hostile server that streams
// gigabytes costs at most the cap in memory.

/** The cap a caller gives when it has no better one: 4 MiB. */
export const DEFAULT_MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/**
 * The body of `res` as UTF-8 text, or null when it is longer than `maxBytes` (declared by its
 * Content-Length, or counted while it streams): then nothing more is read and the stream is
 * cancelled (the connection is closed). A body that breaks off rejects with the stream's error.
 *
 * @example const text = await readBoundedText(res, 4 * 1024 * 1024); if (text === null) throw new Error("answer too large")
 */
export async function readBoundedText(res: Response, maxBytes: number = DEFAULT_MAX_ANSWER_BYTES): Promise<string | null> {
  const declared = Number(res.headers.get("content-length") ?? "");
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    return null;
  }
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return new TextDecoder("utf-8").decode(Buffer.concat(chunks));
}
