#!/usr/bin/env bash
# Results never depend on pod logs alone.
#  1. RBAC denies pods/log (the chart's operator role without that rule, used through a
#     service-account token): a 2-worker run still Succeeds with its summary and p99 in
#     `kubectl get br` (the slowest worker's, read from the pods' termination messages as a second
#     oracle), and condition ResultDetailUnavailable (LogUnavailable) names the workers and the 403;
#     a refusal is not retried; worker rows say what was missing.
#  2. Every log read answers 500 (the simulated cluster's fault switch): retried with backoff, then
#     the same fallback, the message says so; one worker, so its p99 is exact.
#  3. A result line of 1.5 MiB (a real runner's result with a 12000-point timeline: a 3-hour run at
#     1 s progress; the runner parses recorded pgbench output instead of running pgbench, through
#     --runner-command): the simulated kubelet stores it as containerd does (16 KiB records, which
#     tailLines counts), so the last 64 lines hold only its end; the operator still reads it whole:
#     timeline in status, no ResultDetailUnavailable; its result ConfigMap stays under 900 KiB with
#     the timelines downsampled, and says so.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_sim

run_br() { # name workers [init]
    env_br_yaml "$1" "pgbench: {${3:+$3, }run: {clients: 4, durationSeconds: 3, builtin: select-only}}" "workers: $2" | env_apply
}
p99_shown() { # name: kubectl get br shows the run's p99
    local out
    out="$(k get br "$1" -o wide)"
    note "$out"
    echo "$out" | grep -Eq 'p99 [0-9]' || fail "kubectl get br $1 shows no p99: $out"
}

# ---- 1. pods/log denied by RBAC --------------------------------------------------------------
k create serviceaccount op >/dev/null
python3 - "$ROOT/deploy/install.yaml" >"$TMP/role.yaml" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
role = next(d for d in docs if d["kind"] == "ClusterRole" and d["metadata"]["name"] == "pgbench-operator")
rules = [r for r in role["rules"] if "pods/log" not in r.get("resources", [])]
assert len(rules) == len(role["rules"]) - 1, "the chart's role has no pods/log rule to take away"
role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": {"name": "operator-without-logs"}, "rules": rules}
print(yaml.safe_dump(role))
PY
k apply -f "$TMP/role.yaml" >/dev/null
k create clusterrolebinding op-without-logs --clusterrole=operator-without-logs --serviceaccount=default:op >/dev/null
TOKEN="$(k create token op --duration 2h)"
sed "s#^\(\s*token:\).*#\1 $TOKEN#" "$KUBECONFIG" >"$TMP/op-kubeconfig"
grep -q "$TOKEN" "$TMP/op-kubeconfig" || fail "no token in the operator's kubeconfig"

OP_NAME=op-nologs env_start_operator --kubeconfig "$TMP/op-kubeconfig"
run_br nolog 2 "init: {scale: 1}"
env_wait_phase nolog Succeeded 120
k get br nolog -o json >"$TMP/nolog.json"
env_result_json nolog >"$TMP/nolog-result.json"
for i in 0 1; do
    pod="$(k get pods -l pgbench.dev/benchmarkrun=nolog,pgbench.dev/role=run,batch.kubernetes.io/job-completion-index=$i -o jsonpath='{.items[0].metadata.name}')"
    k get pod "$pod" -o jsonpath='{.status.containerStatuses[0].state.terminated.message}' >"$TMP/term$i.json"
done
k --token "$TOKEN" logs "$pod" >"$TMP/out" 2>&1 && fail "the operator's account may read logs"
grep -q 'cannot get resource "pods/log"' "$TMP/out" || { cat "$TMP/out" >&2; fail "log refusal: unexpected message"; }
python3 - "$TMP/nolog.json" "$TMP/nolog-result.json" "$TMP/term0.json" "$TMP/term1.json" <<'PY' || fail "status of the run without logs"
import json, sys
st = json.load(open(sys.argv[1]))["status"]
res = json.load(open(sys.argv[2]))
terms = [json.load(open(f)) for f in sys.argv[3:]]
s = st["summary"]
assert st["phase"] == "Succeeded", st["phase"]
assert s["tps"] > 0 and s["transactions"] == sum(t["summary"]["transactionsProcessed"] for t in terms), (s, terms)
# the merged percentile needs the histograms: the slowest worker's, from the termination messages
want = max(t["summary"]["latencyP99Ms"] for t in terms)
lat = s["latencyMs"]
assert abs(lat["p99"] - want) < 1e-6, (lat["p99"], want)
assert lat["p50"] > 0 and lat["max"] >= lat["p99"], s
assert not st.get("timeline"), "a timeline without logs?"
c = {x["type"]: x for x in st["conditions"]}["ResultDetailUnavailable"]
assert c["status"] == "True" and c["reason"] == "LogUnavailable", c
for w in ("worker 0 (pod nolog-run-0-", "worker 1 (pod nolog-run-1-", "HTTP 403", "forbidden", "upper bound"):
    assert w in c["message"], (w, c["message"])
assert len(res["workers"]) == 2, res["workers"]
for r in res["workers"]:  # the rows, in the result ConfigMap
    assert r["complete"] is True and r["message"].startswith("ok; summary only"), r
assert len(st["workers"]) == 2 and all(": ok; summary only" in l for l in st["workers"]), st["workers"]
assert "summary only" in st["message"], st["message"]
print("p99", lat["p99"], "|", c["message"][:160])
PY
p99_shown nolog
k get events --field-selector involvedObject.name=nolog,reason=ResultDetailUnavailable -o name | grep -q . ||
    fail "no ResultDetailUnavailable event"
grep -q 'reading the log of pod.*again in' "$TMP/op-nologs.log" && fail "a 403 was retried"
env_stop_operator

# ---- 2. every log read fails with 500 ---------------------------------------------------------
OP_NAME=op-500 env_start_operator
env_sim_fault '{"failNext": 100000, "code": 500, "path": "/log"}'
run_br failing 1
env_wait_phase failing Succeeded 120
env_sim_fault '{"reset": true}'
k get br failing -o json >"$TMP/failing.json"
pod="$(k get pods -l pgbench.dev/benchmarkrun=failing,pgbench.dev/role=run -o jsonpath='{.items[0].metadata.name}')"
k get pod "$pod" -o jsonpath='{.status.containerStatuses[0].state.terminated.message}' >"$TMP/term.json"
python3 - "$TMP/failing.json" "$TMP/term.json" <<'PY' || fail "status of the run whose log reads fail"
import json, sys
st = json.load(open(sys.argv[1]))["status"]
t = json.load(open(sys.argv[2]))
assert st["phase"] == "Succeeded", st["phase"]
assert st["summary"]["latencyMs"]["p99"] == t["summary"]["latencyP99Ms"], (st["summary"], t["summary"])
c = {x["type"]: x for x in st["conditions"]}["ResultDetailUnavailable"]
assert c["reason"] == "LogUnavailable" and "HTTP 500" in c["message"] and "after retries" in c["message"], c
assert "upper bound" not in c["message"], c
PY
n="$(grep -c 'reading the log of pod failing-run-0-.*HTTP 500.*again in' "$TMP/op-500.log" || true)"
[ "$n" -eq 3 ] || fail "want 3 retries of the log read (4 tries), saw $n"
p99_shown failing
env_stop_operator

# ---- 3. a result line over 1 MiB --------------------------------------------------------------
FIX="$ROOT/test/fixtures/pgbench"
{
    head -8 "$FIX/v15-log-tpcb.txt"
    seq 1 12000 | awk '{printf "progress: %d.0 s, 1009.9 tps, lat 0.989 ms stddev 0.345, 0 failed\n", $1}'
    tail -n +9 "$FIX/v15-log-tpcb.txt"
} >"$TMP/console.txt"
# outside /tmp: the runner pod mounts a volume there, and the simulated kubelet maps that path
FAKE="$BUILD/e2e/56-fake-runner"
cat >"$FAKE" <<EOF
#!/bin/sh
# the operator's arguments are ignored: a real runner parses recorded output
exec "$BIN/pgbench-runner" parse pgbench --log "$FIX/log-tpcb/pgbench_log.14700" \
    --log "$FIX/log-tpcb/pgbench_log.14700.1" <"$TMP/console.txt"
EOF
chmod +x "$FAKE"
OP_NAME=op-long env_start_operator --runner-command "$FAKE"
run_br long 1
env_wait_phase long Succeeded 120
pod="$(k get pods -l pgbench.dev/benchmarkrun=long,pgbench.dev/role=run -o jsonpath='{.items[0].metadata.name}')"
len="$(k logs "$pod" | tail -1 | wc -c)"
[ "$len" -gt 1048576 ] || fail "the result line is only $len bytes"
# as on containerd: the last 64 lines are 64 records of 16 KiB, the end of the result line only
k logs "$pod" --tail=64 >"$TMP/tail.txt"
[ "$(wc -l <"$TMP/tail.txt")" -eq 1 ] || fail "the tail holds more than the result line's end"
head -c 16 "$TMP/tail.txt" | grep -q '^{"schemaVersion' && fail "the tail starts with the whole result line"
last=$(((len - 1) % 16384)); [ "$last" -eq 0 ] && last=16384
[ "$(wc -c <"$TMP/tail.txt")" -eq $((63 * 16384 + last + 1)) ] || fail "the tail is not 64 records"
k get br long -o json >"$TMP/long.json"
python3 - "$TMP/long.json" "$len" <<'PY' || fail "status of the run with a long result line"
import json, sys
st = json.load(open(sys.argv[1]))["status"]
assert st["phase"] == "Succeeded", st["phase"]
types = [c["type"] for c in st["conditions"]]
assert "ResultDetailUnavailable" not in types, st["conditions"]
tl = [float(x) for x in st["timeline"]["elapsedSeconds"].split()]
# downsampled from all 12000 points to at most 60: the whole line was read
assert 2 <= len(tl) <= 60 and tl[0] == 1 and tl[-1] > 11000, (len(tl), tl[0], tl[-1])
s = st["summary"]
assert s["latencyMs"]["p99"] == 1.819 and s["transactions"] == 3000, s  # the recorded run's, exactly
assert len(st["workers"]) == 1 and st["workers"][0].split(": ", 1)[1].startswith("ok, "), st["workers"]
print("result line", sys.argv[2], "bytes; timeline", len(tl), "points; p99", s["latencyMs"]["p99"])
PY
# the result ConfigMap keeps it under 900 KiB, the timelines evenly thinned, and says so
k get configmap long-result -o json >"$TMP/long-cm.json" || fail "no result ConfigMap long-result"
python3 - "$TMP/long-cm.json" <<'PY' || fail "the result ConfigMap of the run with a long result line"
import json, sys
text = open(sys.argv[1]).read()
assert len(text.encode()) < 900 * 1024, len(text.encode())
res = json.loads(json.loads(text)["data"]["result.json"])
d = res["downsampled"]
assert d["timelinePoints"]["from"] == 12000 and d["timelinePoints"]["to"] == len(res["timeline"]), d
assert 60 <= len(res["timeline"]) < 12000 and res["timeline"][0]["t"] == 1, len(res["timeline"])
w = res["workerResults"][0]
assert d["workerTimelines"] == {"from": 12000, "to": len(w["timeline"])}, (d, len(w["timeline"]))
assert res["summary"]["latencyP99Ms"] == 1.819 and w["histogram"]["count"] == 3000, res["summary"]
assert res["workers"][0]["message"] == "ok" and res["workers"][0]["complete"] is True, res["workers"]
print("ConfigMap", len(text), "bytes;", d)
PY
grep -q 'using the summary of its termination message' "$TMP/op-long.log" && fail "fell back for the long line"
grep -q 'reading the log of pod long-run-0-[a-z0-9]* (from its start' "$TMP/op-long.log" ||
    fail "the operator did not read the log from its start"
env_stop_operator
pass "results from termination messages when logs are denied (403) or failing (500, retried); a 1.5 MiB result line read whole"
