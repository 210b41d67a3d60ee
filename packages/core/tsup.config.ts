import { packageBuild } from "../../tsup.base.js";

export default packageBuild({
  // invoice-worker: the worker thread of the invoice pool, loaded by URL beside the bundle (dist/).
  entry: { index: "src/index.ts", "testing/index": "src/testing/index.ts", "invoice-worker": "src/document/invoice-worker.ts" },
  // Runtime dependencies stay imports (undici, piscina and qrcode are CommonJS with node: requires that an ESM bundle cannot inline).
  external: ["vitest", "undici", "ipaddr.js", "piscina", "qrcode"],
});
