#!/usr/bin/env bash
# Issue 31.2: workers spread over nodes. On a 4-node simulated cluster (SIM_NODES=4) a 4-worker
# run made by `kubectl pgbench run --wait` (default spec.placement: spread) places one worker per
# node and says so: the run Job's pods carry the topologySpreadConstraint on
# kubernetes.io/hostname (maxSkew 1, ScheduleAnyway, this run's workers), each worker's node is in
# the result ConfigMap (workers[].node = its pod's spec.nodeName), in `kubectl describe br`'s
# worker lines and in the plugin's, and condition WorkersShareNode is False/OnePerNode.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
export SIM_NODES=4
env_start_plugin
env_start_operator --start-delay 1

[ "$(env_kubectl get nodes -o name | sort | tr '\n' ' ')" = \
    "node/sim-node-1 node/sim-node-2 node/sim-node-3 node/sim-node-4 " ] ||
    fail "nodes: $(env_kubectl get nodes -o wide)"

kubectl pgbench run "${PLUGIN_TARGET[@]}" --name spread --init -s 1 --workers 4 --wait \
    -- -c 4 -S -T 3 -n >"$TMP/run.out" 2>&1 || { cat "$TMP/run.out" >&2; fail "run --wait failed"; }
env_wait_phase spread Succeeded 120

env_kubectl get br spread -o json >"$TMP/br.json"
env_kubectl get job spread-run -o json >"$TMP/job.json"
env_kubectl get pods -l pgbench.dev/benchmarkrun=spread,pgbench.dev/role=run -o json >"$TMP/pods.json"
env_result_json spread >"$TMP/result.json"
env_kubectl describe br spread >"$TMP/describe.txt"
python3 - "$TMP/br.json" "$TMP/job.json" "$TMP/pods.json" "$TMP/result.json" "$TMP/describe.txt" \
    "$TMP/run.out" <<'PY' || fail "placement check failed (describe: $(cat "$TMP/describe.txt"))"
import json, sys
br, job, pods, res = (json.load(open(f)) for f in sys.argv[1:5])
describe, plugin = open(sys.argv[5]).read(), open(sys.argv[6]).read()
tsc = job["spec"]["template"]["spec"]["topologySpreadConstraints"]
assert tsc == [{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway",
                "labelSelector": {"matchLabels": {"pgbench.dev/benchmarkrun": "spread", "pgbench.dev/role": "run"}}}], tsc
# the pods themselves: one per node, and their hostIP that node's address
node_of = {int(p["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"]): p["spec"]["nodeName"]
           for p in pods["items"]}
assert sorted(node_of) == [0, 1, 2, 3], node_of
assert sorted(node_of.values()) == ["sim-node-%d" % i for i in range(1, 5)], node_of
for p in pods["items"]:
    k = int(p["spec"]["nodeName"].rsplit("-", 1)[1])
    assert p["status"]["hostIP"] == "127.0.0.%d" % (k + 1), (p["spec"]["nodeName"], p["status"]["hostIP"])
# the result ConfigMap: each worker's node, as its pod had it
rows = {r["index"]: r for r in res["workers"]}
assert {i: r["node"] for i, r in rows.items()} == node_of, (rows, node_of)
st = br["status"]
for i, line in enumerate(st["workers"]):
    want = "%d %s on node %s: ok, " % (i, rows[i]["pod"], node_of[i])
    assert line.startswith(want), (line, want)
    assert line in describe, ("describe lacks", line)      # kubectl describe's Workers: lines
    assert "  worker " + line in plugin, ("plugin output lacks", line, plugin)
c = [c for c in st["conditions"] if c["type"] == "WorkersShareNode"]
assert len(c) == 1 and c[0]["status"] == "False" and c[0]["reason"] == "OnePerNode", c
assert c[0]["message"] == "each of the 4 workers ran on a node of its own: " + ", ".join(
    "worker %d on %s" % (i, node_of[i]) for i in range(4)), c
print(c[0]["message"])
PY
# no Warning about sharing
env_kubectl get events --field-selector reason=WorkersShareNode -o name | grep -q . &&
    fail "a WorkersShareNode Event for a run spread one per node"
pass "4 workers on 4 nodes, one each: $(env_status spread '.status.conditions[?(@.type=="WorkersShareNode")].message')"
