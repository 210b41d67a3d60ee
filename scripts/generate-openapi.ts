// Writes docs/openapi.json from the zod schemas: `pnpm openapi`. A test fails when the committed file is stale.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { openApiDocument } from "../packages/express/src/index.js";

export const OPENAPI_PATH = join(dirname(fileURLToPath(import.meta.url)), "..", "docs", "openapi.json");

export function renderOpenApi(): string {
  return JSON.stringify(openApiDocument(), null, 2) + "\n";
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(OPENAPI_PATH, renderOpenApi());
  console.log(`wrote ${OPENAPI_PATH}`);
}
