#!/usr/bin/env bash
# Issue 31.3, seconds not spent waiting. A 3-worker run with an init on the simulated cluster,
# whose kubelet refreshes the pods' downwardAPI files 50-1170 ms after each update, as the real
# v1.25 node did (SIM_DOWNWARD_DELAY_MS). The result ConfigMap says where the time went
# (timing.steps, each from its own record; scripts/run-phases.py prints them beside the goals).
# Checked: Succeeded within 1 s of the last worker's end; pgbench started within the margin + 0.2 s
# of the last pod Ready (the margin the operator chose: before it measured a run, the real node's
# slowest refresh 1.17 s + twice its API server's slowest recent write (at least 40 ms) + 80 ms,
# 1.33 s when the sim answers fast, not the fixed 2 s of before (issue 31.3); then what the
# workers' records say, at least that for its first 8 runs; the goal is 1.5 s); the
# run Job follows the init pod's success within a second (whole-second timestamps); the operator
# learns from the workers' records how late they read the barrier (a worker late in the first
# run lengthens the margin past its lateness), and the second run uses that margin.
# Not checked: that no worker of the second run is late. On a loaded machine the sim answers the
# status write and the pod patches in up to 0.6 s, which with a 1.17 s refresh can exceed a
# margin learned from one run; make bench (scripts/bench-phases.sh) prints it.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
SIM_DOWNWARD_DELAY_MS=50-1170 env_start_sim
env_start_operator

env_stamp_watch br br
env_stamp_watch pods pods -l pgbench.dev/benchmarkrun
sleep 1

for run in quick again; do
    init='init: {scale: 1}, '
    [ "$run" = quick ] || init=''
    env_br_yaml "$run" "pgbench: {${init}run: {clients: 3, threads: 1, durationSeconds: 3, builtin: select-only}}" \
        'workers: 3' 'diagnostics: {replicaLag: false, waitEvents: false}' | env_apply
    env_wait_phase "$run" Succeeded 90
    sleep 0.5 # the watches' last lines
    env_result_json "$run" >"$TMP/$run-result.json"
    echo "run $run:"
    python3 "$ROOT/scripts/run-phases.py" "$run" "$TMP/$run-result.json" "$TMP/br.log" "$TMP/pods.log" |
        tee "$TMP/$run-phases.txt"
    python3 - "$TMP/$run-phases.txt" <<'PY' || fail "run $run: Succeeded or pgbench's start too late (above)"
import re, sys
rows = {l.split()[0]: float(l.split()[1]) for l in open(sys.argv[1]) if re.match(r"^  \w+ +-?[0-9.]+ ", l)}
end, succeeded = rows["pgbenchEnded"], rows["succeeded"]
assert succeeded - end <= 1.0, (end, succeeded)
margin = rows["barrier"] - rows["allReady"]
assert rows["pgbenchStarted"] - rows["lastPodReady"] <= margin + 0.2, rows
PY
done

python3 - "$TMP/quick-result.json" <<'PY' || fail "timing of run quick"
import json, sys
from datetime import datetime
steps = json.load(open(sys.argv[1]))["timing"]["steps"]
names = [s["step"] for s in steps]
assert names == ["applied", "initJobCreated", "initSucceeded", "jobCreated", "podsScheduled",
                 "containersStarted", "allReady", "barrier", "barrierSeen", "pgbenchStarted",
                 "pgbenchEnded", "collected"], names
at = {s["step"]: datetime.fromisoformat(s["at"].replace("Z", "+00:00")).timestamp() for s in steps}
# in order (whole-second records may tie), each from its source; the workers read the barrier
# between allReady and the barrier itself, which it precedes in the list
seq = [n for n in names if n != "barrierSeen"]
assert all(at[a] <= at[b] + 1 for a, b in zip(seq, seq[1:])), at
assert at["allReady"] <= at["barrierSeen"] <= at["barrier"], at
# the run Job came with the init pod's success, not a Job controller's sync later (1 s records)
assert at["jobCreated"] - at["initSucceeded"] <= 1, at
late = [w["window"]["lateSeconds"] for w in json.load(open(sys.argv[1]))["workerResults"]]
assert all(x < 0.1 for x in late), late
PY
# the first run's margin, before any run was measured: the refresh assumed and the writes
# measured, as the operator says it chose it; under 2 s unless the sim took over 0.37 s a write
first="$(sed -n 's/.*default\/quick: start barrier .*, start margin \([0-9]*\) ms (0 runs measured; assumed before 8: 1170 ms refresh + 2 x \([0-9]*\) ms writes + 80 ms).*/\1 \2/p' "$OP_LOG")"
[ -n "$first" ] || fail "the operator did not say how it chose run quick's margin"
python3 - "$TMP/quick-result.json" $first <<'PY' || fail "run quick's margin is not the assumed one ($first)"
import json, sys
from datetime import datetime
d = json.load(open(sys.argv[1]))
at = {s["step"]: datetime.fromisoformat(s["at"].replace("Z", "+00:00")).timestamp() for s in d["timing"]["steps"]}
margin_ms, write_ms = int(sys.argv[2]), int(sys.argv[3])
assert abs((at["barrier"] - at["allReady"]) * 1000 - margin_ms) < 2, (at, margin_ms)
assert write_ms >= 40 and abs(margin_ms - min(2000, 1170 + 2 * write_ms + 80)) <= 2, (margin_ms, write_ms)
assert margin_ms < 2000 or write_ms >= 375, (margin_ms, write_ms)
print("run quick: start margin %d ms (writes up to %d ms)" % (margin_ms, write_ms))
PY
# what the operator learned covers run quick's slowest worker: its read of the barrier + 80 ms
notice="$(python3 - "$TMP/quick-result.json" <<'PY'
import json, sys
from datetime import datetime
d = json.load(open(sys.argv[1]))
at = {s["step"]: datetime.fromisoformat(s["at"].replace("Z", "+00:00")).timestamp() for s in d["timing"]["steps"]}
seen = max(w["window"]["seenSeconds"] for w in d["workerResults"])
print(round((at["barrier"] + seen - at["allReady"]) * 1000))
PY
)"
learned="$(sed -n 's/.*default\/quick: the workers read the barrier .* s after the pods were ready; start margin now \([0-9]*\) ms.*/\1/p' "$OP_LOG")"
[ -n "$learned" ] || fail "the operator did not learn from run quick's workers"
[ "$learned" -ge $((notice + 80 - 2)) ] ||
    fail "margin $learned ms does not cover run quick's slowest notice, $notice ms"
# run again's barrier is the margin the operator says it chose, from the one run measured: at
# least run quick's notice + 80 ms (and the writes assumed, which may have grown since) after its
# pods were ready (allReady: status.readyAt, gone from status once the run ended)
again="$(sed -n 's/.*default\/again: start barrier .*, start margin \([0-9]*\) ms (1 run measured;.*/\1/p' "$OP_LOG")"
[ -n "$again" ] || fail "the operator did not say how it chose run again's margin from one run"
python3 - "$TMP/again-result.json" "$again" "$notice" <<'PY' || fail "run again did not use the margin learned from run quick ($again ms, notice $notice ms)"
import json, sys
from datetime import datetime
d = json.load(open(sys.argv[1]))
at = {s["step"]: datetime.fromisoformat(s["at"].replace("Z", "+00:00")).timestamp() for s in d["timing"]["steps"]}
m = at["barrier"] - at["allReady"]
assert abs(m * 1000 - int(sys.argv[2])) < 2, (m, sys.argv[2])
assert int(sys.argv[2]) >= int(sys.argv[3]) + 80 - 2, sys.argv[2:]
PY
[ -z "$(env_status again .status.readyAt)" ] || fail "status.readyAt left after the run ended"
pass "phases in the result ConfigMap; Succeeded within 1 s of the end; first margin ${first% *} ms (assumed), then ${again} ms (learned: ${learned} ms after ${notice} ms)"
