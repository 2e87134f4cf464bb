#!/usr/bin/env bash
# Storage reads limit a run built to read from a slow disk (issue 29): shared_buffers = 16MB
# against a scale-10 database (~150 MB), select-only's random account reads miss shared_buffers,
# and the server runs with test/lib/slow-pread.c, an LD_PRELOAD shim that makes every pread() of
# a data file (base/) wait 3 ms, as a slow disk would (the page cache cannot be dropped here; the
# shim puts the disk's latency back). The oracle is the shim: the class is storage reads, with
# IO:DataFileRead's share and a cache hit ratio well below 100 % as evidence, and without the
# "fits in shared_buffers" warning. The same run without the shim is not classed storage reads.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
. "$ROOT/test/lib/verdict.sh"
env_start_pg
env_start_sim
env_start_operator --progress-interval 2
cc -shared -fPIC -O1 -o "$TMP/slow-pread.so" "$ROOT/test/lib/slow-pread.c" -ldl || fail "cannot build the pread shim"
chmod 755 "$TMP/slow-pread.so"
env_psql_super -d postgres -c "ALTER SYSTEM SET shared_buffers = '16MB'" >/dev/null || fail "shared_buffers"
# restart_with MS: the server restarted with the shim, every data-file pread taking MS ms more
restart_with() { verdict_pg_restart LD_PRELOAD="$TMP/slow-pread.so" SLOW_PREAD_MS="$1"; }
restart_with 0
[ "$(env_psql_super -d postgres -At -c "SHOW shared_buffers")" = 16MB ] || fail "shared_buffers is not 16MB"

workload="pgbench: {run: {clients: 4, threads: 1, durationSeconds: 10, progressSeconds: 1, perStatementLatencies: true, builtin: select-only}}"
env_br_yaml init "pgbench: {init: {scale: 10}, run: {clients: 1, durationSeconds: 1}}" | env_apply
env_wait_phase init Succeeded 180
restart_with 3
env_br_yaml slow "$workload" | env_apply
env_wait_phase slow Succeeded 180
verdict_check slow '
ds = res["checks"]["dataset"]
# the construction: the database far larger than shared_buffers, reads that missed it
assert ds["fitsInSharedBuffers"] is False and ds["ratio"] >= 5, ds
assert "DATASET_IN_MEMORY" not in v["warnings"], v
assert st["blksRead"] > 0 and st["cacheHitPct"] < 95, st
# every read of a data file took 3 ms more: at most 1000 / 3 reads a second per backend
assert st["blksRead"] <= 4 * st["seconds"] * 1000 / 3 * 1.1, st
assert v["class"] == "storage-reads" and v["rules"][0] == "STORAGE", v
assert ev["storageReadsSharePct"] >= 50 and ev["cacheHitPct"] == st["cacheHitPct"], ev
assert res["waitEvents"]["events"].get("IO:DataFileRead", 0) > 0, res["waitEvents"]
assert d["verdictClass"] == "storage-reads", (d["verdictClass"], d["verdict"])
'

# the same run from the page cache: no slow disk to blame
restart_with 0
env_br_yaml fast "$workload" | env_apply
env_wait_phase fast Succeeded 180
verdict_check fast 'assert v["class"] != "storage-reads", v'
pass "storage reads: 3 ms data-file reads, shared_buffers 16MB"
