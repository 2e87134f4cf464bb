#!/usr/bin/env bash
# A fio BenchmarkRun: the operator creates a PVC of the requested StorageClass and a Job that runs
# the real runner (real fio) on it; the result lands in status.fio; with cleanupPolicy Delete the
# Jobs and the PVC are removed once finished while the results stay in status. A run whose
# StorageClass does not exist stays Running with its pod unschedulable (as on a real cluster).
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_sim
env_apply <<EOF
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: sim.pgbench.dev/hostpath
EOF
# namespace-scoped: --namespace default (a run in another namespace is not this operator's)
env_start_operator --start-delay 0 --namespace default
env_kubectl create namespace other >/dev/null
cat <<EOF | env_apply - -n other
apiVersion: pgbench.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: elsewhere}
spec:
  workload: {fio: {jobs: [{name: a, rw: read, size: 1m, runtimeSeconds: 1}]}}
EOF

cat <<EOF | env_apply
apiVersion: pgbench.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: disk}
spec:
  workload:
    fio:
      storageClassName: fast
      volumeSize: 1Gi
      jobs:
        - {name: wal, rw: write, bs: 8k, iodepth: 1, size: 16m, runtimeSeconds: 2, direct: false, ioengine: psync, fdatasync: 1}
        - {name: randread, rw: randread, bs: 8k, iodepth: 4, size: 16m, runtimeSeconds: 2, direct: false, ioengine: psync}
  cleanupPolicy: Delete
EOF
env_wait_for "PVC disk-fio" 30 env_kubectl get pvc disk-fio
sc="$(env_kubectl get pvc disk-fio -o jsonpath='{.spec.storageClassName}/{.spec.resources.requests.storage}/{.metadata.ownerReferences[0].kind}')"
[ "$sc" = "fast/1Gi/BenchmarkRun" ] || fail "PVC: $sc"
env_wait_phase disk Succeeded 120
env_kubectl get br disk -o json >"$TMP/disk.json"
env_result_json disk >"$TMP/disk-result.json"
python3 - "$TMP/disk.json" "$TMP/disk-result.json" <<'PY' || fail "fio status check failed"
import json, sys
st = json.load(open(sys.argv[1]))["status"]
row = json.load(open(sys.argv[2]))["workers"][0]  # the row, in the result ConfigMap
jobs = {j["job"]: j for j in st["fio"]}
assert set(jobs) == {"wal", "randread"}, jobs
assert jobs["wal"]["writeIops"] > 0, jobs["wal"]
assert jobs["randread"]["readIops"] > 0, jobs["randread"]
# latencies are groups in microseconds, by percentile, as in the result (fio.jobs[].sync.p99)
assert jobs["wal"]["syncUs"]["p99"] > 0 and jobs["wal"]["writeClatUs"]["p99"] > 0, jobs["wal"]
assert jobs["randread"]["readClatUs"]["p99"] > 0 and "syncUs" not in jobs["randread"], jobs["randread"]
# RESULT reads them: a job that synced shows its sync p99, the other its clat p99
parts = st["result"].split("; ")
assert len(parts) == 2 and parts[0].startswith("wal ") and " IOPS · sync p99 " in parts[0], st["result"]
assert parts[1].startswith("randread ") and " IOPS · p99 " in parts[1], st["result"]
assert row["complete"] is True and row["pod"].startswith("disk-run-0-"), row
assert st["workers"] == ["0 %s on node %s: ok" % (row["pod"], row["node"])], st["workers"]
print(st["message"])
PY
gone() { ! env_kubectl get "$1" "$2" >/dev/null 2>&1; }
env_wait_for "run Job deleted (cleanupPolicy Delete)" 30 gone job disk-run
env_wait_for "PVC deleted (cleanupPolicy Delete)" 30 gone pvc disk-fio
[ "$(env_status disk .status.phase)" = Succeeded ] || fail "status lost after cleanup"
[ -n "$(env_status disk .status.fio[0].job)" ] || fail "results lost after cleanup"

# a missing StorageClass: the pod cannot be scheduled, the run waits (Running), nothing fails
cat <<EOF | env_apply
apiVersion: pgbench.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: noclass}
spec:
  workload:
    fio:
      storageClassName: does-not-exist
      jobs: [{name: a, rw: read, size: 1m, runtimeSeconds: 1}]
EOF
env_wait_phase noclass Running 30
sleep 3
[ "$(env_status noclass .status.phase)" = Running ] || fail "noclass left Running: $(env_status noclass .status.phase)"
[ -z "$(env_status other/elsewhere .status.phase)" ] ||
    fail "a run outside --namespace was reconciled"
env_kubectl get jobs -n other -o name | grep -q . && fail "a Job was created outside --namespace"
pass "fio: PVC + Job, results in status, cleaned up; namespace-scoped"
