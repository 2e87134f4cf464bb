#!/usr/bin/env bash
# Real kubectl (1.32 on PATH, plus 1.27 and 1.33 when installed) against the simulated cluster:
# CRD registration, custom objects with server-side printer columns, schema violations (422,
# one cause per field), strict unknown-field decoding (400), a malformed Job refused with the
# field named, patch (merge, JSON, strategic, status subresource), scale, wait, delete; a CRD
# whose CEL rule is over the 1.25 cost budget refused as kube-apiserver 1.25.0 refuses it.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_sim
export KUBECACHEDIR="$TMP/kube-cache"
TD="$ROOT/test/sim/testdata"

kubectls=(kubectl)
for v in 1.27 1.33; do
    k="/usr/lib/google-cloud-sdk/bin/kubectl.$v"
    [ -x "$k" ] && kubectls+=("$k")
done

# expect_fail "what" pattern kubectl-args...: the command must fail and print pattern.
expect_fail() {
    local what="$1" pattern="$2"
    shift 2
    if "$K" "$@" >"$TMP/out" 2>&1; then
        cat "$TMP/out" >&2
        fail "$what: accepted"
    fi
    grep -qF -- "$pattern" "$TMP/out" || { cat "$TMP/out" >&2; fail "$what: output lacks '$pattern'"; }
}

check_with() {
    K="$1"
    local ver ns
    ver="$("$K" version --client -o json | python3 -c 'import json,sys; v=json.load(sys.stdin)["clientVersion"]; print(v["major"]+"."+v["minor"])')"
    ns="k$(echo "$ver" | tr -cd "0-9")"
    note "kubectl $ver (namespace $ns)"
    "$K" create namespace "$ns" >/dev/null
    "$K" apply -f "$TD/widget-crd.yaml" >/dev/null || fail "$ver: CRD apply"
    "$K" wait --for condition=established --timeout=10s crd/widgets.sim.pgbench.dev >/dev/null ||
        fail "$ver: CRD not established"

    # custom objects and server-side printer columns
    "$K" -n "$ns" apply -f "$TD/widget-good.yaml" >"$TMP/out" || fail "$ver: widget apply"
    grep -q 'widget.sim.pgbench.dev/w1 created' "$TMP/out" || fail "$ver: w1 not created"
    "$K" -n "$ns" get widgets >"$TMP/get"
    head -1 "$TMP/get" | grep -Eq '^NAME +SIZE +MODE +PHASE +READY +AGE$' ||
        { cat "$TMP/get" >&2; fail "$ver: printer columns missing"; }
    grep -Eq '^w1 +3 +slow ' "$TMP/get" || { cat "$TMP/get" >&2; fail "$ver: w1 row"; }
    grep -Eq '^w2 +7 +fast ' "$TMP/get" || { cat "$TMP/get" >&2; fail "$ver: w2 row (default mode)"; }
    "$K" -n "$ns" apply -f "$TD/widget-good.yaml" >"$TMP/out"
    grep -q 'w1 unchanged' "$TMP/out" || fail "$ver: re-apply changed w1"

    # schema violations: 422 with one cause per field
    expect_fail "$ver: bad widget" 'spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1' \
        -n "$ns" apply -f "$TD/widget-bad.yaml"
    grep -qF 'spec.mode: Unsupported value: "medium": supported values: "fast", "slow"' "$TMP/out" || fail "$ver: enum cause"
    grep -qF 'spec.tags: Too many: 4: must have at most 3 items' "$TMP/out" || fail "$ver: maxItems cause"
    # strict decoding (kubectl's default --validate=strict)
    printf 'apiVersion: sim.pgbench.dev/v1\nkind: Widget\nmetadata: {name: w9}\nspec: {size: 2, sizee: 3}\n' >"$TMP/unknown.yaml"
    expect_fail "$ver: unknown field" 'strict decoding error: unknown field "spec.sizee"' -n "$ns" apply -f "$TMP/unknown.yaml"
    "$K" -n "$ns" apply --validate=false -f "$TMP/unknown.yaml" >/dev/null || fail "$ver: --validate=false refused"
    [ -z "$("$K" -n "$ns" get widget w9 -o jsonpath='{.spec.sizee}')" ] || fail "$ver: unknown field not pruned"

    # a malformed Job: refused as the real apiserver refuses it, naming the field
    expect_fail "$ver: Job restartPolicy" 'spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"' \
        -n "$ns" apply -f "$TD/job-bad.yaml"
    expect_fail "$ver: Job type" 'Job in version "v1" cannot be handled as a Job: json: cannot unmarshal string into Go struct field JobSpec.spec.parallelism of type int32' \
        -n "$ns" apply -f "$TD/job-badtype.yaml"
    sed 's/image: busybox/image: busybox\n          imagePulPolicy: Always/' "$TD/job-badtype.yaml" |
        sed 's/parallelism: "two"/parallelism: 1/' >"$TMP/job-unknown.yaml"
    expect_fail "$ver: Job unknown field" 'strict decoding error: unknown field "spec.template.spec.containers[0].imagePulPolicy"' \
        -n "$ns" apply -f "$TMP/job-unknown.yaml"
    [ -z "$("$K" -n "$ns" get jobs -o name)" ] || fail "$ver: a refused Job was stored"

    # patches, generation, status subresource
    "$K" -n "$ns" patch widget w1 --type=merge -p '{"spec":{"size":5}}' >/dev/null || fail "$ver: merge patch"
    [ "$("$K" -n "$ns" get widget w1 -o jsonpath='{.spec.size}/{.metadata.generation}')" = "5/2" ] || fail "$ver: generation after spec patch"
    "$K" -n "$ns" patch widget w1 --type=json -p '[{"op":"replace","path":"/spec/size","value":6}]' >/dev/null || fail "$ver: json patch"
    expect_fail "$ver: patch violating the schema" 'spec.size: Invalid value: 1000' \
        -n "$ns" patch widget w1 --type=merge -p '{"spec":{"size":1000}}'
    "$K" -n "$ns" patch widget w1 --subresource=status --type=merge \
        -p '{"spec":{"size":9},"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}' >/dev/null ||
        fail "$ver: status patch"
    [ "$("$K" -n "$ns" get widget w1 -o jsonpath='{.spec.size}/{.metadata.generation}/{.status.phase}')" = "6/3/Running" ] ||
        fail "$ver: status subresource changed spec or generation"
    "$K" -n "$ns" patch widget w1 --type=merge -p '{"status":{"phase":"Hacked"}}' >/dev/null
    [ "$("$K" -n "$ns" get widget w1 -o jsonpath='{.status.phase}')" = "Running" ] || fail "$ver: main resource changed status"
    "$K" -n "$ns" wait --for=condition=Ready --timeout=10s widget/w1 >/dev/null || fail "$ver: wait condition"
    "$K" -n "$ns" get widgets >"$TMP/get"
    grep -Eq '^w1 +6 +slow +Running +True ' "$TMP/get" || fail "$ver: printer columns after status"
    "$K" -n "$ns" scale widget w1 --replicas=4 >/dev/null || fail "$ver: scale"
    [ "$("$K" -n "$ns" get widget w1 -o jsonpath='{.spec.replicas}')" = "4" ] || fail "$ver: scale not applied"

    # kubectl create <kind> sends protobuf bodies
    "$K" -n "$ns" create job j1 --image=busybox -- true >/dev/null || fail "$ver: create job"
    [ "$("$K" -n "$ns" get job j1 -o jsonpath='{.spec.backoffLimit}/{.spec.template.spec.containers[0].command[0]}')" = "6/true" ] ||
        fail "$ver: created job not defaulted/decoded"
    "$K" -n "$ns" create deployment d1 --image=busybox --replicas=2 >/dev/null || fail "$ver: create deployment"
    [ "$("$K" -n "$ns" get deploy d1 -o jsonpath='{.spec.replicas}')" = "2" ] || fail "$ver: deployment replicas"
    "$K" -n "$ns" create role r1 --verb=get --resource=pods >/dev/null || fail "$ver: create role"
    "$K" -n "$ns" create service clusterip s1 --tcp=80:8080 >/dev/null || fail "$ver: create service"
    "$K" -n "$ns" delete job j1 >/dev/null || fail "$ver: delete job"

    # built-in kinds: apply twice (strategic merge patch), describe, delete, wait
    "$K" -n "$ns" create configmap cm1 --from-literal=a=1 >/dev/null
    "$K" -n "$ns" patch configmap cm1 -p '{"data":{"b":"2"}}' >/dev/null || fail "$ver: strategic patch"
    [ "$("$K" -n "$ns" get cm cm1 -o jsonpath='{.data.a}{.data.b}')" = "12" ] || fail "$ver: strategic patch result"
    "$K" -n "$ns" describe widget w1 >"$TMP/out"
    grep -q 'Phase: *Running' "$TMP/out" || fail "$ver: describe"
    "$K" -n "$ns" delete widget w2 --wait=true >/dev/null || fail "$ver: delete"
    "$K" -n "$ns" get widget w2 >/dev/null 2>&1 && fail "$ver: w2 still there"
    "$K" -n "$ns" delete widget w1 --wait=false >/dev/null
    "$K" -n "$ns" wait --for=delete --timeout=10s widget/w1 >/dev/null 2>&1 || true
    "$K" -n "$ns" get widget w1 >/dev/null 2>&1 && fail "$ver: w1 still there"
    "$K" delete namespace "$ns" --wait=true --timeout=20s >/dev/null || fail "$ver: namespace delete"
    "$K" get namespace "$ns" >/dev/null 2>&1 && fail "$ver: namespace still there"
    return 0
}

for K in "${kubectls[@]}"; do check_with "$K"; done
K=kubectl

# Service-account tokens: authenticated, then authorized by RBAC.
kubectl create serviceaccount robot >/dev/null
tok="$(kubectl create token robot)"
expect_fail "RBAC: no grant" 'configmaps is forbidden: User "system:serviceaccount:default:robot" cannot list resource "configmaps" in API group "" in the namespace "default"' \
    --token "$tok" get configmaps
kubectl create role cm-reader --verb=get,list --resource=configmaps >/dev/null
kubectl create rolebinding robot-cm --role=cm-reader --serviceaccount=default:robot >/dev/null
kubectl --token "$tok" get configmaps >/dev/null 2>&1 || fail "RBAC: granted list refused"
expect_fail "RBAC: create not granted" 'cannot create resource "configmaps"' --token "$tok" create configmap nope
expect_fail "bad token" 'Unauthorized' --token not-a-token get configmaps

# Pod logs bounded by time, as the kubelet answers them: --timestamps prefixes each line with its
# RFC3339Nano time, --since (sinceSeconds) and --since-time keep the later lines only, and an
# out-of-range sinceSeconds is kube-apiserver's 422.
kubectl create namespace logs >/dev/null
t0=$(date +%s)
kubectl -n logs run lg --image=busybox --restart=Never --command -- /bin/sh -c 'echo early; sleep 3; echo late; sleep 60' >/dev/null
for _ in $(seq 100); do [ "$(kubectl -n logs logs lg 2>/dev/null)" = early ] && break; sleep 0.1; done
seen=$(date +%s) # "early" was written before this second ended
for _ in $(seq 100); do kubectl -n logs logs lg 2>/dev/null | grep -qx late && break; sleep 0.1; done
[ "$(kubectl -n logs logs lg --since=2s)" = late ] || { kubectl -n logs logs lg --timestamps >&2; fail "logs --since=2s"; }
[ "$(kubectl -n logs logs lg --since=1h)" = "$(printf 'early\nlate')" ] || fail "logs --since=1h"
since_time=$(date -u -d "@$((seen + 1))" +%Y-%m-%dT%H:%M:%SZ)
[ "$(kubectl -n logs logs lg --since-time="$since_time")" = late ] || fail "logs --since-time=$since_time"
kubectl -n logs logs lg --timestamps >"$TMP/ts"
grep -Eqx '[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{0,8}[1-9])?Z early' <(sed -n 1p "$TMP/ts") &&
    grep -Eqx '[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{0,8}[1-9])?Z late' <(sed -n 2p "$TMP/ts") &&
    [ "$(wc -l <"$TMP/ts")" = 2 ] || { cat "$TMP/ts" >&2; fail "logs --timestamps"; }
early_s=$(date -d "$(sed -n '1s/ .*//p' "$TMP/ts")" +%s)
{ [ "$early_s" -ge "$t0" ] && [ "$early_s" -le "$seen" ]; } || { cat "$TMP/ts" >&2; fail "logs --timestamps: early at $early_s, not in [$t0, $seen]"; }
[ "$(kubectl -n logs logs lg --timestamps --tail=1 | sed 's/^[^ ]* //')" = late ] || fail "logs --timestamps --tail=1"
expect_fail "logs sinceSeconds=0" 'PodLogOptions "lg" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0' \
    get --raw '/api/v1/namespaces/logs/pods/lg/log?sinceSeconds=0'
expect_fail "logs sinceSeconds and sinceTime" 'at most one of `sinceTime` or `sinceSeconds` may be specified' \
    get --raw "/api/v1/namespaces/logs/pods/lg/log?sinceSeconds=5&sinceTime=$since_time"
kubectl delete namespace logs --wait=false >/dev/null

# The project's BenchmarkRun CRD: printer columns and schema checks.
if [ -f "$ROOT/crds/benchmarkrun.yaml" ]; then
    # kube-apiserver 1.25.0 refuses the CRD when an exactly-one-of rule is written
    # `has(a) != has(b)` (estimated CEL cost over budget); so must the simulated cluster
    python3 - "$ROOT/crds/benchmarkrun.yaml" >"$TMP/crd-ne.yaml" <<'PY'
import sys, yaml
crd = yaml.safe_load(open(sys.argv[1]))
target = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["target"]
target["x-kubernetes-validations"][0]["rule"] = "has(self.host) != has(self.cnpg)"
yaml.safe_dump(crd, sys.stdout)
PY
    expect_fail "CRD with has(a) != has(b)" 'spec.validation.openAPIV3Schema.properties[spec].properties[target].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)' \
        apply -f "$TMP/crd-ne.yaml"
    kubectl get crd benchmarkruns.pgbench.dev >/dev/null 2>&1 && fail "a CRD over the CEL cost budget was stored"
    kubectl apply -f "$ROOT/crds/benchmarkrun.yaml" >/dev/null || fail "BenchmarkRun CRD apply"
    kubectl wait --for condition=established --timeout=10s crd/benchmarkruns.pgbench.dev >/dev/null
    if [ -f "$ROOT/crds/benchmarksweep.yaml" ]; then # the examples include a sweep
        kubectl apply -f "$ROOT/crds/benchmarksweep.yaml" >/dev/null || fail "BenchmarkSweep CRD apply"
        kubectl wait --for condition=established --timeout=10s crd/benchmarksweeps.pgbench.dev >/dev/null
    fi
    # kubectl explain reads the published schema: hand-written spec and generated status alike
    for f in spec.target.cnpg.service status.diagnostics.waitEvents status.resultRef.name; do
        kubectl explain "benchmarkrun.$f" >"$TMP/explain" 2>&1 || { cat "$TMP/explain" >&2; fail "kubectl explain $f"; }
        sed -n '/^DESCRIPTION:/,/^FIELDS:/p' "$TMP/explain" | sed '1d;/^FIELDS:/d' | grep -v '<empty>' | grep -q '[A-Za-z]' ||
            { cat "$TMP/explain" >&2; fail "kubectl explain $f: no description"; }
    done
    ex="$ROOT/examples/01-tpcb-baseline.yaml"
    if [ -f "$ex" ]; then
        kubectl apply -f "$ex" >/dev/null || fail "example BenchmarkRun refused"
        kubectl get benchmarkruns >"$TMP/get"
        head -1 "$TMP/get" | grep -Eq '^NAME +PHASE +TARGET +RESULT +AGE$' || { cat "$TMP/get" >&2; fail "BenchmarkRun printer columns"; }
        kubectl get benchmarkruns -o wide >"$TMP/get"
        head -1 "$TMP/get" | grep -Eq '^NAME +PHASE +TARGET +RESULT +AGE +WORKERS +CLIENTS +FAILED +VERDICT +MESSAGE$' ||
            { cat "$TMP/get" >&2; fail "BenchmarkRun printer columns (-o wide)"; }
    fi
    inv="$ROOT/crds/testdata/invalid"
    [ -f "$inv/out-of-range.yaml" ] && expect_fail "BenchmarkRun out of range" 'Invalid value: 70000' apply -f "$inv/out-of-range.yaml"
    [ -f "$inv/bad-enum.yaml" ] && expect_fail "BenchmarkRun bad enum" 'Unsupported value: "always"' apply -f "$inv/bad-enum.yaml"
    [ -f "$inv/unknown-field.yaml" ] && expect_fail "BenchmarkRun unknown field" 'strict decoding error: unknown field' apply -f "$inv/unknown-field.yaml"
    # every example is accepted, every invalid fixture refused (schema and CEL rules)
    kubectl create namespace examples >/dev/null
    for f in "$ROOT"/examples/*.yaml; do
        [ -e "$f" ] || continue
        kubectl -n examples apply -f "$f" >"$TMP/out" 2>&1 || { cat "$TMP/out" >&2; fail "example $(basename "$f") refused"; }
    done
    for f in "$inv"/*.yaml; do
        [ -e "$f" ] || continue
        if kubectl -n examples apply -f "$f" >"$TMP/out" 2>&1; then fail "invalid fixture $(basename "$f") accepted"; fi
        grep -Eq 'is invalid|strict decoding error' "$TMP/out" || { cat "$TMP/out" >&2; fail "$(basename "$f"): not a validation error"; }
    done
fi

pass "kubectl ${kubectls[*]##*/}"
