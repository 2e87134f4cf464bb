#!/usr/bin/env bash
# kubectl pgbench fio: presets as spec fio jobs (wal: buffered write, bs 8k, fdatasync 1, sync engine), --dry-run=client
# prints the PVC and Job the operator would create, --wait runs real fio through the operator on the
# simulated cluster's hostpath StorageClass and ends with the per-job table; refused flags named.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_sim
export PATH="$BIN:$PATH" KUBECTL_PGBENCH_POLL_MS=300

KUBECONFIG=/nonexistent kubectl pgbench fio disk --storage-class fast --size 2Gi --preset wal \
    --dry-run=client -o json >"$TMP/dry.json" || fail "fio --dry-run=client"
python3 - "$TMP/dry.json" <<'PY' || fail "fio dry run"
import json, sys
items = json.load(open(sys.argv[1]))["items"]
assert [(i["kind"], i["metadata"]["name"]) for i in items] == [
    ("BenchmarkRun", "disk"), ("PersistentVolumeClaim", "disk-fio"), ("Job", "disk-run")], items
fio = items[0]["spec"]["workload"]["fio"]
assert fio["storageClassName"] == "fast" and fio["volumeSize"] == "2Gi"
assert fio["jobs"] == [{"name": "wal", "rw": "write", "bs": "8k", "iodepth": 1, "numjobs": 1,
                        "fdatasync": 1, "ioengine": "sync", "direct": False}], fio
assert items[1]["spec"]["storageClassName"] == "fast"
args = items[2]["spec"]["template"]["spec"]["containers"][0]["args"]
assert "--fdatasync" in args and args[args.index("--rw") + 1] == "write", args
PY
kubectl pgbench fio all --storage-class fast --dry-run=client -o json |
    python3 -c 'import json,sys; j=json.load(sys.stdin)["items"][0]["spec"]["workload"]["fio"]["jobs"]; assert [x["name"] for x in j]==["wal","random-read","random-rw"], j' ||
    fail "the default preset is all three"

refuse() { env_plugin_refuses "$@"; } # WANT ARGS...
refuse '--preset "seq"' fio d --storage-class fast --preset seq --dry-run=client
refuse "--storage-class is required" fio d --dry-run=client
refuse "a NAME is required" fio --storage-class fast --dry-run=client
refuse "unknown flag --rw" fio d --storage-class fast --rw read --dry-run=client
refuse '--runtime "0"' fio d --storage-class fast --runtime 0 --dry-run=client
refuse "volumeSize" fio d --storage-class fast --size 1Mi --dry-run=client

env_kubectl apply -f - >/dev/null <<EOF
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: sim.pgbench.dev/hostpath
EOF
env_start_operator --start-delay 0 --log-level info
# tmpfs has no O_DIRECT: buffered, psync
kubectl pgbench fio disk --storage-class fast --size 1Gi --file-size 16m --runtime 2 \
    --ioengine psync --buffered --wait >"$TMP/out" 2>&1 || { cat "$TMP/out" >&2; fail "fio --wait"; }
cat "$TMP/out" >&2
grep -q '^benchmarkrun disk: Succeeded' "$TMP/out" || fail "no result"
grep -Eq '^  JOB +READ IOPS +WRITE IOPS' "$TMP/out" || fail "no fio table"
grep -Eq '^  wal +- +[0-9.]+ ' "$TMP/out" || fail "no wal row with write IOPS"
grep -Eq '^  random-read +[0-9.]+ ' "$TMP/out" || fail "no random-read row"
pass "fio presets, dry run, refused flags, and a real fio run followed to its table"
