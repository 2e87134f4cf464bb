#!/usr/bin/env bash
# Aborted runs: the runner's pgbench backends terminated mid-run -> exit 2, complete=false, the
# aborted clients' errors listed, partial results kept. Then SIGTERM to the runner mid-run ->
# forwarded, partial result still emitted (exit 2) with a valid compact termination message.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_need_runner

"$RUNNER" pgbench init --scale 1 >"$TMP/init.out" 2>"$TMP/init.err" || { cat "$TMP/init.err" >&2; fail "init failed"; }

# start_run NAME args...: the runner with args in the background, its stdout, stderr and
# termination message in $TMP/NAME.out, NAME.err and NAME.term; sets RUNNER_PID.
start_run() {
    local name="$1"
    shift
    BENCH_TERMINATION_LOG="$TMP/$name.term" "$RUNNER" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
    RUNNER_PID=$!
}
# wait_exit2 NAME WHAT: waits for the runner; fails (showing its stderr) unless it exited 2.
wait_exit2() {
    local rc=0
    wait "$RUNNER_PID" || rc=$?
    [ "$rc" -eq 2 ] || { tail -20 "$TMP/$1.err" >&2; fail "$2: exit $rc, want 2"; }
}
# check_result NAME WHAT: runs the Python on stdin with r (the last line of NAME.out) and term
# (NAME.term) decoded; fails (showing the runner's stderr) when it raises.
check_result() {
    { printf '%s\n' 'import json, sys' \
        'r = json.loads(open(sys.argv[1]).read().splitlines()[-1])' \
        'term = json.loads(open(sys.argv[2]).read())'; cat; } |
        python3 - "$TMP/$1.out" "$TMP/$1.term" || { tail -20 "$TMP/$1.err" >&2; fail "$2 result check failed"; }
}

# --- backends terminated ---------------------------------------------------------------------
start_run abort pgbench run --clients 4 --threads 2 --duration 20 --builtin select-only --wait-events
# wait until the runner's pgbench backends are busy, then terminate them all
count_backends() {
    env_psql_super -tAc "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'pgbench-runner:%'"
}
backends_at_least() { [ "$(count_backends)" -ge "$1" ]; }
env_wait_for "pgbench backends" 20 backends_at_least 4
sleep 2
[ "$(count_backends)" -ge 4 ] || fail "expected 4 runner backends"
# the diagnostics connection has its own application_name and is not terminated
env_psql_super -tAc "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'pgbench-runner-diag:%'" | grep -qx 1 ||
    fail "diagnostics connection not found"
env_psql_super -tAc "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'pgbench-runner:%'" >/dev/null
wait_exit2 abort "terminated backends"
check_result abort aborted <<'PY'
assert r["complete"] is False and r["exitCode"] == 2, (r["complete"], r["exitCode"])
assert term["complete"] is False and term["exitCode"] == 2, term
errs = r["errors"]
assert errs and any("abort" in e or "terminat" in e for e in errs), errs
s = r["summary"]
aborted = s.get("abortedClients")
assert aborted is None or aborted >= 1, s
assert len(r["timeline"]) >= 1, "partial timeline lost"
assert r["waitEvents"]["samples"] >= 1
print("aborted: %d errors, e.g. %s" % (len(errs), errs[0][:120]))
PY
note "terminated backends ok"

# --- SIGTERM to the runner -----------------------------------------------------------------------
start_run term pgbench run --clients 2 --threads 1 --duration 30 --builtin select-only
env_wait_for "pgbench backends" 20 backends_at_least 2
sleep 2.5
kill -TERM "$RUNNER_PID"
wait_exit2 term SIGTERM
check_result term SIGTERM <<'PY'
assert r["complete"] is False and term["complete"] is False
assert any("SIGTERM" in e for e in r["errors"]), r["errors"]
assert len(r["timeline"]) >= 1, "no partial timeline"
PY
# no pgbench left behind
sleep 0.5
[ "$(count_backends)" -eq 0 ] || fail "pgbench backends still connected after SIGTERM"

# --- watchdog: a pgbench that hangs (stopped here) is killed and the runner still reports -------
BENCH_WATCHDOG_SECONDS=3 start_run wd pgbench run --clients 1 --duration 60 --builtin select-only
# the load's pgbench, not the short-lived `pgbench --version` probe before it: wait for its backend
env_wait_for "pgbench backend" 20 backends_at_least 1
LOAD_PID="$(pgrep -P "$RUNNER_PID" -x pgbench)" || fail "no pgbench child of the runner while its backend is connected"
kill -STOP "$LOAD_PID"
T0=$SECONDS
wait_exit2 wd watchdog
[ $((SECONDS - T0)) -le 20 ] || fail "watchdog took $((SECONDS - T0)) s"
check_result wd watchdog <<'PY'
assert r["complete"] is False and term["complete"] is False
assert any("watchdog" in e for e in r["errors"]), r["errors"]
PY
pass "terminated backends -> exit 2 with errors; SIGTERM -> partial result; watchdog"
