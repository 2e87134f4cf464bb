#!/usr/bin/env bash
# The verdict names the client where the runner was built to be starved of CPU (issue 29): the
# worker pod's runner runs in a cgroup v1 CPU quota of 0.1 CPU (this machine mounts the cpu
# controller as v1; v2's cpu.max is unit-tested from fixtures, test/unit/util/test_cgroup.c), far
# below what pgbench's select-only with 4 clients takes on localhost. The run ends with class
# client; its evidence holds the quota the runner read from its cgroup (0.1 CPU) and its CPU use
# near that limit. A run of the same workload outside the quota is not classed client.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
CPU_CG=/sys/fs/cgroup/cpu
[ -w "$CPU_CG/cgroup.procs" ] || fail "no writable cgroup v1 cpu controller at $CPU_CG"
CG="$CPU_CG/pgbo-e2e-82-$$"
mkdir "$CG" || fail "cannot create the cgroup $CG"
cleanup_cg() { # the cgroup goes when the pods that joined it have exited
    for _ in $(seq 50); do rmdir "$CG" 2>/dev/null && return 0; sleep 0.2; done
    echo "82: could not remove $CG" >&2
}
trap 'cleanup_cg; _env_cleanup' EXIT
echo 100000 >"$CG/cpu.cfs_period_us"
echo 10000 >"$CG/cpu.cfs_quota_us"
# the worker's command: joins the cgroup, then runs the real runner (pgbench inherits it)
cat >"$TMP/cg-runner" <<SH
#!/bin/sh
echo \$\$ >"$CG/cgroup.procs" || exit 1
exec "$BIN/pgbench-runner" "\$@"
SH
chmod 755 "$TMP/cg-runner"

env_start_pg
env_start_sim
env_start_operator --progress-interval 2 --runner-command "$TMP/cg-runner"
env_br_yaml starved "pgbench: {init: {scale: 2}, run: {clients: 4, threads: 1, durationSeconds: 8, progressSeconds: 1, builtin: select-only}}" | env_apply
env_wait_phase starved Succeeded 180
k get br starved -o json >"$TMP/br.json"
env_result_json starved >"$TMP/result.json"
python3 - "$TMP/br.json" "$TMP/result.json" <<'PY' || { env_dump_run starved; fail "starved: verdict"; }
import json, sys
br = json.load(open(sys.argv[1])); res = json.load(open(sys.argv[2]))
d = br["status"]["diagnostics"]; v = res["verdict"]; ev = v["evidence"]; c = res["client"]
assert c["cgroup"] == "v1" and abs(c["cpuLimitCores"] - 0.1) < 1e-9 and abs(c["cpus"] - 0.1) < 1e-9, c
# the runner and pgbench used about all of their 0.1 CPU (the kernel's throttling is not exact)
used = c["cpuSeconds"] / c["runSeconds"]
assert 0.07 <= used <= 0.13, (used, c)
assert d["verdictClass"] == "client", (d["verdictClass"], d["verdict"])
assert v["class"] == "client" and "CLIENT_CPU" in v["rules"], v
assert ev["clientCpuBusyPct"] >= 70 and ev["clientCpus"] == 0.1, ev
PY
note "$(env_status starved .status.diagnostics.verdict)"

# the same workload without the quota: the runner's CPU is not the limit
env_stop_operator
env_start_operator --progress-interval 2
env_br_yaml free "pgbench: {run: {clients: 4, threads: 1, durationSeconds: 8, progressSeconds: 1, builtin: select-only}}" | env_apply
env_wait_phase free Succeeded 180
env_result_json free >"$TMP/free.json"
python3 - "$TMP/free.json" <<'PY' || { env_dump_run free; fail "free: verdict"; }
import json, sys
res = json.load(open(sys.argv[1])); c = res["client"]
assert c["cpuLimitCores"] is None and c["cpus"] >= 1, c
assert "CLIENT_CPU" not in res["verdict"]["rules"], res["verdict"]
PY
pass "the client: a runner in a 0.1-CPU cgroup quota"
