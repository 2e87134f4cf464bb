#!/usr/bin/env bash
# HPA lifecycle: the autoscaling/v2 HPA is created before the load (after checking its scale
# target exists), the target's replicas are recorded in status.hpaTimeline while the run goes
# (driven by the sim's scripted scaler), and the HPA is deleted afterwards unless keep is set.
# A missing scale target fails the run with a clear condition and creates nothing.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_sim

env_apply <<EOF
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: pg-replicas}
spec:
  replicas: 1
  serviceName: pg-replicas
  selector: {matchLabels: {app: pg-replicas}}
  template:
    metadata: {labels: {app: pg-replicas}}
    spec:
      containers: [{name: postgres, image: postgres:15}]
EOF
env_start_operator

br() { # name duration keep target
    env_br_yaml "$1" "pgbench: {init: {scale: 1}, run: {clients: 2, durationSeconds: $2, builtin: select-only, connect: true}}"
    cat <<EOF
  hpa:
    scaleTargetRef: {apiVersion: apps/v1, kind: StatefulSet, name: $4}
    minReplicas: 1
    maxReplicas: 3
    targetCPUUtilizationPercentage: 50
    behavior: {scaleUp: {stabilizationWindowSeconds: 0}}
    keep: $3
EOF
}

# 1. scale target missing: refused with a clear condition, no children
br nohpa 5 false does-not-exist | env_apply
env_wait_phase nohpa Failed 30
reason="$(env_kubectl get br nohpa -o jsonpath='{.status.conditions[?(@.type=="Failed")].reason}')"
msg="$(env_kubectl get br nohpa -o jsonpath='{.status.conditions[?(@.type=="Failed")].message}')"
[ "$reason" = ScaleTargetNotFound ] || fail "reason $reason"
echo "$msg" | grep -q 'spec.hpa.scaleTargetRef: StatefulSet "does-not-exist" not found' || fail "message: $msg"
env_kubectl get job nohpa-init >/dev/null 2>&1 && fail "a Job was created for a refused run"
env_kubectl get hpa nohpa-hpa >/dev/null 2>&1 && fail "an HPA was created for a refused run"

# 2. lifecycle: HPA exists during the run, replicas 1 -> 2 -> 3 recorded, HPA deleted after
br scaled 14 false pg-replicas | env_apply
env_wait_for "HPA scaled-hpa" 60 env_kubectl get hpa scaled-hpa
phase="$(env_status scaled .status.phase)"
[ "$phase" = Running ] || fail "HPA exists but the run is $phase"
kind="$(env_kubectl get hpa scaled-hpa -o jsonpath='{.spec.scaleTargetRef.kind}/{.spec.scaleTargetRef.name}/{.spec.maxReplicas}/{.metadata.ownerReferences[0].kind}')"
[ "$kind" = "StatefulSet/pg-replicas/3/BenchmarkRun" ] || fail "HPA spec: $kind"
env_kubectl get hpa scaled-hpa -o jsonpath='{.spec.metrics[0].resource.target.averageUtilization}' | grep -qx 50 || fail "HPA CPU target"
env_kubectl create --raw /sim/hpa-script -f - >/dev/null <<EOF
{"namespace":"default","name":"scaled-hpa","steps":[{"afterSeconds":3,"replicas":2},{"afterSeconds":7,"replicas":3}]}
EOF
env_wait_phase scaled Succeeded 90
env_kubectl get br scaled -o json >"$TMP/scaled.json"
python3 - "$TMP/scaled.json" <<'PY' || fail "hpaTimeline check failed"
import json, sys
st = json.load(open(sys.argv[1]))["status"]
tl = st["hpaTimeline"]
reps = [p["replicas"] for p in tl]
assert reps[0] == 1, reps
assert 2 in reps and reps[-1] == 3, reps
assert reps == sorted(reps), reps
assert all(p["time"].endswith("Z") for p in tl), tl
print("replica timeline", reps)
PY
hpa_gone() { ! env_kubectl get hpa "$1" >/dev/null 2>&1; }
env_wait_for "HPA deleted after the run" 20 hpa_gone scaled-hpa

# 3. keep: true leaves the HPA in place
env_kubectl patch statefulset pg-replicas --type merge -p '{"spec":{"replicas":1}}' >/dev/null
br kept 3 true pg-replicas | env_apply
env_wait_phase kept Succeeded 90
sleep 1
env_kubectl get hpa kept-hpa >/dev/null 2>&1 || fail "HPA with keep: true was deleted"
pass "HPA created before the load, replicas recorded, deleted after (kept when asked)"
