// The build every published package shares (each packages/*/tsup.config.ts calls it): ESM for Node 20,
// with its types and source maps, `src/index.ts` as the entry unless the package names its own.
// `external` lists what stays an import: the peer and runtime dependencies.
import { defineConfig, type Options } from "tsup";

export function packageBuild(options: { entry?: Options["entry"]; external: string[] }) {
  return defineConfig({
    entry: options.entry ?? { index: "src/index.ts" },
    format: ["esm"],
    dts: true,
    clean: true,
    sourcemap: true,
    target: "node20",
    external: options.external,
  });
}
