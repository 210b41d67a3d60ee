#!/usr/bin/env bash
# `pnpm pack:all [DIR]`: builds every published package (each folder of packages/ whose package.json
# is not private) and writes their tarballs to one folder, `tarballs/` at the repository root unless DIR
# is given. docs/library.md#install says how an application installs them together; scripts/pack-check.sh
# checks that, with this script. The output folder is emptied of old einvoice tarballs first.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
OUT="${1:-$ROOT/tarballs}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
# .ci/run and pack-check pass their pnpm command (pnpm, or `npx -y pnpm@10` on a machine without it).
read -ra PNPM <<<"${PNPM_CMD:-pnpm}"

mapfile -t PACKAGES < <(for d in packages/*/; do
  node -e 'const p = require(process.argv[1]); if (!p.private) console.log(process.argv[2])' "$ROOT/${d}package.json" "$(basename "$d")"
done)
[ "${#PACKAGES[@]}" -gt 0 ] || { echo "pack:all: no published package in packages/" >&2; exit 1; }

LOG="$(mktemp)"
trap 'rm -f "$LOG"' EXIT
"${PNPM[@]}" -r --filter './packages/*' build >"$LOG" 2>&1 || { cat "$LOG"; echo "pack:all: FAILED: building the packages" >&2; exit 1; }
rm -f "$OUT"/einvoice-*.tgz
for p in "${PACKAGES[@]}"; do
  (cd "packages/$p" && "${PNPM[@]}" pack --pack-destination "$OUT" >"$LOG" 2>&1) || { cat "$LOG"; echo "pack:all: FAILED: pnpm pack in packages/$p" >&2; exit 1; }
done
echo "pack:all: wrote to $OUT:"
ls -1 "$OUT"/einvoice-*.tgz | sed 's|.*/|  |'
