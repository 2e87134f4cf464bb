#!/usr/bin/env bash
# Real helm v4 against the simulated cluster: install (server-side apply, release stored in a
# protobuf-encoded Secret), --wait (watch-list + kstatus), upgrade, history, uninstall; first
# with a tiny chart (test/sim/testdata/chart), then with the project's chart when present.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_tools
env_start_sim
command -v helm >/dev/null || fail "no helm (scripts/fetch-tools.sh)"
export KUBECACHEDIR="$TMP/kube-cache" HELM_CACHE_HOME="$TMP/helm-cache" HELM_CONFIG_HOME="$TMP/helm-config" HELM_DATA_HOME="$TMP/helm-data"
note "$(helm version --short)"

# 1. tiny chart: install, upgrade, uninstall
chart="$ROOT/test/sim/testdata/chart"
kubectl create namespace smoke >/dev/null
helm install smoke "$chart" -n smoke --wait --timeout 60s >"$TMP/out" 2>&1 || { cat "$TMP/out" >&2; fail "helm install"; }
grep -q 'STATUS: deployed' "$TMP/out" || { cat "$TMP/out" >&2; fail "install not deployed"; }
[ "$(kubectl -n smoke get cm smoke-config -o jsonpath='{.data.greeting}')" = "hello" ] || fail "configmap not created"
[ "$(kubectl -n smoke get secret smoke-secret -o jsonpath='{.data.password}' | base64 -d)" = "not-a-real-secret" ] ||
    fail "stringData not stored as data"
kubectl -n smoke get secret -l owner=helm,name=smoke -o name >"$TMP/rel"
grep -q 'secret/sh.helm.release.v1.smoke.v1' "$TMP/rel" || fail "release secret missing"
kubectl -n smoke get svc smoke-svc -o jsonpath='{.spec.clusterIP}' | grep -Eq '^10\.96\.' || fail "service has no clusterIP"

helm upgrade smoke "$chart" -n smoke --set greeting=bye --wait --timeout 60s >"$TMP/out" 2>&1 || { cat "$TMP/out" >&2; fail "helm upgrade"; }
[ "$(kubectl -n smoke get cm smoke-config -o jsonpath='{.data.greeting}')" = "bye" ] || fail "upgrade did not change the configmap"
helm history smoke -n smoke >"$TMP/hist" || fail "helm history"
grep -q 'superseded' "$TMP/hist" || { cat "$TMP/hist" >&2; fail "history lacks the superseded revision"; }
helm list -n smoke >"$TMP/list"
grep -Eq '^smoke\s+smoke\s+2\s' "$TMP/list" || { cat "$TMP/list" >&2; fail "helm list"; }

helm uninstall smoke -n smoke --wait --timeout 60s >"$TMP/out" 2>&1 || { cat "$TMP/out" >&2; fail "helm uninstall"; }
kubectl -n smoke get cm smoke-config >/dev/null 2>&1 && fail "configmap left after uninstall"
[ -z "$(kubectl -n smoke get secret -l owner=helm -o name)" ] || fail "release secrets left after uninstall"

# 2. the project's chart (CRD from crds/, RBAC, Deployment with --wait)
pchart="$ROOT/charts/pgbench-operator"
if [ -f "$pchart/Chart.yaml" ]; then
    kubectl create namespace op >/dev/null
    helm install op "$pchart" -n op --wait --timeout 60s >"$TMP/out" 2>&1 || { cat "$TMP/out" >&2; fail "project chart install"; }
    kubectl get crd benchmarkruns.pgbench.dev >/dev/null || fail "chart CRD not installed"
    [ -n "$(kubectl -n op get deploy -o name)" ] || fail "chart deployment missing"
    helm upgrade op "$pchart" -n op --wait --timeout 60s >"$TMP/out" 2>&1 || { cat "$TMP/out" >&2; fail "project chart upgrade"; }
    helm uninstall op -n op --wait --timeout 60s >"$TMP/out" 2>&1 || { cat "$TMP/out" >&2; fail "project chart uninstall"; }
    [ -z "$(kubectl -n op get deploy -o name)" ] || fail "deployment left after uninstall"
    kubectl get crd benchmarkruns.pgbench.dev >/dev/null || fail "helm removed the CRD (it must keep crds/)"
fi

pass "helm install/upgrade/uninstall"
