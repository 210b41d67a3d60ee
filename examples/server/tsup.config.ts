import { defineConfig } from "tsup";

// The built server: `pnpm build`, then `node examples/server/dist/main.js` (or the `einvoice-server` bin),
// the direct entry for a process manager. Dependencies stay imports: the workspace packages resolve to
// their built `dist/` (no `source` condition), the others from node_modules.
export default defineConfig({
  entry: { main: "src/main.ts" },
  format: ["esm"],
  clean: true,
  sourcemap: true,
  target: "node20",
  banner: { js: "#!/usr/bin/env node" },
});
