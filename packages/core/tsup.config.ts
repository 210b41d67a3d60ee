import { packageBuild } from "../../tsup.base.js";

export default packageBuild({
  // invoice-worker, pdf-worker: the worker threads of the invoice pool and of PDF reading, loaded by URL beside the bundle (dist/).
  entry: { index: "src/index.ts", "testing/index": "src/testing/index.ts", "invoice-worker": "src/document/invoice-worker.ts", "pdf-worker": "src/document/pdf/pdf-worker.ts" },
  // Runtime dependencies stay imports (undici, piscina and qrcode are CommonJS with node: requires that an ESM bundle cannot inline).
  external: ["vitest", "undici", "ipaddr.js", "piscina", "qrcode", "@cantoo/pdf-lib"],
});
