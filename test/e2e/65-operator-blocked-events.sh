#!/usr/bin/env bash
# Worker pods that wait on what only events tell are reported too (WorkersBlocked, after the 30 s
# grace), and every such run still ends: a scripts ConfigMap that does not exist, one that lacks
# the key, a caSecretRef Secret that does not exist (the kubelet's FailedMount: the pod's status
# only says ContainerCreating), a podTemplate.serviceAccountName that does not exist (the Job
# controller's FailedCreate: no pod at all), a fio StorageClass that does not exist (the claim's
# ProvisioningFailed, the pod Unschedulable). Each has timeoutSeconds 40: at the deadline the run
# ends Failed DeadlineExceeded, its message says what the workers were blocked on, WorkersBlocked
# turns False (RunFailed), and a worker says why it has no pod (none made / deleted at the deadline).
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_sim

env_kubectl create configmap keyless --from-literal=other.sql='SELECT 1;' >/dev/null
env_start_operator

run() { # name, extra target YAML, extra run YAML, extra spec YAML
    cat <<YAML | env_apply
apiVersion: pgbench.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: $1}
spec:
  timeoutSeconds: 40
  target: {host: 127.0.0.1, user: bench$2}
  workload:
    pgbench:
      run: {clients: 1, durationSeconds: 2$3}
$4
YAML
}
run nocm ", sslMode: disable" ", scripts: [{configMapRef: {name: nope-scripts, key: read.sql}}]" ""
run nokey ", sslMode: disable" ", scripts: [{configMapRef: {name: keyless, key: read.sql}}]" ""
run noca ", sslMode: verify-full, caSecretRef: {name: pg-ca}" "" ""
run nosa ", sslMode: disable" "" "  podTemplate: {serviceAccountName: ghost}"
cat <<YAML | env_apply
apiVersion: pgbench.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: noclass}
spec:
  timeoutSeconds: 40
  workload:
    fio:
      storageClassName: does-not-exist
      jobs: [{name: a, rw: read, size: 1m, runtimeSeconds: 1}]
YAML

jp() { env_status "$@"; }
blocked_reason() { jp "$1" '{.status.conditions[?(@.type=="WorkersBlocked")].reason}'; }
says() { [ "$(blocked_reason "$1")" = "$2" ] && jp "$1" '{.status.message}' | grep -qF -- "$3"; }
expect_blocked() { # name, reason, words
    env_wait_for "$1 blocked ($2: $3)" 60 says "$1" "$2" "$3"
    [ "$(jp "$1" '{.status.phase}')" = Running ] || fail "$1: phase $(jp "$1" '{.status.phase}') while blocked"
    [ "$(jp "$1" '{.status.conditions[?(@.type=="WorkersBlocked")].status}')" = True ] ||
        fail "$1: WorkersBlocked is not True"
}
expect_blocked nocm FailedMount 'MountVolume.SetUp failed for volume "script-0" : configmap "nope-scripts" not found (spec.workload.pgbench.run.scripts[0].configMapRef)'
expect_blocked nokey FailedMount 'configmap references non-existent config key: read.sql (spec.workload.pgbench.run.scripts[0].configMapRef)'
expect_blocked noca FailedMount 'volume "ca" : secret "pg-ca" not found (spec.target.caSecretRef)'
expect_blocked nosa FailedCreate 'Error creating: pods "nosa-run-0-" is forbidden: error looking up service account default/ghost: serviceaccount "ghost" not found (spec.podTemplate.serviceAccountName)'
expect_blocked noclass ProvisioningFailed 'PersistentVolumeClaim noclass-fio is not bound: StorageClass "does-not-exist" does not exist'
env_kubectl get br -o wide | grep -F nosa | grep -qF 'serviceaccount "ghost" not found' ||
    fail "kubectl get br -o wide does not show the cause"
n="$(env_kubectl get events --field-selector involvedObject.name=nocm,reason=WorkersBlocked -o name | wc -l)"
[ "$n" -eq 1 ] || { env_kubectl get events >&2; fail "$n WorkersBlocked events for nocm, want 1"; }

# the deadline ends each of them, with a clear condition
for br in nocm nokey noca nosa noclass; do
    env_wait_phase "$br" Failed 90
    [ "$(jp "$br" '{.status.conditions[?(@.type=="Failed")].reason}')" = DeadlineExceeded ] ||
        { env_kubectl get br "$br" -o yaml >&2; fail "$br: Failed reason is not DeadlineExceeded"; }
    msg="$(jp "$br" '{.status.conditions[?(@.type=="Failed")].message}')"
    case "$msg" in
    *"the run exceeded its deadline (spec.timeoutSeconds 40 s"*"; the workers were blocked: "*) ;;
    *) fail "$br: Failed message: $msg" ;;
    esac
    [ "$(jp "$br" '{.status.conditions[?(@.type=="WorkersBlocked")].status}')" = False ] ||
        fail "$br: WorkersBlocked still $(jp "$br" '{.status.conditions[?(@.type=="WorkersBlocked")].status}') on a Failed run"
    [ "$(blocked_reason "$br")" = RunFailed ] || fail "$br: WorkersBlocked reason $(blocked_reason "$br")"
done
# why a worker has no pod: never made (the Job's FailedCreate), or deleted at the Job's deadline
# (status.workers: a line per worker, "INDEX[ POD]: why")
w="$(jp nosa '{.status.workers[0]}')"
[ "$w" = '0: no pod was created for this worker: Error creating: pods "nosa-run-0-" is forbidden: error looking up service account default/ghost: serviceaccount "ghost" not found' ] ||
    fail "nosa worker line: $w"
for br in nocm noclass; do
    w="$(jp "$br" '{.status.workers[0]}')"
    case "$w" in
    "0: no pod of this worker is left to read: the run Job made 1 pod, then failed: DeadlineExceeded"*) ;;
    *) fail "$br worker message: $w" ;;
    esac
done
grep -q "no pod was created" <<<"$(jp noclass '{.status.message}')" && fail "noclass claims no pod was created"
pass "FailedMount (ConfigMap, key, Secret), FailedCreate (ServiceAccount), ProvisioningFailed (StorageClass) reported; each run ended DeadlineExceeded with WorkersBlocked False"
