#!/usr/bin/env bash
# Issue 31.2: workers forced to share nodes. On a 4-node simulated cluster with sim-node-3 and
# sim-node-4 cordoned, 4 workers (default placement: spread, a preference) go two by two on
# sim-node-1 and sim-node-2.
#   1. The nodes stay cordoned: condition WorkersShareNode False, reason NoOtherNode, naming the
#      pairs and why the other nodes were out; no Warning.
#   2. The nodes are uncordoned while the workers pull their image (/sim/start-delay), before they
#      are ready: when the operator looks, two other nodes were schedulable, so WorkersShareNode is
#      True (reason SharedNode) naming the workers, their node and the free nodes, with a Warning
#      Event of that name; each worker's line in describe names its node.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
export SIM_NODES=4
env_start_pg
env_start_sim
env_start_operator --start-delay 1
env_kubectl cordon sim-node-3 sim-node-4 >/dev/null

br() {
    env_br_yaml "$1" 'pgbench: {init: {scale: 1}, run: {clients: 4, durationSeconds: 2, builtin: select-only, noVacuum: true}}' \
        'workers: 4' 'diagnostics: {replicaLag: false}'
}
# the pairs, from the result ConfigMap: "workers 0 and 2 share node sim-node-1; workers 1 and 3 ..."
check() {
    env_result_json "$1" >"$TMP/$1-result.json"
    env_kubectl get br "$1" -o json >"$TMP/$1.json"
    python3 - "$TMP/$1.json" "$TMP/$1-result.json" "$2" "$3" <<'PY'
import json, sys
br, res = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
status, reason = sys.argv[3], sys.argv[4]
node = {r["index"]: r["node"] for r in res["workers"]}
assert sorted(node.values()) == ["sim-node-1"] * 2 + ["sim-node-2"] * 2, node
pairs = "; ".join("workers %d and %d share node %s" % (*[i for i in range(4) if node[i] == n], n)
                  for n in sorted(set(node.values()), key=lambda n: min(i for i in node if node[i] == n)))
c = [c for c in br["status"]["conditions"] if c["type"] == "WorkersShareNode"]
assert len(c) == 1 and c[0]["status"] == status and c[0]["reason"] == reason, c
assert c[0]["message"].startswith(pairs), (c[0]["message"], pairs)
for i, line in enumerate(br["status"]["workers"]):
    assert " on node %s: ok" % node[i] in line, line
print(c[0]["message"])
PY
}

# ---- 1: no other node was schedulable
br kept | env_apply
env_wait_phase kept Succeeded 90
msg="$(check kept False NoOtherNode)" || fail "kept: $(env_status kept .status.conditions)"
case "$msg" in *"; no other node was schedulable (sim-node-3: cordoned; sim-node-4: cordoned)") ;; *) fail "message: $msg" ;; esac
env_kubectl get events --field-selector reason=WorkersShareNode,involvedObject.name=kept -o name | grep -q . &&
    fail "a WorkersShareNode Warning while no other node was schedulable"

# ---- 2: the other nodes open before the workers are ready
env_kubectl create --raw /sim/start-delay -f - >/dev/null <<'JSON'
{"rules": [{"labels": {"pgbench.dev/benchmarkrun": "opened", "pgbench.dev/role": "run"}, "ms": 4000}]}
JSON
br opened | env_apply
env_wait_for "4 scheduled workers" 30 sh -c "[ \"\$(kubectl --kubeconfig $KUBECONFIG get pods -l pgbench.dev/benchmarkrun=opened,pgbench.dev/role=run -o jsonpath='{.items[*].spec.nodeName}' | wc -w)\" -eq 4 ]"
[ -z "$(env_status opened .status.startAt)" ] || fail "the workers were ready before the nodes opened"
env_kubectl uncordon sim-node-3 sim-node-4 >/dev/null
env_wait_phase opened Succeeded 90
msg="$(check opened True SharedNode)" || fail "opened: $(env_status opened .status.conditions)"
case "$msg" in *" while 2 other nodes were schedulable (sim-node-3, sim-node-4): those workers share its CPU and network;"*) ;;
*) fail "message: $msg" ;; esac
env_wait_for "the WorkersShareNode Warning" 20 sh -c "kubectl --kubeconfig $KUBECONFIG get events --field-selector reason=WorkersShareNode,involvedObject.name=opened,type=Warning -o name | grep -q ."
env_kubectl describe br opened >"$TMP/describe.txt"
grep -q "Warning  WorkersShareNode" "$TMP/describe.txt" || fail "describe lacks the Warning: $(cat "$TMP/describe.txt")"
grep -q "opened-run-0-[a-z0-9]* on node sim-node-[12]: ok" "$TMP/describe.txt" || fail "describe lacks the worker's node"
pass "shared with no other node: NoOtherNode; shared while 2 nodes were free: SharedNode, a Warning"
