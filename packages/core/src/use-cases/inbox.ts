// The store's inbox, for the use-cases of receiving: a store that keeps none is a clear error, not a TypeError.
import { ApiError } from "../domain/errors.js";
import type { InboxStore } from "../ports/inbound.js";
import type { Store } from "../ports/store.js";
import { guardStore } from "./options.js";

/** Whether the store keeps an inbox (implements `InboxStore`): the memory store and the PostgreSQL store do. */
export function isInboxStore(store: Store): store is Store & InboxStore {
  return typeof (store as Partial<InboxStore>).insertInbound === "function" && typeof (store as Partial<InboxStore>).setParticipantIds === "function";
}

/**
 * The store, guarded (`guardStore`), as an `InboxStore`; an `internal_error` ApiError naming the store when it keeps no
 * inbox (a deployment whose store adapter predates receiving).
 */
export function inboxOf(store: Store): Store & InboxStore {
  if (!isInboxStore(store)) {
    throw new ApiError("internal_error", `The ${store.name} store keeps no inbox (it does not implement InboxStore): receiving, suppliers and participant identifiers need a store that does.`);
  }
  return guardStore(store);
}
