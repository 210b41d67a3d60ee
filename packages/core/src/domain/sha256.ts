// SHA-256 as lower-case hex, the one way the core hashes documents, secrets and request bodies.
import * as nodeCrypto from "node:crypto";

// Node's one-shot hash (Node 20.12 and later) where the runtime has it: it makes no Hash object, which
// the submit pipeline paid for on every document (about 5% of a submission of a 9 KiB invoice,
// docs/performance.md); createHash on older Node 20 releases, with the same answer.
const oneShot = typeof nodeCrypto.hash === "function" ? nodeCrypto.hash : null;

/** The SHA-256 of `data` (a string is hashed as UTF-8), as 64 lower-case hex digits. */
export function sha256Hex(data: string | Uint8Array): string {
  return oneShot !== null ? oneShot("sha256", data, "hex") : nodeCrypto.createHash("sha256").update(data).digest("hex");
}
