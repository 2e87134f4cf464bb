#!/usr/bin/env bash
# Runs every end-to-end test (test/e2e/*.sh) in order; E2E=pattern selects some.
set -uo pipefail
cd "$(dirname "$0")/.."
export BUILD="${BUILD:-build}"
pattern="${E2E:-}"
failed=()
count=0
mkdir -p "$BUILD/e2e"
for t in test/e2e/*.sh; do
    [ -e "$t" ] || continue
    name="$(basename "$t" .sh)"
    if [ -n "$pattern" ] && [[ "$name" != *$pattern* ]]; then continue; fi
    count=$((count + 1))
    start=$SECONDS
    if timeout "${E2E_TIMEOUT:-600}" bash "$t" >"$BUILD/e2e/$name.log" 2>&1; then
        echo "ok   $name ($((SECONDS - start))s)"
    else
        echo "FAIL $name ($((SECONDS - start))s); last lines of $BUILD/e2e/$name.log:"
        tail -40 "$BUILD/e2e/$name.log" | sed 's/^/     /'
        failed+=("$name")
    fi
done
echo "e2e: $((count - ${#failed[@]}))/$count passed"
[ "${#failed[@]}" -eq 0 ] || { printf 'FAILED: %s\n' "${failed[@]}"; exit 1; }
