#!/usr/bin/env bash
# The runner image run as the operator runs it (pkg/api/manifest.c): uid 65532, read-only
# root, /tmp an emptyDir (a host directory here), every capability dropped, no-new-privileges,
# the default seccomp profile, host networking, PGPASSWORD from the environment (a Secret in a
# pod) and the termination message in a file at /dev/termination-log. In it:
#   - pgbench init and a TPC-B run against the test PostgreSQL give results that pass the same
#     checks as the host-built runner's (test/lib/runner-checks.sh, shared with e2e 30 and 33);
#   - fio against a directory volume (libaio, direct I/O) gives a result that passes e2e 33's;
#   - the image holds no shell, and both images are within their size budgets
#     (scripts/images.sh), which a budget below their size must fail.
# Builds the images when they are missing or stale; skips only when no container engine exists.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
. "$(dirname "$0")/../lib/runner-checks.sh"
env_need_image runner
note "runner image $IMAGE ($ENGINE)"

# the budgets: both images within theirs, and a budget below the size is reported and fails
"$ROOT/scripts/images.sh" --if-missing >"$TMP/budget.txt" 2>&1 || { cat "$TMP/budget.txt"; fail "an image is over its budget"; }
grep -E '^images: (operator|runner) ' "$TMP/budget.txt" >&2
[ "$(grep -cE '^images: (operator|runner) .*MB \(budget [0-9]+ MB\)$' "$TMP/budget.txt")" = 2 ] ||
    { cat "$TMP/budget.txt"; fail "images.sh did not print both sizes within budget"; }
if IMAGE_BUDGET_MB_runner=1 "$ROOT/scripts/images.sh" --if-missing runner >"$TMP/over.txt" 2>&1; then
    fail "a runner over a 1 MB budget was accepted"
fi
grep -q "OVER BUDGET" "$TMP/over.txt" || { cat "$TMP/over.txt"; fail "over budget, but not said"; }

env_start_pg
mkdir -p "$TMP/empty" "$TMP/data"
chmod 777 "$TMP/empty" "$TMP/data"

# crun NAME args...: the runner image with the pod's securityContext; stdout in $TMP/NAME.out,
# stderr in $TMP/NAME.err, the termination message in $TMP/NAME.term; sets RC
crun() {
    local name="$1"
    shift
    : >"$TMP/$name.term"
    chmod 666 "$TMP/$name.term"
    RC=0
    local ro=(--read-only)
    # podman adds tmpfs mounts to a read-only container unless told not to; a pod gets none
    [ "$ENGINE" != podman ] || ro+=(--read-only-tmpfs=false)
    "$ENGINE" run --rm --network host --user 65532:65532 "${ro[@]}" \
        --cap-drop all --security-opt no-new-privileges \
        -v "$TMP/empty:/tmp" -v "$TMP/data:/data" -v "$TMP/$name.term:/dev/termination-log" \
        -e PGHOST -e PGPORT -e PGUSER -e PGPASSWORD -e PGDATABASE \
        -e BENCH_TERMINATION_LOG=/dev/termination-log \
        "$IMAGE" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" || RC=$?
}
check() {
    runner_check "$TMP/$1.out" "$TMP/$1.term" "$2" || { tail -20 "$TMP/$1.err" >&2; fail "$1: result check failed"; }
}

crun init "${RUNNER_INIT_ARGS[@]}"
[ "$RC" -eq 0 ] || { tail -20 "$TMP/init.err" >&2; fail "init in the image exited $RC"; }
check init "$RUNNER_INIT_CHECK"
[ "$(psql -X -tAc 'SELECT count(*) FROM pgbench_branches')" = 2 ] || fail "init did not create scale 2"
note "init ok"

crun tpcb "${RUNNER_TPCB_ARGS[@]}"
[ "$RC" -eq 0 ] || { tail -20 "$TMP/tpcb.err" >&2; fail "tpcb in the image exited $RC"; }
check tpcb "$RUNNER_TPCB_CHECK"
for f in tpcb.out tpcb.err tpcb.term; do
    if grep -q "$PGPASSWORD" "$TMP/$f"; then fail "the password appears in $f"; fi
done
# the pgbench that ran is the image's (PostgreSQL 15 from Debian), not the host's
check tpcb 'assert r["pgbench"]["version"].startswith("15."), r["pgbench"]'
note "tpcb ok"

# shellcheck disable=SC2046 # the arguments are words without spaces
crun fio $(runner_fio_args /data)
[ "$RC" -eq 0 ] || { tail -20 "$TMP/fio.err" >&2; fail "fio in the image exited $RC"; }
check fio "$RUNNER_FIO_CHECK" >&2
[ -n "$(find "$TMP/data" -type f -user 65532 -print -quit)" ] || fail "fio wrote no file as uid 65532 in the volume"
note "fio ok"

# nothing but the programs: no shell to exec into
if "$ENGINE" run --rm --entrypoint /bin/sh "$IMAGE" -c true >/dev/null 2>&1; then
    fail "the runner image has a shell"
fi
[ "$(engine_image_field "$IMAGE" '{{.Config.User}}')" = "65532:65532" ] || fail "the image's USER is not 65532:65532"
pass "runner image as the operator runs it: init, TPC-B and fio results pass the host runner's checks; budgets held"
