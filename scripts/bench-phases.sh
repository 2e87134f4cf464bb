#!/usr/bin/env bash
# `make bench` figure for issue 31.3, seconds not spent waiting: where a run's wall time goes,
# step by step, each from its own record (the result ConfigMap's timing.steps, pkg/api/timing.h),
# beside the arrival times of a watch (ms), and the goals on the simulated cluster: Succeeded
# within 1 s of the last worker's end; pgbench started within 1.5 s of the last pod Ready, no
# worker late against the barrier. A 3-worker run with an init (scale 1, 3 s, select-only), the
# sim's kubelet refreshing downwardAPI files 50-1170 ms after each update as the real v1.25 node
# did (SIM_DOWNWARD_DELAY_MS), by an operator that has measured no run yet (its margin is the
# real node's slowest refresh, 1.17 s, + twice the sim's slowest recent write + 80 ms: 1.33 s when
# the sim answers within 40 ms), then a second run with the margin learned from the first. Each
# worker's result is read as its pod ends, so "Succeeded after the last worker's end" is one log
# read and the writes, whatever BENCH_WORKERS.
# Env: BUILD, BENCH_WORKERS (3).
set -euo pipefail
. "$(dirname "$0")/../test/lib/env.sh"
WORKERS="${BENCH_WORKERS:-3}"
env_start_pg >/dev/null
SIM_DOWNWARD_DELAY_MS="${SIM_DOWNWARD_DELAY_MS:-50-1170}" env_start_sim >/dev/null
env_start_operator --log-level info
env_stamp_watch br br
env_stamp_watch pods pods -l pgbench.dev/benchmarkrun
sleep 1
for run in phases phases-again; do
    init='init: {scale: 1}, '
    [ "$run" = phases ] || init=''
    env_br_yaml "$run" "pgbench: {${init}run: {clients: $WORKERS, threads: 1, durationSeconds: 3, builtin: select-only}}" \
        "workers: $WORKERS" 'diagnostics: {replicaLag: false, waitEvents: false}' | env_apply
    env_wait_phase "$run" Succeeded 120
    sleep 0.5 # the watches' last lines
    env_result_json "$run" >"$TMP/$run.json"
    margin="$(python3 -c 'import json, sys; from datetime import datetime as d
at = {s["step"]: d.fromisoformat(s["at"].replace("Z", "+00:00")).timestamp()
      for s in json.load(open(sys.argv[1]))["timing"]["steps"]}
print("%.3f" % (at["barrier"] - at["allReady"]))' "$TMP/$run.json")"
    echo "phases of a $WORKERS-worker run${init:+ with an init} (downwardAPI refresh ${SIM_DOWNWARD_DELAY_MS:-50-1170} ms, start margin $margin s):"
    python3 "$ROOT/scripts/run-phases.py" "$run" "$TMP/$run.json" "$TMP/br.log" "$TMP/pods.log"
done
