#!/usr/bin/env bash
# pgbench-runner against a real PostgreSQL 15 with the real pgbench: init (and skip on a second
# init), TPC-B with per-statement latencies, select-only, a weighted custom script, weight 0 and
# --max-tries 0 honoured; every result JSON checked (percentiles ordered, timeline ~ duration,
# wait events sampled) and the password never in `ps`, the result or the logs. Also: histogram
# percentiles within 1 % of the exact percentiles of the same transaction logs.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
. "$(dirname "$0")/../lib/runner-checks.sh"
env_start_pg

env_need_runner

# runner NAME args...: runs the runner, stdout in $TMP/NAME.out, stderr in $TMP/NAME.err; sets RC.
runner() {
    local name="$1"
    shift
    RC=0
    BENCH_TERMINATION_LOG="$TMP/$name.term" "$RUNNER" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" || RC=$?
}

# check NAME python-block: runner_check (test/lib/runner-checks.sh) on $TMP/NAME.out and .term
check() {
    runner_check "$TMP/$1.out" "$TMP/$1.term" "$2" || { tail -20 "$TMP/$1.err" >&2; fail "$1: result check failed"; }
}

secret_free() {
    local f
    for f in "$@"; do
        if grep -q "bench-secret" "$f"; then fail "the password appears in $(basename "$f")"; fi
    done
}

# --- init, with --create-database on a database that does not exist yet -------------------
PGDATABASE=bench_new runner init_new pgbench init --scale 1 --partitions 2 --foreign-keys \
    --create-database --skip-if-initialized
[ "$RC" -eq 0 ] || { cat "$TMP/init_new.err" >&2; fail "init with --create-database exited $RC"; }
check init_new '
assert r["kind"] == "pgbench-init" and r["complete"] is True and r["exitCode"] == 0
assert r["init"]["skipped"] is False, r["init"]
'
env_psql_super -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'bench_new'" | grep -q 1 ||
    fail "bench_new was not created"
PGDATABASE=bench_new runner init_new2 pgbench init --scale 1 --partitions 2 --skip-if-initialized
check init_new2 'assert r["init"]["skipped"] is True, r["init"]'
PGDATABASE=bench_new runner init_new3 pgbench init --scale 1 --skip-if-initialized
check init_new3 '
assert r["init"]["skipped"] is False, r["init"]
assert "partitioned" in r["init"]["reason"], r["init"]
assert r["init"]["reason"].endswith(")"), r["init"]  # "initialized scale 1 in 0.7 s (... partitioned ...)"
'

# an init without primary keys (pgbench -I dtg) is incomplete: detected, not skipped
PGDATABASE=bench_new runner init_nopk pgbench init --scale 1 --init-steps dtg
[ "$RC" -eq 0 ] || { cat "$TMP/init_nopk.err" >&2; fail "init -I dtg exited $RC"; }
check init_nopk 'assert r["init"]["steps"] == "dtg", r["init"]'
# -I is the runner's flag, not an extra argument
PGDATABASE=bench_new runner init_extra pgbench init --scale 1 -- --init-steps=dtg
[ "$RC" -eq 1 ] || fail "init -- --init-steps=dtg exited $RC, want 1"
PGDATABASE=bench_new runner init_nopk2 pgbench init --scale 1 --skip-if-initialized
check init_nopk2 '
assert r["init"]["skipped"] is False and "primary key" in r["init"]["reason"], r["init"]
'

runner init1 "${RUNNER_INIT_ARGS[@]}"
[ "$RC" -eq 0 ] || { cat "$TMP/init1.err" >&2; fail "init exited $RC"; }
check init1 "$RUNNER_INIT_CHECK"
[ "$(psql -X -tAc 'SELECT count(*) FROM pgbench_branches')" = 2 ] || fail "init did not create scale 2"

runner init2 pgbench init --scale 2 --skip-if-initialized
[ "$RC" -eq 0 ] || fail "second init exited $RC"
check init2 '
assert r["init"]["skipped"] is True, r["init"]
assert "scale 2" in r["init"]["reason"], r["init"]["reason"]
'
# a different scale is not skipped: detection compares the scale
runner init3 pgbench init --scale 3 --skip-if-initialized
check init3 '
assert r["init"]["skipped"] is False, r["init"]
'
runner init4 pgbench init --scale 2 --skip-if-initialized
check init4 'assert r["init"]["skipped"] is False'
note "init, create-database and skip detection ok"

# --- TPC-B with -r; ps watched for the password meanwhile -----------------------------------
(for _ in $(seq 1 40); do ps -eo args >>"$TMP/ps.txt"; sleep 0.15; done) &
PS_PID=$!
runner tpcb "${RUNNER_TPCB_ARGS[@]}"
wait "$PS_PID" || true
[ "$RC" -eq 0 ] || { cat "$TMP/tpcb.err" >&2; fail "tpcb run exited $RC"; }
grep -q "pgbench -c 4" "$TMP/ps.txt" || fail "ps never showed the pgbench child"
# only the processes this test started (the runner, pgbench); other tests' greps may mention it
grep -E "pgbench|postgres" "$TMP/ps.txt" | grep -v grep >"$TMP/ps-ours.txt" || true
[ -s "$TMP/ps-ours.txt" ] || fail "ps never showed the runner or pgbench"
secret_free "$TMP/ps-ours.txt" "$TMP/tpcb.out" "$TMP/tpcb.err" "$TMP/tpcb.term"
check tpcb "$RUNNER_TPCB_CHECK"
# the -l logs were read while the run went on and their bytes released from disk early
read -r files bytes released < <(sed -n \
    's/.*transaction logs: \([0-9]*\) files, \([0-9]*\) bytes read, \([0-9]*\) bytes released early.*/\1 \2 \3/p' \
    "$TMP/tpcb.err") || fail "no transaction log summary"
# (how many bytes depends on the machine's speed: only their consistency is checked)
if [ "$files" -lt 2 ] || [ "$released" -le 0 ] || [ "$released" -gt "$bytes" ]; then
    fail "transaction logs: $files files, $bytes bytes, $released released"
fi
note "tpcb ok"

# --- select-only, prepared protocol, start barrier 2 s ahead, worker index -----------------
T0=$(date +%s.%N)
BENCH_START_AT="$(python3 -c 'import time; print("%.3f" % (time.time() + 2))')"
export BENCH_START_AT JOB_COMPLETION_INDEX=3 BENCH_CLIENTS_BY_INDEX=3,3,2,2
runner sel pgbench run --clients 3 --threads 1 --duration 3 --builtin select-only --protocol prepared --wait-events
[ "$RC" -eq 0 ] || { cat "$TMP/sel.err" >&2; fail "select-only run exited $RC"; }
check sel '
assert r["complete"] is True
assert "select only" in r["pgbench"]["transactionType"], r["pgbench"]
assert r["pgbench"]["queryMode"] == "prepared", r["pgbench"]
ordered_percentiles(S)
assert 2 <= len(r["timeline"]) <= 4, len(r["timeline"])
assert D["waitEvents"]["samples"] >= 2
assert r["worker"] == 3 and term["worker"] == 3, r["worker"]
assert r["pgbench"]["clients"] == 2, r["pgbench"]   # worker 3'"'"'s share of BENCH_CLIENTS_BY_INDEX
'
BENCH_CLIENTS_BY_INDEX=3,3 runner badshare pgbench run --clients 3 --duration 1
[ "$RC" -eq 1 ] && grep -q "has no entry for worker 3" "$TMP/badshare.out" ||
    fail "a client list without this worker's entry was not refused (exit $RC)"
unset BENCH_START_AT JOB_COMPLETION_INDEX BENCH_CLIENTS_BY_INDEX
python3 -c 'import sys,time; sys.exit(0 if time.time() - float(sys.argv[1]) >= 4.8 else 1)' "$T0" ||
    fail "the start barrier did not delay the run"
grep -q "start barrier: waiting" "$TMP/sel.err" || fail "the start barrier is not logged"
note "select-only, barrier, worker ok"

# --- start barrier from a file (as the operator's downwardAPI item of the pods' start-at
# annotation): empty at first; 1.5 s later the time, 1 s ahead, swapped in by a rename ------------
: >"$TMP/start-at"
T0=$(date +%s.%N)
(sleep 1.5 && python3 -c 'import datetime as d; t = d.datetime.now(d.timezone.utc) + d.timedelta(seconds=1)
print(t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000))' >"$TMP/start-at.new" &&
    mv "$TMP/start-at.new" "$TMP/start-at") &
BENCH_START_AT_FILE="$TMP/start-at" runner file pgbench run --clients 1 --duration 1 --builtin select-only
wait
[ "$RC" -eq 0 ] || { cat "$TMP/file.err" >&2; fail "run with BENCH_START_AT_FILE exited $RC"; }
python3 - "$T0" "$TMP/start-at" "$TMP/file.out" <<'PY' || fail "the start barrier from the file"
import json, sys
from datetime import datetime
t0, at = float(sys.argv[1]), open(sys.argv[2]).read().strip()
r = json.loads(open(sys.argv[3]).read().splitlines()[-1])
barrier = datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp()
assert barrier - t0 >= 2.4, (barrier - t0)   # the file was empty for 1.5 s, the time 1 s ahead
assert r["window"]["barrier"] == at, (r["window"], at)
assert 0 <= r["window"]["lateSeconds"] < 0.5, r["window"]
PY
grep -q "start barrier: waiting .* (.*start-at)" "$TMP/file.err" || fail "the barrier from the file is not logged"
# never published: the run's deadline ends the wait, no load, exit 2 with the reason
: >"$TMP/never"
BENCH_START_AT_FILE="$TMP/never" BENCH_DEADLINE_AT="$(($(date +%s) + 2))" \
    runner never pgbench run --clients 1 --duration 1 --builtin select-only
[ "$RC" -eq 2 ] || { cat "$TMP/never.err" >&2; fail "a start time never published: exit $RC, want 2"; }
check never '
assert r["complete"] is False and r["summary"].get("transactionsProcessed") in (None, 0), r["summary"]
assert any("no start time was published" in e for e in r["errors"]), r["errors"]
'
note "start barrier from a file ok"

# --- flags: extended protocol, rate + latency limit, reconnect, retries ---------------------
runner flags pgbench run --clients 2 --threads 2 --duration 3 --builtin simple-update \
    --protocol extended --rate 100 --latency-limit 200 --connect --max-tries 3 --failures-detailed \
    --wait-events
[ "$RC" -eq 0 ] || { cat "$TMP/flags.err" >&2; fail "flags run exited $RC"; }
check flags '
assert r["complete"] is True, r["errors"]
p = r["pgbench"]
assert p["queryMode"] == "extended" and p["maxTries"] == 3, p
assert "simple update" in p["transactionType"], p
assert S["rateLimitLagAvgMs"] is not None, S
assert any(t["lagMs"] is not None for t in r["timeline"]), r["timeline"]
n = S["transactionsProcessed"] + (S["skipped"] or 0)
assert 150 <= n <= 450, "rate 100 tps for 3 s scheduled %d transactions" % n
assert C["littlesLaw"]["note"], C["littlesLaw"]
'
note "rate, latency limit, connect, retries ok"

# --- custom scripts with weights, transactions instead of duration ---------------------------
cat >"$TMP/read.sql" <<'SQL'
\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
SQL
cat >"$TMP/write.sql" <<'SQL'
\set aid random(1, 100000 * :scale)
\set delta random(-5000, 5000)
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SQL
runner custom pgbench run --clients 3 --threads 3 --transactions 200 --script "$TMP/read.sql@3" \
    --script "$TMP/write.sql@1" --per-statement --no-vacuum -- --define=unused=1
[ "$RC" -eq 0 ] || { cat "$TMP/custom.err" >&2; fail "custom script run exited $RC"; }
check custom '
assert r["complete"] is True
n = S.get("transactionsProcessed", S.get("transactions"))
assert n == 600, S
cmds = [s["command"] for s in r["statements"]]
assert any("SELECT abalance" in c for c in cmds) and any("UPDATE pgbench_accounts" in c for c in cmds), cmds
assert {s["script"] for s in r["statements"]} == {0, 1}, r["statements"]
ordered_percentiles(S)
assert r["histogram"]["count"] == 600
'
note "custom scripts ok"

# --- zero is a value: a script of weight 0 never runs (one that would abort every client), the
# builtin beside it does all the transactions; --max-tries 0 reaches pgbench as unlimited tries --
printf 'SELECT 1/0;\n' >"$TMP/never.sql"
runner weight0 pgbench run --clients 2 --transactions 50 --builtin select-only@1 \
    --script "$TMP/never.sql@0" --max-tries 0 --latency-limit 1000 --no-vacuum
[ "$RC" -eq 0 ] || { cat "$TMP/weight0.err" >&2; fail "weight 0 run exited $RC"; }
grep -q -- "-b select-only@1 -f $TMP/never.sql@0 .*--max-tries=0" "$TMP/weight0.err" ||
    { grep starting "$TMP/weight0.err" >&2; fail "weight 0 / --max-tries=0 not passed to pgbench"; }
check weight0 '
assert r["complete"] is True and not r["errors"], r["errors"]
assert S["transactionsProcessed"] == 100 and S["failedTransactions"] == 0, S
assert S["abortedClients"] == 0, S
w = {s["weight"]: s for s in r["scripts"]}
assert set(w) == {0, 1}, r["scripts"]
assert w[0]["transactionsProcessed"] == 0, w[0]
assert w[1]["transactionsProcessed"] == 100, w[1]
assert r["pgbench"]["maxTries"] == 0, r["pgbench"]   # pgbench prints no maximum for unlimited
'
# weights that are all 0: refused before pgbench starts, with pgbench's own reason
runner allzero pgbench run --clients 1 --transactions 5 --builtin select-only@0 \
    --script "$TMP/never.sql@0"
[ "$RC" -eq 1 ] && grep -q "total script weight must not be zero" "$TMP/allzero.out" ||
    fail "all weights 0: exit $RC, $(tail -1 "$TMP/allzero.out")"
note "weight 0 and --max-tries 0 honoured"

# --- parse pgbench: recorded console output + -l logs, histogram vs exact percentiles --------
mkdir -p "$TMP/logs" && chmod 777 "$TMP/logs"
(cd "$TMP/logs" && pgbench -c 2 -j 2 -T 3 -S -l -P 1 >"$TMP/bare.out" 2>&1) || fail "bare pgbench failed"
"$RUNNER" parse pgbench --log "$TMP/logs" <"$TMP/bare.out" >"$TMP/parse.out" 2>"$TMP/parse.err" ||
    fail "parse pgbench exited $?"
python3 - "$TMP/parse.out" "$TMP/logs" <<'PY' || fail "histogram percentiles differ from exact ones"
import json, math, os, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
lat = []
for f in os.listdir(sys.argv[2]):
    for line in open(os.path.join(sys.argv[2], f)):
        p = line.split()
        if len(p) >= 6 and p[2].isdigit():
            lat.append(int(p[2]))
lat.sort()
assert len(lat) == r["histogram"]["count"], (len(lat), r["histogram"]["count"])
for pct, key in [(50, "latencyP50Ms"), (90, "latencyP90Ms"), (95, "latencyP95Ms"), (99, "latencyP99Ms"), (99.9, "latencyP999Ms")]:
    exact = lat[max(0, math.ceil(pct / 100 * len(lat)) - 1)] / 1000.0
    got = r["summary"][key]
    assert abs(got - exact) <= 0.01 * exact + 0.0005, (key, got, exact)
assert abs(r["summary"]["latencyMaxMs"] - lat[-1] / 1000.0) < 0.0005
print("percentiles within 1%% of exact over %d transactions" % len(lat))
PY
pass "init, tpcb, select-only, custom scripts, parse with logs"
