#!/usr/bin/env bash
# Replica targets with a local streaming standby (pg_basebackup): the runner waits for replay to
# catch up before the run (replay paused on the standby, then resumed while the runner waits),
# reports the wait, gives up with caughtUp=false after --replica-timeout, and samples lag during
# the run both on the standby and on the primary (pg_stat_replication).
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_replica
env_need_runner

replica_super() { psql -X -q -h "$REPLICA_DIR" -p "$REPLICA_PORT" -U postgres -d postgres "$@"; }
env_wait_for "standby streaming" 30 bash -c \
    "psql -X -h '$PG_SOCKDIR' -p '$PGPORT' -U postgres -d postgres -tAc 'SELECT count(*) FROM pg_stat_replication' | grep -qx 1"

"$RUNNER" pgbench init --scale 1 >"$TMP/init.out" 2>"$TMP/init.err" || { cat "$TMP/init.err" >&2; fail "init failed"; }

# -- catch-up wait: replay paused, WAL written on the primary, replay resumed after ~2 s --------
replica_super -c "SELECT pg_wal_replay_pause()" >/dev/null
psql -X -q -c "UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid <= 20000" ||
    fail "update on the primary failed"
env_wait_for "standby received the WAL" 20 bash -c \
    "psql -X -h '$REPLICA_DIR' -p '$REPLICA_PORT' -U postgres -d postgres -tAc 'SELECT pg_last_wal_receive_lsn() > pg_last_wal_replay_lsn()' | grep -qx t"
PGPORT="$REPLICA_PORT" BENCH_TERMINATION_LOG="$TMP/wait.term" "$RUNNER" pgbench run --clients 2 --threads 1 \
    --duration 3 --builtin select-only --no-vacuum --replica-lag --replica-timeout 60 --wait-events \
    >"$TMP/wait.out" 2>"$TMP/wait.err" &
RUNNER_PID=$!
sleep 2
replica_super -c "SELECT pg_wal_replay_resume()" >/dev/null
RC=0
wait "$RUNNER_PID" || RC=$?
[ "$RC" -eq 0 ] || { tail -20 "$TMP/wait.err" >&2; fail "run on the standby: exit $RC"; }
python3 - "$TMP/wait.out" <<'PY' || { tail -20 "$TMP/wait.err" >&2; fail "standby catch-up result check failed"; }
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
rep = r["checks"]["replica"]
assert r["complete"] is True, r["errors"]
assert rep["role"] == "standby", rep
assert rep["caughtUp"] is True, rep
assert rep["waitedSeconds"] >= 1.0, "did not wait for replay: %r" % rep
assert len(rep["lagSamplesMs"]) >= 2, rep
assert rep["maxLagMs"] is not None
print("standby: waited %.1f s, %d lag samples" % (rep["waitedSeconds"], len(rep["lagSamplesMs"])))
PY
note "standby catch-up wait ok"

# -- timeout: replay stays paused -> caughtUp=false, reported, the run still happens --------------
replica_super -c "SELECT pg_wal_replay_pause()" >/dev/null
psql -X -q -c "UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid <= 1000" || fail "update failed"
env_wait_for "standby received the WAL" 20 bash -c \
    "psql -X -h '$REPLICA_DIR' -p '$REPLICA_PORT' -U postgres -d postgres -tAc 'SELECT pg_last_wal_receive_lsn() > pg_last_wal_replay_lsn()' | grep -qx t"
RC=0
PGPORT="$REPLICA_PORT" "$RUNNER" pgbench run --clients 1 --duration 2 --builtin select-only --no-vacuum \
    --replica-lag --replica-timeout 1.5 >"$TMP/timeout.out" 2>"$TMP/timeout.err" || RC=$?
replica_super -c "SELECT pg_wal_replay_resume()" >/dev/null
[ "$RC" -eq 0 ] || { tail -20 "$TMP/timeout.err" >&2; fail "run after a catch-up timeout: exit $RC"; }
python3 - "$TMP/timeout.out" <<'PY' || fail "catch-up timeout result check failed"
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
rep = r["checks"]["replica"]
assert rep["caughtUp"] is False and rep["waitedSeconds"] >= 1.5, rep
assert "bytes behind" in rep["message"], rep
assert any("replication" in e for e in r["errors"]), r["errors"]
# replay was paused with WAL pending: lag samples are positive
assert max(rep["lagSamplesMs"]) > 0, rep
PY
note "catch-up timeout ok"

# -- primary with one standby: catch-up through pg_stat_replication, lag sampled ---------------
RC=0
"$RUNNER" pgbench run --clients 2 --threads 2 --duration 3 --replica-lag --replica-timeout 30 \
    >"$TMP/primary.out" 2>"$TMP/primary.err" || RC=$?
[ "$RC" -eq 0 ] || { tail -20 "$TMP/primary.err" >&2; fail "run on the primary: exit $RC"; }
python3 - "$TMP/primary.out" <<'PY' || fail "primary result check failed"
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
rep = r["checks"]["replica"]
assert rep["role"] == "primary" and rep["standbys"] == 1 and rep["caughtUp"] is True, rep
assert len(rep["lagSamplesMs"]) >= 2, rep
assert all(x >= 0 for x in rep["lagSamplesMs"])
PY
pass "standby catch-up wait, timeout, and lag sampling on standby and primary"
