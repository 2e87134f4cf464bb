#!/usr/bin/env bash
# Unreachable targets: nothing listening -> exit 3 "refused" within the wait timeout; wrong
# password -> exit 3 "auth" at once (not retried), the password nowhere in the output; unknown
# host -> "dns"; sslmode=require against a server without TLS -> "tls"; missing database ->
# "database-missing"; SIGTERM while waiting -> exit 2 with a result. Each still writes a valid compact
# termination message. A database, user or host that is a libpq connection string (flag or PG*
# variable) -> exit 1 before anything connects.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_need_runner

# expect NAME EXIT CLASS MAX_SECONDS env... -- runner args
expect() {
    local name="$1" want_rc="$2" class="$3" max_s="$4"
    shift 4
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    local t0=$SECONDS rc=0
    env "${envs[@]}" BENCH_TERMINATION_LOG="$TMP/$name.term" "$RUNNER" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" || rc=$?
    local took=$((SECONDS - t0))
    [ "$rc" -eq "$want_rc" ] || { cat "$TMP/$name.err" >&2; fail "$name: exit $rc, want $want_rc"; }
    [ "$took" -le "$max_s" ] || fail "$name: took ${took}s, more than ${max_s}s"
    python3 - "$TMP/$name.out" "$TMP/$name.term" "$class" <<'PY' || { cat "$TMP/$name.err" >&2; fail "$name: result check failed"; }
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
term = json.loads(open(sys.argv[2]).read())
assert r["complete"] is False and r["exitCode"] == 3, r
assert term["exitCode"] == 3 and term["complete"] is False, term
errs = " ".join(r["errors"])
assert "(%s)" % sys.argv[3] in errs, errs
print(r["errors"][0])
PY
    if grep -q "bench-secret\|wrong-pass-123" "$TMP/$name.out" "$TMP/$name.err" "$TMP/$name.term"; then
        fail "$name: a password appears in the output"
    fi
}

FREE_PORT="$(env_free_port)"
expect refused 3 refused 10 PGPORT="$FREE_PORT" -- pgbench run --clients 1 --duration 1 --wait-timeout 2
grep -q "127.0.0.1:$FREE_PORT" "$TMP/refused.out" || fail "refused: the message does not name host:port"
expect refused_init 3 refused 10 PGPORT="$FREE_PORT" -- pgbench init --scale 1 --wait-timeout 1
# auth is permanent: no waiting for the whole timeout
expect auth 3 auth 8 PGPASSWORD=wrong-pass-123 -- pgbench run --clients 1 --duration 1 --wait-timeout 30
expect dns 3 dns 20 PGHOST=no-such-host.invalid -- pgbench run --clients 1 --duration 1 --wait-timeout 1
# the test server has no TLS: requiring it is a TLS failure, not retried
expect tls 3 tls 8 PGSSLMODE=require -- pgbench run --clients 1 --duration 1 --wait-timeout 30
expect nodb 3 database-missing 8 PGDATABASE=no_such_db -- pgbench run --clients 1 --duration 1 --wait-timeout 30
# SIGTERM while waiting for the target: a result is still printed (exit 2), at once
T0=$SECONDS
PGPORT="$FREE_PORT" SIM_TERMINATION_MESSAGE_PATH="$TMP/sim.term" "$RUNNER" pgbench run --clients 1 \
    --duration 1 --wait-timeout 60 >"$TMP/sigterm.out" 2>"$TMP/sigterm.err" &
PID=$!
sleep 1
kill -TERM "$PID"
rc=0
wait "$PID" || rc=$?
[ "$rc" -eq 2 ] || { cat "$TMP/sigterm.err" >&2; fail "SIGTERM during the wait: exit $rc, want 2"; }
[ $((SECONDS - T0)) -le 8 ] || fail "SIGTERM during the wait took $((SECONDS - T0)) s"
python3 - "$TMP/sigterm.out" "$TMP/sim.term" <<'PY' || fail "SIGTERM during the wait: result check failed"
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
term = json.loads(open(sys.argv[2]).read())  # SIM_TERMINATION_MESSAGE_PATH honoured
assert r["complete"] is False and r["exitCode"] == 2 and term["exitCode"] == 2
assert any("terminated by signal 15" in e for e in r["errors"]), r["errors"]
PY

# usage errors are exit 1, still with a JSON result
rc=0
"$RUNNER" pgbench run --clients 0 --duration 1 >"$TMP/usage.out" 2>"$TMP/usage.err" || rc=$?
[ "$rc" -eq 1 ] || fail "usage error: exit $rc, want 1"
python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).read().splitlines()[-1]); assert r["exitCode"]==1 and r["errors"]' "$TMP/usage.out" ||
    fail "usage error without a JSON result"

# no input is trusted: a database, user or host that libpq would expand as a connection string
# (pgbench does, with PGDATABASE or PGUSER as its database) is refused before anything connects,
# so "sslmode=disable" cannot override PGSSLMODE=require for pgbench alone
refused_name() { # NAME WHAT env... -- runner args: exit 1, the message starts with WHAT
    local name="$1" what="$2"
    shift 2
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    local rc=0
    env "${envs[@]}" "$RUNNER" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" || rc=$?
    [ "$rc" -eq 1 ] || { cat "$TMP/$name.err" >&2; fail "$name: exit $rc, want 1"; }
    python3 - "$TMP/$name.out" "$what" <<'PY' || fail "$name: result check failed"
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
assert r["exitCode"] == 1 and r["complete"] is False, r
assert r["errors"][0].startswith(sys.argv[2]), r["errors"]
print(r["errors"][0])
PY
    grep -q "cannot connect\|ready after" "$TMP/$name.err" && fail "$name: the runner connected"
    true
}
refused_name pgdatabase 'PGDATABASE "x sslmode=disable": libpq would read it as a connection string' \
    PGDATABASE='x sslmode=disable' PGSSLMODE=require -- pgbench run --clients 1 --duration 1
refused_name dbname_flag '--dbname "dbname=bench application_name=x": libpq would read it' \
    -- pgbench run --clients 1 --duration 1 --dbname 'dbname=bench application_name=x'
refused_name uri '--dbname "postgresql://127.0.0.1/bench?sslmode=disable": libpq would read' \
    -- pgbench init --scale 1 --dbname 'postgresql://127.0.0.1/bench?sslmode=disable'
# pgbench takes PGUSER as its database when PGDATABASE is unset
refused_name pguser 'PGUSER "bench sslmode=disable": libpq would read it' \
    PGDATABASE= PGUSER='bench sslmode=disable' -- pgbench run --clients 1 --duration 1
refused_name pghost 'PGHOST "127.0.0.1 sslmode=disable": is not a DNS name or IP address' \
    PGHOST='127.0.0.1 sslmode=disable' -- pgbench run --clients 1 --duration 1
pass "refused, auth, dns, tls, missing database -> exit 3 with the class; SIGTERM while waiting -> exit 2; usage -> exit 1; connection strings as database, user or host -> exit 1"
