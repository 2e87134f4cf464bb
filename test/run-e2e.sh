#!/usr/bin/env bash
# Runs every end-to-end test (test/e2e/*.sh) in number order (NN or NNN); E2E=pattern selects
# some: a substring of the name, or several separated by spaces.
# Each script gets at most E2E_TIMEOUT seconds (default 600) and all of them together
# E2E_BUDGET seconds (default 3600: CI has 90 minutes for everything); a script that would start
# past the budget is not run and counts as failed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
export BUILD="${BUILD:-build}"
pattern="${E2E:-}"
failed=()
count=0
begin=$SECONDS
budget="${E2E_BUDGET:-3600}"
mkdir -p "$BUILD/e2e"
mapfile -t tests < <(printf '%s\n' test/e2e/*.sh | sort -V)
for t in "${tests[@]}"; do
    [ -e "$t" ] || continue
    name="$(basename "$t" .sh)"
    if [ -n "$pattern" ]; then
        hit=0
        for p in $pattern; do [[ "$name" == *"$p"* ]] && hit=1; done
        [ "$hit" = 1 ] || continue
    fi
    count=$((count + 1))
    if [ $((SECONDS - begin)) -ge "$budget" ]; then
        echo "SKIP $name: the e2e budget of ${budget} s is spent"
        failed+=("$name (not run)")
        continue
    fi
    start=$SECONDS
    if timeout "${E2E_TIMEOUT:-600}" bash "$t" >"$BUILD/e2e/$name.log" 2>&1; then
        echo "ok   $name ($((SECONDS - start))s)"
    else
        echo "FAIL $name ($((SECONDS - start))s); last lines of $BUILD/e2e/$name.log:"
        tail -40 "$BUILD/e2e/$name.log" | sed 's/^/     /'
        failed+=("$name")
    fi
done
echo "e2e: $((count - ${#failed[@]}))/$count passed in $((SECONDS - begin)) s"
[ "${#failed[@]}" -eq 0 ] || { printf 'FAILED: %s\n' "${failed[@]}"; exit 1; }
