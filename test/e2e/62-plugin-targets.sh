#!/usr/bin/env bash
# kubectl pgbench run's distribution targets against objects shaped like each operator's
# (Services and Secrets as Bitnami postgresql standalone/replication, postgresql-ha, StackGres,
# Zalando and CloudNativePG create them): host, Secret, key and user as docs/spec.md's table says,
# Bitnami's architecture found from its Services, and a clear message when an expected object or
# Secret key is missing. --dry-run=server: the API server validates, nothing is created.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_sim
export PATH="$BIN:$PATH"
env_kubectl apply -f "$ROOT/crds/benchmarkrun.yaml" >/dev/null

svc() { for s in "$@"; do env_kubectl create service clusterip "$s" --tcp=5432:5432 >/dev/null; done; }
secret() {
    local name="$1"
    shift
    local args=()
    for k in "$@"; do args+=(--from-literal="$k=x"); done
    env_kubectl create secret generic "$name" "${args[@]}" >/dev/null
}
# Bitnami postgresql, release bn (standalone) and br (architecture: replication)
svc bn-postgresql bn-postgresql-hl
secret bn-postgresql password postgres-password
svc br-postgresql-primary br-postgresql-read
secret br-postgresql password postgres-password replication-password
# Bitnami postgresql-ha, release ha
svc ha-postgresql-ha-pgpool ha-postgresql-ha-postgresql
secret ha-postgresql-ha-postgresql password repmgr-password
# StackGres SGCluster sg
svc sg sg-primary sg-replicas
secret sg superuser-username superuser-password replication-password
# Zalando postgresql zl
svc zl zl-repl
secret postgres.zl.credentials.postgresql.acid.zalan.do username password
secret app-user.zl.credentials.postgresql.acid.zalan.do username password
# CloudNativePG Cluster cn
svc cn-rw cn-ro cn-r
secret cn-app username password

# flags | host | secret | key | user   (docs/spec.md, "Expressing other PostgreSQL distributions")
cases=(
    "--bitnami bn|bn-postgresql|bn-postgresql|postgres-password|postgres"
    "--bitnami bn --user app|bn-postgresql|bn-postgresql|password|app"
    "--bitnami br|br-postgresql-primary|br-postgresql|postgres-password|postgres"
    "--bitnami br --service ro|br-postgresql-read|br-postgresql|postgres-password|postgres"
    "--bitnami ha|ha-postgresql-ha-pgpool|ha-postgresql-ha-postgresql|password|postgres"
    "--stackgres sg|sg|sg|superuser-password|postgres"
    "--stackgres sg --service ro|sg-replicas|sg|superuser-password|postgres"
    "--zalando zl|zl|postgres.zl.credentials.postgresql.acid.zalan.do|password|postgres"
    "--zalando zl --user app_user --service ro|zl-repl|app-user.zl.credentials.postgresql.acid.zalan.do|password|app_user"
)
for c in "${cases[@]}"; do
    IFS='|' read -r flags host secret key user <<<"$c"
    # shellcheck disable=SC2086
    kubectl pgbench run $flags --name t --dry-run=server -o json -- -c 1 -T 5 >"$TMP/out.json" 2>"$TMP/err" ||
        fail "$flags: $(cat "$TMP/err")"
    got="$(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["items"][0]["spec"]["target"]
print("%s|%s|%s|%s" % (t["host"], t["passwordSecretRef"]["name"], t["passwordSecretRef"]["key"], t["user"]))' "$TMP/out.json")"
    [ "$got" = "$host|$secret|$key|$user" ] || fail "$flags: got $got, want $host|$secret|$key|$user"
    note "$flags -> $got"
done
# CloudNativePG: the spec's own shortcut
kubectl pgbench run --cnpg cn --service ro --name t --dry-run=server -o json -- -T 5 >"$TMP/out.json" ||
    fail "--cnpg"
python3 -c '
import json, sys
items = json.load(open(sys.argv[1]))["items"]
assert items[0]["spec"]["target"]["cnpg"] == {"clusterName": "cn", "service": "ro", "secret": "app"}, items[0]["spec"]["target"]
assert "user" not in items[0]["spec"]["target"], items[0]["spec"]["target"]
env = {e["name"]: e for e in items[1]["spec"]["template"]["spec"]["containers"][0]["env"]}
assert env["PGHOST"]["value"] == "cn-ro"
# the role is the Secret'"'"'s username, read by the kubelet, as kubectl cnpg pgbench does
assert "value" not in env["PGUSER"], env["PGUSER"]
assert env["PGUSER"]["valueFrom"]["secretKeyRef"] == {"name": "cn-app", "key": "username"}, env["PGUSER"]
assert env["PGPASSWORD"]["valueFrom"]["secretKeyRef"] == {"name": "cn-app", "key": "password"}' "$TMP/out.json" || fail "--cnpg mapping"
# --user with --cnpg overrides the Secret's username
kubectl pgbench run --cnpg cn --user bench --name t --dry-run=server -o json -- -T 5 >"$TMP/out.json" ||
    fail "--cnpg --user"
python3 -c '
import json, sys
items = json.load(open(sys.argv[1]))["items"]
assert items[0]["spec"]["target"]["user"] == "bench", items[0]["spec"]["target"]
env = {e["name"]: e for e in items[1]["spec"]["template"]["spec"]["containers"][0]["env"]}
assert env["PGUSER"] == {"name": "PGUSER", "value": "bench"}, env["PGUSER"]' "$TMP/out.json" || fail "--cnpg --user mapping"
[ -z "$(env_kubectl get br,jobs -o name)" ] || fail "--dry-run=server created objects"

# missing objects and keys are named
refuse() { env_plugin_refuses "$@"; } # WANT ARGS...
refuse "expects Service nope-postgresql" run --bitnami nope --name t -- -T 5
refuse '--service "x": one of rw, ro, r' run --cnpg cn --service x --name t -- -T 5
refuse "expects Service sg2" run --stackgres sg2 --name t -- -T 5
refuse "expects Secret other.zl.credentials.postgresql.acid.zalan.do" run --zalando zl --user other --name t -- -T 5
refuse 'Secret sg has no key "password"' run --stackgres sg --password-secret sg --name t -- -T 5
refuse "a standalone Bitnami postgresql has no read Service" run --bitnami bn --service ro --name t -- -T 5
refuse "--service \"r\": one of rw (the primary), ro" run --stackgres sg --service r --name t -- -T 5
refuse "takes the password from the Cluster's app Secret" run --cnpg cn --password-secret x --name t -- -T 5
secret cn2-app password
svc cn2-rw
refuse 'Secret cn2-app has no key "username"' run --cnpg cn2 --name t -- -T 5
pass "distribution targets as docs/spec.md's table, checked against the cluster's objects"
