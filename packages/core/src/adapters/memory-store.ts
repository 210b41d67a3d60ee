// The in-memory store: the default in tests and in the quickstart. Nothing survives the process.
// One file per port under memory/ (store-port.ts, delivery-store.ts, webhook-store.ts, inbox-store.ts), over one shared state.
import type { DeliveryStore, IdempotencyStore, Store, WebhookStore } from "../ports/store.js";
import type { InboxStore } from "../ports/inbound.js";
import { memoryInboxStore } from "./memory/inbox-store.js";
import { memoryIdempotencyStore } from "./memory/idempotency-store.js";
import { memoryDeliveryStore } from "./memory/delivery-store.js";
import { documentsView, emptyState } from "./memory/state.js";
import { memoryStorePort } from "./memory/store-port.js";
import { memoryWebhookStore } from "./memory/webhook-store.js";

/**
 * A store that keeps everything in this process's memory. Every method runs without yielding,
 * so each is atomic. Records are copied in and out: callers cannot change stored state.
 *
 * @example const store = memoryStore(); const v1 = createV1Router({ store })
 */
export function memoryStore(): Store & DeliveryStore & WebhookStore & IdempotencyStore & InboxStore & { readonly documents: ReadonlyMap<string, Uint8Array> } {
  const state = emptyState();
  return {
    name: "memory",
    documents: documentsView(state.documents),
    ...memoryStorePort(state),
    ...memoryDeliveryStore(state),
    ...memoryWebhookStore(state),
    ...memoryIdempotencyStore(state),
    ...memoryInboxStore(state),
    health: async () => "ok" as const,
  };
}
