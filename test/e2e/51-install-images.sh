#!/usr/bin/env bash
# Container images without a container engine: scripts/check-images.sh resolves every ldd
# dependency of the binaries each Dockerfile ships (pgbench-operator, pgbench-runner, pgbench) to
# a package its rootfs stage installs (the stage the FROM scratch image copies), then runs each
# binary under chroot, as uid 65532, in a root filesystem holding only the files of those packages
# and their dependencies. fio is built from source inside the image build (checked there, and run
# by e2e 74). The check must also catch a Dockerfile that forgets a library, and a root USER.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
cd "$ROOT"

# the binaries exactly as the images' build stage makes them (release flags, no sanitizer)
scripts/check-images.sh --rootfs >"$TMP/images.txt" 2>&1 || { cat "$TMP/images.txt"; fail "image check"; }
tail -1 "$TMP/images.txt" >&2
for want in "operator  *pgbench-operator  *libuv.so.1  *libuv1  *listed" \
    "runner  *pgbench-runner  *libpq.so.5  *libpq5" \
    "runner  *pgbench  *\\(executable\\)  *postgresql-15" \
    "runner  *pgbench  *libpq.so.5" \
    "runner  *fio  *\\(executable\\)  *source, stage fio  *built in the image" \
    "operator  *pgbench-operator  *\\(runs in rootfs\\) .* ok, exit 0: usage" \
    "runner  *pgbench-runner  *\\(runs in rootfs\\) .* ok, exit 0: usage" \
    "runner  *pgbench  *\\(runs in rootfs\\) .* ok, exit 0: pgbench \\(PostgreSQL\\) 15"; do
    grep -qE -- "$want" "$TMP/images.txt" || { cat "$TMP/images.txt"; fail "no row matching '$want'"; }
done

# the operator does not link libpq (only the runner talks to PostgreSQL) and its image has no libpq5
grep -qE "^operator +pgbench-operator +libpq" "$TMP/images.txt" && { cat "$TMP/images.txt"; fail "the operator links libpq"; }
readelf -d build/images/bin/pgbench-operator | grep -q 'NEEDED.*libpq' && fail "pgbench-operator needs libpq.so"
grep -qE "(^| )libpq5( |$)" images/operator.Dockerfile && fail "the operator image installs libpq5"

# the check must fail when a runtime package is missing
mkdir -p "$TMP/images"
sed 's/ libuv1 / /' images/operator.Dockerfile >"$TMP/images/operator.Dockerfile"
grep -qE "(^| )libuv1( |$)" "$TMP/images/operator.Dockerfile" && fail "could not drop libuv1 from the copy"
if scripts/check-images.sh --bin build/images/bin --rootfs --dockerfile "$TMP/images/operator.Dockerfile" \
    >"$TMP/miss.txt" 2>&1; then
    fail "check-images accepted an operator image without libuv1"
fi
grep -qE "libuv.so.1 +libuv1 +MISS" "$TMP/miss.txt" || { cat "$TMP/miss.txt"; fail "the miss names the wrong library"; }
grep -qE "runs in rootfs.*MISS: exit 127: .*libuv.so.1: cannot open shared object" "$TMP/miss.txt" ||
    { cat "$TMP/miss.txt"; fail "the binary ran in a rootfs without libuv1"; }

# ... and when the runner's last stage runs as root
sed 's/^USER .*/USER root/' images/runner.Dockerfile >"$TMP/images/runner.Dockerfile"
if scripts/check-images.sh --bin build/images/bin --dockerfile "$TMP/images/runner.Dockerfile" \
    >"$TMP/root.txt" 2>&1; then
    fail "check-images accepted a root runner image"
fi
pass "runtime packages cover every shared library, the binaries run in a rootfs of only those packages; a missing package and a root USER are caught"
