#!/usr/bin/env bash
# Example 06 (managed PostgreSQL over TLS) with its TLS settings kept: the local PostgreSQL
# serves a certificate from a private CA and refuses non-TLS connections of the benchmark role;
# the BenchmarkRun uses sslMode verify-full with the CA from a Secret (caSecretRef), which the
# operator mounts and points PGSSLROOTCERT at. A second run with the wrong CA must fail, naming
# the certificate problem. (The other examples run with SHRINK_TLS=disable in 53.)
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
cd "$ROOT"
env_start_pg
env_start_sim
env_need_runner

# a private CA and a server certificate for "localhost"
mkdir -p "$TMP/tls"
cd "$TMP/tls"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=pgbo test CA" \
    -keyout ca.key -out ca.crt >/dev/null 2>&1 || fail "CA"
openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout server.key -out server.csr \
    >/dev/null 2>&1 || fail "server CSR"
printf 'subjectAltName=DNS:localhost\n' >ext.cnf
openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
    -extfile ext.cnf -out server.crt >/dev/null 2>&1 || fail "server cert"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=another CA" \
    -keyout other.key -out other.crt >/dev/null 2>&1 || fail "other CA"
cd "$ROOT"
install -o postgres -g postgres -m 0600 "$TMP/tls/server.key" "$PG_DATADIR/server.key"
install -o postgres -g postgres -m 0644 "$TMP/tls/server.crt" "$PG_DATADIR/server.crt"
# the benchmark role may only connect over TLS
sed -i '1i hostnossl all bench 127.0.0.1/32 reject' "$PG_DATADIR/pg_hba.conf"
env_psql_super -d postgres -c "ALTER SYSTEM SET ssl = on" -c "SELECT pg_reload_conf()" >/dev/null ||
    fail "enable ssl"
sleep 0.5
PGSSLMODE=disable psql -X -h 127.0.0.1 -c 'select 1' >/dev/null 2>&1 && fail "plain connection still accepted"
PGSSLMODE=verify-full PGSSLROOTCERT="$TMP/tls/ca.crt" psql -X -h localhost -c 'select 1' >/dev/null ||
    fail "verify-full with the CA does not work outside the cluster either"

k apply -f crds/benchmarkrun.yaml >/dev/null
k wait --for=condition=Established crd/benchmarkruns.pgbench.dev --timeout=20s >/dev/null
k create secret generic managed-pg --from-literal=password="$PGPASSWORD" --dry-run=client -o yaml | k apply -f - >/dev/null
k create secret generic managed-pg-ca --from-file=ca.crt="$TMP/tls/ca.crt" --dry-run=client -o yaml | k apply -f - >/dev/null
k create secret generic wrong-ca --from-file=ca.crt="$TMP/tls/other.crt" --dry-run=client -o yaml | k apply -f - >/dev/null

env_start_operator --log-level info

SHRINK_TLS=keep SHRINK_HOST=localhost scripts/shrink-example.py examples/06-managed-tls.yaml >"$TMP/tls.yaml"
grep -q "sslMode: verify-full" "$TMP/tls.yaml" && grep -q "name: managed-pg-ca" "$TMP/tls.yaml" ||
    fail "override dropped the TLS settings: $(cat "$TMP/tls.yaml")"
sed -e 's/name: managed-tls$/name: managed-tls-wrong-ca/' -e 's/name: managed-pg-ca$/name: wrong-ca/' \
    "$TMP/tls.yaml" >"$TMP/wrong.yaml"
env_apply "$TMP/tls.yaml"
env_apply "$TMP/wrong.yaml"

env_wait_phase managed-tls Succeeded 180
tps="$(env_status managed-tls .status.summary.tps)"
awk -v t="$tps" 'BEGIN{exit !(t > 0)}' || fail "no TPS over TLS"
mode="$(k get job managed-tls-run -o jsonpath='{.spec.template.spec.containers[0].env[?(@.name=="PGSSLMODE")].value}')"
[ "$mode" = verify-full ] || fail "PGSSLMODE in the Job: $mode"
k get job managed-tls-run -o json | grep -q PGSSLROOTCERT || fail "no PGSSLROOTCERT in the Job"

env_wait_phase managed-tls-wrong-ca Failed 180
msg="$(env_status managed-tls-wrong-ca .status.message)"
note "wrong CA: $msg"
grep -qiE "certificate verify failed|certificate" <<<"$msg" || fail "the failure does not name the TLS problem: $msg"
pass "verify-full with caSecretRef: $tps tps over TLS; a wrong CA fails with: ${msg:0:200}"
