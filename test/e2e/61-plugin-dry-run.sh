#!/usr/bin/env bash
# kubectl pgbench run --dry-run: client needs no cluster and prints the BenchmarkRun with the Jobs
# the operator would create, built by the operator's own manifest code; applied with real kubectl
# (in a namespace the operator does not watch) they are the objects the operator creates for the
# same BenchmarkRun (Job specs compared, the start barrier aside). --dry-run=server has the API
# server validate every object and creates nothing.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_sim
export PATH="$BIN:$PATH"

args=(--name same --host 127.0.0.1 --port "$PGPORT" --user "$PGUSER" --password-secret pg-pass
    --db-name "$PGDATABASE" --sslmode disable --init -s 1 --workers 2 --ttl 1h
    -- -c 5 -j 2 -T 2 -P 1 -r -D tag=x)

# -o: the program make test built (sanitized) is installed as it is, never relinked with other CFLAGS
# ---- make install-plugin and the krew manifest
make -s -C "$ROOT" BUILD="$BUILD" -o "$BUILD/bin/kubectl-pgbench" install-plugin PREFIX="$TMP/prefix" >/dev/null || fail "make install-plugin"
PATH="$TMP/prefix/bin:/usr/bin:/bin" kubectl plugin list 2>/dev/null | grep -q "$TMP/prefix/bin/kubectl-pgbench" ||
    fail "kubectl does not find the installed plugin"
python3 - "$ROOT/plugins/pgbench.yaml" <<'PY' || fail "krew manifest"
import sys, yaml
m = yaml.safe_load(open(sys.argv[1]))
assert m["kind"] == "Plugin" and m["metadata"]["name"] == "pgbench"
for p in m["spec"]["platforms"]:
    assert p["bin"] == "bin/kubectl-pgbench" and len(p["sha256"]) == 64
PY

# ---- client: no cluster at all
KUBECONFIG=/nonexistent kubectl-pgbench run --dry-run=client -n default "${args[@]}" >"$TMP/default.yaml" ||
    fail "--dry-run=client needs a cluster"
KUBECONFIG=/nonexistent kubectl-pgbench run --dry-run=client -n plain -o json "${args[@]}" >"$TMP/plain.json" ||
    fail "--dry-run=client -o json"
kubectl-pgbench run --dry-run=client -n x --name sel --host db --user u --node-selector disk=ssd \
    --node-selector zone=a -- -T 5 | grep -A2 'nodeSelector:' >"$TMP/sel.txt" || fail "node selector"
grep -q 'disk: ssd' "$TMP/sel.txt" && grep -q 'zone: a' "$TMP/sel.txt" || fail "nodeSelector: $(cat "$TMP/sel.txt")"
python3 - "$TMP/default.yaml" <<'PY' || fail "dry-run output"
import sys, yaml
docs = list(yaml.safe_load_all(open(sys.argv[1])))
assert [(d["kind"], d["metadata"]["name"]) for d in docs] == [
    ("BenchmarkRun", "same"), ("Job", "same-init"), ("Job", "same-run")], docs
run = docs[2]["spec"]
assert "ownerReferences" not in docs[2]["metadata"]
assert run["completionMode"] == "Indexed" and run["parallelism"] == 2 and run["ttlSecondsAfterFinished"] == 3600
env = {e["name"]: e for e in run["template"]["spec"]["containers"][0]["env"]}
assert env["PGPASSWORD"]["valueFrom"]["secretKeyRef"] == {"name": "pg-pass", "key": "password"}
assert env["BENCH_CLIENTS_BY_INDEX"]["value"] == "3,2"
args = run["template"]["spec"]["containers"][0]["args"]
assert args[-3:] == ["--", "-D", "tag=x"], args
PY

env_kubectl apply -f "$ROOT/crds/benchmarkrun.yaml" >/dev/null
env_kubectl create secret generic pg-pass --from-literal=password="$PGPASSWORD" >/dev/null
env_kubectl create namespace plain >/dev/null
env_kubectl -n plain create secret generic pg-pass --from-literal=password="$PGPASSWORD" >/dev/null

# ---- server: every object validated, nothing created
kubectl pgbench run --dry-run=server -n default -o json "${args[@]}" >"$TMP/server.json" ||
    fail "--dry-run=server"
python3 - "$TMP/server.json" <<'PY' || fail "--dry-run=server output"
import json, sys
items = json.load(open(sys.argv[1]))["items"]
assert [i["kind"] for i in items] == ["BenchmarkRun", "Job", "Job"], items
# the server's answers: defaults filled in (the CRD's and the Job's)
assert items[0]["spec"]["cleanupPolicy"] == "Keep"  # no --cleanup: the CRD's default
assert items[2]["spec"]["template"]["spec"]["containers"][0]["terminationMessagePath"]
PY
[ -z "$(env_kubectl get br,jobs -A -o name)" ] || fail "--dry-run=server created objects"
rc=0
kubectl pgbench run --dry-run=server -n nowhere "${args[@]}" >/dev/null 2>"$TMP/err" || rc=$?
[ "$rc" -ne 0 ] || fail "--dry-run=server into a missing namespace succeeded"

# ---- the operator (watching default only) creates its Jobs for the same BenchmarkRun
# --start-delay as the plugin's default: it is in the run Job's activeDeadlineSeconds
env_start_operator --namespace default --start-delay 10
python3 -c '
import sys, yaml
docs = list(yaml.safe_load_all(open(sys.argv[1])))
yaml.safe_dump(docs[0], sys.stdout)' "$TMP/default.yaml" | env_kubectl apply -f - >/dev/null
env_wait_for "the operator's run Job" 90 env_kubectl get job same-run -n default
# ---- and real kubectl applies the whole dry-run output in namespace plain (after the operator's
# init, so that two pgbench -i do not race on one database)
env_kubectl apply -f "$TMP/plain.json" >"$TMP/applied.txt" || fail "kubectl apply of the dry-run output"
grep -q 'job.batch/same-run created' "$TMP/applied.txt" || fail "apply: $(cat "$TMP/applied.txt")"
for ns in default plain; do
    env_kubectl get job same-init same-run -n "$ns" -o json >"$TMP/jobs-$ns.json"
done
python3 - "$TMP/jobs-default.json" "$TMP/jobs-plain.json" <<'PY' || fail "the dry-run's Jobs differ from the operator's"
import json, sys

def norm(job):
    spec = json.loads(json.dumps(job["spec"]))
    # what the API server and the Job controller set per object
    spec.pop("selector", None)
    labels = spec["template"]["metadata"]["labels"]
    for k in list(labels):
        if "controller-uid" in k or k.endswith("job-name"):
            del labels[k]
    env = spec["template"]["spec"]["containers"][0]["env"]
    at = {e["name"]: e.get("value") for e in env}
    if "BENCH_DEADLINE_AT" in at:  # counts from when each Job was made (the start delay later)
        for e in env:
            if e["name"] == "BENCH_DEADLINE_AT":
                e["value"] = "?"
    # target.connectRetrySeconds counts from the run's creation (each run was made at its time)
    args = spec["template"]["spec"]["containers"][0]["args"]
    for i, a in enumerate(args[:-1]):
        if a == "--wait-from":
            args[i + 1] = "?"
    meta = job["metadata"]
    # the dry run's children have no ownerReference (no uid before the server creates the run)
    return {"name": meta["name"], "labels": meta["labels"], "spec": spec}

op = [norm(j) for j in json.load(open(sys.argv[1]))["items"]]
dry = [norm(j) for j in json.load(open(sys.argv[2]))["items"]]
for a, b in zip(op, dry):
    if a != b:
        print(json.dumps(a, indent=1, sort_keys=True), json.dumps(b, indent=1, sort_keys=True), sep="\n-----\n")
        sys.exit(1)
print("%d Jobs identical" % len(op))
PY
pass "dry-run client (no cluster) and server; applied, the same Jobs as the operator's"
