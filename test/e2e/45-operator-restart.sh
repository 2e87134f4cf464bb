#!/usr/bin/env bash
# The operator is killed with SIGKILL mid-run (during Initializing, then during Running) and
# restarted: decisions come from the BenchmarkRun's status and the cluster, so no Job is created
# twice, the start barrier is published once (by the successor, as a worker pod was still pulling
# its image when its predecessor died) on every pod, and the result is complete. Leader election
# is on: the restarted process takes the Lease over once the dead holder's lease expires, and a
# graceful shutdown releases it. A spec change after the start is ignored with SpecLocked=True.
# Events survive: while the run collects and succeeds every Event write fails (500), the operator
# retries each, gives up with a warning and is killed; its successor sends the Events the status
# records again, so every transition has exactly one Event.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_sim

LEASE=(--leader-elect --lease-name pgbench-operator --lease-namespace default --lease-duration 4)
start_operator() { OP_NAME="operator$1" env_start_operator --start-delay 2 "${LEASE[@]}"; }

start_operator 1
# worker 1's pod pulls its image for 15 s: the operator killed during Running has not published
# the start barrier yet; its successor derives it from the cluster (every pod ready) and sets it
env_kubectl create --raw /sim/start-delay -f - >/dev/null <<'JSON'
{"rules": [{"labels": {"pgbench.dev/benchmarkrun": "restart", "pgbench.dev/role": "run",
  "batch.kubernetes.io/job-completion-index": "1"}, "ms": 15000}]}
JSON
env_br_yaml restart 'pgbench: {init: {scale: 10}, run: {clients: 4, durationSeconds: 10, builtin: tpcb-like}}' \
    'workers: 2' | env_apply

env_wait_phase restart Initializing 30
holder="$(env_kubectl get lease pgbench-operator -o jsonpath='{.spec.holderIdentity}')"
[ -n "$holder" ] || fail "no Lease holder"
kill -KILL "$OP_PID"
note "killed the operator (SIGKILL) during Initializing"
sleep 1
start_operator 2
env_wait_phase restart Running 60
env_wait_for "run Job" 20 env_kubectl get job restart-run
uid1="$(env_kubectl get job restart-run -o jsonpath='{.metadata.uid}')"
startat1="$(env_status restart .status.startAt)"
kill -KILL "$OP_PID"
note "killed the operator (SIGKILL) during Running"
[ -z "$startat1" ] || fail "start barrier $startat1 published while worker 1 was not ready"
# a spec change while the run goes: must be ignored
env_kubectl patch br restart --type merge -p '{"spec":{"workers":3,"workload":{"pgbench":{"run":{"clients":6}}}}}' >/dev/null
sleep 1
start_operator 3
env_wait_for "the restarted operator's first reconcile" 30 grep -q 'reconciled default/restart' "$TMP/operator3.log"
env_sim_fault '{"failNext": 100000, "code": 500, "path": "/events"}'
env_wait_phase restart Succeeded 120
env_wait_for "the Succeeded event given up" 30 grep -q 'event Succeeded restart\.[0-9a-f]* not recorded after 4 tries' "$TMP/operator3.log"
grep -q 'event Succeeded restart\.[0-9a-f]* not recorded: HTTP 500.*again in' "$TMP/operator3.log" ||
    fail "the Succeeded event was not retried"
kill -KILL "$OP_PID"
note "killed the operator (SIGKILL) after its Succeeded event was given up"
env_sim_fault '{"reset": true}'
n_events() { env_kubectl get events --field-selector "involvedObject.name=restart,reason=$1" -o name | wc -l; }
[ "$(n_events Succeeded)" -eq 0 ] || fail "the Succeeded event was recorded despite the fault"
start_operator 4
env_wait_for "the Succeeded event, sent again" 30 sh -c "[ \"\$(kubectl --kubeconfig $KUBECONFIG get events --field-selector involvedObject.name=restart,reason=Succeeded -o name | wc -l)\" -eq 1 ]"
sleep 2 # let it send whatever else it would
for r in Initializing Running Collecting Succeeded SpecLocked; do
    [ "$(n_events "$r")" -eq 1 ] || fail "$(n_events "$r") $r events (want 1): $(env_kubectl get events --field-selector involvedObject.name=restart -o custom-columns=R:.reason,N:.metadata.name --no-headers | tr '\n' ' ')"
done

uid2="$(env_kubectl get job restart-run -o jsonpath='{.metadata.uid}')"
[ "$uid1" = "$uid2" ] || fail "the run Job was re-created ($uid1 -> $uid2)"
startat2="$(env_status restart .status.startAt)"
[ -n "$startat2" ] || fail "no start barrier after the restart"
# one start time in the run: every worker pod got the one in status
anns="$(env_kubectl get pods -l pgbench.dev/benchmarkrun=restart,pgbench.dev/role=run -o jsonpath='{range .items[*]}{.metadata.annotations.pgbench\.dev/start-at}{"\n"}{end}' | sort -u)"
[ "$anns" = "$startat2" ] || fail "pods' start-at annotations ($anns) differ from status.startAt $startat2"
njobs="$(env_kubectl get jobs -l pgbench.dev/benchmarkrun=restart -o name | wc -l)"
[ "$njobs" -eq 2 ] || fail "expected 2 Jobs (init, run), found $njobs"
npods="$(env_kubectl get pods -l pgbench.dev/benchmarkrun=restart,pgbench.dev/role=run -o name | wc -l)"
[ "$npods" -eq 2 ] || fail "expected 2 run pods, found $npods"
ninit="$(env_kubectl get pods -l pgbench.dev/benchmarkrun=restart,pgbench.dev/role=init -o name | wc -l)"
[ "$ninit" -eq 1 ] || fail "the init Job ran $ninit pods"
# every operator instance's log: no create answered with something other than success/AlreadyExists
if grep -h '"created Job' "$TMP"/operator*.log | grep -c restart-run | grep -qv '^1$'; then
    fail "the run Job was created more than once: $(grep -h 'created Job' "$TMP"/operator*.log)"
fi

env_kubectl get br restart -o json >"$TMP/br.json"
env_result_json restart >"$TMP/result.json"
python3 - "$TMP/br.json" "$TMP/result.json" <<'PY' || fail "result check failed"
import json, sys
br = json.load(open(sys.argv[1]))
st = br["status"]
assert st["phase"] == "Succeeded"
rows = json.load(open(sys.argv[2]))["workers"]  # the rows, in the result ConfigMap
assert len(rows) == 2 and all(r["complete"] for r in rows), rows
assert [l.split(":")[0] for l in st["workers"]] == ["%d %s on node %s" % (r["index"], r["pod"], r["node"]) for r in rows], \
    (st["workers"], rows)
assert all(": ok, " in l for l in st["workers"]), st["workers"]
s = st["summary"]
assert s["transactions"] == sum(r["transactionsProcessed"] for r in rows) and s["tps"] > 0, (s, rows)
assert st["clients"] == 4, st["clients"]
c = {x["type"]: x for x in st["conditions"]}["SpecLocked"]
assert c["status"] == "True" and c["reason"] == "SpecChangedAfterStart", c
assert c["observedGeneration"] == 1 and st["startedGeneration"] == 1, (c, st.get("startedGeneration"))
assert st["observedGeneration"] == br["metadata"]["generation"] == 2
print(s["tps"], c["message"])
PY
compl="$(env_kubectl get job restart-run -o jsonpath='{.spec.completions}')"
[ "$compl" = 2 ] || fail "the spec change reached the Job: completions $compl"

# a second candidate stays standby while the leader holds the Lease
LEADER_PID="$OP_PID"
OP_NAME=standby OP_WAIT=standby env_start_operator "${LEASE[@]}"
STANDBY_PID="$OP_PID"
# its identity: "<host>_<16 random hex digits>" (issue 33: not host_pid, always <pod>_1 in a pod)
STANDBY_ID="$(sed -n 's/.*identity \([^ "]*_[0-9a-f]\{16\}\).*/\1/p' "$OP_LOG" | head -1)"
[ -n "$STANDBY_ID" ] || fail "the standby logged no <host>_<16 hex> identity: $(grep -m1 identity "$OP_LOG")"
sleep 3
curl -fsS "$OP_URL/metrics" | grep -q '^pgbench_operator_leader 0$' || fail "standby claims leadership"
curl -fsS "$OP_URL/readyz" | grep -q standby || fail "standby /readyz"

# graceful shutdown releases the Lease: the standby takes over without waiting for expiry
env_stop_operator "$LEADER_PID"
grep -q 'released lease' "$TMP/operator4.log" || fail "the leader did not release the Lease"
is_leader() { curl -fsS "$OP_URL/metrics" | grep -q '^pgbench_operator_leader 1$'; }
env_wait_for "standby becomes leader" 10 is_leader
holder="$(env_kubectl get lease pgbench-operator -o jsonpath='{.spec.holderIdentity}')"
[ "$holder" = "$STANDBY_ID" ] || fail "Lease holder after the handover: $holder, want $STANDBY_ID"
[ "$holder" != "$(sed -n 's/.*identity \([^ "]*\).*/\1/p' "$TMP/operator4.log" | head -1)" ] ||
    fail "the two candidates have one identity: $holder"
env_stop_operator "$STANDBY_PID"
holder="$(env_kubectl get lease pgbench-operator -o jsonpath='{.spec.holderIdentity}')"
[ -z "$holder" ] || fail "Lease not released on shutdown (holder $holder)"
pass "three SIGKILLs: one init Job, one run Job, same barrier, complete result, one Event per transition"
