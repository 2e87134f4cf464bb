#!/usr/bin/env bash
# Checkpoints limit a run built to checkpoint every few seconds (issue 29): fsync on,
# max_wal_size = min_wal_size = 32MB (the least there is) and checkpoint_completion_target = 0.1,
# so tpcb-like at scale 10 with 4 clients fills max_wal_size and requests a checkpoint every few
# seconds; after each one, every page's first change logs a full-page image, and the load waits
# on the WAL (LWLock:WALWrite, IO:WALSync) for what the checkpoints added. The oracle is the
# construction: the class is checkpoints, its evidence the checkpoints counted during the run and
# how far apart they were. The same run with max_wal_size = 4GB right after a CHECKPOINT has no
# checkpoint during the load, fewer full-page images, and is not classed checkpoints.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
. "$ROOT/test/lib/verdict.sh"
env_start_pg
env_start_sim
env_start_operator --progress-interval 2
env_psql_super -d postgres -c "ALTER SYSTEM SET fsync = on" -c "ALTER SYSTEM SET track_wal_io_timing = on" \
    -c "ALTER SYSTEM SET min_wal_size = '32MB'" -c "ALTER SYSTEM SET max_wal_size = '32MB'" \
    -c "ALTER SYSTEM SET checkpoint_completion_target = 0.1" -c "SELECT pg_reload_conf()" >/dev/null ||
    fail "cannot set the checkpoint settings"
env_br_yaml init "pgbench: {init: {scale: 10}, run: {clients: 1, durationSeconds: 1}}" | env_apply
env_wait_phase init Succeeded 180
[ "$(env_psql_super -d postgres -At -c "SHOW max_wal_size")" = 32MB ] || fail "max_wal_size is not 32MB"

workload="pgbench: {run: {clients: 4, threads: 2, durationSeconds: 12, progressSeconds: 1, builtin: tpcb-like}}"
env_br_yaml tight "$workload" | env_apply
env_wait_phase tight Succeeded 180
verdict_check tight '
# the construction: several checkpoints during the load
assert st["checkpoints"] >= 2, st
assert ev["checkpoints"] == st["checkpoints"], ev
assert abs(ev["checkpointIntervalSeconds"] - st["seconds"] / st["checkpoints"]) < 0.01, ev
assert ev["checkpointIntervalSeconds"] < 30, ev
assert st["walFpi"] > 0 and ev["walFpiPct"] == st["walFpiPct"], (ev, st)
assert v["class"] == "checkpoints" and v["rules"][0] == "FREQUENT_CHECKPOINTS", v
assert d["verdictClass"] == "checkpoints", (d["verdictClass"], d["verdict"])
'

# room for the WAL, and a checkpoint just before: none during the load
env_psql_super -d postgres -c "ALTER SYSTEM SET max_wal_size = '4GB'" -c "SELECT pg_reload_conf()" >/dev/null
env_psql_super -d postgres -c "CHECKPOINT" >/dev/null
env_br_yaml roomy "$workload" | env_apply
env_wait_phase roomy Succeeded 180
verdict_check roomy '
assert st["checkpoints"] == 0, st
assert v["class"] != "checkpoints", v
# the checkpoints own cost: more full-page images per record, more WAL per transaction
tight = json.load(open(os.environ["TMP"] + "/tight.json"))["serverStats"]
assert tight["walFpiPct"] > st["walFpiPct"], (tight, st)
assert tight["walBytesPerTx"] > st["walBytesPerTx"], (tight, st)
'
pass "checkpoints: max_wal_size 32MB, a checkpoint every few seconds"
