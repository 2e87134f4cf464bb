#!/usr/bin/env bash
# Workers that cannot start are reported, not waited on in silence: a BenchmarkRun whose password
# Secret does not exist yet says so after a 30 s grace (status.message, condition WorkersBlocked with the kubelet's
# reason, one Warning event) while its init pod waits in CreateContainerConfigError; once the
# Secret is created the kubelet starts the pod, the condition clears and the run succeeds.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_sim

env_start_operator

ENV_BR_SECRET=later-pass env_br_yaml later 'pgbench: {init: {scale: 1}, run: {clients: 2, durationSeconds: 2, builtin: select-only}}' \
    >"$TMP/br.yaml"
env_apply "$TMP/br.yaml"

jp() { env_status later "$1"; }
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
env_wait_phase later Succeeded 90
[ "$(jp '{.status.conditions[?(@.type=="WorkersBlocked")].status}')" = False ] || fail "WorkersBlocked not cleared"
pass "blocked by a missing Secret: reported while waiting, succeeded once it was created"
