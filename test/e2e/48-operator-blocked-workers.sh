#!/usr/bin/env bash
# Workers that cannot start are reported, not waited on in silence: a BenchmarkRun whose password
# Secret does not exist yet says so after a 30 s grace (status.message, condition WorkersBlocked with the kubelet's
# reason, one Warning event) while its init pod waits in CreateContainerConfigError; once the
# Secret is created the kubelet starts the pod, the condition clears and the run succeeds.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_sim

[ -x "$BIN/pgbench-operator" ] || fail "$BIN/pgbench-operator is not built"
env_kubectl apply -f "$ROOT/crds/benchmarkrun.yaml" >/dev/null
MPORT="$(env_free_port)"
env_bg operator "$BIN/pgbench-operator" --kubeconfig "$KUBECONFIG" --start-delay 1 \
    --metrics-addr "127.0.0.1:$MPORT" --log-level debug >/dev/null
env_wait_for "operator /readyz" 20 curl -fsS "http://127.0.0.1:$MPORT/readyz"

cat >"$TMP/br.yaml" <<YAML
apiVersion: pgbench.dev/v1alpha1
kind: BenchmarkRun
metadata:
  name: later
spec:
  target:
    host: 127.0.0.1
    port: $PGPORT
    database: $PGDATABASE
    user: $PGUSER
    passwordSecretRef: {name: later-pass}
    sslMode: disable
  workload:
    pgbench:
      init: {scale: 1}
      run: {clients: 2, durationSeconds: 2, builtin: select-only}
YAML
env_kubectl apply -f "$TMP/br.yaml" >/dev/null

jp() { env_kubectl get br later -o jsonpath="$1" 2>/dev/null; }
blocked() { jp '{.status.message}' | grep -qF 'cannot start: CreateContainerConfigError: secret "later-pass" not found'; }
env_wait_for "the missing Secret in status.message (after the 30 s grace)" 50 blocked
[ "$(jp '{.status.phase}')" = Initializing ] || fail "phase $(jp '{.status.phase}'), want Initializing while blocked"
[ "$(jp '{.status.conditions[?(@.type=="WorkersBlocked")].status}')" = True ] || fail "WorkersBlocked is not True"
[ "$(jp '{.status.conditions[?(@.type=="WorkersBlocked")].reason}')" = CreateContainerConfigError ] ||
    fail "WorkersBlocked reason: $(jp '{.status.conditions[?(@.type=="WorkersBlocked")].reason}')"
env_kubectl get br later -o wide | grep -qF 'secret "later-pass" not found' || fail "kubectl get br -o wide does not show the cause"
sleep 3 # the kubelet retries every second: the event stays one
n="$(env_kubectl get events --field-selector involvedObject.name=later,reason=WorkersBlocked -o name | wc -l)"
[ "$n" -eq 1 ] || { env_kubectl get events >&2; fail "$n WorkersBlocked events, want 1"; }

env_kubectl create secret generic later-pass --from-literal=password="$PGPASSWORD" >/dev/null
deadline=$((SECONDS + 90))
until [ "$(jp '{.status.phase}')" = Succeeded ]; do
    [ "$(jp '{.status.phase}')" != Failed ] || { env_kubectl get br later -o yaml >&2; fail "the run failed"; }
    [ "$SECONDS" -lt "$deadline" ] || { env_kubectl get br later -o yaml >&2; fail "not Succeeded 90 s after the Secret appeared"; }
    sleep 0.5
done
[ "$(jp '{.status.conditions[?(@.type=="WorkersBlocked")].status}')" = False ] || fail "WorkersBlocked not cleared"
pass "blocked by a missing Secret: reported while waiting, succeeded once it was created"
