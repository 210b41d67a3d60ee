// vitest's globalSetup (vitest.config.ts): names this run's folder of the embedded store's template
// (support/pglite-template.ts makes it on first use) and removes it when the run ends.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** Where this run's template data folder is (made on first use). */
    pgliteTemplate: string;
  }
}

export default function setup(project: TestProject): () => void {
  const root = mkdtempSync(join(tmpdir(), "einvoice-template-"));
  project.provide("pgliteTemplate", join(root, "data"));
  return () => rmSync(root, { recursive: true, force: true });
}
