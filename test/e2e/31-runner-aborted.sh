#!/usr/bin/env bash
# Aborted runs: the runner's pgbench backends terminated mid-run -> exit 2, complete=false, the
# aborted clients' errors listed, partial results kept. Then SIGTERM to the runner mid-run ->
# forwarded, partial result still emitted (exit 2) with a valid compact termination message.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
RUNNER="$BIN/pgbench-runner"
[ -x "$RUNNER" ] || fail "$RUNNER not built"

"$RUNNER" pgbench init --scale 1 >"$TMP/init.out" 2>"$TMP/init.err" || { cat "$TMP/init.err" >&2; fail "init failed"; }

# --- backends terminated ---------------------------------------------------------------------
BENCH_TERMINATION_LOG="$TMP/abort.term" "$RUNNER" pgbench run --clients 4 --threads 2 --duration 20 \
    --builtin select-only --wait-events >"$TMP/abort.out" 2>"$TMP/abort.err" &
RUNNER_PID=$!
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
RC=0
wait "$RUNNER_PID" || RC=$?
[ "$RC" -eq 2 ] || { tail -20 "$TMP/abort.err" >&2; fail "terminated backends: exit $RC, want 2"; }
python3 - "$TMP/abort.out" "$TMP/abort.term" <<'PY' || { tail -20 "$TMP/abort.err" >&2; fail "aborted result check failed"; }
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
term = json.loads(open(sys.argv[2]).read())
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
BENCH_TERMINATION_LOG="$TMP/term.term" "$RUNNER" pgbench run --clients 2 --threads 1 --duration 30 \
    --builtin select-only >"$TMP/term.out" 2>"$TMP/term.err" &
RUNNER_PID=$!
env_wait_for "pgbench backends" 20 backends_at_least 2
sleep 2.5
kill -TERM "$RUNNER_PID"
RC=0
wait "$RUNNER_PID" || RC=$?
[ "$RC" -eq 2 ] || { tail -20 "$TMP/term.err" >&2; fail "SIGTERM: exit $RC, want 2"; }
python3 - "$TMP/term.out" "$TMP/term.term" <<'PY' || { tail -20 "$TMP/term.err" >&2; fail "SIGTERM result check failed"; }
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
term = json.loads(open(sys.argv[2]).read())
assert r["complete"] is False and term["complete"] is False
assert any("SIGTERM" in e for e in r["errors"]), r["errors"]
assert len(r["timeline"]) >= 1, "no partial timeline"
PY
# no pgbench left behind
sleep 0.5
[ "$(count_backends)" -eq 0 ] || fail "pgbench backends still connected after SIGTERM"

# --- watchdog: a pgbench that hangs (stopped here) is killed and the runner still reports -------
BENCH_WATCHDOG_SECONDS=3 "$RUNNER" pgbench run --clients 1 --duration 60 --builtin select-only \
    >"$TMP/wd.out" 2>"$TMP/wd.err" &
RUNNER_PID=$!
# the load's pgbench, not the short-lived `pgbench --version` probe before it: wait for its backend
env_wait_for "pgbench backend" 20 backends_at_least 1
LOAD_PID="$(pgrep -P "$RUNNER_PID" -x pgbench)" || fail "no pgbench child of the runner while its backend is connected"
kill -STOP "$LOAD_PID"
T0=$SECONDS
RC=0
wait "$RUNNER_PID" || RC=$?
[ "$RC" -eq 2 ] || { tail -20 "$TMP/wd.err" >&2; fail "watchdog: exit $RC, want 2"; }
[ $((SECONDS - T0)) -le 20 ] || fail "watchdog took $((SECONDS - T0)) s"
python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).read().splitlines()[-1]); assert r["complete"] is False and any("watchdog" in e for e in r["errors"]), r["errors"]' "$TMP/wd.out" ||
    fail "watchdog result check failed"
pass "terminated backends -> exit 2 with errors; SIGTERM -> partial result; watchdog"
