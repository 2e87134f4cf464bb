#!/usr/bin/env bash
# The chart installs, upgrades (cluster-wide -> namespaced) and uninstalls on the simulated
# cluster with helm v4; the one-file install YAML creates the same objects with kubectl; the CRD
# it installs serves BenchmarkRuns (short names, printer columns, schema validation).
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
cd "$ROOT"
env_start_sim

env_helm
note "$("$HELM" version --short 2>/dev/null || true)"

expected_objects() { # file: "Kind namespace name" lines, sorted (Namespace and CRD left out)
    python3 - "$1" <<'PY'
import sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if not d or d["kind"] in ("Namespace", "CustomResourceDefinition"):
        continue
    print(d["kind"], d["metadata"].get("namespace", "-"), d["metadata"]["name"])
PY
}
object_state() { # present|absent for each line of expected objects
    local kind ns name res
    while read -r kind ns name; do
        case "$kind" in
        ServiceAccount) res=serviceaccounts ;; Service) res=services ;; Deployment) res=deployments.apps ;;
        ClusterRole) res=clusterroles.rbac.authorization.k8s.io ;;
        ClusterRoleBinding) res=clusterrolebindings.rbac.authorization.k8s.io ;;
        Role) res=roles.rbac.authorization.k8s.io ;; RoleBinding) res=rolebindings.rbac.authorization.k8s.io ;;
        ServiceMonitor) res=servicemonitors.monitoring.coreos.com ;;
        *) fail "unexpected kind $kind" ;;
        esac
        if [ "$ns" = "-" ]; then
            k get "$res" "$name" >/dev/null 2>&1 && echo "present $kind $ns $name" || echo "absent $kind $ns $name"
        else
            k -n "$ns" get "$res" "$name" >/dev/null 2>&1 && echo "present $kind $ns $name" || echo "absent $kind $ns $name"
        fi
    done
}

install_chart() {
    helm "$@" >"$TMP/helm.out" 2>"$TMP/helm.err" && return 0
    cat "$TMP/helm.err" >&2
    return 1
}

# 1. install (cluster-wide)
# (kubectl apply sends JSON; `kubectl create namespace` would use the typed, protobuf client)
printf 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: bench-ns\n' | k apply -f - >/dev/null ||
    fail "create namespace bench-ns"
install_chart install pgbench-operator charts/pgbench-operator -n pgbench-system --create-namespace --wait \
    --timeout 60s || fail "helm install"
k -n pgbench-system rollout status deployment/pgbench-operator --timeout=30s >/dev/null ||
    fail "operator Deployment not rolled out"
helm status pgbench-operator -n pgbench-system >"$TMP/status.txt" || fail "helm status"
grep -q "STATUS: deployed" "$TMP/status.txt" || fail "release not deployed: $(cat "$TMP/status.txt")"
grep -q "kubectl get br" "$TMP/status.txt" || fail "NOTES.txt not shown"

"$HELM" template pgbench-operator charts/pgbench-operator -n pgbench-system >"$TMP/rendered.yaml"
expected_objects "$TMP/rendered.yaml" >"$TMP/expected.txt"
object_state <"$TMP/expected.txt" >"$TMP/state.txt"
if grep -q '^absent' "$TMP/state.txt"; then cat "$TMP/state.txt" >&2; fail "helm install left objects out"; fi
note "installed: $(wc -l <"$TMP/expected.txt") objects + CRD"

# 2. the CRD serves BenchmarkRuns
k wait --for=condition=Established crd/benchmarkruns.pgbench.dev --timeout=20s >/dev/null ||
    fail "CRD not established"
k api-resources --api-group=pgbench.dev -o wide >"$TMP/api.txt"
grep -qE "benchmarkruns +br,bench +pgbench.dev/v1alpha1 +true +BenchmarkRun" "$TMP/api.txt" ||
    fail "api-resources: $(cat "$TMP/api.txt")"
PGHOST=127.0.0.1 PGPORT=5432 scripts/shrink-example.py examples/01-tpcb-baseline.yaml >"$TMP/br.yaml"
k -n bench-ns apply -f "$TMP/br.yaml" >/dev/null || fail "apply example"
k -n bench-ns get bench tpcb-baseline >"$TMP/get.txt" || fail "get by short name"
head -1 "$TMP/get.txt" | grep -qE "^NAME +PHASE +TARGET +RESULT +AGE$" ||
    fail "printer columns: $(head -1 "$TMP/get.txt")"
# a field left out gets the CRD's default from the server (sslMode: the example sets it)
[ "$(sed '/sslMode:/d; s/name: tpcb-baseline/name: defaulted/' "$TMP/br.yaml" | k -n bench-ns create --dry-run=server -o jsonpath='{.spec.target.sslMode}' -f -)" = prefer ] ||
    fail "CRD defaults not applied"
# schema validation by the API: a misspelled field is refused with --validate=strict
sed 's/durationSeconds:/durationSecs:/' "$TMP/br.yaml" | sed 's/name: tpcb-baseline/name: typo/' >"$TMP/typo.yaml"
if k -n bench-ns apply --validate=strict -f "$TMP/typo.yaml" >"$TMP/typo.txt" 2>&1; then
    fail "a misspelled field was accepted"
fi
grep -qi "durationSecs" "$TMP/typo.txt" || fail "typo refusal does not name the field: $(cat "$TMP/typo.txt")"

# 3. upgrade to namespaced mode: ClusterRole goes, a Role in bench-ns comes
install_chart upgrade pgbench-operator charts/pgbench-operator -n pgbench-system \
    --set 'watchNamespaces[0]=bench-ns' --wait --timeout 60s || fail "helm upgrade"
k get clusterrole pgbench-operator >/dev/null 2>&1 && fail "ClusterRole left after switching to namespaced"
k -n bench-ns get role pgbench-operator >/dev/null || fail "no Role in the watched namespace"
args="$(k -n pgbench-system get deploy pgbench-operator -o jsonpath='{.spec.template.spec.containers[0].args}')"
grep -q -- '--namespace=bench-ns' <<<"$args" || fail "deployment args lack --namespace: $args"

# 4. uninstall: every chart object goes; the CRD and the BenchmarkRuns stay (Helm never deletes crds/)
helm uninstall pgbench-operator -n pgbench-system --wait --timeout 60s >/dev/null || fail "helm uninstall"
helm list -A -q | grep -qx pgbench-operator && fail "release still listed after uninstall"
"$HELM" template pgbench-operator charts/pgbench-operator -n pgbench-system --set 'watchNamespaces[0]=bench-ns' \
    >"$TMP/rendered-ns.yaml"
expected_objects "$TMP/rendered-ns.yaml" | object_state >"$TMP/after.txt"
if grep -q '^present' "$TMP/after.txt"; then cat "$TMP/after.txt" >&2; fail "helm uninstall left objects"; fi
k get crd benchmarkruns.pgbench.dev >/dev/null || fail "CRD removed by uninstall"
k -n bench-ns get br tpcb-baseline >/dev/null || fail "BenchmarkRun removed by uninstall"

# 5. the one-file install YAML creates exactly the chart's objects (+ namespace, CRD)
k apply --server-side -f deploy/install.yaml >/dev/null || fail "kubectl apply install.yaml"
expected_objects deploy/install.yaml >"$TMP/expected-yaml.txt"
cmp -s "$TMP/expected.txt" "$TMP/expected-yaml.txt" || fail "install.yaml and chart differ: $(diff "$TMP/expected.txt" "$TMP/expected-yaml.txt")"
object_state <"$TMP/expected-yaml.txt" >"$TMP/state2.txt"
if grep -q '^absent' "$TMP/state2.txt"; then cat "$TMP/state2.txt" >&2; fail "install.yaml left objects out"; fi
k -n bench-ns delete br tpcb-baseline --wait=false >/dev/null
k delete -f deploy/install.yaml --ignore-not-found --wait=false >/dev/null || fail "kubectl delete install.yaml"
k get ns pgbench-system >/dev/null 2>&1 && [ "$(k get ns pgbench-system -o jsonpath='{.status.phase}')" != Terminating ] &&
    fail "namespace pgbench-system still active after kubectl delete -f deploy/install.yaml"
pass "helm install/upgrade/uninstall (driver $HELM_DRIVER) and install.yaml on the simulated cluster"
