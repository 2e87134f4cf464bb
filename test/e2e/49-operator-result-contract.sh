#!/usr/bin/env bash
# The result contract end to end: a pgbench run of 2 workers against a primary with a streaming
# replica, every diagnostic on, through the real runner, the aggregate and the (simulated) API
# server. Every status field the contract table (pkg/bench/fields.c) marks "always" or
# "diagnostics" must be in the BenchmarkRun's status, typed as the table says. The test reads the
# table (pgbench-gen-contract json), so a row added there is checked without editing this file.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_replica
env_start_sim

env_kubectl apply -f "$ROOT/crds/benchmarkrun.yaml" >/dev/null
env_kubectl create secret generic pg-pass --from-literal=password="$PGPASSWORD" >/dev/null
env_bg operator "$BIN/pgbench-operator" --kubeconfig "$KUBECONFIG" --start-delay 2 \
    --metrics-addr 0 >/dev/null

cat <<EOF | env_kubectl apply -f - >/dev/null
apiVersion: pgbench.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: contract}
spec:
  target: {host: 127.0.0.1, port: $PGPORT, database: $PGDATABASE, user: $PGUSER,
           passwordSecretRef: {name: pg-pass}, sslMode: disable}
  workload:
    pgbench:
      init: {scale: 2}
      run: {clients: 4, threads: 2, durationSeconds: 4, perStatementLatencies: true, progressSeconds: 1}
  workers: 2
  diagnostics: {waitEvents: true, serverSettings: true, replicaLag: true}
EOF

deadline=$((SECONDS + 150))
until [ "$(env_kubectl get br contract -o jsonpath='{.status.phase}')" = Succeeded ]; do
    phase="$(env_kubectl get br contract -o jsonpath='{.status.phase}')"
    [ "$phase" != Failed ] || { env_kubectl get br contract -o yaml >&2; fail "run failed"; }
    [ "$SECONDS" -lt "$deadline" ] || { env_kubectl get br contract -o yaml >&2; fail "not Succeeded in time"; }
    sleep 0.5
done

# the README's question, answered from kubectl
waits="$(env_kubectl get br contract -o jsonpath='{.status.diagnostics.waitEvents}')"
[ -n "$waits" ] || fail "status.diagnostics.waitEvents is empty"
note "waitEvents: $waits"

env_kubectl get br contract -o json >"$TMP/br.json"
"$BIN/pgbench-gen-contract" json >"$TMP/table.json"
python3 - "$TMP/br.json" "$TMP/table.json" <<'PY' || fail "status does not hold what the contract promises"
import json, sys
st = json.load(open(sys.argv[1]))["status"]
rows = json.load(open(sys.argv[2]))
types = {"number": (int, float), "integer": (int,), "boolean": (bool,), "string": (str,),
         "time": (str,), "map": (dict,), "object": (dict,), "list": (list,),
         "numbers": (list,), "strings": (list,)}

def values(obj, path):
    """Every value at a status path, expanding "x[]" over the list's items."""
    head, sep, rest = path.partition(".")
    if head.endswith("[]"):
        items = obj.get(head[:-2]) if isinstance(obj, dict) else None
        if not isinstance(items, list) or not items:
            return [None]
        return [v for it in items for v in (values(it, rest) if rest else [it])]
    v = obj.get(head) if isinstance(obj, dict) else None
    return values(v, rest) if sep else [v]

problems, checked = [], 0
for r in rows:
    if "status" not in r or r["presence"] not in ("always", "diagnostics"):
        continue
    want = types[r["type"]]
    for v in values(st, r["status"]):
        checked += 1
        if v is None:
            problems.append("missing: status.%s" % r["status"])
        elif not isinstance(v, want) or (r["type"] == "integer" and isinstance(v, float) and v != int(v)) \
                or (r["type"] != "boolean" and isinstance(v, bool)):
            problems.append("status.%s: %r is not %s" % (r["status"], v, r["type"]))
        elif r.get("maxItems") and len(v) > r["maxItems"]:
            problems.append("status.%s: %d items, more than %d" % (r["status"], len(v), r["maxItems"]))
assert not problems, "\n".join(problems)
# the numbers behind the diagnostics are the workers' own, merged
w = st["diagnostics"]["waitEvents"]
assert w["samples"] >= 4 and w["backendSamples"] >= w["samples"], w
shares = w["sharesPct"]
assert abs(sum(shares.values()) - 100) < 1, shares
assert st["diagnostics"]["server"]["inRecovery"] is False
assert st["diagnostics"]["replica"]["caughtUp"] is True, st["diagnostics"]["replica"]
assert len(st["workers"]) == 2
# the workers started together on the barrier: the totals cover the whole run
assert st["window"]["coveragePct"] >= 90 and st["window"]["lateSeconds"] < 1, st["window"]
assert not [c for c in st.get("conditions", []) if c["type"] == "WorkersSkewed" and c["status"] == "True"]
print("checked %d status values against %d contract rows" % (checked, len(rows)))
PY
pass "every promised status field is present and typed"
