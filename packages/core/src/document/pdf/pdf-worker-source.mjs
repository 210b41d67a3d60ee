// The PDF worker from TypeScript source (this repository's tests, tsx): registers tsx's loader in this
// worker thread first (on Node 20 the main thread's loader does not reach worker threads), then hands
// piscina the worker's task function. The built package loads pdf-worker.js instead.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const tsxRoot = dirname(createRequire(import.meta.url).resolve("tsx/package.json"));
const tsx = await import(pathToFileURL(join(tsxRoot, "dist", "esm", "api", "index.mjs")).href);
tsx.register();
const worker = await import(new URL("./pdf-worker.ts", import.meta.url).href);
export default worker.default;
