// The deterministic sandbox network: an adapter of the network port for development and tests.
import { createHash } from "node:crypto";
import type { DeliveryEvidence, NetworkPort, SendRequest } from "../ports/network.js";
import type { StoredOutcome } from "../ports/inbound.js";

/** Where the sandbox network delivers what it sends on Peppol (`sandboxNetwork({ inbox })`; `sandboxInbox(store)` makes one). */
export interface SandboxInbox {
  /**
   * Stores the sent document for the company receiving on its recipient, if any, durably: resolves once it is stored
   * (or found stored already), or at once (null) when no company receives on it. Rejects when the store fails; the
   * sandbox then answers `retry` (nothing is acknowledged that is not stored).
   */
  deliver(req: SendRequest): Promise<StoredOutcome | null>;
}

/**
 * The sandbox's evidence of a delivery: a JSON document that says it is synthetic, with the
 * submission, the recipient, the time and the SHA-256 of the document as submitted.
 */
export function sandboxEvidence(req: SendRequest, deliveredAt: string): DeliveryEvidence {
  const documentHash = createHash("sha256").update(req.document).digest("hex");
  const recipient = req.routing.recipient ? `${req.routing.recipient.scheme}:${req.routing.recipient.value}` : null;
  const content = JSON.stringify(
    {
      synthetic: true,
      notice: "Synthetic evidence of the sandbox network: the invoice was not sent to any real network and this is no proof of delivery.",
      network: req.routing.network,
      submissionId: req.submissionId,
      recipient,
      deliveredAt,
      documentSha256: documentHash,
    },
    null,
    2,
  );
  return { kind: "sandbox", mediaType: "application/json", content, reference: `SANDBOX-${req.submissionId}`, documentHash };
}

/**
 * The sandbox network: deterministic, for development and tests. It delivers after `delayMs`
 * (default 200 ms, "within a second"); a recipient value containing `unreachable` (any case)
 * fails permanently; one containing `flaky` fails transiently on attempts 1 and 2, then delivers.
 * Like a real access point it honours the idempotency key: a resend of a delivered key is answered
 * `delivered` again without a second delivery. `calls` counts every call per key; `delivered` holds
 * the keys delivered once. A delivery carries synthetic evidence (`sandboxEvidence`, kind `sandbox`),
 * the same on every replay.
 *
 * With `inbox` (`sandboxInbox(store)`), a delivery on Peppol to a recipient is first handed to the inbox, which stores
 * it for the company of this server receiving on that identifier, if any; when the inbox fails (its store), the
 * outcome is `retry`: nothing is answered delivered that was not stored.
 *
 * @example createDispatcher({ store, networks: { peppol: sandboxNetwork(), ksef: sandboxNetwork() } })
 * @example sandboxNetwork({ inbox: sandboxInbox(store) })
 */
export function sandboxNetwork(options: { delayMs?: number; name?: string; inbox?: SandboxInbox } = {}): NetworkPort & {
  readonly calls: ReadonlyMap<string, number>;
  readonly delivered: ReadonlySet<string>;
} {
  const delayMs = options.delayMs ?? 200;
  const calls = new Map<string, number>();
  const delivered = new Set<string>();
  const evidence = new Map<string, DeliveryEvidence>();
  return {
    name: options.name ?? "sandbox",
    calls,
    delivered,
    async send(req) {
      calls.set(req.idempotencyKey, (calls.get(req.idempotencyKey) ?? 0) + 1);
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      const earlier = evidence.get(req.idempotencyKey);
      if (delivered.has(req.idempotencyKey)) return { outcome: "delivered", detail: "Already delivered (idempotent replay).", ...(earlier ? { evidence: earlier } : {}) };
      const to = req.routing.recipient ? `${req.routing.recipient.scheme}:${req.routing.recipient.value}` : "the buyer (no recipient identifier)";
      const value = req.routing.recipient?.value.toLowerCase() ?? "";
      if (value.includes("unreachable")) {
        return { outcome: "failed", reason: `The sandbox cannot reach ${to} (the recipient is unreachable).` };
      }
      if (value.includes("flaky") && req.attempt <= 2) {
        return { outcome: "retry", reason: `The sandbox access point is temporarily unavailable (attempt ${req.attempt} of a flaky recipient).` };
      }
      if (options.inbox && req.routing.network === "peppol" && req.routing.recipient) {
        try {
          await options.inbox.deliver(req);
        } catch {
          return { outcome: "retry", reason: `The sandbox could not store the invoice in the inbox of the company receiving on ${to}; it will try again.` };
        }
      }
      delivered.add(req.idempotencyKey);
      const proof = sandboxEvidence(req, new Date().toISOString());
      evidence.set(req.idempotencyKey, proof);
      return { outcome: "delivered", detail: `Delivered by the sandbox to ${to}.`, evidence: proof };
    },
  };
}
