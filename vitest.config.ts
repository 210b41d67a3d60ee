import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/*/test/**/*.test.ts"],
    // Room for a busy 2-core machine: many tests start the example server as a process (PGlite's
    // first start alone takes seconds). A timeout never makes a test pass; it only stops a hung one.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
