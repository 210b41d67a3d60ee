// Start-up checks of the example server process that must fail fast, before the store is opened.
import { once } from "node:events";
import { existsSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startServer } from "./support/server-process.js";
import { tempDir } from "./support/server-suite.js";

describe("example server start-up", () => {
  const parent = tempDir("startup");

  it("a PORT already in use stops the server with 'port N is in use' before the embedded store is opened", async () => {
    const taken = createServer().listen(0, "0.0.0.0");
    await once(taken, "listening");
    const port = (taken.address() as AddressInfo).port;
    const dataDir = join(parent, "data-never-created");
    try {
      const started = startServer({ PORT: String(port), DATA_DIR: dataDir, DATABASE_URL: undefined, ADMIN_TOKEN: "startup-test-admin-token-0123456789" });
      await expect(started).rejects.toThrow(new RegExp(`server exited early:\\n[^]*einvoice example server: port ${port} is in use; set PORT to another\\.`));
      // The store was never opened: PGlite would have created its folder.
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      taken.close();
    }
  });
});
