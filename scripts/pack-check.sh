#!/usr/bin/env bash
# The packages as a user gets them, as docs/library.md#install says: `pnpm pack:all` (scripts/pack-all.sh)
# builds and packs them into one folder; lint the tarballs (publint, @arethetypeswrong/cli --profile
# esm-only); run the docs' `npm install` lines (the block marked `<!-- pack-check: install.sh -->`) in a new
# project outside the workspace, and check that it has one @einvoice/core (the adapters' peer dependency);
# type-check a strict NodeNext TypeScript file against them, and run docs/library.md's first run (memory
# store, then embedded PGlite) until the invoice is delivered; run the published conformance suites
# (@einvoice/core/testing) under the app's own vitest.
# Fails on the first real problem, saying which. Called by .ci/run; takes a minute or two.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
fail() {
  echo "pack-check: FAILED: $*" >&2
  exit 1
}
# Every published package: each folder of packages/ whose package.json is not private.
mapfile -t PACKAGES < <(for d in packages/*/; do
  node -e 'const p = require(process.argv[1]); if (!p.private) console.log(process.argv[2])' "$ROOT/${d}package.json" "$(basename "$d")"
done)
[ "${#PACKAGES[@]}" -ge 4 ] || fail "found only ${PACKAGES[*]} in packages/"
BIN="$ROOT/node_modules/.bin"
# .ci/run passes its pnpm command (pnpm, or `npx -y pnpm@10` on a machine without it).
read -ra PNPM <<<"${PNPM_CMD:-pnpm}"

step() { echo "pack-check [${SECONDS}s]: $*"; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/einvoice-pack-check.XXXXXX")"
trap '[ -n "${KEEP_PACK_CHECK:-}" ] || rm -rf "$WORK"' EXIT
case "$WORK" in "$ROOT"/*) fail "the temporary folder $WORK is inside the workspace" ;; esac

# The docs' EINVOICE: a clone of the repository, whose `pnpm pack:all` wrote EINVOICE/tarballs.
EINVOICE="$WORK/einvoice"
step "pnpm pack:all: building and packing every package into one folder"
PNPM_CMD="${PNPM[*]}" "$ROOT/scripts/pack-all.sh" "$EINVOICE/tarballs" >"$WORK/pack-all.log" 2>&1 || { cat "$WORK/pack-all.log"; fail "pnpm pack:all"; }
declare -A TARBALL
for p in "${PACKAGES[@]}"; do
  TARBALL[$p]="$(ls "$EINVOICE"/tarballs/einvoice-"$p"-*.tgz)" || fail "pnpm pack:all wrote no tarball for packages/$p"
done
[ "$(ls "$EINVOICE"/tarballs/*.tgz | wc -l)" -eq "${#PACKAGES[@]}" ] || fail "pnpm pack:all wrote other tarballs than the ${#PACKAGES[@]} packages'"

step "checking each tarball's contents and manifest"
for p in "${PACKAGES[@]}"; do
  node - "${TARBALL[$p]}" "$p" <<'EOF' || fail "the tarball of packages/$2 (see above)"
const { execFileSync } = require("node:child_process");
const [tgz, name] = process.argv.slice(2);
const files = new Set(execFileSync("tar", ["-tzf", tgz], { encoding: "utf8" }).trim().split("\n").map((f) => f.replace(/^package\//, "")));
const manifest = JSON.parse(execFileSync("tar", ["-xOzf", tgz, "package/package.json"], { encoding: "utf8" }));
const problems = [];
for (const f of ["README.md", "LICENSE", "package.json"]) if (!files.has(f)) problems.push(`no ${f}`);
if (manifest.license !== "MIT") problems.push(`license is ${manifest.license}, not MIT`);
if (manifest.type !== "module") problems.push("not \"type\": \"module\"");
// Every path the exports name is in the tarball, and no condition points at the TypeScript sources.
const walk = (v, where) => {
  if (typeof v === "string") {
    if (!files.has(v.replace(/^\.\//, ""))) problems.push(`${where} → ${v}, which is not in the tarball`);
  } else if (v && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      if (k === "source") problems.push(`${where} keeps the "source" condition`);
      walk(x, `${where}[${JSON.stringify(k)}]`);
    }
  }
};
walk(manifest.exports, "exports");
if (!manifest.exports) problems.push("no exports");
if (JSON.stringify(manifest).includes("workspace:")) problems.push("a workspace: range is left in the manifest");
// One core per application: every other package takes @einvoice/core as a peer dependency, never its own copy.
if (name !== "core") {
  if (!manifest.peerDependencies?.["@einvoice/core"]) problems.push("@einvoice/core is not a peer dependency");
  if (manifest.dependencies?.["@einvoice/core"]) problems.push("@einvoice/core is a dependency (an app would get a second core)");
}
if (problems.length) {
  console.error(`@einvoice/${name}: ${problems.join("; ")}`);
  process.exit(1);
}
EOF
done

step "publint --strict and attw --profile esm-only on each tarball"
for p in "${PACKAGES[@]}"; do
  "$BIN/publint" run --strict "${TARBALL[$p]}" >"$WORK/publint-$p.log" 2>&1 || { cat "$WORK/publint-$p.log"; fail "publint on @einvoice/$p"; }
  "$BIN/attw" "${TARBALL[$p]}" --profile esm-only --format table-flipped >"$WORK/attw-$p.log" 2>&1 || { cat "$WORK/attw-$p.log"; fail "@arethetypeswrong/cli on @einvoice/$p"; }
done

APP="$WORK/app"
mkdir -p "$APP/src"
cd "$APP"
cat >package.json <<'EOF'
{ "name": "einvoice-pack-check-app", "private": true, "type": "module" }
EOF
# npm, not the workspace: the tarballs and their dependencies from the registry. PGlite comes later.
NPM_FLAGS=(--no-audit --no-fund --loglevel=error --prefer-offline)
step "docs/library.md's npm install lines, as written, in $APP (EINVOICE=$EINVOICE)"
node - "$ROOT/docs/library.md" "$WORK/install.sh" <<'EOF' || fail "docs/library.md has no install block (marker <!-- pack-check: install.sh -->)"
const { readFileSync, writeFileSync } = require("node:fs");
const [doc, out] = process.argv.slice(2);
const m = /<!-- pack-check: install\.sh -->\n```sh\n([^]*?)\n```/.exec(readFileSync(doc, "utf8"));
if (!m) process.exit(1);
writeFileSync(out, "set -euo pipefail\n" + m[1] + "\n");
EOF
sed 's/^/  /' "$WORK/install.sh"
# The flags above, as npm's environment: the block runs exactly as a user types it.
(export EINVOICE npm_config_audit=false npm_config_fund=false npm_config_loglevel=error npm_config_prefer_offline=true
  bash "$WORK/install.sh") >"$WORK/npm.log" 2>&1 || { cat "$WORK/npm.log"; fail "the npm install lines of docs/library.md"; }
for p in "${PACKAGES[@]}"; do [ -f "node_modules/@einvoice/$p/package.json" ] || fail "the docs' install did not install @einvoice/$p"; done
mapfile -t CORES < <(find node_modules -path '*/@einvoice/core/package.json' -not -path '*/@einvoice/core/node_modules/*')
[ "${#CORES[@]}" -eq 1 ] || fail "the application has ${#CORES[@]} copies of @einvoice/core (${CORES[*]}), not one"
echo "  one @einvoice/core: ${CORES[0]%/package.json}"
[ -d node_modules/@electric-sql/pglite ] && fail "PGlite was installed although nothing asked for it"
# The types of the strict type-check below (not part of the docs' install: a TypeScript user adds them).
npm install "${NPM_FLAGS[@]}" "@types/node@^20" "@types/express@^5" "@types/pg@^8" >>"$WORK/npm.log" 2>&1 || { cat "$WORK/npm.log"; fail "npm install of the types"; }

step "without PGlite: @einvoice/postgres loads, and opening the embedded store names the npm command"
node --input-type=module -e '
const { openPostgresStore, MissingDriverError } = await import("@einvoice/postgres");
const e = await openPostgresStore({}).then(() => null, (x) => x);
if (!(e instanceof MissingDriverError) || !e.message.endsWith(`npm install "@electric-sql/pglite@~0.5.16"`)) {
  console.error("expected a MissingDriverError naming the npm command, got:", e);
  process.exit(1);
}' || fail "@einvoice/postgres without PGlite"

step "every package's main entry loads, also with node --conditions=source; bundled files are there"
for cond in "" "--conditions=source"; do
  # shellcheck disable=SC2086
  node $cond --input-type=module -e '
for (const p of process.argv.slice(1)) await import(`@einvoice/${p}`);' "${PACKAGES[@]}" || fail "an entry does not load (node $cond)"
done
# Files a package reads at run time beside its bundle.
node --input-type=module -e '
const { peppolSmpCAs } = await import("@einvoice/peppol-smp");
if (peppolSmpCAs().length < 2) throw new Error("the bundled SMP CA certificates are missing");' || fail "@einvoice/peppol-smp cannot read its bundled certificates"

npm install "${NPM_FLAGS[@]}" "@electric-sql/pglite@$(node -p 'require("@einvoice/postgres/package.json").peerDependencies["@electric-sql/pglite"]' 2>/dev/null || echo '~0.5.16')" >>"$WORK/npm.log" 2>&1 ||
  { cat "$WORK/npm.log"; fail "npm install @electric-sql/pglite"; }

step "docs/library.md's first run, and a strict NodeNext file using every entry"
node - "$ROOT/docs/library.md" "$APP/src" <<'EOF' || fail "the first-run programs in docs/library.md (markers <!-- pack-check: NAME.ts -->)"
const { readFileSync, writeFileSync } = require("node:fs");
const [doc, out] = process.argv.slice(2);
const text = readFileSync(doc, "utf8");
const blocks = [...text.matchAll(/<!-- pack-check: ([\w-]+\.ts) -->\n```ts\n([^]*?)\n```/g)];
const names = blocks.map((b) => b[1]);
for (const want of ["first-run-memory.ts", "first-run-pglite.ts"]) if (!names.includes(want)) throw new Error(`no ${want} block in ${doc}`);
for (const [, name, code] of blocks) writeFileSync(`${out}/${name}`, code + "\n");
EOF
cp "$ROOT/examples/invoice.xml" invoice.xml
# @einvoice/core/testing, as a third party writing an adapter uses it: the conformance suites run under
# the user's own vitest (an optional peer dependency), type-checked with the rest below.
npm install "${NPM_FLAGS[@]}" "vitest@$(node -p 'require("'"$ROOT"'/packages/core/package.json").devDependencies.vitest')" >>"$WORK/npm.log" 2>&1 ||
  { cat "$WORK/npm.log"; fail "npm install vitest (the peer of @einvoice/core/testing)"; }
cat >src/conformance.test.ts <<'EOF2'
// A third party's adapter tests: the published conformance suites on the published in-memory adapters.
import { memoryStore, sandboxNetwork } from "@einvoice/core";
import { testDeliveryStore, testNetwork, testStore, testWebhookStore, type NetworkFixture } from "@einvoice/core/testing";

testStore("memory (published)", () => memoryStore());
testDeliveryStore("memory (published)", async () => {
  const s = memoryStore();
  return { a: s, b: s, close: async () => {} };
});
testWebhookStore("memory (published)", () => memoryStore());
const fixture = (): NetworkFixture => ({
  network: sandboxNetwork({ delayMs: 0 }),
  deliverable: { scheme: "0208", value: "0123456789" },
  unreachable: { scheme: "9930", value: "unreachable-1" },
  flaky: { scheme: "9930", value: "flaky-42" },
  flakyFailures: 2,
});
testNetwork("sandbox (published)", fixture);
EOF2
for p in "${PACKAGES[@]}"; do echo "export * as ${p//-/_} from \"@einvoice/$p\";"; done >src/all-packages.ts
cat >src/entries.ts <<'EOF'
// Public entries, with types, as a strict NodeNext project sees them (src/all-packages.ts re-exports every package).
import { ApiError, memoryStore, sandboxNetwork, type AuthContext, type Invoice, type NetworkPort, type Store } from "@einvoice/core";
import { createAdminRouter, createV1Router, openApiDocument, toHttp } from "@einvoice/express";
import { DbError, MissingDriverError, openPostgresStore, type OpenedPostgresStore } from "@einvoice/postgres";
import { storecoveNetwork } from "@einvoice/storecove";
import express from "express";

const store: Store = memoryStore();
const network: NetworkPort = sandboxNetwork({ delayMs: 0 });
const peppol: NetworkPort = storecoveNetwork({ baseUrl: "https://example.invalid/api/v2", apiKey: "k" });
const app = express();
app.use("/v1", createV1Router({ store }));
app.use("/admin", createAdminRouter({ store, adminToken: "a-token-of-16-chars-or-more" }));
const http: { status: number } = toHttp(new ApiError("invalid_api_key", "no"));
const opened: Promise<OpenedPostgresStore> | undefined = undefined;
const auth: AuthContext | undefined = undefined;
const invoice: Invoice | undefined = undefined;
const errors: Array<new (...a: never[]) => Error> = [DbError, MissingDriverError];
export { app, auth, errors, http, invoice, network, opened, openApiDocument, openPostgresStore, peppol };
EOF
cat >tsconfig.json <<'EOF'
{
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "strict": true,
    "noUncheckedIndexedAccess": true,
    "exactOptionalPropertyTypes": true,
    "skipLibCheck": false,
    "types": ["node"],
    "outDir": "out",
    "rootDir": "src"
  },
  "include": ["src"]
}
EOF
step "type-checking and compiling with the workspace's TypeScript ($("$BIN/tsc" --version))"
"$BIN/tsc" -p tsconfig.json || fail "the strict NodeNext type-check against the installed packages"

step "running the published conformance suites (@einvoice/core/testing) under the app's own vitest"
(cd "$APP" && NO_COLOR=1 timeout 300 node_modules/.bin/vitest run --dir out --reporter=dot >"$WORK/conformance.log" 2>&1) || { tail -80 "$WORK/conformance.log"; fail "the conformance suites of @einvoice/core/testing on the published memory store and sandbox network"; }
grep -E "Tests +[0-9]+ passed" "$WORK/conformance.log" | sed "s/^ */  conformance: /" || fail "the conformance run reported no passed tests"

for program in first-run-memory first-run-pglite; do
  step "running $program (docs/library.md) until the invoice is delivered"
  timeout 120 node "out/$program.js" >"$WORK/$program.log" 2>&1 || { cat "$WORK/$program.log"; fail "$program exited with an error"; }
  grep -q '^delivered\b' "$WORK/$program.log" || { cat "$WORK/$program.log"; fail "$program did not end with the invoice delivered"; }
  sed 's/^/  /' "$WORK/$program.log"
done
step "OK: ${PACKAGES[*]}: pack, lint, install with npm, type-check and run the first use"
