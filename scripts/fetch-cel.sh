#!/usr/bin/env bash
# Installs the CEL evaluator used by scripts/validate-cel.mjs into build/tools-install
# (npm registry; idempotent, no-op when present).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIR="$ROOT/build/tools-install"
VERSION=8.0.0
if [ -f "$DIR/node_modules/@marcbachmann/cel-js/package.json" ] &&
   grep -q "\"version\": \"$VERSION\"" "$DIR/node_modules/@marcbachmann/cel-js/package.json"; then
    exit 0
fi
mkdir -p "$DIR"
cd "$DIR"
npm install --no-save --no-audit --no-fund --prefix "$DIR" "@marcbachmann/cel-js@$VERSION" >/dev/null
