#!/usr/bin/env bash
# Issue 31.2: spec.placement.mode pack puts a run's workers on one node, and custom passes the
# user's own constraints. On a 4-node simulated cluster:
#   1. pack: the run Job's pods carry a preferred podAffinity to each other on
#      kubernetes.io/hostname, added to podTemplate.affinity (kept); all 4 workers run on one node,
#      which the result ConfigMap and the worker lines say; no WorkersShareNode condition (packed
#      on purpose).
#   2. custom with a DoNotSchedule constraint, 3 workers, 2 nodes cordoned: the third worker waits
#      (the scheduler's message: the cordoned nodes still count as domains with 0 workers, so a
#      second worker on an open node is a skew of 2, as kube-scheduler counts) until a node is
#      uncordoned, then the run succeeds with 3 workers on 3 nodes.
#   3. the API server (CEL) and the operator refuse constraints without mode custom.
#   4. the plugin (issue 31.2): `kubectl pgbench run --placement pack|spread` sets
#      spec.placement.mode, which --dry-run=client shows with the Job's podAffinity or
#      topologySpreadConstraint; --placement custom is refused as YAML-only (spec.placement);
#      a real `--placement pack --workers 3 --wait` run puts its 3 workers on one node.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
export SIM_NODES=4
env_start_plugin
env_start_operator --start-delay 1

# ---- 1: pack
env_br_yaml packed 'pgbench: {init: {scale: 1}, run: {clients: 4, durationSeconds: 3, builtin: select-only, noVacuum: true}}' \
    'workers: 4' 'placement: {mode: pack}' 'diagnostics: {replicaLag: false}' \
    'podTemplate: {affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, preference: {matchExpressions: [{key: kubernetes.io/os, operator: In, values: [linux]}]}}]}}}' |
    env_apply
env_wait_phase packed Succeeded 120
env_kubectl get br packed -o json >"$TMP/br.json"
env_kubectl get job packed-run -o json >"$TMP/job.json"
env_result_json packed >"$TMP/result.json"
python3 - "$TMP/br.json" "$TMP/job.json" "$TMP/result.json" <<'PY' || fail "pack check failed"
import json, sys
br, job, res = (json.load(open(f)) for f in sys.argv[1:4])
aff = job["spec"]["template"]["spec"]["affinity"]
assert aff["podAffinity"] == {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100, "podAffinityTerm": {
    "labelSelector": {"matchLabels": {"pgbench.dev/benchmarkrun": "packed", "pgbench.dev/role": "run"}},
    "topologyKey": "kubernetes.io/hostname"}}]}, aff
assert aff["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"][0]["weight"] == 1, aff
assert "topologySpreadConstraints" not in job["spec"]["template"]["spec"], job["spec"]["template"]["spec"]
nodes = {r["node"] for r in res["workers"]}
assert len(res["workers"]) == 4 and len(nodes) == 1, res["workers"]
node = nodes.pop()
assert all(" on node %s: ok" % node in line for line in br["status"]["workers"]), br["status"]["workers"]
assert not [c for c in br["status"]["conditions"] if c["type"] == "WorkersShareNode"], br["status"]["conditions"]
print("packed on", node)
PY

# ---- 2: custom, DoNotSchedule: a worker waits for a node of its own
env_kubectl cordon sim-node-1 sim-node-2 >/dev/null
env_br_yaml hard 'pgbench: {run: {clients: 3, durationSeconds: 2, builtin: select-only, noVacuum: true}}' \
    'workers: 3' 'diagnostics: {replicaLag: false}' \
    'placement: {mode: custom, topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule}]}' |
    env_apply
env_wait_for "a worker unschedulable" 30 sh -c "kubectl --kubeconfig $KUBECONFIG get pods -l pgbench.dev/benchmarkrun=hard -o jsonpath='{.items[*].status.conditions[?(@.type==\"PodScheduled\")].reason}' | grep -q Unschedulable"
msg="$(env_kubectl get pods -l pgbench.dev/benchmarkrun=hard -o jsonpath='{.items[*].status.conditions[?(@.reason=="Unschedulable")].message}')"
case "$msg" in
*"0/4 nodes are available: 2 node(s) didn't match pod topology spread constraints, 2 node(s) were unschedulable"*) ;;
*) fail "scheduler message: $msg" ;;
esac
[ -z "$(env_status hard .status.startAt)" ] || fail "a barrier while a worker waits for a node"
env_kubectl uncordon sim-node-1 >/dev/null
env_wait_phase hard Succeeded 90
env_result_json hard >"$TMP/hard.json"
python3 - "$TMP/hard.json" <<'PY' || fail "hard spread: $(cat "$TMP/hard.json")"
import json, sys
nodes = [r["node"] for r in json.load(open(sys.argv[1]))["workers"]]
assert len(nodes) == 3 and len(set(nodes)) == 3 and "sim-node-2" not in nodes, nodes
PY
env_kubectl uncordon sim-node-2 >/dev/null

# ---- 3: constraints need mode custom (CEL), and the operator says the same without CEL
out="$(env_br_yaml bad 'pgbench: {run: {clients: 2, durationSeconds: 2}}' 'workers: 2' \
    'placement: {topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule}]}' |
    env_kubectl apply -f - 2>&1)" && fail "applied constraints without mode custom: $out"
case "$out" in *"placement.topologySpreadConstraints only with placement.mode custom"*) ;; *) fail "refusal: $out" ;; esac
# ---- 4: the plugin's --placement
for mode in pack spread; do
    kubectl pgbench run "${PLUGIN_TARGET[@]}" --name "dry-$mode" --workers 3 --placement "$mode" \
        --dry-run=client -o json -- -c 3 -S -T 2 >"$TMP/dry-$mode.json" || fail "--placement $mode --dry-run"
done
python3 - "$TMP/dry-pack.json" "$TMP/dry-spread.json" <<'PY' || fail "--placement in the dry run"
import json, sys
for f, mode in zip(sys.argv[1:3], ("pack", "spread")):
    items = json.load(open(f))["items"]
    br = [o for o in items if o["kind"] == "BenchmarkRun"][0]
    assert br["spec"]["placement"] == {"mode": mode}, br["spec"].get("placement")
    job = [o for o in items if o["kind"] == "Job" and o["metadata"]["name"].endswith("-run")][0]
    pod = job["spec"]["template"]["spec"]
    if mode == "pack":
        assert "podAffinity" in pod.get("affinity", {}) and "topologySpreadConstraints" not in pod, pod
    else:
        assert pod["topologySpreadConstraints"][0]["topologyKey"] == "kubernetes.io/hostname", pod
        assert "podAffinity" not in pod.get("affinity", {}), pod
print("dry run: pack -> podAffinity, spread -> topologySpreadConstraints")
PY
env_plugin_refuses "YAML-only" run "${PLUGIN_TARGET[@]}" --name c --placement custom --dry-run=client -- -T 2
env_plugin_refuses '--placement "sideways"' run "${PLUGIN_TARGET[@]}" --name c --placement sideways --dry-run=client -- -T 2
kubectl pgbench run --help >"$TMP/help.txt" || fail "run --help"
grep -q -- "--placement spread|pack" "$TMP/help.txt" || fail "run --help lacks --placement"
kubectl pgbench run "${PLUGIN_TARGET[@]}" --name plugpack --workers 3 --placement pack --wait \
    -- -c 3 -S -T 2 -n >"$TMP/plugpack.out" 2>&1 || { cat "$TMP/plugpack.out" >&2; fail "--placement pack run"; }
[ "$(env_status plugpack .spec.placement.mode)" = pack ] || fail "spec.placement.mode not pack"
env_result_json plugpack >"$TMP/plugpack.json"
python3 - "$TMP/plugpack.json" <<'PY' || fail "--placement pack: $(cat "$TMP/plugpack.json")"
import json, sys
nodes = [r["node"] for r in json.load(open(sys.argv[1]))["workers"]]
assert len(nodes) == 3 and len(set(nodes)) == 1, nodes
print("--placement pack: 3 workers on", nodes[0])
PY
pass "pack: 4 workers on one node; DoNotSchedule: a worker waited for its own node; constraints need mode custom; the plugin's --placement pack|spread (dry run, refusal of custom, a packed run)"
