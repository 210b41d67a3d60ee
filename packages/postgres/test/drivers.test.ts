// The optional drivers load only when a store is opened on them, and a missing one says what to install.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DRIVER_PACKAGES, MissingDriverError } from "../src/index.js";
import { loadDriver } from "../src/drivers.js";

const here = dirname(fileURLToPath(import.meta.url));
const notFound = (name: string) => Object.assign(new Error(`Cannot find package '${name}' imported from /app/x.js`), { code: "ERR_MODULE_NOT_FOUND" });

describe("optional drivers", () => {
  it("a driver that is not installed → MissingDriverError naming the npm install command", async () => {
    const err = await loadDriver("pg", () => Promise.reject(notFound("pg"))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MissingDriverError);
    expect(err).toMatchObject({ packageName: "pg", install: 'npm install "pg@^8.16.0"', code: "ERR_EINVOICE_MISSING_DRIVER" });
    expect((err as Error).message).toBe(
      '@einvoice/postgres needs the package pg for a PostgreSQL server (databaseUrl), and it is not installed. Install it: npm install "pg@^8.16.0"',
    );
  });

  it("a failure inside an installed driver (a package it imports is missing, or it throws) goes through unchanged", async () => {
    const inner = notFound("pg-protocol");
    expect(await loadDriver("pg", () => Promise.reject(inner)).catch((e: unknown) => e)).toBe(inner);
    const other = new Error("boom");
    expect(await loadDriver("@electric-sql/pglite", () => Promise.reject(other)).catch((e: unknown) => e)).toBe(other);
  });

  it("the install commands use the peer dependency ranges of package.json", () => {
    const pkg = JSON.parse(readFileSync(join(here, "..", "package.json"), "utf8")) as { peerDependencies: Record<string, string> };
    for (const [name, { range }] of Object.entries(DRIVER_PACKAGES)) expect(pkg.peerDependencies[name]).toBe(range);
  });

  it("with neither driver installed, the entry still loads, and opening a store says which package to install", () => {
    const script = `
      const m = await import(${JSON.stringify(join(here, "..", "src", "index.ts"))});
      const out = {};
      for (const [what, options] of [["embedded", {}], ["folder", { dataDir: ${JSON.stringify(join(here, "never-created"))} }], ["server", { databaseUrl: "postgres://u@127.0.0.1:1/db" }]]) {
        try { await m.openPostgresStore(options); out[what] = "opened"; }
        catch (e) { out[what] = { name: e.name, message: e.message }; }
      }
      console.log(JSON.stringify(out));`;
    const r = spawnSync(process.execPath, ["--conditions=source", "--import", "tsx", "--import", join(here, "support", "hide-drivers.mjs"), "--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.stderr).not.toMatch(/Error/);
    const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
    const pglite = { name: "MissingDriverError", message: expect.stringMatching(/needs the package @electric-sql\/pglite .* npm install "@electric-sql\/pglite@~0\.5\.16"$/) };
    expect(out).toEqual({
      embedded: pglite,
      folder: pglite,
      server: { name: "MissingDriverError", message: expect.stringMatching(/needs the package pg .* npm install "pg@\^8\.16\.0"$/) },
    });
    expect(existsSync(join(here, "never-created")), "the data folder is made only once the driver is there").toBe(false);
  });
});
