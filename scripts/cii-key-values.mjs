// Regenerates packages/core/test/fixtures/cii-key-values.json: for every CII invoice of testdata/cii (the two rule
// unit-test sets of cen-en16931/test/cii are not invoices and are left out), the BT values an independent reader
// finds, as the team's reference oracle computes them (`keyValues` of oracle/cii/cii.mjs, the official CII XPaths run
// with SaxonJS: BT-1, BT-2 as written and as a date, BT-5, BT-27, BT-31, BT-44, BT-49, the line count, BT-109,
// BT-110, BT-112, BT-115). Test-time only: packages/core/test/document/syntaxes/cii/read.test.ts compares the CII
// reader with this file.
// Run from the repository: node scripts/cii-key-values.mjs [path of oracle/cii/cii.mjs]
//   (default: $CII_ORACLE, else the shared oracle, ../shared/oracle/cii/cii.mjs beside the checkout or a worktree folder above it). The oracle's
//   own folder may have no node_modules: its one dependency, saxon-js, is resolved to this repository's (the xslt3
//   devDependency's, the same SaxonJS 2.7 the oracle pins).
import { readdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { createRequire, register } from "node:module";
import { join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = fileURLToPath(new URL("..", import.meta.url));
const candidates = [process.argv[2], process.env.CII_ORACLE, join(repo, "../shared/oracle/cii/cii.mjs"), join(repo, "../../shared/oracle/cii/cii.mjs")].filter(Boolean);
const oracle = candidates.map((p) => resolve(p)).find((p) => existsSync(p));
if (!oracle) throw new Error(`the CII oracle (cii.mjs) is not at any of: ${candidates.join(", ")}`);

const requireHere = createRequire(import.meta.url);
const saxon = pathToFileURL(createRequire(requireHere.resolve("xslt3")).resolve("saxon-js")).href;
const hook = `export async function resolve(s, c, next) { return s === "saxon-js" ? { url: ${JSON.stringify(saxon)}, shortCircuit: true } : next(s, c); }`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
const { keyValues } = await import(pathToFileURL(oracle).href);

const CII_DIR = join(repo, "testdata/cii");
const NOT_INVOICES = new Set(["cen-en16931/test/cii/BR-CO-15-2.xml", "cen-en16931/test/cii/BR-CO-17.xml"]);
const files = readdirSync(CII_DIR, { recursive: true, encoding: "utf8" })
  .filter((f) => f.endsWith(".xml"))
  .map((f) => f.split("\\").join("/"))
  .filter((f) => !NOT_INVOICES.has(f))
  .sort();
const out = {};
for (const f of files) out[f] = keyValues(readFileSync(join(CII_DIR, f), "utf8"));
const target = join(repo, "packages/core/test/fixtures/cii-key-values.json");
writeFileSync(target, JSON.stringify(out, null, 2) + "\n");
console.log(`${files.length} CII invoices -> ${relative(repo, target)} (oracle: ${oracle})`);
