#!/usr/bin/env bash
# compare names WAL flush for two runs that differ only in WAL sync cost (issue 29): the same
# workload against the same PostgreSQL with fsync = on, restarted each time with an LD_PRELOAD
# shim of fdatasync (the WAL's sync, wal_sync_method = fdatasync): for the fast run it returns at
# once (a free sync), for the slow one it waits 20 ms, then syncs. The slow run's class is wal-flush; `kubectl pgbench compare fast slow` (text and -o
# html) names the WAL flush class, with the WAL sync time per commit (track_wal_io_timing) that
# moved with it. The oracle is the shim: the test checks the class named and the evidence.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
. "$ROOT/test/lib/verdict.sh"
env_start_plugin
env_start_operator --progress-interval 2
cat >"$TMP/slowsync.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
int fdatasync(int fd)
{
    static int (*real)(int);
    if (!real)
        real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    long ms = atol(getenv("SLOWSYNC_MS") ? getenv("SLOWSYNC_MS") : "0");
    if (ms == 0)
        return 0; /* a free sync */
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
    return real(fd);
}
C
cc -shared -fPIC -O1 -o "$TMP/slowsync.so" "$TMP/slowsync.c" -ldl || fail "cannot build the fdatasync shim"
chmod 755 "$TMP/slowsync.so"
env_psql_super -d postgres -c "ALTER SYSTEM SET fsync = on" -c "ALTER SYSTEM SET track_wal_io_timing = on" \
    -c "SELECT pg_reload_conf()" >/dev/null || fail "cannot turn fsync on"
[ "$(env_psql_super -d postgres -At -c "SHOW wal_sync_method")" = fdatasync ] || fail "wal_sync_method is not fdatasync"

workload="pgbench: {run: {clients: 4, threads: 2, durationSeconds: 8, progressSeconds: 1, perStatementLatencies: true, builtin: simple-update}}"
env_br_yaml init "pgbench: {init: {scale: 8}, run: {clients: 1, durationSeconds: 1}}" | env_apply
env_wait_phase init Succeeded 180
# restart_with MS: the server restarted with the shim, every fdatasync taking MS ms (0: none)
restart_with() { verdict_pg_restart LD_PRELOAD="$TMP/slowsync.so" SLOWSYNC_MS="$1"; }
restart_with 0
env_br_yaml fast "$workload" | env_apply
env_wait_phase fast Succeeded 120
restart_with 20
env_br_yaml slow "$workload" | env_apply
env_wait_phase slow Succeeded 120

env_result_json fast >"$TMP/fast.json"
env_result_json slow >"$TMP/slow.json"
python3 - "$TMP/fast.json" "$TMP/slow.json" <<'PY' || fail "the runs' evidence"
import json, sys
fast, slow = (json.load(open(p)) for p in sys.argv[1:3])
for r in (fast, slow):
    assert r["server"]["fsync"] == "on" and "FSYNC_OFF" not in r["verdict"]["warnings"], r["verdict"]
ef, es = fast["verdict"]["evidence"], slow["verdict"]["evidence"]
assert slow["verdict"]["class"] == "wal-flush", slow["verdict"]
assert fast["verdict"]["class"] != "wal-flush", fast["verdict"]
# the WAL's share of all backend samples (the fast run's database may never have been seen
# waiting: every sample Client:*, its database shares unmeasured)
def wal_of_all(e):
    return e.get("walFlushSharePct", 0) * (100 - e["clientSharePct"]) / 100
assert wal_of_all(es) >= wal_of_all(ef) + 10, (ef, es)
# each commit's sync waited the shim's 20 ms; the fast run's took none
assert es["walSyncMsPerCommit"] > ef["walSyncMsPerCommit"], (ef, es)
assert fast["serverStats"]["walSyncMs"] < fast["serverStats"]["walSyncs"], fast["serverStats"]
assert slow["serverStats"]["walSyncMs"] >= 20 * slow["serverStats"]["walSyncs"], slow["serverStats"]
PY

"$BIN/pgbench-gen-contract" docs-verdict >"$TMP/rules.md"
WAL_LABEL="$(python3 -c 'import sys
for l in open(sys.argv[1]):
    c = [x.strip() for x in l.strip().strip("|").split(" | ")]
    if len(c) > 2 and c[0] == "`wal-flush`":
        print(c[1])' "$TMP/rules.md")"
[ -n "$WAL_LABEL" ] || fail "no wal-flush row in the rules table"
kubectl pgbench compare fast slow >"$TMP/compare.txt" 2>&1 || { cat "$TMP/compare.txt" >&2; fail "compare failed"; }
cat "$TMP/compare.txt" >&2
why="$(grep '^why slow against fast: ' "$TMP/compare.txt")" || fail "compare explains nothing"
case "$why" in *"; $WAL_LABEL "*"walSyncMsPerCommit "*": $WAL_LABEL "*) ;; *) fail "compare does not name $WAL_LABEL with the sync time per commit: $why" ;; esac
grep -Eq "^[ *]*verdict +$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"]["class"])' "$TMP/fast.json") +wal-flush *\$" "$TMP/compare.txt" ||
    fail "compare's verdict row"
kubectl pgbench compare fast slow -o html "$TMP/compare.html" 2>/dev/null || fail "compare -o html failed"
python3 - "$TMP/compare.html" "$why" <<'PY' || fail "compare -o html does not explain the difference"
import html, sys
page = open(sys.argv[1]).read()
assert html.escape(sys.argv[2], quote=False) in page, sys.argv[2]
PY
pass "compare names WAL flush for a 20 ms slower fdatasync"
