#!/usr/bin/env bash
# Install artefacts: the CRD (structural schema, CEL rules on valid and invalid objects), the
# Helm chart (lint, values schema, RBAC, security context, namespace modes) and the one-file
# install YAML (re-rendered and diffed, so chart and YAML cannot drift). No cluster needed.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
cd "$ROOT"

HELM="$(scripts/render-install.sh --which-helm)" || fail "no helm"
[ -x "$HELM" ] || fail "no helm binary"
export HELM
note "helm: $("$HELM" version --short 2>/dev/null || "$HELM" version)"
CHART=charts/pgbench-operator

# 1. generated files are up to date and the chart's CRD is the repository's CRD
scripts/render-install.sh --check || fail "deploy/install.yaml or the chart's CRD copy is stale"
cmp -s crds/benchmarkrun.yaml "$CHART/crds/benchmarkrun.yaml" || fail "chart CRD differs from crds/"
cmp -s crds/benchmarksweep.yaml "$CHART/crds/benchmarksweep.yaml" || fail "chart sweep CRD differs from crds/"

# 2. the CRD: structural schema, printer columns, examples valid, invalid fixtures refused
python3 scripts/validate-crd.py examples/*.yaml || fail "CRD or examples invalid"
scripts/fetch-cel.sh || fail "cannot install the CEL evaluator"
# the CEL check knows the BenchmarkRun CRD; the sweep example is checked by the sim in e2e 59
run_examples=$(grep -L '^kind: BenchmarkSweep' examples/*.yaml)
# shellcheck disable=SC2086
scripts/validate-cel.mjs $run_examples >"$TMP/cel-ok.txt" || { cat "$TMP/cel-ok.txt"; fail "an example breaks a CEL rule"; }
n_ok=$(grep -c '^ok ' "$TMP/cel-ok.txt")
n_ex=$(cat examples/*.yaml | grep -c '^kind: BenchmarkRun')
[ "$n_ok" -eq "$n_ex" ] || fail "expected $n_ex valid BenchmarkRuns in examples/, got $n_ok"
n_inv=0
for f in crds/testdata/invalid/*.yaml; do
    want="$(sed -n 's/^# expect: //p' "$f")"
    [ -n "$want" ] || fail "$f has no '# expect:' line"
    out="$(scripts/validate-cel.mjs --expect-fail "$f")" || fail "$f was accepted: $out"
    grep -qF -- "$want" <<<"$out" || fail "$f refused, but not with '$want': $out"
    n_inv=$((n_inv + 1))
done
note "CRD: $n_ex example objects valid, $n_inv invalid fixtures refused with the expected message"

# 3. helm lint, default values and every switch
"$HELM" lint --strict "$CHART" >"$TMP/lint.txt" 2>&1 || { cat "$TMP/lint.txt"; fail "helm lint"; }
"$HELM" lint --strict "$CHART" --set 'watchNamespaces[0]=db' --set metrics.serviceMonitor.enabled=true \
    --set leaderElection.enabled=false >"$TMP/lint2.txt" 2>&1 || { cat "$TMP/lint2.txt"; fail "helm lint (options)"; }

# values.schema.json refuses bad values
for bad in logLevel=verbose workers=0 'image.pullPolicy=Sometimes' 'watchNamespaces[0]=Bad_NS' \
    'metrics.port=70000' 'nosuchvalue=1'; do
    if "$HELM" template t "$CHART" --set "$bad" >/dev/null 2>&1; then
        fail "values schema accepted $bad"
    fi
done

render() { "$HELM" template pgbench-operator "$CHART" --namespace pgbench-system "$@"; }

# 4. what the rendered objects say (python3 + PyYAML)
check_objects() { # mode file
    python3 - "$@" <<'PY'
import os, sys, yaml
mode, path = sys.argv[1], sys.argv[2]
docs = [d for d in yaml.safe_load_all(open(path)) if d]
by = {}
for d in docs:
    by.setdefault(d["kind"], []).append(d)
def die(msg):
    print("check: " + msg); sys.exit(1)
dep = by["Deployment"][0]
pod = dep["spec"]["template"]["spec"]
c = pod["containers"][0]
psc, csc = pod["securityContext"], c["securityContext"]
if not (psc.get("runAsNonRoot") and psc.get("runAsUser", 0) > 0 and psc["seccompProfile"]["type"] == "RuntimeDefault"):
    die("pod securityContext is not restricted")
if csc.get("allowPrivilegeEscalation") is not False or csc["capabilities"]["drop"] != ["ALL"] \
        or not csc.get("readOnlyRootFilesystem"):
    die("container securityContext is not restricted")
if c["livenessProbe"]["httpGet"]["path"] != "/healthz" or c["readinessProbe"]["httpGet"]["path"] != "/readyz":
    die("probes must hit /healthz and /readyz")
if not c.get("resources", {}).get("requests") or not c["resources"].get("limits"):
    die("operator container needs requests and limits")
args = c["args"]
version = open(os.path.join(os.environ["ROOT"], "VERSION")).read().strip()
for want in ["--metrics-addr=:8080", f"--runner-image=ghcr.io/pgbench-operator/runner:{version}"]:
    if want not in args:
        die(f"missing arg {want}: {args}")
# the ClusterRoles aggregated into the built-in admin/edit/view are for people, not the operator
def for_people(r):
    return any(k.startswith("rbac.authorization.k8s.io/aggregate-to-") for k in r["metadata"].get("labels", {}))
people = [r for r in by.get("ClusterRole", []) if for_people(r)]
by["ClusterRole"] = [r for r in by.get("ClusterRole", []) if not for_people(r)]
if sorted(r["metadata"]["name"] for r in people) != ["pgbench-operator-edit", "pgbench-operator-view"]:
    die(f"user-facing roles: {[r['metadata']['name'] for r in people]}")
for r in people:
    for rule in r["rules"]:
        if rule["apiGroups"] != ["pgbench.dev"] or not set(rule["resources"]) <= {"benchmarkruns", "benchmarkruns/status",
                                                                     "benchmarksweeps", "benchmarksweeps/status"}:
            die(f"user-facing role {r['metadata']['name']} reaches beyond BenchmarkRuns and BenchmarkSweeps: {rule}")
        if r["metadata"]["name"].endswith("-view") and not set(rule["verbs"]) <= {"get", "list", "watch"}:
            die(f"the view role writes: {rule}")
rules = []
for k in ("ClusterRole", "Role"):
    for r in by.get(k, []):
        if r["metadata"]["name"].endswith("-leader-election"):
            continue
        rules += r["rules"]
for r in rules:
    if "*" in r["verbs"] or "*" in r["resources"] or "*" in r["apiGroups"]:
        die(f"wildcard in RBAC rule {r}")
    if "secrets" in r["resources"]:
        die(f"operator must not read {r['resources']}")
    # ConfigMaps: only its result ConfigMaps, written by name (no list or watch of anyone's)
    if "configmaps" in r["resources"] and set(r["verbs"]) - {"get", "create", "update"}:
        die(f"operator may only get, create and update configmaps: {r}")
    # Pods: read, and patched with the start barrier annotation only (no create, update, delete)
    if "pods" in r["resources"] and set(r["verbs"]) - {"get", "list", "watch", "patch"}:
        die(f"operator may only read and patch pods: {r}")
    if set(r["verbs"]) & {"escalate", "bind", "impersonate", "deletecollection"}:
        die(f"dangerous verb in {r}")
def allowed(group, res, verb):
    return any(group in r["apiGroups"] and res in r["resources"] and verb in r["verbs"] for r in rules)
for g, res, verbs in [("pgbench.dev", "benchmarkruns", "get list watch create"), ("pgbench.dev", "benchmarkruns/status", "update patch"),
                      ("pgbench.dev", "benchmarksweeps", "get list watch"), ("pgbench.dev", "benchmarksweeps/status", "update patch"),
                      ("batch", "jobs", "create get list watch delete"), ("", "pods", "get list watch patch"), ("", "pods/log", "get"),
                      ("", "persistentvolumeclaims", "create get delete"), ("autoscaling", "horizontalpodautoscalers", "create get delete"),
                      ("apps", "statefulsets", "get"), ("", "events", "create list watch"),
                      ("", "configmaps", "create get update"), ("", "nodes", "list")]:
    for v in verbs.split():
        if not allowed(g, res, v):
            die(f"operator lacks {v} on {g or 'core'}/{res}")
if allowed("pgbench.dev", "benchmarkruns", "update") or allowed("pgbench.dev", "benchmarkruns", "delete"):
    die("operator must not write BenchmarkRun specs")
if mode == "cluster":
    if not by.get("ClusterRoleBinding") or any("--namespace" in a for a in args):
        die("cluster-wide mode needs a ClusterRoleBinding and no --namespace")
elif mode == "namespaced":
    roles = [r for r in by.get("Role", []) if r["metadata"]["namespace"] == "db"]
    # the one ClusterRole: list nodes (cluster-scoped; condition WorkersShareNode)
    cluster = [r for r in by.get("ClusterRole", []) if r["rules"] != [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["list"]}]]
    if not roles or cluster or "--namespace=db" not in args:
        die("namespaced mode: Role in db, no ClusterRole but list on nodes, --namespace=db")
lease = [r for r in by.get("Role", []) if r["metadata"]["name"].endswith("-leader-election")]
if "--leader-elect" in args:
    if not lease or lease[0]["metadata"]["namespace"] != "pgbench-system":
        die("leader election needs a Role for leases in the release namespace")
    lr = lease[0]["rules"]
    if not any("leases" in r["resources"] and "update" in r["verbs"] for r in lr):
        die("lease update missing")
svc = by.get("Service", [])
if not svc or svc[0]["spec"]["ports"][0]["port"] != 8080:
    die("metrics Service on 8080 missing")
sm = by.get("ServiceMonitor", [])
if (mode == "monitor") != bool(sm):
    die("ServiceMonitor must exist only when enabled")
print(f"check {mode}: ok ({', '.join(sorted(by))})")
PY
}
render >"$TMP/default.yaml" || fail "helm template (default)"
check_objects cluster "$TMP/default.yaml" || fail "default render"
render --set 'watchNamespaces[0]=db' >"$TMP/ns.yaml" || fail "helm template (namespaced)"
check_objects namespaced "$TMP/ns.yaml" || fail "namespaced render"
render --set metrics.serviceMonitor.enabled=true >"$TMP/sm.yaml" || fail "helm template (monitor)"
check_objects monitor "$TMP/sm.yaml" || fail "serviceMonitor render"

# 5. install.yaml = namespace + the chart's objects (same objects, same order)
python3 - "$TMP/default.yaml" deploy/install.yaml <<'PY' || fail "install.yaml does not hold the chart's objects"
import sys, yaml
chart = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
inst = [d for d in yaml.safe_load_all(open(sys.argv[2])) if d]
ns = [d for d in inst if d["kind"] == "Namespace"]
rest = [d for d in inst if d["kind"] not in ("Namespace", "CustomResourceDefinition")]
assert len(ns) == 1 and ns[0]["metadata"]["name"] == "pgbench-system", "namespace"
assert rest == chart, "objects differ"
crd = [d for d in inst if d["kind"] == "CustomResourceDefinition"]
want = [yaml.safe_load(open(f"crds/{n}.yaml")) for n in ("benchmarkrun", "benchmarksweep")]
assert sorted(crd, key=lambda d: d["metadata"]["name"]) == want, "CRDs"
print(f"install.yaml: namespace + CRDs + {len(rest)} chart objects")
PY
pass "CRD, chart and install YAML consistent; $n_inv invalid specs refused"
