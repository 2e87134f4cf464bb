#!/usr/bin/env bash
# The simulated cluster's own tests (node:test): API server double (test/sim/test/core*.test.js)
# and workload simulation (test/sim/test/workload*.test.js), each asserting documented
# kube-apiserver / controller behaviour.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
cd "$ROOT/test/sim"
[ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error >/dev/null
node --test --test-reporter=tap test/ >"$TMP/tap.txt" 2>&1 || { grep -B2 -A30 'not ok' "$TMP/tap.txt" | head -150 >&2; fail "node tests failed"; }
pass "$(grep -E '^# (tests|pass)' "$TMP/tap.txt" | tr '\n' ' ')"
