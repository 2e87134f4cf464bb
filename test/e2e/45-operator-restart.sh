#!/usr/bin/env bash
# The operator is killed with SIGKILL mid-run (during Initializing, then during Running) and
# restarted: decisions come from the BenchmarkRun's status and the cluster, so no Job is created
# twice, the start barrier is reused, and the result is complete. Leader election is on: the
# restarted process takes the Lease over once the dead holder's lease expires, and a graceful
# shutdown releases it. A spec change after the start is ignored with SpecLocked=True.
# Events survive: while the run collects and succeeds every Event write fails (500), the operator
# retries each, gives up with a warning and is killed; its successor sends the Events the status
# records again, so every transition has exactly one Event.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_sim
env_kubectl apply -f "$ROOT/crds/benchmarkrun.yaml" >/dev/null
env_kubectl create secret generic pg-pass --from-literal=password="$PGPASSWORD" >/dev/null

start_operator() {
    env_bg "operator$1" "$BIN/pgbench-operator" --kubeconfig "$KUBECONFIG" --start-delay 2 \
        --metrics-addr 0 --log-level debug --leader-elect --lease-name pgbench-operator \
        --lease-namespace default --lease-duration 4 >"$TMP/op.pid"
    OP_PID="$(cat "$TMP/op.pid")"
}
phase() { env_kubectl get br restart -o jsonpath='{.status.phase}'; }
phase_is() { [ "$(phase)" = "$1" ]; }

start_operator 1
cat <<EOF | env_kubectl apply -f - >/dev/null
apiVersion: pgbench.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: restart}
spec:
  target: {host: 127.0.0.1, port: $PGPORT, database: $PGDATABASE, user: $PGUSER, passwordSecretRef: {name: pg-pass}, sslMode: disable}
  workload:
    pgbench:
      init: {scale: 10}
      run: {clients: 4, durationSeconds: 10, builtin: tpcb-like}
  workers: 2
EOF

env_wait_for "Initializing" 30 phase_is Initializing
holder="$(env_kubectl get lease pgbench-operator -o jsonpath='{.spec.holderIdentity}')"
[ -n "$holder" ] || fail "no Lease holder"
kill -KILL "$OP_PID"
note "killed the operator (SIGKILL) during Initializing"
sleep 1
start_operator 2
env_wait_for "Running after restart" 60 phase_is Running
env_wait_for "run Job" 20 env_kubectl get job restart-run
uid1="$(env_kubectl get job restart-run -o jsonpath='{.metadata.uid}')"
startat1="$(env_kubectl get br restart -o jsonpath='{.status.startAt}')"
kill -KILL "$OP_PID"
note "killed the operator (SIGKILL) during Running"
# a spec change while the run goes: must be ignored
env_kubectl patch br restart --type merge -p '{"spec":{"workers":3,"workload":{"pgbench":{"run":{"clients":6}}}}}' >/dev/null
sleep 1
start_operator 3
env_wait_for "the restarted operator's first reconcile" 30 grep -q 'reconciled default/restart' "$TMP/operator3.log"
env_sim_fault '{"failNext": 100000, "code": 500, "path": "/events"}'
env_wait_for "Succeeded" 120 phase_is Succeeded
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
startat2="$(env_kubectl get br restart -o jsonpath='{.status.startAt}')"
[ "$startat1" = "$startat2" ] || fail "startAt changed across the restart: $startat1 -> $startat2"
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
python3 - "$TMP/br.json" <<'PY' || fail "result check failed"
import json, sys
br = json.load(open(sys.argv[1]))
st = br["status"]
assert st["phase"] == "Succeeded"
rows = st["workers"]
assert len(rows) == 2 and all(r["complete"] for r in rows), rows
s = st["summary"]
assert s["transactions"] == sum(r["transactions"] for r in rows) and s["tps"] > 0, (s, rows)
assert st["clients"] == 4, st["clients"]
c = {x["type"]: x for x in st["conditions"]}["SpecLocked"]
assert c["status"] == "True" and c["reason"] == "SpecChangedAfterStart", c
assert c["observedGeneration"] == 1, c
assert st["observedGeneration"] == br["metadata"]["generation"] == 2
print(s["tps"], c["message"])
PY
compl="$(env_kubectl get job restart-run -o jsonpath='{.spec.completions}')"
[ "$compl" = 2 ] || fail "the spec change reached the Job: completions $compl"

# a second candidate stays standby while the leader holds the Lease
LEADER_PID="$OP_PID"
MPORT="$(env_free_port)"
env_bg standby "$BIN/pgbench-operator" --kubeconfig "$KUBECONFIG" --metrics-addr "127.0.0.1:$MPORT" \
    --log-level debug --leader-elect --lease-name pgbench-operator --lease-namespace default \
    --lease-duration 4 >"$TMP/standby.pid"
STANDBY_PID="$(cat "$TMP/standby.pid")"
env_wait_for "standby /readyz" 20 curl -fsS "http://127.0.0.1:$MPORT/readyz"
sleep 3
curl -fsS "http://127.0.0.1:$MPORT/metrics" | grep -q '^pgbench_operator_leader 0$' || fail "standby claims leadership"
curl -fsS "http://127.0.0.1:$MPORT/readyz" | grep -q standby || fail "standby /readyz"

# graceful shutdown releases the Lease: the standby takes over without waiting for expiry
kill -TERM "$LEADER_PID"
for _ in $(seq 50); do kill -0 "$LEADER_PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$LEADER_PID" 2>/dev/null && fail "operator still running after SIGTERM"
grep -q 'released lease' "$TMP/operator4.log" || fail "the leader did not release the Lease"
is_leader() { curl -fsS "http://127.0.0.1:$MPORT/metrics" | grep -q '^pgbench_operator_leader 1$'; }
env_wait_for "standby becomes leader" 10 is_leader
holder="$(env_kubectl get lease pgbench-operator -o jsonpath='{.spec.holderIdentity}')"
case "$holder" in *"_$STANDBY_PID") ;; *) fail "Lease holder after the handover: $holder" ;; esac
kill -TERM "$STANDBY_PID"
for _ in $(seq 50); do kill -0 "$STANDBY_PID" 2>/dev/null || break; sleep 0.1; done
holder="$(env_kubectl get lease pgbench-operator -o jsonpath='{.spec.holderIdentity}')"
[ -z "$holder" ] || fail "Lease not released on shutdown (holder $holder)"
pass "three SIGKILLs: one init Job, one run Job, same barrier, complete result, one Event per transition"
