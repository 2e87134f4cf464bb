#!/usr/bin/env bash
# BenchmarkSweep through the simulated cluster with real PostgreSQL:
#   1. examples/09-sweep-clients.yaml, shrunk (local target, scale 1, 2 s runs, clients 1 2 4 8,
#      no stopWhen), ends Succeeded: one run per step, created one after another (each after the
#      previous finished), only the first with init, each owned by the sweep; status has the four
#      steps with their numbers and the analysis; kubectl get shows Step 4/4 and the peak.
#   2. a stopWhen that triggers (p99 above 0.001 ms): Stopped after the first step, no second run.
#   3. the operator killed (SIGKILL) mid-sweep and restarted: the sweep resumes at the right step,
#      no run is created twice (same uids), and it ends Succeeded.
#   4. deleting a sweep deletes its runs.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_sim

wait_phase() { ENV_KIND=bsw env_wait_phase "$@"; } # sweep phase timeout
# adapt TEMPLATE_FILE NAME VALUES STOPWHEN(json or "") DURATION > yaml: the example's sweep with
# this machine's target
adapt() {
    python3 - "$@" "$PGPORT" "$PGDATABASE" "$PGUSER" <<'PY'
import json, sys, yaml
src, name, values, stop, duration, port, db, user = sys.argv[1:9]
d = [x for x in yaml.safe_load_all(open(src)) if x and x.get("kind") == "BenchmarkSweep"][0]
d["metadata"]["name"] = name
t = d["spec"]["template"]
t["target"] = {"host": "127.0.0.1", "port": int(port), "database": db, "user": user,
               "passwordSecretRef": {"name": "pg-pass"}, "sslMode": "disable"}
pg = t["workload"]["pgbench"]
pg["init"]["scale"] = 1
pg["run"]["durationSeconds"] = int(duration)
pg["run"]["threads"] = 1
d["spec"]["vary"] = {"field": "clients", "values": [int(v) for v in values.split(",")]}
if stop:
    d["spec"]["stopWhen"] = json.loads(stop)
else:
    d["spec"].pop("stopWhen", None)
print(yaml.safe_dump(d))
PY
}

OP_NAME=operator1 env_start_operator

# ---- 1. the example, shrunk: four steps to Succeeded -------------------------------------------
adapt "$ROOT/examples/09-sweep-clients.yaml" sweep1 1,2,4,8 "" 2 >"$TMP/s1.yaml"
env_apply "$TMP/s1.yaml"
wait_phase sweep1 Succeeded 200
env_kubectl get bsw sweep1 -o json >"$TMP/s1.json"
env_kubectl get br -l pgbench.dev/sweep=sweep1 -o json >"$TMP/s1-runs.json"
for i in 0 1 2 3; do env_result_json "sweep1-s$i-r0" >"$TMP/s1-r$i-result.json"; done
python3 - "$TMP/s1.json" "$TMP/s1-runs.json" "$TMP" <<'PY' || fail "sweep1: status or runs wrong"
import json, sys, datetime
sw = json.load(open(sys.argv[1])); runs = json.load(open(sys.argv[2]))["items"]
st = sw["status"]
names = sorted(r["metadata"]["name"] for r in runs)
assert names == [f"sweep1-s{i}-r0" for i in range(4)], names
by = {r["metadata"]["name"]: r for r in runs}
def t(s): return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ")
for i in range(4):
    r = by[f"sweep1-s{i}-r0"]
    ref = r["metadata"]["ownerReferences"][0]
    assert ref["kind"] == "BenchmarkSweep" and ref["uid"] == sw["metadata"]["uid"] and ref["controller"], ref
    assert r["spec"]["workload"]["pgbench"]["run"]["clients"] == [1, 2, 4, 8][i]
    assert ("init" in r["spec"]["workload"]["pgbench"]) == (i == 0), (i, r["spec"]["workload"])
    assert r["status"]["phase"] == "Succeeded", r["status"]
    if i:  # one at a time: created once the previous one had finished
        prev = by[f"sweep1-s{i-1}-r0"]["status"]["completionTime"]
        assert t(r["metadata"]["creationTimestamp"]) >= t(prev), (i, prev, r["metadata"]["creationTimestamp"])
assert st["stepText"] == "4/4" and st["totalSteps"] == 4, st
steps = st["steps"]
assert [s["value"] for s in steps] == [1, 2, 4, 8], steps
for s, v in zip(steps, [1, 2, 4, 8]):
    r = by[f"sweep1-s{[1,2,4,8].index(v)}-r0"]["status"]["summary"]
    assert s["phase"] == "Succeeded" and len(s["runs"]) == 1, s
    assert abs(s["tpsMean"] - r["tps"]) <= 1e-6 * r["tps"] + 1e-9, (s, r)   # the run's own number
    assert "tpsStddev" not in s and s["latencyMs"]["p99Mean"] > 0, s   # one repeat: unknown
    assert "littlesLawDeviationPct" in s, s
    # each run's entry against its result ConfigMap: Little's law as the aggregate computed it,
    # the largest wait-event share (ties by name)
    i = [1, 2, 4, 8].index(v)
    res = json.load(open("%s/s1-r%d-result.json" % (sys.argv[3], i)))
    e, ll = s["runs"][0], res["checks"]["littlesLaw"]["deviationPct"]
    assert abs(e["littlesLawDeviationPct"] - ll) <= 1e-3 + 1e-5 * abs(ll), (e, ll)
    shares = sorted(res.get("waitEvents", {}).get("sharesPct", {}).items(), key=lambda kv: (-kv[1], kv[0]))
    if shares:
        assert (e["waitEvent"], e["waitPct"]) == shares[0], (e, shares)
    else:
        assert "waitEvent" not in e, e
a = st["analysis"]
best = max(steps, key=lambda s: s["tpsMean"])
assert a["peakTps"] == best["tpsMean"] and a["peakAt"] == best["value"], (a, best)
assert "usl" in a and (a["usl"]["ok"] or "not enough data" in a["usl"]["reason"] or a["usl"].get("reason")), a
assert a["verdict"], a
assert not any(c["type"] == "Failed" for c in st.get("conditions", [])), st
print(json.dumps(a))
PY
note "sweep1: $(env_kubectl get bsw sweep1 -o jsonpath='{.status.message}')"
env_kubectl get bsw sweep1 >"$TMP/get.txt"
head -1 "$TMP/get.txt" | grep -q 'PHASE *STEP *PEAK TPS *AT CLIENTS *KNEE *AGE' || fail "columns: $(cat "$TMP/get.txt")"
grep -q 'sweep1 *Succeeded *4/4 *[0-9.]' "$TMP/get.txt" || fail "kubectl get: $(cat "$TMP/get.txt")"

# ---- 2. stopWhen ----------------------------------------------------------------------------------
adapt "$ROOT/examples/09-sweep-clients.yaml" sweep2 1,2,4 '{"p99Ms": 0.001}' 2 >"$TMP/s2.yaml"
env_apply "$TMP/s2.yaml"
wait_phase sweep2 Stopped 90
reason="$(env_kubectl get bsw sweep2 -o jsonpath='{.status.stopReason}')"
[[ "$reason" == "stopWhen.p99Ms: run sweep2-s0-r0 had p99 "* ]] || fail "stopReason: $reason"
sleep 2
n="$(env_kubectl get br -l pgbench.dev/sweep=sweep2 -o name | wc -l)"
[ "$n" -eq 1 ] || fail "sweep2 went on after stopWhen: $n runs"
note "sweep2: $reason"

# ---- 3. restart mid-sweep -------------------------------------------------------------------------
adapt "$ROOT/examples/09-sweep-clients.yaml" sweep3 1,2,3 "" 3 >"$TMP/s3.yaml"
env_apply "$TMP/s3.yaml"
env_wait_for "sweep3's second run" 90 env_kubectl get br sweep3-s1-r0
uid0="$(env_kubectl get br sweep3-s0-r0 -o jsonpath='{.metadata.uid}')"
uid1="$(env_kubectl get br sweep3-s1-r0 -o jsonpath='{.metadata.uid}')"
kill -KILL "$OP_PID"
note "killed the operator (SIGKILL) during step 2 of sweep3"
sleep 2
OP_NAME=operator2 env_start_operator
wait_phase sweep3 Succeeded 120
[ "$(env_kubectl get br sweep3-s0-r0 -o jsonpath='{.metadata.uid}')" = "$uid0" ] || fail "run s0 re-created"
[ "$(env_kubectl get br sweep3-s1-r0 -o jsonpath='{.metadata.uid}')" = "$uid1" ] || fail "run s1 re-created"
n="$(env_kubectl get br -l pgbench.dev/sweep=sweep3 -o name | wc -l)"
[ "$n" -eq 3 ] || fail "sweep3: $n runs, want 3"
# init once: only the first run asks for it (the example's cleanupPolicy Delete removes the Jobs)
[ "$(env_kubectl get br sweep3-s0-r0 -o jsonpath='{.spec.workload.pgbench.init.scale}')" = 1 ] || fail "sweep3: no init in the first run"
for r in sweep3-s1-r0 sweep3-s2-r0; do
    [ -z "$(env_kubectl get br "$r" -o jsonpath='{.spec.workload.pgbench.init}')" ] || fail "$r has init"
done
[ "$(env_kubectl get bsw sweep3 -o jsonpath='{.status.stepText}')" = 3/3 ] || fail "sweep3 stepText"
grep -q 'created BenchmarkRun sweep3-s2-r0' "$TMP/operator2.log" || fail "the restarted operator did not create step 3"
if grep -q 'created BenchmarkRun sweep3-s[01]-r0' "$TMP/operator2.log"; then
    fail "the restarted operator created an earlier step again"
fi

# ---- 4. deleting the sweep deletes its runs -------------------------------------------------------
env_kubectl delete bsw sweep3 --wait=false >/dev/null
env_wait_for "sweep3's runs deleted" 60 sh -c "[ -z \"\$(kubectl --kubeconfig $KUBECONFIG get br -l pgbench.dev/sweep=sweep3 -o name)\" ]"

pass "4-step sweep Succeeded, stopWhen stopped one, a restart resumed without duplicates, delete cascaded"
