#!/usr/bin/env bash
# 64 workers through the real runner, real PostgreSQL and the simulated cluster (issue 31.5):
# - live progress reads at most 8 worker logs per interval (CTRL_PROGRESS_SAMPLE), a sample that
#   rotates over the running workers: counted in the sim's request log (GET .../pods/P/log with
#   tailLines), per interval and over the run; status.progress says workersRead 8 and
#   extrapolated, its tps the sample's sum scaled to 64;
# - the run Succeeds with all 64 workers in the aggregate; the result ConfigMap stays under
#   API_RESULT_MAX_BYTES (900 KiB), and when the workers' own results do not fit beside the
#   aggregate, result.json's "downsampled" says what was left out;
# - prints the operator's memory around the collection of the 64 results (VmHWM, RssAnon).
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_sim --verbose # the request log: which pod logs were read, when

INTERVAL=2
env_start_operator --start-delay 2 --progress-interval "$INTERVAL" --log-level ${E2E_OP_LOG_LEVEL:-info}

mem() { # VmHWM and RssAnon of the operator, KiB
    awk '/^VmHWM:|^RssAnon:/ {printf "%s ", $2}' "/proc/$OP_PID/status"
}
read -r hwm0 anon0 <<<"$(mem)"

env_br_yaml many 'pgbench: {init: {scale: 1}, run: {clients: 64, threads: 1, durationSeconds: 30, builtin: select-only}}' \
    'workers: 64' 'cleanupPolicy: Keep' | env_apply

progress_reads() { grep -c '^sim: GET /api/v1/namespaces/default/pods/many-run-[^/]*/log?.*tailLines=64&limitBytes=' "$SIM_LOG" || true; }
samples=()
last_time=""
last_reads=0
per_interval_max=0
sample() { # while Running: each new status.progress, and the log reads since the one before
    local out phase ptime reads
    out="$(env_kubectl get br many -o json)"
    phase="$(python3 -c 'import json,sys; print(json.load(sys.stdin)["status"].get("phase",""))' <<<"$out")"
    ptime="$(python3 -c 'import json,sys; print((json.load(sys.stdin)["status"].get("progress") or {}).get("time",""))' <<<"$out")"
    if [ "$phase" = Running ] && [ -n "$ptime" ] && [ "$ptime" != "$last_time" ]; then
        reads="$(progress_reads)"
        [ -z "$last_time" ] || [ $((reads - last_reads)) -le "$per_interval_max" ] ||
            per_interval_max=$((reads - last_reads))
        last_time="$ptime" last_reads="$reads"
        samples+=("$(python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["status"]["progress"]))' <<<"$out")")
    fi
    case "$phase" in Succeeded | Failed) return 0 ;; *) return 1 ;; esac
}
ENV_POLL=0.3 env_wait_for "the 64-worker run to end" 300 sample
env_wait_phase many Succeeded 1
read -r hwm1 anon1 <<<"$(mem)"

[ "${#samples[@]}" -ge 3 ] || fail "status.progress seen ${#samples[@]} times while Running: ${samples[*]:-none}"
reads="$(progress_reads)"
pods_read="$(grep -o '^sim: GET /api/v1/namespaces/default/pods/many-run-[^/]*/log?.*tailLines=64&limitBytes=' "$SIM_LOG" |
    sed 's#.*/pods/\([^/]*\)/log.*#\1#' | sort -u | wc -l)"
echo "progress: ${#samples[@]} updates seen, $reads log reads in all, at most $per_interval_max between two updates, $pods_read distinct pods read"
# between two updates of status.progress one interval's reads (8), or two when an interval changed
# nothing (no write): never all 64
[ "$per_interval_max" -le 16 ] || fail "$per_interval_max log reads between two progress updates (at most 8 per interval)"
[ "$pods_read" -ge 24 ] || fail "the sample did not rotate: only $pods_read pods' logs read"

env_kubectl get br many -o json >"$TMP/br.json"
env_kubectl get configmap many-result -o json >"$TMP/cm.json"
mkdir -p "$TMP/w"
for pod in $(env_kubectl get pods -l pgbench.dev/benchmarkrun=many,pgbench.dev/role=run -o name); do
    env_kubectl logs "$pod" | tail -1 >"$TMP/w/$(basename "$pod").json"
done
printf '%s\n' "${samples[@]}" >"$TMP/samples.jsonl"
python3 - "$TMP/br.json" "$TMP/cm.json" "$TMP/samples.jsonl" "$TMP"/w/*.json <<'PY' || fail "64-worker result"
import json, sys
br = json.load(open(sys.argv[1]))
cm_text = open(sys.argv[2]).read()
cm = json.loads(cm_text)
samples = [json.loads(l) for l in open(sys.argv[3]) if l.strip()]
workers = [json.loads(open(f).read()) for f in sys.argv[4:]]
assert len(workers) == 64, len(workers)
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
pass "64 workers; progress read $reads logs ($pods_read pods) in a rotating sample of 8"
