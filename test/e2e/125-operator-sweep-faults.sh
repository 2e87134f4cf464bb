#!/usr/bin/env bash
# A BenchmarkSweep through the faults the run path survives (issue 30): its status writes meet
# 409 Conflicts (read again, decided again), its run creates and reads 500s (retried with backoff),
# its requests 429 with Retry-After, every watch is cut, and the operator is killed (SIGKILL) in
# the middle of step 2 and restarted. Then:
#   - each step ran exactly once: one BenchmarkRun per step, its uid the one first seen, created
#     (201) by exactly one of the two operators, each after the previous one finished;
#   - the analysis equals the one of a quiet sweep over the same data: the runs are copied, status
#     and all, under a second sweep's names while no operator runs, and a fresh operator analyses
#     them without a fault; steps and analysis must be equal (run names aside);
#   - the sweep controller's /metrics counters moved (conflicts, errors, writes, reconciles);
#   - a run create refused for good (422) fails its sweep (CreateFailed, one SweepFailed Event)
#     and is not tried again;
#   - under ASan/UBSan (BUILD=build/asan) the operators' logs hold no sanitizer report.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_sim

SW=fsweep
VALUES=1,2,4
wait_phase() { ENV_KIND=bsw env_wait_phase "$@"; } # sweep phase timeout
metric() {                                          # metric FILE SERIES: its value (0 if absent)
    awk -v s="$2" '$1 == s { v = $2 } END { print v + 0 }' "$1"
}
scrape() { curl -fsS "$OP_URL/metrics" >"$1" || fail "GET /metrics"; }
# sweep NAME > yaml: examples/09's sweep over clients $VALUES, 2 s runs, against this machine's
# PostgreSQL
sweep() {
    python3 - "$ROOT/examples/09-sweep-clients.yaml" "$1" "$VALUES" "$PGPORT" "$PGDATABASE" \
        "$PGUSER" <<'PY'
import sys, yaml
src, name, values, port, db, user = sys.argv[1:7]
d = [x for x in yaml.safe_load_all(open(src)) if x and x.get("kind") == "BenchmarkSweep"][0]
d["metadata"]["name"] = name
t = d["spec"]["template"]
t["target"] = {"host": "127.0.0.1", "port": int(port), "database": db, "user": user,
               "passwordSecretRef": {"name": "pg-pass"}, "sslMode": "disable"}
t["workload"]["pgbench"]["init"]["scale"] = 1
t["workload"]["pgbench"]["run"].update(durationSeconds=2, threads=1)
d["spec"]["vary"] = {"field": "clients", "values": [int(v) for v in values.split(",")]}
d["spec"].pop("stopWhen", None)
print(yaml.safe_dump(d))
PY
}
uid() { env_kubectl get br "$1" -o jsonpath='{.metadata.uid}' 2>/dev/null || true; }

# faults_left: failNext the simulated cluster has still to answer
faults_left() { env_kubectl get --raw /sim/faults | python3 -c 'import json,sys; print(json.load(sys.stdin)["failNext"])'; }

OP_NAME=operator1 env_start_operator
# ---- 1. faults while the sweep starts and runs its first steps ---------------------------------
# the sweep's first two status writes answer 409 Conflict (a stale resourceVersion): read again,
# decided again
env_sim_fault '{"failNext": 2, "code": 409, "path": "/benchmarksweeps/'"$SW"'/status", "method": "PATCH"}'
sweep "$SW" >"$TMP/sweep.yaml"
env_apply "$TMP/sweep.yaml"
wait_phase "$SW" Running 60
env_wait_for "step 1's run" 60 env_kubectl get br "$SW-s0-r0"
uid0="$(uid "$SW-s0-r0")"
[ "$(faults_left)" = 0 ] || fail "the 409s were not met: $(env_kubectl get --raw /sim/faults)"
# the next two creates of a BenchmarkRun (step 2's) fail with 500: retried with backoff
env_sim_fault '{"failNext": 2, "code": 500, "path": "/benchmarkruns", "method": "POST"}'
env_wait_for "step 2's run" 120 env_kubectl get br "$SW-s1-r0"
uid1="$(uid "$SW-s1-r0")"
[ "$(faults_left)" = 0 ] || fail "the 500s were not met: $(env_kubectl get --raw /sim/faults)"
# then the sweep's status writes answer 429 with Retry-After, and every watch is cut
env_sim_fault '{"failNext": 2, "code": 429, "retryAfter": 1, "path": "/benchmarksweeps/'"$SW"'/status", "method": "PATCH"}'
env_sim_fault '{"dropWatches": true}'
# ---- 2. the operator killed mid-step --------------------------------------------------------------
ENV_KIND=br env_wait_phase "$SW-s1-r0" Running 60
scrape "$TMP/metrics1.txt"
kill -KILL "$OP_PID"
note "killed the operator (SIGKILL) while step 2 runs"
OP_NAME=operator2 env_start_operator
env_sim_fault '{"dropWatches": true}'
wait_phase "$SW" Succeeded 180
[ "$(faults_left)" = 0 ] || fail "the 429s were not met: $(env_kubectl get --raw /sim/faults)"
env_sim_fault '{"reset": true}'
scrape "$TMP/metrics2.txt"

# ---- 3. each step exactly once --------------------------------------------------------------------
[ "$(uid "$SW-s0-r0")" = "$uid0" ] || fail "run s0 re-created"
[ "$(uid "$SW-s1-r0")" = "$uid1" ] || fail "run s1 re-created"
env_kubectl get br -l "pgbench.dev/sweep=$SW" -o json >"$TMP/runs.json"
env_kubectl get bsw "$SW" -o json >"$TMP/sweep.json"
python3 - "$TMP/runs.json" "$TMP/sweep.json" "$SW" "$VALUES" <<'PY' || fail "runs of the sweep"
import datetime, json, sys
runs, sw = json.load(open(sys.argv[1]))["items"], json.load(open(sys.argv[2]))
name, values = sys.argv[3], [int(v) for v in sys.argv[4].split(",")]
names = sorted(r["metadata"]["name"] for r in runs)
assert names == [f"{name}-s{i}-r0" for i in range(len(values))], names
by = {r["metadata"]["name"]: r for r in runs}
def t(s): return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ")
for i, v in enumerate(values):
    r = by[f"{name}-s{i}-r0"]
    assert r["metadata"]["ownerReferences"][0]["uid"] == sw["metadata"]["uid"], r["metadata"]
    assert r["spec"]["workload"]["pgbench"]["run"]["clients"] == v, r["spec"]
    assert r["status"]["phase"] == "Succeeded", (r["metadata"]["name"], r["status"].get("message"))
    if i:  # one at a time
        prev = by[f"{name}-s{i-1}-r0"]["status"]["completionTime"]
        assert t(r["metadata"]["creationTimestamp"]) >= t(prev), (i, prev, r["metadata"])
st = sw["status"]
assert st["stepText"] == f"{len(values)}/{len(values)}", st
assert [s["phase"] for s in st["steps"]] == ["Succeeded"] * len(values), st["steps"]
PY
IFS=, read -ra vals <<<"$VALUES"
for i in "${!vals[@]}"; do
    n="$(cat "$TMP"/operator[12].log | grep -c ": created BenchmarkRun $SW-s$i-r0\"" || true)"
    [ "$n" -eq 1 ] || fail "run $SW-s$i-r0 created $n times (201), want once"
done
grep -q ": created BenchmarkRun $SW-s2-r0\"" "$TMP/operator2.log" ||
    fail "the restarted operator did not create step 3"

# ---- 4. the faults were met, and counted -----------------------------------------------------------
m1="$TMP/metrics1.txt" m2="$TMP/metrics2.txt"
conf="$(metric "$m1" pgbench_operator_sweep_status_conflicts_total)"
[ "$conf" -ge 2 ] || fail "sweep status conflicts: $conf, want >= 2: $(grep sweep_ "$m1")"
[ "$(metric "$m1" pgbench_operator_watch_restarts_total)" -ge 1 ] ||
    fail "operator1's watches were not cut: $(grep watch_restarts "$m1")"
err="$(metric "$m1" 'pgbench_operator_sweep_reconcile_total{result="error"}')"
[ "$err" -ge 2 ] || fail "sweep reconcile errors: $err, want >= 2 (the 500s): $(grep sweep_ "$m1")"
[ "$(metric "$m1" pgbench_operator_sweep_write_errors_total)" -ge 2 ] ||
    fail "operator1's write errors: $(grep sweep_write_errors "$m1")"
[ "$(metric "$m1" 'pgbench_operator_sweep_writes_total{kind="create"}')" -eq 2 ] ||
    fail "operator1's creates: $(grep sweep_writes "$m1")"
ok2="$(metric "$m2" 'pgbench_operator_sweep_reconcile_total{result="success"}')"
[ "$ok2" -ge 2 ] || fail "operator2's sweep reconciles: $(grep sweep_ "$m2")"
[ "$(metric "$m2" 'pgbench_operator_sweep_writes_total{kind="status"}')" -ge 2 ] ||
    fail "operator2's status writes: $(grep sweep_writes "$m2")"
[ "$(metric "$m2" 'pgbench_operator_sweep_writes_total{kind="create"}')" -eq 1 ] ||
    fail "operator2 created other than step 3: $(grep sweep_writes "$m2")"
note "operator1: $conf conflicts, $err reconcile errors; operator2: $ok2 reconciles"

# ---- 5. the analysis of a quiet sweep over the same runs -------------------------------------------
env_stop_operator
python3 - "$TMP/runs.json" "$SW" quiet "$TMP/quiet" <<'PY'
import json, sys
runs, old, new, out = json.load(open(sys.argv[1]))["items"], sys.argv[2], sys.argv[3], sys.argv[4]
for r in runs:
    name = r["metadata"]["name"].replace(old + "-", new + "-", 1)
    md = {"name": name, "namespace": r["metadata"]["namespace"],
          "labels": dict(r["metadata"]["labels"], **{"pgbench.dev/sweep": new})}
    json.dump({"apiVersion": r["apiVersion"], "kind": r["kind"], "metadata": md, "spec": r["spec"]},
              open(f"{out}-{name}.json", "w"))
    json.dump({"status": r["status"]}, open(f"{out}-{name}.status.json", "w"))
PY
for f in "$TMP"/quiet-quiet-*[0-9].json; do
    env_kubectl create -f "$f" >/dev/null
    env_kubectl patch br "$(basename "$f" .json | sed 's/^quiet-//')" --subresource=status \
        --type=merge --patch-file "${f%.json}.status.json" >/dev/null
done
OP_NAME=operator3 env_start_operator
sweep quiet | env_apply
wait_phase quiet Succeeded 60
env_kubectl get bsw quiet -o json >"$TMP/quiet.json"
[ -z "$(env_kubectl get jobs -o name | grep quiet || true)" ] || fail "the quiet sweep ran something"
python3 - "$TMP/sweep.json" "$TMP/quiet.json" <<'PY' || fail "the analysis differs from the quiet one"
import json, sys
a, b = (json.load(open(f))["status"] for f in sys.argv[1:3])
def steps(st):
    out = json.loads(json.dumps(st["steps"]))
    for s in out:
        for e in s["runs"]:
            e.pop("name")
    return out
assert steps(a) == steps(b), (steps(a), steps(b))
assert a["analysis"] == b["analysis"], (a["analysis"], b["analysis"])
assert a["analysis"]["verdict"] and a["analysis"]["peakTps"] > 0, a["analysis"]
print(json.dumps(a["analysis"]))
PY

# ---- 6. a run the API server refuses for good (422) fails the sweep, not retried ------------------
env_sim_fault '{"failNext": 1, "code": 422, "path": "/benchmarkruns", "method": "POST"}'
sweep refused | env_apply
wait_phase refused Failed 60
[ "$(faults_left)" = 0 ] || fail "the 422 was not met"
env_sim_fault '{"reset": true}'
msg="$(env_kubectl get bsw refused -o jsonpath='{.status.message}')"
[[ "$msg" == "creating BenchmarkRun refused-s0-r0: injected fault"* ]] || fail "refused: message: $msg"
reason="$(env_kubectl get bsw refused -o jsonpath='{.status.conditions[?(@.type=="Failed")].reason}')"
[ "$reason" = CreateFailed ] || fail "refused: condition reason $reason"
sleep 2 # a retry with backoff would create the run by now
[ -z "$(env_kubectl get br -l pgbench.dev/sweep=refused -o name)" ] || fail "refused: a run was created"
env_wait_for "the SweepFailed Event" 20 sh -c "KUBECONFIG=$KUBECONFIG kubectl get events \
    --field-selector involvedObject.name=refused,reason=SweepFailed -o name | grep -q ."
n="$(env_kubectl get events --field-selector involvedObject.name=refused,reason=SweepFailed -o name | wc -l)"
[ "$n" -eq 1 ] || fail "refused: $n SweepFailed Events"
env_stop_operator
if grep -l 'AddressSanitizer\|runtime error:\|LeakSanitizer' "$TMP"/operator*.log; then
    fail "sanitizer report in an operator's log"
fi
pass "sweep through 409s, 500s, 429s, dropped watches and a kill mid-step: each step once, the quiet analysis"
