#!/usr/bin/env bash
# Issue 15.6: the CloudNativePG shortcut takes the role from the Cluster's Secret. A Cluster
# bootstrapped with `bootstrap.initdb.owner: bench` has a Secret cn-app with username bench: the
# pods get PGUSER (and PGPASSWORD) through secretKeyRef, the operator never reads the Secret, the
# run connects as bench, and status.targetUser says "from Secret cn-app" until the result names
# bench. target.user beside cnpg overrides the Secret's username. Services cn-rw and ov-rw point at
# the throwaway PostgreSQL: the sim's pods resolve them through SIM_HOSTS (env.sh).
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
printf '127.0.0.1 cn-rw ov-rw\n' >"$TMP/hosts"
SIM_HOSTS="$TMP/hosts" env_start_sim --verbose # --verbose: every request in $SIM_LOG, see the end
env_kubectl apply -f "$ROOT/crds/benchmarkrun.yaml" >/dev/null

# what CloudNativePG creates for Cluster cn (owner bench) and ov (owner app, a role that does not
# exist here: the override below must win over it)
for c in cn:bench ov:app; do
    env_kubectl create service clusterip "${c%%:*}-rw" --tcp="$PGPORT:$PGPORT" >/dev/null
    env_kubectl create secret generic "${c%%:*}-app" --type kubernetes.io/basic-auth \
        --from-literal=username="${c#*:}" --from-literal=password="$PGPASSWORD" \
        --from-literal=dbname=app --from-literal=host="${c%%:*}-rw" --from-literal=port=5432 >/dev/null
done
# the oracle: who owns the tables the init creates (dropped first, so the run's init makes them)
env_psql_super -c 'DROP TABLE IF EXISTS pgbench_accounts, pgbench_branches, pgbench_tellers, pgbench_history' \
    >/dev/null 2>&1

env_start_operator

run() { # NAME CLUSTER [USER]
    cat <<EOF
apiVersion: pgbench.dev/v1alpha1
kind: BenchmarkRun
metadata:
  name: $1
spec:
  target:
    cnpg: {clusterName: $2}
    port: $PGPORT
    database: bench
    sslMode: disable${3:+
    user: $3}
  workload:
    pgbench:
      init: {scale: 1}
      run: {clients: 2, durationSeconds: 3}
  workers: 1
EOF
}
run owner cn | env_apply -

# until a result names the role, status says where it comes from, never a guessed name
user_set() { # NAME: sets first to status.targetUser; true once it is written
    first="$(env_status "$1" .status.targetUser)"
    [ -n "$first" ]
}
env_wait_for "owner's status.targetUser" 60 user_set owner
[ "$first" = "from Secret cn-app" ] || fail "status.targetUser before any result: '$first', want 'from Secret cn-app'"

env_wait_phase owner Succeeded 120
env_kubectl get br owner -o json >"$TMP/br.json"
env_kubectl get jobs -o json >"$TMP/jobs.json"
python3 - "$TMP/br.json" "$TMP/jobs.json" <<'PY' || fail "status or Jobs"
import json, sys
st = json.load(open(sys.argv[1]))["status"]
assert st["phase"] == "Succeeded", st["phase"]
assert st["targetUser"] == "bench", st.get("targetUser")
assert st["summary"]["tps"] > 0, st["summary"]
jobs = {j["metadata"]["name"]: j for j in json.load(open(sys.argv[2]))["items"]}
assert set(jobs) >= {"owner-init", "owner-run"}, sorted(jobs)
for name in ("owner-init", "owner-run"):
    c = jobs[name]["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e for e in c["env"]}
    assert env["PGUSER"] == {"name": "PGUSER", "valueFrom": {"secretKeyRef": {"name": "cn-app", "key": "username"}}}, env["PGUSER"]
    assert env["PGPASSWORD"]["valueFrom"]["secretKeyRef"] == {"name": "cn-app", "key": "password"}, env["PGPASSWORD"]
    assert env["PGHOST"]["value"] == "cn-rw" and env["PGDATABASE"]["value"] == "bench", env
    assert "--user" not in c["args"] and "bench" not in c["args"], c["args"]
PY
owner="$(env_psql_super -At -c "SELECT tableowner FROM pg_tables WHERE tablename = 'pgbench_accounts'")"
[ "$owner" = bench ] || fail "pgbench_accounts is owned by '$owner', want bench (the Secret's username)"
note "cnpg cn: PGUSER from cn-app/username, tables owned by $owner, status.targetUser $(env_status owner .status.targetUser)"

# target.user beside cnpg: the override wins over the Secret's username (app, no such role here)
run override ov bench | env_apply -
env_wait_for "override's status.targetUser" 60 user_set override
[ "$first" = bench ] || fail "override: status.targetUser '$first' at the start, want bench"
env_wait_phase override Succeeded 120
[ "$(env_status override .status.targetUser)" = bench ] || fail "override: targetUser $(env_status override .status.targetUser)"
env_kubectl get job override-run -o jsonpath='{.spec.template.spec.containers[0].env[?(@.name=="PGUSER")]}' >"$TMP/pguser.json"
python3 -c 'import json, sys; e = json.load(open(sys.argv[1])); assert e == {"name": "PGUSER", "value": "bench"}, e' \
    "$TMP/pguser.json" || fail "override: PGUSER $(cat "$TMP/pguser.json")"

# the operator never asked the API server for a Secret (the sim logs every request with its agent)
grep -q 'ua=pgbench-operator' "$SIM_LOG" || fail "no operator request in $SIM_LOG: the check below would see nothing"
if grep 'ua=pgbench-operator' "$SIM_LOG" | grep -q '/secrets'; then
    fail "the operator requested Secrets: $(grep 'ua=pgbench-operator' "$SIM_LOG" | grep -m1 '/secrets')"
fi
pass "cnpg: user from the Secret's username through secretKeyRef (status: from Secret, then bench); target.user overrides"
