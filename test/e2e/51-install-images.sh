#!/usr/bin/env bash
# Container images without a container engine: scripts/check-images.sh resolves every ldd
# dependency of the binaries each Dockerfile ships (pgbench-operator, pgbench-runner, pgbench,
# fio) to a package its runtime stage installs. Then the check must catch a Dockerfile that
# forgets a library.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
cd "$ROOT"

# the binaries exactly as the images' build stage makes them (release flags, no sanitizer)
scripts/check-images.sh >"$TMP/images.txt" 2>&1 || { cat "$TMP/images.txt"; fail "image check"; }
tail -1 "$TMP/images.txt" >&2
for want in "operator  *pgbench-operator  *libuv.so.1  *libuv1  *listed" \
    "runner  *pgbench-runner  *libpq.so.5  *libpq5" \
    "runner  *pgbench  *\\(executable\\)  *postgresql-15" \
    "runner  *pgbench  *libpq.so.5" \
    "runner  *fio  *\\(executable\\)  *fio  *listed"; do
    grep -qE -- "$want" "$TMP/images.txt" || { cat "$TMP/images.txt"; fail "no row matching '$want'"; }
done

# the check must fail when a runtime package is missing
mkdir -p "$TMP/images"
sed 's/ libuv1 / /' images/operator.Dockerfile >"$TMP/images/operator.Dockerfile"
grep -qE "(^| )libuv1( |$)" "$TMP/images/operator.Dockerfile" && fail "could not drop libuv1 from the copy"
if scripts/check-images.sh --bin build/images/bin --dockerfile "$TMP/images/operator.Dockerfile" \
    >"$TMP/miss.txt" 2>&1; then
    fail "check-images accepted an operator image without libuv1"
fi
grep -qE "libuv.so.1 +libuv1 +MISS" "$TMP/miss.txt" || { cat "$TMP/miss.txt"; fail "the miss names the wrong library"; }

# ... and when the runner's last stage runs as root
sed 's/^USER .*/USER root/' images/runner.Dockerfile >"$TMP/images/runner.Dockerfile"
if scripts/check-images.sh --bin build/images/bin --dockerfile "$TMP/images/runner.Dockerfile" \
    >"$TMP/root.txt" 2>&1; then
    fail "check-images accepted a root runner image"
fi
pass "runtime packages cover every shared library; a missing package and a root USER are caught"
