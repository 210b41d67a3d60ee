// A data folder of the embedded store, made once per test run and copied into a suite's fresh folder: PGlite's
// first start in an empty folder (initdb, then every migration) takes the example server 3-15 s on a busy two-core
// machine, a start on a made folder a fraction of it. The template is made by the code the server runs
// (openPostgresStore on a folder, then close), in this run, so it is never older than the migrations. A test of what
// the first start in an empty folder does (startup, shutdown, the quickstart) keeps an empty folder.
import { cpSync, existsSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { inject } from "vitest";
import "./global-setup.js";

let made: Promise<string | undefined> | undefined;

/** This run's template folder (support/global-setup.ts names it), made by the first worker that needs it. */
async function template(): Promise<string | undefined> {
  const path = inject("pgliteTemplate");
  // Run under a configuration without the globalSetup: no template, the server makes its folder itself.
  if (!path) return undefined;
  if (existsSync(path)) return path;
  const { openPostgresStore } = await import("@einvoice/postgres");
  const building = mkdtempSync(`${path}-`);
  const opened = await openPostgresStore({ dataDir: building });
  await opened.close();
  try {
    renameSync(building, path);
  } catch {
    // Another worker made it meanwhile: take that one.
    rmSync(building, { recursive: true, force: true });
  }
  return path;
}

/**
 * Fills the empty folder `dir` with a copy of this run's template: an embedded store made and migrated, as after
 * the server's first start and a clean stop, with nothing in it.
 */
export async function seedDataDir(dir: string): Promise<void> {
  const path = await (made ??= template());
  if (path) cpSync(path, dir, { recursive: true, filter: (src) => !src.endsWith("/lock") });
}
