import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

// Test files at once. Vitest's own default in a run is one fewer than the cores: one file at a time on two
// cores, with the second core mostly idle while a file waits for a server process it started, a timer or the
// database. Most of the suite's time is such waiting, so as many files run at once as there are cores
// (VITEST_MAX_WORKERS or --maxWorkers overrides it).
const workers = Math.max(2, availableParallelism());

export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/*/test/**/*.test.ts"],
    maxWorkers: workers,
    // Names this run's template of the embedded store's data folder (examples/server/test/support/pglite-template.ts).
    globalSetup: ["examples/server/test/support/global-setup.ts"],
    // Room for a busy 2-core machine: many tests start the example server as a process (PGlite's
    // first start alone takes seconds). A timeout never makes a test pass; it only stops a hung one.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
