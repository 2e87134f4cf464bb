#!/usr/bin/env bash
# 64 workers through the real runner, real PostgreSQL and the simulated cluster (issue 31.5):
# - live progress reads at most 8 worker logs per interval (CTRL_PROGRESS_SAMPLE), a sample that
#   rotates over the running workers: counted in the sim's request log (GET .../pods/P/log with
#   tailLines), per interval and over the run; status.progress says workersRead 8 and
#   extrapolated, its tps the sample's sum scaled to 64;
# - the run Succeeds with all 64 workers in the aggregate; the result ConfigMap stays under
#   API_RESULT_MAX_BYTES (900 KiB), and when the workers' own results do not fit beside the
#   aggregate, result.json's "downsampled" says what was left out;
# - prints the operator's memory around the collection of the 64 results (VmHWM, RssAnon; under
#   ASan, whose shadow memory and redzones inflate it, with its quarantine kept small).
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_sim --verbose # the request log: which pod logs were read, when

INTERVAL=2
# ASan keeps freed memory in quarantine (256 MiB by default), which the figure below would count
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1" \
    env_start_operator --start-delay 2 --progress-interval "$INTERVAL" --log-level "${E2E_OP_LOG_LEVEL:-info}"

mem() { # VmHWM and RssAnon of the operator, KiB
    awk '/^VmHWM:|^RssAnon:/ {printf "%s ", $2}' "/proc/$OP_PID/status"
}
read -r hwm0 anon0 <<<"$(mem)"

env_br_yaml many 'pgbench: {init: {scale: 1}, run: {clients: 64, threads: 1, durationSeconds: 30, builtin: select-only}}' \
    'workers: 64' 'cleanupPolicy: Keep' | env_apply

progress_reads() { grep -c '^sim: GET /api/v1/namespaces/default/pods/many-run-[^/]*/log?.*tailLines=64&limitBytes=' "$SIM_LOG" || true; }
# every version of the run as it changes (a poll misses most of them on a loaded machine)
env_kubectl get br many -w -o json >"$TMP/watch.json" 2>/dev/null &
_env_pids+=("$!")
env_wait_phase many Succeeded 300
read -r hwm1 anon1 <<<"$(mem)"

reads="$(progress_reads)"
pods_read="$(grep -o '^sim: GET /api/v1/namespaces/default/pods/many-run-[^/]*/log?.*tailLines=64&limitBytes=' "$SIM_LOG" |
    sed 's#.*/pods/\([^/]*\)/log.*#\1#' | sort -u | wc -l)"
env_kubectl get br many -o json >"$TMP/br.json"
env_kubectl get configmap many-result -o json >"$TMP/cm.json"
mkdir -p "$TMP/w"
for pod in $(env_kubectl get pods -l pgbench.dev/benchmarkrun=many,pgbench.dev/role=run -o name); do
    env_kubectl logs "$pod" | tail -1 >"$TMP/w/$(basename "$pod").json"
done
python3 - "$TMP/br.json" "$TMP/cm.json" "$TMP/watch.json" "$reads" "$pods_read" "$INTERVAL" "$TMP"/w/*.json <<'PY' || fail "64-worker result"
import json, sys
from datetime import datetime
br = json.load(open(sys.argv[1]))
cm = json.load(open(sys.argv[2]))
text, versions, at = open(sys.argv[3]).read(), [], 0
dec = json.JSONDecoder()
while True:
    while at < len(text) and text[at].isspace():
        at += 1
    if at >= len(text):
        break
    o, at = dec.raw_decode(text, at)
    versions.append(o)
reads, pods_read, interval = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
workers = [json.loads(open(f).read()) for f in sys.argv[7:]]
assert len(workers) == 64, len(workers)
samples = []
for v in versions:
    p = v.get("status", {}).get("progress")
    if v.get("status", {}).get("phase") == "Running" and p and (not samples or samples[-1] != p):
        samples.append(p)
assert len(samples) >= 3, "status.progress seen %d times while Running: %s" % (len(samples), samples)
# the reads: at most 8 per interval from the init's end to the run's end (all 64 every interval
# would be 8 times that), and the sample rotated over the workers
def t(s):
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").timestamp()
conds = {c["type"]: c for c in br["status"]["conditions"]}
span = t(br["status"]["completionTime"]) - t(conds["Initialized"]["lastTransitionTime"])
bound = 8 * (int(span / interval) + 2)
print("progress: %d versions of status.progress while Running; %d log reads in %.0f s (at most %d: 8 per %d s), %d distinct pods"
      % (len(samples), reads, span, bound, interval, pods_read))
assert reads <= bound, (reads, bound)
assert pods_read >= 24, "the sample did not rotate: only %d pods' logs read" % pods_read
# every progress read while 9 or more workers ran: a sample of 8, marked, tps scaled
marked = [p for p in samples if p.get("extrapolated")]
assert marked, samples
for p in marked:
    assert p["workersRead"] == 8 and p["workersReporting"] <= 8, p
for p in samples:
    assert p.get("workersRead", 0) <= 8, p
st = br["status"]
assert st["phase"] == "Succeeded"
res = json.loads(cm["data"]["result.json"])
assert res["workerCount"] == 64, res.get("workerCount")
assert sorted(w["index"] for w in res["workers"]) == list(range(64))
# the totals are the workers' own, summed
assert st["summary"]["transactions"] == sum(w["summary"]["transactionsProcessed"] for w in workers)
limit = 900 * 1024
size = len(json.dumps(cm, separators=(",", ":")))
own = sum(len(json.dumps(w, separators=(",", ":"))) for w in workers)
down = res.get("downsampled")
print("result ConfigMap: %d bytes (limit %d); the workers' own results %d bytes; downsampled: %s"
      % (size, limit, own, json.dumps(down) if down else "nothing"))
assert size < limit, size
if own > limit:
    assert down, "the workers' results (%d bytes) cannot all fit, yet nothing is said downsampled" % own
if down:
    assert down["limitBytes"] == limit, down
PY
echo "aggregation memory: operator VmHWM $((hwm0 / 1024)) -> $((hwm1 / 1024)) MiB, RssAnon $((anon0 / 1024)) -> $((anon1 / 1024)) MiB around the 64-worker run (build $BUILD)"
# The peak's growth against the size of the workers' result JSON (parsed into cJSON trees about
# 23 times its size, 2 million allocations for 4 MB; latencySeries is 3/4 of it). While every
# parsed result was held for the aggregate and the ConfigMap: 27 times (-O2), 41 to 42 under ASan
# (53 and 74 while the ConfigMap deep-copied them). Now each result is kept deflated beside a slim
# tree and parsed back one at a time for the aggregate and the ConfigMap (pkg/controller/
# collect.h): 3.2 times (-O2), 5.7 under ASan, the ConfigMap's text and one worker's tree
# being most of it. The bound fails if all the trees are held again.
own_kb=$(($(cat "$TMP"/w/*.json | wc -c) / 1024))
grown_kb=$((hwm1 - hwm0))
times=6
# (not `ldd | grep -q`: grep ending first fails the pipeline under pipefail)
case "$(ldd "$BIN/pgbench-operator")" in *libasan*) times=12 ;; esac
echo "aggregation memory: the peak grew $((grown_kb / own_kb)).$((grown_kb * 10 / own_kb % 10)) times the workers' $((own_kb)) KiB of result JSON (bound $times times)"
[ "$grown_kb" -lt $((own_kb * times)) ] ||
    fail "the operator's peak memory grew by $((grown_kb / 1024)) MiB collecting $own_kb KiB of results (bound: $times times their size)"
pass "64 workers; progress read $reads logs ($pods_read pods) in a rotating sample of 8"
