// The set-up the example-server suites share: a fresh temp folder, the server on it (the embedded
// store: DATA_DIR there, no DATABASE_URL), webhook receivers on loopback, and the clean-up after the
// suite (afterAll) of all of it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { startReceiver, type Receiver } from "../../../../packages/core/test/support/receiver.js";
import { seedDataDir } from "./pglite-template.js";
import { startServer, type RunningServer } from "./server-process.js";

export type ServerEnv = Record<string, string | undefined>;

/** A fresh folder `einvoice-<name>-…` in the system's temp folder, removed after the suite. */
export function tempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `einvoice-${name}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs `fn` with a fresh folder `einvoice-<name>-…`, removed when `fn` ends, whatever it did. */
export async function withTempDir<T>(name: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), `einvoice-${name}-`));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ServerSuite {
  /** The suite's data folder (the server's DATA_DIR), removed after the suite. */
  readonly dataDir: string;
  /** The server `start` started last (it may have been stopped since); throws before the first start. */
  readonly server: RunningServer;
  /**
   * Starts the example server on the suite's data folder with the suite's settings and `env` over
   * them; the server it started before, if still running, is killed first (a restart on the same data).
   */
  start(env?: ServerEnv, timeoutMs?: number): Promise<RunningServer>;
  /** Starts a webhook receiver on loopback (on `port`, or a free one), closed after the suite. */
  receiver(port?: number): Promise<Receiver>;
}

export interface ServerSuiteOptions {
  /**
   * The first start finds an empty data folder and makes the store itself (initdb, every migration), as a
   * newcomer's first `pnpm start` does. By default the folder starts as a copy of this run's made and migrated
   * store (support/pglite-template.ts): the same state, seconds sooner.
   */
  emptyDataDir?: boolean;
}

/**
 * Call in a `describe`: the suite's data folder `einvoice-<name>-…`; after the suite, the server is
 * killed, the receivers closed and the folder removed.
 *
 * @example const suite = serverSuite("webhooks", { ADMIN_TOKEN: ADMIN, WEBHOOK_ALLOW_PRIVATE: "true" }); … const server = await suite.start();
 */
export function serverSuite(name: string, env: ServerEnv = {}, options: ServerSuiteOptions = {}): ServerSuite {
  const dataDir = mkdtempSync(join(tmpdir(), `einvoice-${name}-`));
  let seeded = options.emptyDataDir === true;
  let server: RunningServer | undefined;
  const receivers: Receiver[] = [];
  afterAll(async () => {
    await server?.kill();
    await Promise.all(receivers.map((r) => r.close()));
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    dataDir,
    get server() {
      if (!server) throw new Error(`the ${name} suite's server is not started`);
      return server;
    },
    async start(more = {}, timeoutMs) {
      await server?.kill();
      if (!seeded) {
        seeded = true;
        const merged = { ...env, ...more };
        if (!merged.DATABASE_URL && (merged.DATA_DIR ?? dataDir) === dataDir) await seedDataDir(dataDir);
      }
      server = await startServer({ DATA_DIR: dataDir, DATABASE_URL: undefined, ...env, ...more }, timeoutMs);
      return server;
    },
    async receiver(port) {
      const receiver = await startReceiver(port);
      receivers.push(receiver);
      return receiver;
    },
  };
}
