#!/usr/bin/env bash
# make test-cluster: the chart and the images on a real Kubernetes (issue 33).
#
# usage: scripts/test-cluster.sh            (make test-cluster [K8S=real|kind])
#   K8S=real (default)  the single-node Kubernetes v1.25 kit in ../shared/k8s (K8S_KIT): installed
#                       into a temporary directory, started in node mode, always stopped at the
#                       end (node-stop.sh --all: no iptables rules, interfaces or mounts left).
#                       Absent kit: "skipped: no test cluster", exit 0. Needs root.
#   K8S=kind            the current kubectl context's kind cluster (KIND_CLUSTER, default "kind"):
#                       images loaded with `kind load image-archive`, PostgreSQL 15 run in the
#                       cluster from postgres:15 (pulled); the cluster itself is left running.
#   RESTART_AFTER_S     when the operator pod is deleted in run 3, in s after the start barrier
#                       (default 4; negative: before it)
#   OPERATOR_IMAGE, RUNNER_IMAGE  the images under test (default
#                       ghcr.io/pgbench-operator/{operator,runner}:<VERSION>, built by `make images`
#                       into podman's storage); the chart gets their repository and tag.
#
# Steps, each timed: install + start the cluster, PostgreSQL for the pods, import the images,
# namespaces enforcing Pod Security "restricted", `helm install` of charts/pgbench-operator as
# shipped (pullPolicy IfNotPresent: the imported images are there), then four runs that must reach
# Succeeded with their result ConfigMap, diagnostics/verdict and cleanup checked:
#   1. pgbench, 2 workers, with init;
#   2. fio on a local PersistentVolume (StorageClass kubernetes.io/no-provisioner);
#   3. pgbench while the operator's pod is deleted: the new pod takes the Lease over (a new
#      identity), the run Succeeds, and the new operator counts no API errors;
#   4. a BenchmarkSweep of 3 steps;
# then `helm uninstall --wait`: nothing of the release left in its namespace (the Lease included)
# and no refused Lease release in the operator's last log lines.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
K8S="${K8S:-real}"
KIT="${K8S_KIT:-$ROOT/../shared/k8s}"
VERSION="$(cat VERSION)"
OPERATOR_IMAGE="${OPERATOR_IMAGE:-ghcr.io/pgbench-operator/operator:$VERSION}"
RUNNER_IMAGE="${RUNNER_IMAGE:-ghcr.io/pgbench-operator/runner:$VERSION}"
export CONTAINERS_CONF="${CONTAINERS_CONF:-$ROOT/images/containers.conf}"
[ -f "$CONTAINERS_CONF" ] || unset CONTAINERS_CONF
PATH="$ROOT/build/tools/bin:$PATH"

case "$K8S" in
real)
    if [ ! -f "$KIT/install.sh" ]; then
        echo "test-cluster: skipped: no test cluster ($KIT absent)"
        exit 0
    fi
    [ "$(id -u)" = 0 ] || { echo "test-cluster: the kit in $KIT runs as root (sudo make test-cluster)" >&2; exit 1; } ;;
kind) ;;
*) echo "test-cluster: K8S=$K8S: want real (the kit in ../shared/k8s) or kind" >&2; exit 2 ;;
esac
for t in helm kubectl podman python3; do
    command -v "$t" >/dev/null || { echo "test-cluster: $t not found (make deps)" >&2; exit 1; }
done

T0=$(date +%s)
TIMES=()
fail() { echo "test-cluster: FAIL: $*" >&2; exit 1; }
note() { echo "test-cluster: $*"; }
# step NAME CMD...: runs CMD, records its wall time
# CMD runs outside any `||` or `if`, so that set -e holds inside it: any failing command fails the
# step (cleanup names it)
STEP=""
step() {
    local name="$1" s
    shift
    s=$(date +%s.%N)
    note "---- $name"
    STEP="$name"
    "$@"
    STEP=""
    TIMES+=("$(printf '%-34s %6.1f s' "$name" "$(echo "$(date +%s.%N) - $s" | bc)")")
}
print_times() {
    echo "test-cluster: step times"
    local l
    for l in "${TIMES[@]}"; do echo "  $l"; done
    echo "  $(printf '%-34s %6d s' total $(($(date +%s) - T0)))"
}

WORK="$(mktemp -d "${TMPDIR:-/tmp}/pgbo-test-cluster.XXXXXX")"
chmod 755 "$WORK" # node-pg.sh runs PostgreSQL as user postgres under it
K="$WORK/k8s"
NS_OP=pgbench-system
NS=pgbench-bench
RELEASE=pgbench-operator
LEASE=pgbench-operator-leader
PGHOST_PODS="" PGPORT_PODS=5432

k() { kubectl "$@"; }
dump() {
    [ -n "${KUBECONFIG:-}" ] || return 0
    echo "test-cluster: ---- state at the failure" >&2
    k get br,bsw,jobs,pods,pvc -n "$NS" -o wide >&2 2>/dev/null || true
    k get pods -n "$NS_OP" -o wide >&2 2>/dev/null || true
    # why a container does not run: its state and last state (reason, exit code, message)
    k get pods -n "$NS_OP" -o jsonpath='{range .items[*]}{.metadata.name}{": "}{range .status.containerStatuses[*]}{.state}{" last: "}{.lastState}{"\n"}{end}{end}' >&2 2>/dev/null || true
    k get events -n "$NS" --sort-by=.lastTimestamp 2>/dev/null | tail -20 >&2 || true
    k logs -n "$NS_OP" deploy/$RELEASE --tail=40 >&2 2>/dev/null || true
    local p
    for p in $(k -n "$NS" get pods -o name 2>/dev/null); do
        echo "test-cluster: ---- $p" >&2
        k -n "$NS" logs "$p" --tail=30 >&2 2>/dev/null || true
    done
}
cleanup() {
    local rc=$? s
    trap - EXIT INT TERM
    [ -z "$STEP" ] || echo "test-cluster: FAIL: $STEP (exit $rc)" >&2
    [ "$rc" = 0 ] || dump
    if [ "$K8S" = real ] && [ -x "$K/node-stop.sh" ]; then
        s=$(date +%s.%N)
        "$K/node-stop.sh" --all >"$WORK/node-stop.log" 2>&1 || { cat "$WORK/node-stop.log" >&2; rc=1; }
        local left
        # what is there now and was not before the start: node-net.sh status (the bridge, "no
        # cni0" when gone, and the KUBE-/CNI-/REALK8S- rules) and the pods' network namespaces
        # (their veth ends go with them and with cni0). podman's own CNI network (its firewall
        # plugin's CNI-FORWARD/CNI-ADMIN chains, made by builds running meanwhile) is not the kit's.
        host_state >"$WORK/host-after.txt"
        left="$(grep -vxF -f "$WORK/host-before.txt" "$WORK/host-after.txt" |
            grep -v -e '^no cni0$' -e 'CNI-ADMIN' -e 'CNI-FORWARD' || true)"
        if [ -n "$left" ]; then
            echo "test-cluster: FAIL: left on the host after node-stop.sh --all:" >&2
            echo "$left" >&2
            rc=1
        fi
        if grep -q " $K/" /proc/mounts; then
            echo "test-cluster: FAIL: mounts left under $K:" >&2
            grep " $K/" /proc/mounts >&2
            rc=1
        fi
        TIMES+=("$(printf '%-34s %6.1f s' "stop the cluster" "$(echo "$(date +%s.%N) - $s" | bc)")")
    elif [ "$K8S" = kind ] && [ -n "${KUBECONFIG:-}" ]; then
        helm uninstall "$RELEASE" -n "$NS_OP" >/dev/null 2>&1 || true
        k delete namespace "$NS" "$NS_OP" pgbench-pg --wait=false >/dev/null 2>&1 || true
    fi
    if [ "$rc" = 0 ] || [ -z "${KEEP_WORK:-}" ]; then rm -rf "$WORK"; else echo "test-cluster: kept $WORK" >&2; fi
    print_times
    if [ "$rc" = 0 ]; then echo "test-cluster: passed"; else echo "test-cluster: FAILED" >&2; fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the images -------------------------------------------------------------------------------
images() {
    local img
    # the default images are rebuilt when their sources changed (a stale image would test old code)
    if [ "$OPERATOR_IMAGE" = "$(scripts/images.sh --ref operator)" ] ||
        [ "$RUNNER_IMAGE" = "$(scripts/images.sh --ref runner)" ]; then
        scripts/images.sh --if-missing
    fi
    for img in "$OPERATOR_IMAGE" "$RUNNER_IMAGE"; do
        podman image exists "$img" || fail "no image $img in podman's storage: build it (make images)"
    done
    podman save --format oci-archive -o "$WORK/operator.tar" "$OPERATOR_IMAGE"
    podman save --format oci-archive -o "$WORK/runner.tar" "$RUNNER_IMAGE"
}
# what a pod says for an image podman holds: a name without a registry is localhost/NAME there
pod_image() {
    case "${1%%/*}" in
    *.* | *:* | localhost) echo "$1" ;;
    *) echo "localhost/$1" ;;
    esac
}

host_state() {
    { "$K/node-net.sh" status 2>&1 | grep -v '^\['; ls /run/netns 2>/dev/null | grep '^cni-'; } || true
}

# ---- the cluster ------------------------------------------------------------------------------
start_real() {
    bash "$KIT/install.sh" "$K" --with-postgresql >"$WORK/install.log" 2>&1 || { tail -20 "$WORK/install.log" >&2; return 1; }
    export KUBECONFIG="$K/kubeconfig"
    host_state >"$WORK/host-before.txt"
    "$K/node-start.sh" >"$WORK/node-start.log" 2>&1 || { tail -30 "$WORK/node-start.log" >&2; return 1; }
    # The kit makes cni0 with `ip link add ... type bridge` and no address of its own, so the
    # bridge takes the lowest MAC of its ports and changes it when that pod goes: the other pods
    # keep the old MAC for their gateway 10.42.0.1 in their ARP cache and their connections to
    # PostgreSQL and the API server stall until the entry is re-probed (measured: deleting the
    # operator pod left a worker's pgbench hanging 45 s, no answer to its connections). Setting
    # the address (to the one it has) pins it; node-stop.sh deletes the bridge as before.
    ip link set dev cni0 address "$(cat /sys/class/net/cni0/address)"
}
postgres_real() {
    "$K/node-pg.sh" start >"$WORK/node-pg.log" 2>&1 || { cat "$WORK/node-pg.log" >&2; return 1; }
    PGHOST_PODS=10.42.0.1
    PG_USER=bench PG_PASSWORD=bench-secret PG_DB=bench
}
import_real() { "$K/node-images.sh" import "$WORK/operator.tar" "$WORK/runner.tar"; }

start_kind() {
    command -v kind >/dev/null || fail "K8S=kind: kind not found"
    KIND_CLUSTER="${KIND_CLUSTER:-kind}"
    export KUBECONFIG="${KUBECONFIG:-$HOME/.kube/config}"
    kubectl config use-context "kind-$KIND_CLUSTER" >/dev/null || fail "no context kind-$KIND_CLUSTER (kind create cluster)"
    k get nodes
}
# PostgreSQL 15 as a pod (postgres:15 from Docker Hub), reached by its Service's ClusterIP (no DNS
# needed)
postgres_kind() {
    PG_USER=bench PG_PASSWORD=bench-secret PG_DB=bench
    k create namespace pgbench-pg --dry-run=client -o yaml | k apply -f - >/dev/null
    cat <<EOF | k apply -n pgbench-pg -f - >/dev/null
apiVersion: apps/v1
kind: Deployment
metadata: {name: pg}
spec:
  selector: {matchLabels: {app: pg}}
  template:
    metadata: {labels: {app: pg}}
    spec:
      containers:
        - name: pg
          image: postgres:15
          env: [{name: POSTGRES_USER, value: $PG_USER}, {name: POSTGRES_PASSWORD, value: $PG_PASSWORD},
                {name: POSTGRES_DB, value: $PG_DB}]
          readinessProbe: {exec: {command: [pg_isready, -U, $PG_USER]}, periodSeconds: 2}
---
apiVersion: v1
kind: Service
metadata: {name: pg}
spec: {selector: {app: pg}, ports: [{port: 5432}]}
EOF
    k -n pgbench-pg rollout status deploy/pg --timeout=300s
    PGHOST_PODS="$(k -n pgbench-pg get svc pg -o jsonpath='{.spec.clusterIP}')"
}
import_kind() {
    kind load image-archive "$WORK/operator.tar" --name "$KIND_CLUSTER"
    kind load image-archive "$WORK/runner.tar" --name "$KIND_CLUSTER"
}

# ---- the chart --------------------------------------------------------------------------------
namespaces() {
    local ns
    for ns in "$NS_OP" "$NS"; do
        k create namespace "$ns" >/dev/null
        k label namespace "$ns" pod-security.kubernetes.io/enforce=restricted \
            pod-security.kubernetes.io/enforce-version=latest >/dev/null
    done
    k -n "$NS" create secret generic pg-pass --from-literal=password="$PG_PASSWORD" >/dev/null
}
helm_install() {
    local op run
    op="$(pod_image "$OPERATOR_IMAGE")" run="$(pod_image "$RUNNER_IMAGE")"
    # the chart as shipped; only the images' names when they are not the defaults (a test image)
    local args=()
    [ "$op" = "ghcr.io/pgbench-operator/operator:$VERSION" ] ||
        args+=(--set "image.repository=${op%:*}" --set "image.tag=${op##*:}")
    [ "$run" = "ghcr.io/pgbench-operator/runner:$VERSION" ] ||
        args+=(--set "runnerImage.repository=${run%:*}" --set "runnerImage.tag=${run##*:}")
    helm install "$RELEASE" charts/pgbench-operator -n "$NS_OP" "${args[@]}" --wait --timeout 120s \
        >"$WORK/helm-install.log" 2>&1 || { cat "$WORK/helm-install.log" >&2; return 1; }
    k -n "$NS_OP" get deploy,pods -o wide
    wait_lease_held
}
holder() { k -n "$NS_OP" get lease "$LEASE" -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }
op_pod() { k -n "$NS_OP" get pods -l app.kubernetes.io/name=pgbench-operator -o jsonpath='{range .items[?(@.status.phase=="Running")]}{.metadata.name}{"\n"}{end}' | grep -v '^$' | tail -1; }
wait_lease_held() {
    local i h pod
    for i in $(seq 1 60); do
        pod="$(op_pod || true)" h="$(holder || true)"
        if [ -n "$pod" ] && [[ "$h" =~ ^${pod}_[0-9a-f]{16}$ ]]; then
            note "lease $NS_OP/$LEASE held by $h"
            return 0
        fi
        sleep 1
    done
    fail "the operator pod ${pod:-?} does not hold the Lease (holder \"$h\", want <pod>_<16 hex>)"
}
metric() { # POD NAME: the value of a metric line NAME in the pod's /metrics
    k get --raw "/api/v1/namespaces/$NS_OP/pods/$1:8080/proxy/metrics" | awk -v m="$2" '$1 == m {print $2}'
}

# ---- the runs ---------------------------------------------------------------------------------
target() {
    echo "target: {host: $PGHOST_PODS, port: $PGPORT_PODS, database: $PG_DB, user: $PG_USER, passwordSecretRef: {name: pg-pass}, sslMode: disable}"
}
phase() { k -n "$NS" get "$1" "$2" -o jsonpath='{.status.phase}' 2>/dev/null; }
wait_phase() { # KIND NAME PHASE TIMEOUT
    local i p
    for i in $(seq 1 "$4"); do
        p="$(phase "$1" "$2" || true)"
        [ "$p" = "$3" ] && return 0
        case "$p" in Failed | Stopped) [ "$p" != "$3" ] && { k -n "$NS" get "$1" "$2" -o yaml >&2; fail "$1 $2 is $p, want $3"; } ;; esac
        sleep 1
    done
    k -n "$NS" get "$1" "$2" -o yaml >&2
    fail "$1 $2 not $3 after $4 s (phase ${p:-none})"
}
# check_run NAME WORKERS: the result ConfigMap (complete rows, exit 0), the diagnostics in status,
# and the cleanup (cleanupPolicy Delete: no Job, pod or PVC of the run left)
check_run() {
    local name="$1" workers="$2" cm i
    k -n "$NS" get br "$name" -o json >"$WORK/$name.json"
    cm="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"]["resultRef"]["name"])' "$WORK/$name.json")"
    k -n "$NS" get configmap "$cm" -o json >"$WORK/$name-cm.json"
    python3 - "$WORK/$name.json" "$WORK/$name-cm.json" "$workers" <<'PY'
import json, sys
br = json.load(open(sys.argv[1])); st = br["status"]; cm = json.load(open(sys.argv[2]))
workers = int(sys.argv[3])
res = json.loads(cm["data"][st["resultRef"].get("key", "result.json")])
rows = res["workers"]
assert len(rows) == workers and all(w["complete"] and w["exitCode"] == 0 for w in rows), rows
assert [r["uid"] for r in cm["metadata"]["ownerReferences"]] == [br["metadata"]["uid"]], cm["metadata"]
if "pgbench" in br["spec"]["workload"]:
    assert res["summary"]["tps"] > 0, res["summary"]
    d = st["diagnostics"]
    assert d["server"].startswith("PostgreSQL 15"), d
    assert d.get("verdict") and d.get("verdictClass") and "waitEvents" in d, d
    late = [w["lateSeconds"] for w in rows]
    print("%s: %s; late %s; %s" % (br["metadata"]["name"], st["result"], late, d["server"]))
else:
    assert all(j.get("readIops", 0) > 0 or j.get("writeIops", 0) > 0 for j in st["fio"]), st["fio"]
    print("%s: %s" % (br["metadata"]["name"], st["result"]))
PY
    for i in $(seq 1 60); do
        [ -z "$(k -n "$NS" get jobs,pods,pvc -l "pgbench.dev/benchmarkrun=$name" -o name)" ] &&
            [ -z "$(k -n "$NS" get pvc "$name-fio" -o name 2>/dev/null)" ] && return 0
        sleep 1
    done
    k -n "$NS" get jobs,pods,pvc -l "pgbench.dev/benchmarkrun=$name" >&2
    fail "run $name: not cleaned up (cleanupPolicy Delete)"
}

run_pgbench() {
    cat <<EOF | k -n "$NS" apply -f - >/dev/null
apiVersion: pgbench.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: two-workers}
spec:
  $(target)
  workers: 2
  workload:
    pgbench:
      init: {scale: 2}
      run: {clients: 4, threads: 2, durationSeconds: 5, builtin: tpcb-like, progressSeconds: 1}
  diagnostics: {replicaLag: false}
  cleanupPolicy: Delete
EOF
    wait_phase br two-workers Succeeded 240
    check_run two-workers 2
}

run_fio() {
    mkdir -p "$WORK/pv-fio" && chmod 0777 "$WORK/pv-fio"
    cat <<EOF | k apply -f - >/dev/null
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: pgbo-local}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pgbo-local-fio}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: pgbo-local
  local: {path: $WORK/pv-fio}
  nodeAffinity:
    required:
      nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, operator: Exists}]}]
EOF
    cat <<EOF | k -n "$NS" apply -f - >/dev/null
apiVersion: pgbench.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: disk}
spec:
  workload:
    fio:
      storageClassName: pgbo-local
      volumeSize: 1Gi
      jobs:
        - {name: wal, rw: write, bs: 8k, iodepth: 1, size: 16m, runtimeSeconds: 3, direct: false, ioengine: psync, fdatasync: 1}
        - {name: randread, rw: randread, bs: 8k, iodepth: 4, size: 16m, runtimeSeconds: 3, direct: false, ioengine: psync}
  cleanupPolicy: Delete
EOF
    wait_phase br disk Succeeded 180
    check_run disk 1
    k delete pv pgbo-local-fio --wait=false >/dev/null
    k delete storageclass pgbo-local >/dev/null
}

run_restart() {
    local old old_holder new new_holder errs
    old="$(op_pod)" old_holder="$(holder)"
    cat <<EOF | k -n "$NS" apply -f - >/dev/null
apiVersion: pgbench.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: restart}
spec:
  $(target)
  workload:
    pgbench:
      run: {clients: 2, threads: 1, durationSeconds: 15, builtin: select-only}
  diagnostics: {replicaLag: false}
  cleanupPolicy: Delete
EOF
    wait_phase br restart Running 120
    local at
    for i in $(seq 1 60); do
        at="$(k -n "$NS" get br restart -o jsonpath='{.status.startAt}')"
        [ -n "$at" ] && break
        sleep 1
    done
    [ -n "$at" ] || fail "run restart: no start barrier after 60 s"
    # mid-load: RESTART_AFTER_S (default 4) s after the barrier, pgbench connected and running;
    # negative: before it, while the workers wait
    local after="${RESTART_AFTER_S:-4}"
    sleep "$(python3 -c 'import sys, datetime, time
t = datetime.datetime.fromisoformat(sys.argv[1].replace("Z", "+00:00")).timestamp()
print(max(0.0, t + float(sys.argv[2]) - time.time()))' "$at" "$after")"
    note "deleting the operator pod $old (holder $old_holder) mid-run, $after s after the barrier $at"
    k -n "$NS_OP" delete pod "$old" --wait=false >/dev/null
    for i in $(seq 1 90); do
        new="$(op_pod || true)"
        [ -n "$new" ] && [ "$new" != "$old" ] && break
        sleep 1
    done
    [ -n "$new" ] && [ "$new" != "$old" ] || fail "no new operator pod after deleting $old"
    wait_lease_held
    new_holder="$(holder)"
    [ "$new_holder" != "$old_holder" ] || fail "the new operator kept the identity $old_holder"
    wait_phase br restart Succeeded 180
    check_run restart 1
    errs="$(metric "$new" pgbench_operator_api_errors_total)"
    note "new operator $new: api_requests_total $(metric "$new" pgbench_operator_api_requests_total), api_errors_total $errs"
    [ "$errs" = 0 ] || { k -n "$NS_OP" logs "$new" | grep -E ' (warn|error) |HTTP [45]' | tail -20 >&2; fail "the restarted operator counted $errs API errors"; }
}

run_sweep() {
    cat <<EOF | k -n "$NS" apply -f - >/dev/null
apiVersion: pgbench.dev/v1alpha1
kind: BenchmarkSweep
metadata: {name: sweep}
spec:
  template:
    $(target)
    workload:
      pgbench:
        init: {scale: 1, skipIfInitialized: true}
        run: {threads: 1, durationSeconds: 3, builtin: select-only}
    diagnostics: {replicaLag: false}
    cleanupPolicy: Delete
  vary: {field: clients, values: [1, 2, 4]}
EOF
    wait_phase bsw sweep Succeeded 300
    k -n "$NS" get bsw sweep -o json >"$WORK/sweep.json"
    python3 - "$WORK/sweep.json" <<'PY'
import json, sys
st = json.load(open(sys.argv[1]))["status"]
steps = st["steps"]
assert [s["value"] for s in steps] == [1, 2, 4] and all(s["phase"] == "Succeeded" for s in steps), steps
an = st["analysis"]
assert an["peakTps"] > 0 and an["peakAt"] in (1, 2, 4) and an.get("verdict"), an
print("sweep: peak %.0f tps at %s clients; verdict: %s" % (an["peakTps"], an["peakAt"], an["verdict"]))
PY
    local i
    for i in 0 1 2; do check_run "sweep-s$i-r0" 1; done
}

# ---- uninstall --------------------------------------------------------------------------------
leftovers() {
    local r
    for r in $(k api-resources --namespaced --verbs=list -o name); do
        case "$r" in events | events.events.k8s.io) continue ;; esac
        k -n "$NS_OP" get "$r" -o name 2>/dev/null
    done | grep -vx -e 'serviceaccount/default' -e 'configmap/kube-root-ca.crt' || true
}
uninstall() {
    local pod i
    pod="$(op_pod)"
    k -n "$NS_OP" logs -f "$pod" >"$WORK/operator-last.log" 2>&1 &
    local logs=$!
    sleep 1
    helm uninstall "$RELEASE" -n "$NS_OP" --wait --timeout 120s
    for i in $(seq 1 60); do
        [ -z "$(leftovers)" ] && break
        sleep 1
    done
    wait "$logs" 2>/dev/null || true
    local left
    left="$(leftovers)"
    [ -z "$left" ] || fail "helm uninstall left in $NS_OP: $(echo $left)"
    # the release: written (the Role still there), or refused with 403 because helm deleted the
    # Role first, said at info level since the pod owns the Lease (docs/install.md, "What the
    # chart creates"); never a warning or an error
    if grep -E '"level":"(warn|error)"' "$WORK/operator-last.log" >&2; then
        fail "the operator warned while it was uninstalled"
    fi
    grep -E "released lease|nothing to release|not released: .*the RBAC went first" "$WORK/operator-last.log" ||
        fail "the operator did not say what became of its Lease: $(tail -5 "$WORK/operator-last.log")"
    left="$(k get clusterrole,clusterrolebinding -l "app.kubernetes.io/instance=$RELEASE" -o name)"
    [ -z "$left" ] || fail "helm uninstall left cluster-scoped objects: $(echo $left)"
}

step "images: podman save" images
if [ "$K8S" = real ]; then
    step "install + start the kit (node)" start_real
    step "PostgreSQL 15 for the pods" postgres_real
    step "import the images" import_real
else
    step "kind cluster" start_kind
    step "PostgreSQL 15 in the cluster" postgres_kind
    step "kind load the images" import_kind
fi
step "namespaces (restricted)" namespaces
step "helm install" helm_install
step "run: pgbench, 2 workers + init" run_pgbench
step "run: fio on a local PV" run_fio
step "run: operator pod deleted mid-run" run_restart
step "sweep: 3 steps" run_sweep
step "helm uninstall, nothing left" uninstall
