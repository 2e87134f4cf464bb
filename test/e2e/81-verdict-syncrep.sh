#!/usr/bin/env bash
# The verdict names synchronous replication where every commit waits for a standby that applies
# late (issue 29): a streaming standby with recovery_min_apply_delay = 100ms, the primary with
# synchronous_standby_names = '*' and synchronous_commit = remote_apply, so that each commit waits
# for the standby to replay it. A run against the primary on the simulated cluster with the real
# runner ends with class sync-replication, its evidence the IPC:SyncRep share of the samples; the
# latency is at least the apply delay (the construction, checked against the measurement).
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_replica
cat >>"$REPLICA_DIR/data/postgresql.conf" <<'CONF'
recovery_min_apply_delay = '100ms'
CONF
psql -X -q -h "$REPLICA_DIR" -p "$REPLICA_PORT" -U postgres -d postgres -c "SELECT pg_reload_conf()" >/dev/null ||
    fail "cannot reload the standby"
env_psql_super -d postgres -c "ALTER SYSTEM SET synchronous_standby_names = '*'" \
    -c "ALTER SYSTEM SET synchronous_commit = 'remote_apply'" -c "SELECT pg_reload_conf()" >/dev/null ||
    fail "cannot make the standby synchronous"
env_wait_for "a synchronous standby" 30 sh -c \
    "psql -X -At -h '$PG_SOCKDIR' -p '$PGPORT' -U postgres -d postgres -c \"SELECT sync_state FROM pg_stat_replication\" | grep -qx sync"
env_start_sim
env_start_operator --progress-interval 2

env_br_yaml syncrep "pgbench: {init: {scale: 4}, run: {clients: 4, threads: 2, durationSeconds: 8, progressSeconds: 1, perStatementLatencies: true}}" | env_apply
env_wait_phase syncrep Succeeded 180
k get br syncrep -o json >"$TMP/br.json"
env_result_json syncrep >"$TMP/result.json"
python3 - "$TMP/br.json" "$TMP/result.json" <<'PY' || { env_dump_run syncrep; fail "syncrep: verdict"; }
import json, sys
br = json.load(open(sys.argv[1])); res = json.load(open(sys.argv[2]))
d = br["status"]["diagnostics"]; v = res["verdict"]; ev = v["evidence"]
assert d["verdictClass"] == "sync-replication", (d["verdictClass"], d["verdict"])
assert v["class"] == "sync-replication" and v["rules"][0] == "SYNC_REPLICATION", v
we = res["waitEvents"]["events"]
assert we.get("IPC:SyncRep", 0) > 0, we
assert ev["syncRepSharePct"] >= 20, ev
# every commit waited for the 100 ms apply delay
assert res["summary"]["latencyAvgMs"] >= 100, res["summary"]["latencyAvgMs"]
assert res["server"]["synchronous_commit"] == "remote_apply", res["server"]
PY
note "$(env_status syncrep .status.diagnostics.verdict)"
pass "synchronous replication: remote_apply with a 100 ms apply delay"
