#!/usr/bin/env bash
# Runs every unit test: the cmocka binaries under $BUILD/test and the simulated cluster's node tests.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD="${BUILD:-build}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
failed=()
count=0
start=$SECONDS
for t in $(find "$BUILD/test" -type f -perm -u+x -name 'test_*' 2>/dev/null | sort); do
    count=$((count + 1))
    if ! "$t" >"$t.log" 2>&1; then
        cat "$t.log"
        failed+=("$t")
    else
        echo "ok   $t"
    fi
done
if [ -d test/sim/test ]; then
    count=$((count + 1))
    if node --test test/sim/test/ >"$BUILD/sim-tests.log" 2>&1; then
        echo "ok   node --test test/sim/test/"
    else
        tail -80 "$BUILD/sim-tests.log"
        failed+=("node --test test/sim/test/")
    fi
fi
echo "unit: $((count - ${#failed[@]}))/$count passed in $((SECONDS - start)) s"
[ "${#failed[@]}" -eq 0 ] || { printf 'FAILED: %s\n' "${failed[@]}"; exit 1; }
