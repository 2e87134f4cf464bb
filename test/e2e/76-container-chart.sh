#!/usr/bin/env bash
# The images as the chart runs them: the simulated cluster in container mode (every pod runs from
# its image through podman, with its securityContext, env, volumes and in-cluster credentials),
# namespaces enforcing Pod Security "restricted", `helm install` of the chart with its own values
# (only the images, the local ones, and pullPolicy Never set), then the operator pod — in-cluster
# config from the mounted service account token — runs a BenchmarkRun with an init Job and 2
# workers to Succeeded with its result ConfigMap, and a fio run on a PVC. A run whose image the
# node does not have, with imagePullPolicy Never, is reported blocked (ErrImageNeverPull).
# Builds the images when missing (env_need_image: scripts/images.sh --if-missing); skips only
# without a container engine.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
cd "$ROOT"

# the images, built when absent or older than their sources; skips without a container engine
env_need_image operator
OP_IMAGE="$IMAGE"
env_need_image runner
RUNNER_IMAGE="$IMAGE"
[ "$ENGINE" = podman ] || skip "the simulated cluster's container mode runs podman, the engine here is $ENGINE"

env_start_pg
env_start_sim --container-mode
env_helm

for ns in pgbench-system bench; do
    env_apply <<EOF
apiVersion: v1
kind: Namespace
metadata:
  name: $ns
  labels:
    pod-security.kubernetes.io/enforce: restricted
    pod-security.kubernetes.io/enforce-version: latest
EOF
done
# the label is enforced: a pod that is not restricted is refused
if k -n bench run not-restricted --image="$RUNNER_IMAGE" --restart=Never >"$TMP/psa.out" 2>&1; then
    fail "a pod violating Pod Security restricted was admitted in namespace bench"
fi
grep -q 'violates PodSecurity "restricted:latest"' "$TMP/psa.out" || fail "Pod Security refusal: $(cat "$TMP/psa.out")"

# The chart's values; only the images (the local references; IMAGE_REGISTRY's when set) and
# pullPolicy Never (never a registry). The operator's metrics port is on the node's network: another one if 8080 is taken.
set_args=(--set "image.repository=${OP_IMAGE%:*}" --set "image.tag=${OP_IMAGE##*:}" --set image.pullPolicy=Never
    --set "runnerImage.repository=${RUNNER_IMAGE%:*}" --set "runnerImage.tag=${RUNNER_IMAGE##*:}")
if ss -ltnH "sport = :8080" 2>/dev/null | grep -q .; then
    port="$(env_free_port)"
    note "port 8080 is taken on this machine: metrics.port=$port"
    set_args+=(--set "metrics.port=$port")
else
    port=8080
fi
start=$SECONDS
helm install pgbench-operator charts/pgbench-operator -n pgbench-system "${set_args[@]}" --wait --timeout 180s \
    >"$TMP/helm.out" 2>&1 || {
    k -n pgbench-system get pods -o wide >&2 || true
    k -n pgbench-system get events >&2 || true
    cat "$TMP/helm.out" >&2
    fail "helm install"
}
note "helm install --wait: $((SECONDS - start)) s"
op_pod="$(k -n pgbench-system get pods -l app.kubernetes.io/component=controller -o jsonpath='{.items[0].metadata.name}')"
[ -n "$op_pod" ] || fail "no operator pod"
# it runs from the operator image, as podman shows it: uid 65532, read-only root, no
# capabilities, no-new-privileges, seccomp on
cid="$(k -n pgbench-system get pod "$op_pod" -o jsonpath='{.status.containerStatuses[0].containerID}')"
cid="${cid#containerd://}"
[ -n "$cid" ] || fail "operator pod $op_pod has no containerID"
podman inspect --format '{{.ImageName}}|{{.Config.User}}|{{.HostConfig.ReadonlyRootfs}}|{{.EffectiveCaps}}|{{.HostConfig.SecurityOpt}}' \
    "$cid" >"$TMP/op-inspect.txt" || fail "podman inspect of the operator container"
IFS='|' read -r img user ro caps secopt <"$TMP/op-inspect.txt"
[ "$img" = "$OP_IMAGE" ] || fail "operator container image $img, want $OP_IMAGE"
[ "$user" = "65532:65532" ] || fail "operator container user '$user', want 65532:65532"
[ "$ro" = true ] || fail "operator container root filesystem not read-only"
[ "$caps" = "[]" ] || fail "operator container capabilities $caps, want none"
grep -q no-new-privileges <<<"$secopt" || fail "operator container without no-new-privileges: $secopt"
grep -q seccomp=unconfined <<<"$secopt" && fail "operator container runs without seccomp: $secopt"
# and so says the kernel about its process
grep -E '^(NoNewPrivs|Seccomp|CapEff):' "/proc/$(podman inspect --format '{{.State.Pid}}' "$cid")/status" |
    tr -s '\t' ' ' >"$TMP/op-proc.txt" || fail "no /proc status of the operator process"
[ "$(cat "$TMP/op-proc.txt")" = "$(printf 'CapEff: 0000000000000000\nNoNewPrivs: 1\nSeccomp: 2')" ] ||
    fail "operator process: $(cat "$TMP/op-proc.txt")"
# ready: its informers synced through the API server, in-cluster (no kubeconfig: the mounted
# service account token, which RBAC checks as the chart's ServiceAccount)
curl -fsS "http://127.0.0.1:$port/readyz" >"$TMP/readyz" 2>&1 || fail "operator /readyz on :$port: $(cat "$TMP/readyz")"

k -n bench create secret generic pg-pass --from-literal=password="$PGPASSWORD" >/dev/null
# blocked: an image the node does not have, pull policy Never (reported after the operator's grace)
env_br_yaml neverpull "pgbench: {run: {clients: 1, threads: 1, durationSeconds: 2, builtin: select-only}}" \
    "image: ghcr.io/pgbench-operator/runner:absent" "imagePullPolicy: Never" | env_apply - -n bench
neverpull_at=$SECONDS
# init + 2 workers; they start together on the start barrier, a downwardAPI file of their pod's
# annotation that the operator sets once both are ready: the update reaches the mounted volume
env_br_yaml two "pgbench: {init: {scale: 1}, run: {clients: 4, threads: 1, durationSeconds: 3, builtin: select-only}}" \
    "workers: 2" "cleanupPolicy: Keep" | env_apply - -n bench
env_wait_phase bench/two Succeeded 300
k -n bench get br two -o json >"$TMP/two.json"
env_result_json bench/two >"$TMP/two-result.json"
[ -s "$TMP/two-result.json" ] || fail "no result ConfigMap for run two"
k -n bench get pods -l pgbench.dev/benchmarkrun=two -o json >"$TMP/two-pods.json"
python3 - "$TMP/two.json" "$TMP/two-result.json" "$TMP/two-pods.json" "$RUNNER_IMAGE" <<'PY' || fail "run two: checks failed"
import json, sys
br = json.load(open(sys.argv[1]))
res = json.load(open(sys.argv[2]))
pods = json.load(open(sys.argv[3]))["items"]
image = sys.argv[4]
st = br["status"]
assert st["summary"]["tps"] > 0, st["summary"]
assert len(res["workers"]) == 2, res["workers"]
roles = sorted(p["metadata"]["labels"]["pgbench.dev/role"] for p in pods)
assert roles == ["init", "run", "run"], roles
for p in pods:
    cs = p["status"]["containerStatuses"][0]
    assert p["status"]["phase"] == "Succeeded", (p["metadata"]["name"], p["status"])
    assert cs["image"] == image, cs
    assert cs["containerID"].startswith("containerd://") and cs["imageID"].startswith("sha256:"), cs
    t = cs["state"]["terminated"]
    assert t["exitCode"] == 0 and t["reason"] == "Completed", t
PY
note "run two: $(env_status bench/two .status.result)"

# fio on a PVC of the default StorageClass
k -n bench apply -f - >/dev/null <<EOF || fail "apply fio run"
apiVersion: pgbench.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: disk}
spec:
  workload:
    fio:
      volumeSize: 1Gi
      jobs:
        - {name: wal, rw: write, bs: 8k, iodepth: 1, size: 8m, runtimeSeconds: 2, direct: false, ioengine: psync, fdatasync: 1}
  cleanupPolicy: Keep
EOF
env_wait_phase bench/disk Succeeded 240
k -n bench get pvc disk-fio >/dev/null || fail "no PVC disk-fio"
iops="$(env_status bench/disk '{.status.fio[0].writeIops}')"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1] or 0) > 0 else 1)" "$iops" || fail "fio writeIops '$iops'"
fio_image="$(k -n bench get pods -l pgbench.dev/benchmarkrun=disk -o jsonpath='{.items[0].status.containerStatuses[0].image}')"
[ "$fio_image" = "$RUNNER_IMAGE" ] || fail "fio pod image $fio_image"

# the run whose image is absent: its pod waits in ErrImageNeverPull, the run says so
pod="$(k -n bench get pods -l pgbench.dev/benchmarkrun=neverpull -o jsonpath='{.items[0].metadata.name}')"
[ -n "$pod" ] || fail "no pod for run neverpull"
reason="$(k -n bench get pod "$pod" -o jsonpath='{.status.containerStatuses[0].state.waiting.reason}')"
[ "$reason" = ErrImageNeverPull ] || fail "pod $pod waiting reason '$reason', want ErrImageNeverPull"
blocked_by() { [ "$(env_status bench/neverpull '{.status.conditions[?(@.type=="WorkersBlocked")].reason}')" = "$1" ]; }
# the operator's grace (30 s from the phase's start) first
left=$((neverpull_at + 90 - SECONDS))
[ "$left" -gt 0 ] || left=1
env_poll "$left" blocked_by ErrImageNeverPull || { env_dump_run bench/neverpull; fail "run neverpull not WorkersBlocked/ErrImageNeverPull"; }
msg="$(env_status bench/neverpull .status.message)"
grep -q 'is not present with pull policy of Never' <<<"$msg" || fail "run neverpull message: $msg"

# uninstall: the operator's pod and container go
helm uninstall pgbench-operator -n pgbench-system --wait --timeout 60s >/dev/null || fail "helm uninstall"
gone() { ! "$@" >/dev/null 2>&1; }
env_wait_for "the operator pod to go" 30 gone k -n pgbench-system get pod "$op_pod"
env_wait_for "the operator container to go" 15 gone podman container exists "$cid"
pass "helm install in container mode under Pod Security restricted: operator image in-cluster, init + 2 workers and fio on a PVC from the runner image, ErrImageNeverPull reported"
