#!/usr/bin/env bash
# Multi-worker aggregation: 3 workers of an Indexed Job start together on the start barrier
# (status.startAt, published on their pods once all are ready); the status aggregate is checked
# against the workers' own results read from their pod logs (sums exact, merged percentiles within
# the workers' range, max = max, per-worker rows).
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_sim

env_start_operator --start-delay 2

cat >"$TMP/br.yaml" <<EOF
apiVersion: pgbench.dev/v1alpha1
kind: BenchmarkRun
metadata:
  name: multi
spec:
  target:
    host: 127.0.0.1
    port: $PGPORT
    database: $PGDATABASE
    user: $PGUSER
    passwordSecretRef: {name: pg-pass, key: password}
    sslMode: disable
  workload:
    pgbench:
      init: {scale: 3}
      run: {clients: 7, threads: 1, durationSeconds: 5, builtin: select-only, perStatementLatencies: true}
  workers: 3
  cleanupPolicy: Keep
EOF
env_apply "$TMP/br.yaml"
env_wait_phase multi Succeeded 150

env_kubectl get br multi -o json >"$TMP/br.json"
env_kubectl get job multi-run -o json >"$TMP/job.json"
# every worker's own full result: the last line of its pod log
mkdir -p "$TMP/w"
for pod in $(env_kubectl get pods -l pgbench.dev/benchmarkrun=multi,pgbench.dev/role=run -o name); do
    env_kubectl logs "$pod" | tail -1 >"$TMP/w/$(basename "$pod").json"
done
[ "$(ls "$TMP/w" | wc -l)" -eq 3 ] || fail "expected 3 worker pods, got $(ls "$TMP/w")"

env_result_json multi >"$TMP/result.json"
python3 - "$TMP/br.json" "$TMP/job.json" "$TMP/result.json" "$TMP"/w/*.json <<'PY' || fail "aggregation check failed"
import json, sys
br = json.load(open(sys.argv[1]))
job = json.load(open(sys.argv[2]))
res = json.load(open(sys.argv[3]))
workers = [json.load(open(f)) for f in sys.argv[4:]]
st = br["status"]; s = st["summary"]
assert job["spec"]["completions"] == 3 and job["spec"]["parallelism"] == 3
assert job["spec"]["completionMode"] == "Indexed"
idx = sorted(w["worker"] for w in workers)
assert idx == [0, 1, 2], idx
ws = [w["summary"] for w in workers]
# counts are exact sums
assert s["transactions"] == sum(w["transactionsProcessed"] for w in ws), (s, ws)
assert s.get("failed", 0) == sum(w.get("failedTransactions", 0) or 0 for w in ws)
assert s.get("aborted", 0) == sum(w.get("abortedClients", 0) or 0 for w in ws)
# TPS over the common window is the sum of the workers' TPS
tps = sum(w["tps"] for w in ws)
assert abs(s["tps"] - tps) < 1e-6 * max(1, tps), (s["tps"], tps)
# merged histogram: a percentile of the union lies between the workers' percentiles; max = max
lat = s["latencyMs"]  # status groups the latencies; the workers' results keep flat keys
for k, wk in (("p50", "latencyP50Ms"), ("p95", "latencyP95Ms"), ("p99", "latencyP99Ms")):
    lo = min(w[wk] for w in ws); hi = max(w[wk] for w in ws)
    assert lo - 1e-9 <= lat[k] <= hi + 1e-9, (k, lat[k], lo, hi)
assert abs(lat["max"] - max(w["latencyMaxMs"] for w in ws)) < 1e-6, s
# the histogram counts add up to the transactions
assert sum(w["histogram"]["count"] for w in workers) == s["transactions"]
# weighted mean latency
avg = sum(w["latencyAvgMs"] * w["transactionsProcessed"] for w in ws) / s["transactions"]
assert abs(lat["avg"] - avg) < 0.01 * avg + 1e-3, (lat["avg"], avg)
# per-worker rows (the result ConfigMap's) match each worker's own numbers; status has a line each
rows = {r["index"]: r for r in res["workers"]}
assert sorted(rows) == [0, 1, 2], rows
assert len(st["workers"]) == 3, st["workers"]
for w in workers:
    r = rows[w["worker"]]
    assert r["complete"] is True and r["exitCode"] == 0 and r["message"] == "ok", r
    assert abs(r["tps"] - w["summary"]["tps"]) < 1e-6, (r, w["summary"]["tps"])
    assert r["transactionsProcessed"] == w["summary"]["transactionsProcessed"]
    assert r["pod"].startswith("multi-run-%d-" % w["worker"]), r
    # the node each worker ran on (the simulated cluster's one node unless SIM_NODES)
    assert r.get("node"), r
    line = "%d %s on node %s: ok, %.1f tps, %d tx, avg %.2f ms, from %+.3f s to %.3f s" % (
        w["worker"], r["pod"], r["node"], w["summary"]["tps"], w["summary"]["transactionsProcessed"],
        w["summary"]["latencyAvgMs"], w["window"]["lateSeconds"], w["window"]["endSeconds"])
    assert st["workers"][w["worker"]] == line, (st["workers"], line)
# 7 clients split over 3 workers: 3,2,2 (the remainder to the lowest index)
assert [w["pgbench"]["clients"] for w in sorted(workers, key=lambda w: w["worker"])] == [3, 2, 2], \
    [(w["worker"], w["pgbench"]["clients"]) for w in workers]
# the start barrier: workers' loads began within a second of each other
from datetime import datetime
def t(x): return datetime.fromisoformat(x.replace("Z", "+00:00")).timestamp()
# (startTime is when the runner started, before it waited; the load ends duration after startAt)
ends = [t(w["endTime"]) for w in workers]
assert max(ends) - min(ends) < 1.5, ends
assert min(ends) >= t(st["startAt"]) + 5 - 0.5, (ends, st["startAt"])
# statements and timeline are there, capped
assert st["statements"] and len(st["statements"]) <= 50
assert 3 <= len(st["timeline"]["elapsedSeconds"].split()) <= 60, st["timeline"]
print("aggregate tps %.1f = sum of %s" % (s["tps"], [round(w["tps"], 1) for w in ws]))
PY
msg="$(env_kubectl get br multi -o jsonpath='{.status.message}')"

# custom scripts from a ConfigMap, mounted into the pods, mixed with a weighted builtin; a script
# of weight 0 that would abort every client is honoured: never chosen
env_kubectl create configmap scripts --from-literal=lookup.sql='\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;' --from-literal=never.sql='SELECT 1/0;' >/dev/null
env_br_yaml scripted 'pgbench:
  run:
    clients: 4
    transactions: 25
    builtin: select-only
    builtinWeight: 1
    scripts: [{configMapRef: {name: scripts, key: lookup.sql}, weight: 3}, {configMapRef: {name: scripts, key: never.sql}, weight: 0}]
    perStatementLatencies: true' 'workers: 2' | env_apply
env_wait_phase scripted Succeeded 90
env_kubectl get br scripted -o json >"$TMP/scripted.json"
env_kubectl get job scripted-run -o json >"$TMP/scripted-job.json"
env_result_json scripted >"$TMP/scripted-result.json"
python3 - "$TMP/scripted.json" "$TMP/scripted-job.json" "$TMP/scripted-result.json" <<'PY' || fail "custom script check failed"
import json, sys
st = json.load(open(sys.argv[1]))["status"]
stm = json.load(open(sys.argv[3]))["statements"]  # the rows, in the result ConfigMap
assert st["summary"]["transactions"] == 100, st["summary"]   # 25 per client, 4 clients
assert not st["summary"].get("failed") and "aborted" not in st["summary"], st["summary"]  # only when > 0
cmds = " ".join(s["command"] for s in stm)
assert "pgbench_accounts WHERE aid" in cmds, stm
never = [s for s in stm if "1/0" in s["command"]]
assert never and all(s["latencyMs"] == 0 and not s.get("failures") for s in never), never   # never ran
# status: a line per statement that ran SQL, named by its script (there are three)
sql = [s for s in stm if not s["command"].startswith("\\")]
# each line is its row's latency to pgbench -r's 3 decimals; compared as numbers, not text: a
# weighted mean such as 0.1815 may be a tie, and cJSON prints the ConfigMap's copy to 15 digits
# when they read back within an epsilon, so the text's last ulp can round the other way
def line_ok(line, s):
    head, ms, cmd = line.partition(" ms  ")
    label, _, lat = head.rpartition(" ")
    return (ms and cmd == s["command"] and label == "script %d:" % s["script"]
            and abs(float(lat) - s["latencyMs"]) <= 0.0005 + 1e-12)
assert len(st["statements"]) == len(sql) and all(map(line_ok, st["statements"], sql)), \
    (st["statements"], sql)
assert "script %d: 0.000 ms  SELECT 1/0;" % never[0]["script"] in st["statements"], st["statements"]
args = json.load(open(sys.argv[2]))["spec"]["template"]["spec"]["containers"][0]["args"]
assert "/etc/pgbench/scripts/1/never.sql@0" in args and "select-only@1" in args, args
PY
pass "3 workers aggregated: $msg; custom ConfigMap script ran, its weight-0 neighbour never did"
