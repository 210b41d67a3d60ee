// Opens the example server's store from its environment (contract section 5).
import { memoryStore, type Store } from "@einvoice/core";

export interface StoreConfig {
  /** Folder of the embedded store (PGlite). */
  dataDir: string;
  /** A PostgreSQL server instead of the embedded store. */
  databaseUrl: string | undefined;
}

export interface OpenedStore {
  store: Store;
  /** One line for the start-up output, such as "embedded PGlite in ./data". */
  description: string;
  close(): Promise<void>;
}

/** Until the durable store lands, the example server keeps everything in memory. */
export async function openStore(_config: StoreConfig): Promise<OpenedStore> {
  const store = memoryStore();
  return {
    store,
    description: "in memory (nothing survives a restart; the durable store is not wired in yet)",
    close: async () => {},
  };
}
