#!/usr/bin/env bash
# The install's user-facing roles: with its ClusterRoles aggregated into the built-in edit and
# view (as the simulated cluster aggregates them, like kube-controller-manager), someone bound to
# edit in a namespace can create and delete BenchmarkRuns there, someone bound to view can read
# them and nothing more; before the install, edit does not reach BenchmarkRuns at all. The chart
# leaves the roles out with rbac.aggregateToDefaultRoles=false.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
cd "$ROOT"
env_start_sim

printf 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n' | k apply -f - >/dev/null || fail "namespace"
for sa in dba viewer; do
    k -n team create serviceaccount "$sa" >/dev/null || fail "serviceaccount $sa"
done
k -n team create rolebinding dba-edit --clusterrole=edit --serviceaccount=team:dba >/dev/null
k -n team create rolebinding viewer-view --clusterrole=view --serviceaccount=team:viewer >/dev/null
DBA="$(k -n team create token dba)"
VIEWER="$(k -n team create token viewer)"
as() { local tok="$1"; shift; k -n team --token "$tok" "$@"; }

RUN="$TMP/run.yaml"
sed -n '/^apiVersion: pgbench.dev/,$p' examples/01-tpcb-baseline.yaml >"$RUN"

# the CRD alone: the built-in edit role knows nothing of BenchmarkRuns
k apply -f crds/benchmarkrun.yaml >/dev/null || fail "CRD"
k wait --for condition=established --timeout=10s crd/benchmarkruns.pgbench.dev >/dev/null
as "$DBA" get pods >/dev/null 2>&1 || fail "edit does not even reach pods: the built-in roles are missing"
as "$DBA" apply -f "$RUN" >"$TMP/out" 2>&1 && fail "edit created a BenchmarkRun before the install's roles exist"
grep -q 'benchmarkruns.pgbench.dev "tpcb-baseline" is forbidden: User "system:serviceaccount:team:dba" cannot get resource "benchmarkruns"' "$TMP/out" ||
    { cat "$TMP/out" >&2; fail "refusal before the install: unexpected message"; }

# the install
k apply -f deploy/install.yaml >/dev/null || fail "install.yaml"
for role in pgbench-operator-edit pgbench-operator-view; do
    k get clusterrole "$role" >/dev/null || fail "ClusterRole $role not installed"
done
# aggregation is asynchronous on a real cluster too: wait for edit to carry the rule
env_wait_for "edit to aggregate the BenchmarkRun rules" 10 \
    sh -c 'kubectl --kubeconfig "$KUBECONFIG" get clusterrole edit -o json | grep -q "pgbench.dev"'
as "$DBA" apply -f "$RUN" >"$TMP/out" 2>&1 || { cat "$TMP/out" >&2; fail "edit cannot create a BenchmarkRun"; }
as "$DBA" get benchmarkruns tpcb-baseline >/dev/null || fail "edit cannot get the BenchmarkRun"
as "$VIEWER" get benchmarkruns >"$TMP/out" 2>&1 || { cat "$TMP/out" >&2; fail "view cannot list BenchmarkRuns"; }
grep -q tpcb-baseline "$TMP/out" || fail "view does not see the run"
as "$VIEWER" delete benchmarkrun tpcb-baseline >"$TMP/out" 2>&1 && fail "view deleted a BenchmarkRun"
grep -q 'cannot delete resource "benchmarkruns" in API group "pgbench.dev" in the namespace "team"' "$TMP/out" ||
    { cat "$TMP/out" >&2; fail "view's refusal: unexpected message"; }
as "$DBA" -n default get benchmarkruns >/dev/null 2>&1 && fail "edit in team reaches namespace default"
as "$DBA" delete benchmarkrun tpcb-baseline >/dev/null || fail "edit cannot delete the BenchmarkRun"
# admin is edit's superset through the same aggregation
k get clusterrole admin -o json | grep -q '"deletecollection"' || fail "admin lacks the aggregated rules"

# the chart without them
HELM="$(scripts/render-install.sh --which-helm)" || fail "no helm"
"$HELM" template x charts/pgbench-operator --set rbac.aggregateToDefaultRoles=false >"$TMP/off.yaml"
grep -q 'aggregate-to-edit' "$TMP/off.yaml" && fail "aggregateToDefaultRoles=false still renders the roles"
pass "edit creates and deletes BenchmarkRuns, view reads them, only after the install"
